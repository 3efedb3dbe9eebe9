-- acmetrace_internal.sacct_parse: one line of sacct --parsable2 output
-- (its 20 fields as text[]) as an acmetrace_internal.sacct_row, and the
-- error of every kind of malformed field.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- A line written with '|' between its fields (an empty field is '').
CREATE FUNCTION pg_temp.p(n bigint, line text) RETURNS acmetrace_internal.sacct_row
LANGUAGE sql AS $$ SELECT acmetrace_internal.sacct_parse(n, string_to_array(line, '|')) $$;

SELECT provolatile, proparallel, proisstrict FROM pg_proc
 WHERE oid = 'acmetrace_internal.sacct_parse(bigint, text[])'::regprocedure;

\x on
-- Completed, 8 GPUs, a day's limit.
SELECT * FROM pg_temp.p(2, '4242|4242|acme|gpu|normal|proj|alice|train_llm|2023-07-01T08:00:00|2023-07-01T08:00:00|2023-07-01T08:05:00|2023-07-01T10:05:00|COMPLETED|0:0|1|16|billing=16,cpu=16,gres/gpu=8,mem=500G,node=1|billing=16,cpu=16,gres/gpu=8,mem=500G,node=1|1-00:00:00|node01');
-- Pending: Unknown times, empty AllocTRES (GPUs, type and memory from ReqTRES), None assigned.
SELECT * FROM pg_temp.p(3, '5001|5001|acme|gpu|normal|proj|bob|sft|2024-02-29T00:00:00|2024-02-29T00:00:00|Unknown|Unknown|PENDING|0:0|1|8|billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=1.50T,node=1||UNLIMITED|None assigned');
-- Cancelled by uid 1000 while running; an array task; killed by signal 9; no mem in AllocTRES: ReqTRES's.
SELECT * FROM pg_temp.p(4, '7005|7000_4|acme|gpu|normal|proj|dan|arr|2023-07-04T00:00:00|2023-07-04T00:00:00|2023-07-04T00:00:01|2023-07-04T00:30:00|CANCELLED by 1000|0:9|2|64|billing=64,cpu=64,gres/gpu:h100=16,mem=4000Mn,node=2|billing=64,cpu=64,gres/gpu:h100=16,node=2|365-00:00:00|node[01-02]');
\x off
-- JobID forms; NULL elements are empty fields.
SELECT slurm_job_id, job_id, state, gpu_num, req_gpus, alloc_gpus, mem_mb, timelimit_s
  FROM unnest(ARRAY['10_[0-2]', '10_[5-9%2]', '10_[1,3-4]', '123+1', '123']) id,
       acmetrace_internal.sacct_parse(5, ARRAY['10', id, 'acme', NULL, NULL, NULL, NULL, NULL, '2023-07-01T00:00:00', NULL, 'None', NULL,
                                            'FAILED', '3:0', '1', '1', 'cpu=1,mem=512K', 'cpu=1,gres/gpu=0', '59:59', NULL]);
