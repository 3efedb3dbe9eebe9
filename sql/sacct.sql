-- Slurm accounting (sacct output): loading, live updates, job types by
-- rule, and hostile files, each of which is refused whole with an error
-- naming its line and field.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
-- \copy takes its line verbatim (no psql variables), so the options repeat.

-- Types by rule, set before the first load (applied as jobs load).
INSERT INTO acmetrace.job_type_rules (position, cluster, field, pattern, type) VALUES
    (10, NULL, 'partition', '^debug$', 'Debug'),
    (20, NULL, 'job_name', '^pretrain', 'Pretrain'),
    (30, NULL, 'job_name', '^(sft|rlhf)', 'SFT'),
    (40, NULL, 'job_name', '^eval', 'Eval'),
    (50, NULL, 'job_name', 'mllm|llava', 'MLLM');

-- A first sync: 13 jobs, some still running or pending.  The Slurm
-- cluster's name (prod) names the acmetrace cluster.
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT * FROM acmetrace_internal.sacct_last_load();
SELECT cluster, source_format, gpu_capacity, time_zone FROM acmetrace.clusters;
SELECT j.job_id, s.slurm_job_id, j.type, j.state, j.gpu_num, j.node_num, j.cpu_num,
       j.submit_time, j.start_time, j.end_time, j.duration, j.queue, j.gpu_time
  FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs s USING (cluster, job_id)
 ORDER BY j.job_id;
SELECT job_id, partition, qos, account, job_name, cancelled_by, exit_code, exit_signal,
       req_gpus, alloc_gpus, gpu_type, mem_mb, timelimit_s, nodelist
  FROM acmetrace.slurm_jobs ORDER BY job_id;
SELECT count(*) AS staged FROM acmetrace.sacct_jobs;

-- The same window again changes nothing.
CREATE TEMP VIEW fingerprint AS
SELECT (SELECT md5(string_agg(j::text, '|' ORDER BY j.cluster COLLATE "C", j.job_id COLLATE "C")) FROM acmetrace.jobs j)
    || (SELECT md5(string_agg(s::text, '|' ORDER BY s.cluster COLLATE "C", s.job_id COLLATE "C")) FROM acmetrace.slurm_jobs s)
    || (SELECT md5(string_agg(c::text, '|' ORDER BY c.cluster COLLATE "C")) FROM acmetrace.clusters c)
    || (SELECT count(*) FROM acmetrace.sacct_jobs)::text AS fp;
SELECT fp AS before FROM fingerprint \gset
SELECT xmin AS xmin_before FROM acmetrace.jobs WHERE job_id = '1001' \gset
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT * FROM acmetrace_internal.sacct_last_load();
SELECT fp = :'before' AS unchanged, (SELECT xmin = :'xmin_before' FROM acmetrace.jobs WHERE job_id = '1001') AS row_not_rewritten
  FROM fingerprint;

-- The next sync: running jobs ended, the pending array tasks ran.  Each is
-- updated in place: 15 jobs, not 13 + 15.  The pending range 1009_[2-4]
-- (JobIDRaw 1009) became task 1009_4; tasks 2 and 3 got ids of their own.
\copy acmetrace.sacct_jobs FROM 'slurm/sample_later.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT * FROM acmetrace_internal.sacct_last_load();
SELECT count(*) AS jobs, count(DISTINCT job_id) AS distinct_jobs FROM acmetrace.jobs;
SELECT j.job_id, s.slurm_job_id, j.state, j.start_time, j.end_time, j.duration
  FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs s USING (cluster, job_id)
 WHERE j.job_id IN ('1009', '1011', '1012', '1013', '1014', '1015') ORDER BY j.job_id;
-- the summaries follow: the scan and the summaries give the same answer
SELECT * FROM acmetrace.state_breakdown('prod');
SET acmetrace.summaries = off;
SELECT * FROM acmetrace.state_breakdown('prod');
RESET acmetrace.summaries;
SELECT * FROM acmetrace.type_distribution('prod');

-- Rules: re-applied to loaded jobs; a cluster's own rule; a bad pattern.
INSERT INTO acmetrace.job_type_rules VALUES (5, 'prod', 'user', '^frank$', 'Eval');
UPDATE acmetrace.job_type_rules SET pattern = '^(sft)' WHERE position = 30;
SELECT acmetrace.apply_job_type_rules('prod');
SELECT acmetrace.apply_job_type_rules();
SELECT type, count(*) FROM acmetrace.jobs GROUP BY type ORDER BY type;
INSERT INTO acmetrace.job_type_rules VALUES (60, NULL, 'job_name', 'sft(', 'SFT');
INSERT INTO acmetrace.job_type_rules VALUES (60, NULL, 'hostname', 'x', 'SFT');
INSERT INTO acmetrace.job_type_rules VALUES (60, 'Prod', 'job_name', 'x', 'SFT');
SELECT acmetrace.apply_job_type_rules('nosuch');