SELECT (r).partition IS NULL AS partition_null, (r).submit_time IS NULL AS submit_null, (r).exit_code IS NULL AS exit_null,
       (r).node_num IS NULL AS nodes_null, (r).gpu_num, (r).req_gpus IS NULL AS req_null, (r).mem_mb IS NULL AS mem_null,
       (r).timelimit_s IS NULL AS limit_null, (r).nodelist IS NULL AS nodelist_null
  FROM (SELECT acmetrace_internal.sacct_parse(6, ARRAY['1', '1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                       'RUNNING', NULL, NULL, NULL, NULL, NULL, NULL, NULL]) r) s;
-- The time zone setting does not move a time (timestamp without zone).
SET TimeZone = 'Asia/Shanghai';
SELECT (pg_temp.p(7, '1|1|||||||2023-07-01T08:00:00||||RUNNING|||||||')).submit_time;
SELECT (pg_temp.p(7, '1|1|||||||2023-07-01T08:00:00||||RUNNING|||||||')).submit_time AT TIME ZONE 'UTC' AS utc;
RESET TimeZone;

-- Job steps: sacct ran without --allocations (0A000), named in JobID (or JobIDRaw).
SELECT * FROM pg_temp.p(8, '4242.batch|4242.batch|acme|gpu|normal|proj|alice|batch|2023-07-01T08:05:00|2023-07-01T08:05:00|2023-07-01T08:05:00|2023-07-01T10:05:00|COMPLETED|0:0|1|16||cpu=16,gres/gpu=8,mem=500G,node=1||node01');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM pg_temp.p(8, '4242|123+0.extern||||||||||||||||||');
SELECT * FROM pg_temp.p(8, '4242.0|4242||||||||||||||||||');

-- Every kind of malformed field: the line, the field, the value and a hint.
SELECT * FROM pg_temp.p(9, 'abc|4242||||||||||||||||||');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM pg_temp.p(9, '|4242||||||||||||||||||');
SELECT * FROM pg_temp.p(9, '99999999999999999999|4242||||||||||||||||||');
SELECT * FROM pg_temp.p(10, '4242|10_[2-1]||||||||||||||||||');
SELECT * FROM pg_temp.p(11, '4242|4242|||||||2023-13-01T00:00:00||||COMPLETED|||||||');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM pg_temp.p(11, '4242|4242||||||||2023-02-29T00:00:00|||COMPLETED|||||||');
SELECT * FROM pg_temp.p(11, '4242|4242|||||||||2023-07-01 08:00:00||COMPLETED|||||||');
SELECT * FROM pg_temp.p(11, '4242|4242||||||||||1688198400|COMPLETED|||||||');
SELECT * FROM pg_temp.p(12, '4242|4242|||||||||||DONE|||||||');
SELECT * FROM pg_temp.p(12, '4242|4242|||||||||||CANCELLED by root|||||||');
SELECT * FROM pg_temp.p(12, '4242|4242||||||||||||||||||');
SELECT * FROM pg_temp.p(13, '4242|4242|||||||||||FAILED|256:0||||||');
SELECT * FROM pg_temp.p(14, '4242|4242|||||||||||FAILED||-1|||||');
SELECT * FROM pg_temp.p(14, '4242|4242|||||||||||FAILED|||2147483648||||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED||||cpu=16,gres/gpu=x|||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED|||||cpu=16,mem=500GB||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED|||||cpu||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED|||||cpu=16,||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED||||gres/gpu=1,gres/gpu=2|||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED||||mem=1G,mem=2G|||');
SELECT * FROM pg_temp.p(15, '4242|4242|||||||||||FAILED|||||gres/gpu:a=2147483647,gres/gpu:b=1||');
SELECT * FROM pg_temp.p(16, '4242|4242|||||||||||FAILED||||||24:00:00|');
SELECT * FROM pg_temp.p(16, '4242|4242|||||||||||FAILED||||||INFINITE|');
-- A long value is cut at 64 bytes, never inside a character.
SELECT * FROM pg_temp.p(17, '4242|4242|||||||||||' || repeat('é', 40) || '|||||||');

-- Hostile but well-formed arrays: any lower bound, every element NULL,
-- megabyte fields, any line number.
SELECT (acmetrace_internal.sacct_parse(-1, ('[0:19]={1,1,c,p,q,a,u,n,NULL,NULL,NULL,NULL,RUNNING,NULL,NULL,NULL,NULL,NULL,NULL,NULL}')::text[])).state AS lower_bound_0;
SELECT acmetrace_internal.sacct_parse(9223372036854775807, array_fill(NULL::text, ARRAY[20]));
SELECT length((acmetrace_internal.sacct_parse(19, ARRAY['1', '1', NULL, NULL, NULL, NULL, NULL, repeat('x', 1000000), NULL, NULL, NULL, NULL,
                                                      'RUNNING', NULL, NULL, NULL, NULL, NULL, NULL, NULL])).job_name) AS megabyte_name;
SELECT acmetrace_internal.sacct_parse(19, ARRAY[repeat('9', 1000000), '1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              'RUNNING', NULL, NULL, NULL, NULL, NULL, NULL, NULL]);
SELECT acmetrace_internal.sacct_parse(19, ARRAY['1', '1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              'RUNNING', NULL, NULL, NULL, repeat('gres/gpu:a=1,', 100000) || 'gres/gpu:a=x', NULL, NULL, NULL]);

-- The fields argument: one dimension of 20 texts, never NULL.
SELECT acmetrace_internal.sacct_parse(18, array_fill('x'::text, ARRAY[19]));
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace_internal.sacct_parse(18, array_fill('x'::text, ARRAY[2, 10]));
SELECT acmetrace_internal.sacct_parse(18, '{}');
SELECT acmetrace_internal.sacct_parse(18, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace_internal.sacct_parse(NULL, array_fill('x'::text, ARRAY[20]));