-- Times in another zone: acmetrace.time_zone, recorded for the cluster.
SET acmetrace.cluster = 'shanghai';
SET acmetrace.time_zone = 'Asia/Shanghai';
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.time_zone;
SELECT c.time_zone, j.submit_time FROM acmetrace.clusters c JOIN acmetrace.jobs j USING (cluster)
 WHERE c.cluster = 'shanghai' AND j.job_id = '1001';
-- appending in another zone is refused
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster;
SELECT acmetrace.drop_cluster('shanghai');
SELECT count(*) AS slurm_rows_left FROM acmetrace.slurm_jobs WHERE cluster = 'shanghai';

-- Hostile files: each is an error naming the line and field, and loads
-- nothing.  Each case changes one field of one line of sample.txt.
SELECT fp AS before FROM fingerprint \gset
-- Hostile files: each is an error naming the line and field, and loads
-- nothing.  Each case sets one field of one line of sample.txt
-- (slurm/mutate.sh FILE LINE FIELD VALUE; line 1 is the header).
SELECT fp AS before FROM fingerprint \gset
-- JobIDRaw is not a number
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 3 1 "12x"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- JobIDRaw is empty
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 3 1 ""' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a job step (sacct without --allocations)
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 4 2 "1003.batch"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a step's JobIDRaw
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 4 1 "1003.0"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- JobID is not a job id
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 5 2 "1004x"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a second Slurm cluster in the file
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 6 3 "other"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Submit: month 13
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 7 9 "2023-13-01T00:00:00"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Eligible is not a time
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 7 10 "yesterday"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Start: 2023 is not a leap year
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 8 11 "2023-02-29T10:00:00"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- End without the T and seconds
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 8 12 "2023-07-01 10:00"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- an unknown State
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 9 13 "EXPLODED"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- State is empty
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 9 13 ""' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- ExitCode without the signal
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 9 14 "1"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- ExitCode over 255
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 9 14 "300:0"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- NNodes negative
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 10 15 "-1"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- NCPUS beyond an integer
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 10 16 "4294967296"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- ReqTRES: a GPU count that is not a number
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 11 17 "cpu=2,gres/gpu=x"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- AllocTRES: an entry without =
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 11 18 "gres/gpu"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- AllocTRES: an unknown memory unit
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 11 18 "cpu=2,mem=12Q"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Timelimit: 61 minutes
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 12 19 "25:61:00"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- Timelimit: a day without the time
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 12 19 "1-"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- JobIDRaw 1001 again (line 2 has it)
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 13 1 "1001"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a wrong header
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 1 9 "Submitted"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a 0x1f inside a job name: a field too many on that line (COPY's error)
\copy acmetrace.sacct_jobs FROM PROGRAM 'sh slurm/mutate.sh slurm/sample.txt 5 8 "$(printf "a\037b")"' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- a truncated last line: fields missing
\copy acmetrace.sacct_jobs FROM PROGRAM 'head -c 1500 slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
-- --parsable2's default | with a | in a job name: the line has a field too many
\copy acmetrace.sacct_jobs FROM 'slurm/sample_pipe.txt' (FORMAT csv, HEADER match, DELIMITER '|', QUOTE E'\x1e')
-- the 0x1f file read with CSV's default comma: the header does not match
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match)
-- jobs of another Slurm cluster into prod: the same job ids, other jobs
SET acmetrace.cluster = 'prod';
\copy acmetrace.sacct_jobs FROM PROGRAM 'sed "s/\x1fprod\x1f/\x1fother\x1f/" slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster;
-- a Slurm cluster name that is not an acmetrace cluster name
\copy acmetrace.sacct_jobs FROM PROGRAM 'sed "s/\x1fprod\x1f/\x1fProd-2\x1f/" slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT fp = :'before' AS unchanged, (SELECT count(*) FROM acmetrace.sacct_jobs) AS staged FROM fingerprint;

-- An empty file (the header alone) loads nothing and is no error.
\copy acmetrace.sacct_jobs FROM PROGRAM 'head -1 slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT fp = :'before' AS unchanged FROM fingerprint;

-- The parser itself: NULL and malformed arguments are errors.
SELECT acmetrace_internal.sacct_parse(NULL, ARRAY['1']);
SELECT acmetrace_internal.sacct_parse(2, NULL);
SELECT acmetrace_internal.sacct_parse(2, ARRAY['1', '1']);
SELECT acmetrace_internal.sacct_parse(2, ARRAY[ARRAY['1'], ARRAY['2']]);
