-- GPU occupancy: occupancy_agg, the occupancy type and its accessors.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- Hand-computed cases.  A job holds gpus over [start, end).
CREATE TEMP TABLE h (name text, s timestamptz, e timestamptz, g int);
INSERT INTO h VALUES
  -- back to back: the release at 01:00 counts first, so the peak is 4, not 8
  ('tie',     '2023-07-01 00:00', '2023-07-01 01:00', 4),
  ('tie',     '2023-07-01 01:00', '2023-07-01 02:00', 4),
  ('overlap', '2023-07-01 00:00', '2023-07-01 02:00', 2),
  ('overlap', '2023-07-01 01:00', '2023-07-01 03:00', 3),
  -- a zero-length job holds nothing
  ('zero',    '2023-07-01 00:00', '2023-07-01 00:00', 8),
  ('zero',    '2023-07-01 00:00', '2023-07-01 01:00', 1),
  -- NULL end: still running, holds for ever
  ('open',    '2023-07-01 00:00', NULL, 8),
  ('open',    '2023-07-01 01:00', '2023-07-01 02:00', 8),
  -- NULL start, NULL gpus and 0 GPUs are ignored
  ('nulls',   NULL, '2023-07-01 01:00', 8),
  ('nulls',   '2023-07-01 00:00', '2023-07-01 01:00', NULL),
  ('nulls',   '2023-07-01 00:00', '2023-07-01 01:00', 0),
  ('nulls',   '2023-07-01 00:30', '2023-07-01 01:00', 2),
  ('one',     '2023-07-01 00:00', '2023-07-01 01:00', 8),
  -- one job hands over to another at 01:00: no step there
  ('swap',    '2023-07-01 00:00', '2023-07-01 01:00', 4),
  ('swap',    '2023-07-01 01:00', '2023-07-01 02:00', 4),
  ('swap',    '2023-07-01 00:00', '2023-07-01 02:00', 1),
  ('swap',    '2023-07-01 01:00', '2023-07-01 02:00', 0);

CREATE TEMP TABLE occ AS
SELECT name, acmetrace.occupancy_agg(s, e, g) AS occ FROM h GROUP BY name;
SELECT name, occ, acmetrace.peak(occ) FROM occ ORDER BY name;

-- At instants around the steps: start inclusive, end exclusive.
SELECT name, string_agg(to_char(t, 'HH24:MI:SS.US') || '=' || acmetrace.gpus_at(occ, t), ' ' ORDER BY t)
  FROM occ,
       unnest(ARRAY['2023-06-30 23:59:59.999999', '2023-07-01 00:00', '2023-07-01 00:59:59.999999',
                    '2023-07-01 01:00', '2023-07-01 02:00', '2023-07-01 03:00']::timestamptz[]) t
 GROUP BY name ORDER BY name;
SELECT acmetrace.gpus_at(occ, 'infinity') AS at_infinity, acmetrace.gpus_at(occ, '-infinity') AS at_minus_infinity
  FROM occ WHERE name = 'open';

-- As a window aggregate: the state is finalized after every row and keeps going.
SELECT s, e, g, acmetrace.peak(acmetrace.occupancy_agg(s, e, g) OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING)),
       acmetrace.occupancy_agg(s, e, g) OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING)
  FROM h WHERE name = 'overlap' ORDER BY s, e;

-- Empty input gives the empty occupancy: 0 GPUs everywhere.
SELECT acmetrace.occupancy_agg(s, e, g) AS empty,
       acmetrace.peak(acmetrace.occupancy_agg(s, e, g)),
       acmetrace.gpus_at(acmetrace.occupancy_agg(s, e, g), '2023-07-01')
  FROM h WHERE false;
SELECT acmetrace.occupancy_agg(s, e, g) FROM h WHERE name = 'nulls' AND g IS DISTINCT FROM 2;
SELECT * FROM acmetrace.occupancy_steps('[]');
-- NULL arguments: STRICT accessors return NULL.
SELECT acmetrace.gpus_at(NULL, now()) IS NULL AS a, acmetrace.gpus_at('[]', NULL) IS NULL AS b,
       acmetrace.peak(NULL) IS NULL AS c;

-- Rows the aggregate refuses, naming the values.
SELECT acmetrace.occupancy_agg(s, e, g)
  FROM (VALUES ('2023-07-01 02:00'::timestamptz, '2023-07-01 01:00'::timestamptz, 4)) v(s, e, g);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.occupancy_agg(s, e, g)
  FROM (VALUES ('2023-07-01 02:00'::timestamptz, '2023-07-01 03:00'::timestamptz, -4)) v(s, e, g);
-- Infinite starts and ends are allowed.
SELECT acmetrace.occupancy_agg(s, e, g)
  FROM (VALUES ('-infinity'::timestamptz, '2023-07-01 01:00'::timestamptz, 2),
               ('2023-07-01 00:00', 'infinity', 3),
               ('infinity', 'infinity', 5)) v(s, e, g);

-- The text form: JSON, round trips, and only canonical values are accepted.
SELECT '[["2023-07-01 00:00:00+00",4],["2023-07-01 01:00:00+00",0]]'::acmetrace.occupancy;
SELECT ' [ [ "2023-07-01 02:00+02" , 4 ] ] '::acmetrace.occupancy AS whitespace_and_offsets;
SELECT (occ::text)::acmetrace.occupancy::text = occ::text AS round_trip FROM occ ORDER BY name;
SELECT (occ::text)::jsonb -> 0 ->> 1 AS first_level_as_json FROM occ WHERE name = 'overlap';
SET DateStyle = 'Postgres, DMY';
SELECT occ FROM occ WHERE name = 'tie';
SELECT (occ::text)::acmetrace.occupancy OPERATOR(acmetrace.=) occ AS equal,
       (occ::text)::acmetrace.occupancy OPERATOR(acmetrace.<>) occ AS not_equal
  FROM occ WHERE name = 'tie';
SELECT o1.name, o2.name FROM occ o1 JOIN occ o2 ON o1.occ OPERATOR(acmetrace.=) o2.occ WHERE o1.name <= o2.name ORDER BY 1;
RESET DateStyle;
SET DateStyle = 'ISO, YMD';
SELECT '[["2023-07-01 00:00",4],["2023-07-01 01:00",4]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 00:00",0]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 01:00",4],["2023-07-01 00:00",2]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 00:00",4],["2023-07-01 00:00",2]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 00:00",-4]]'::acmetrace.occupancy;
\echo :LAST_ERROR_SQLSTATE
SELECT '[["2023-07-01 00:00",4],["infinity",0]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 00:00",99999999999999999999]]'::acmetrace.occupancy;
SELECT '[["yesterday at noon",4]]'::acmetrace.occupancy;
SELECT '[["2023-07-01 00:00",4],]'::acmetrace.occupancy;
\echo :LAST_ERROR_SQLSTATE
SELECT '[["2023-07-01 00:00",4]] trailing'::acmetrace.occupancy;
-- the message quotes at most 60 bytes, never half a character
SELECT ('[' || repeat(' ', 58) || 'é]')::acmetrace.occupancy;
SELECT ''::acmetrace.occupancy;

-- Binary send/receive through COPY (FORMAT binary), and crafted binary input.
SELECT current_setting('data_directory') || '/acmetrace_occupancy.bin' AS bin_path \gset
CREATE TEMP TABLE bin (occ acmetrace.occupancy);
COPY (SELECT occ FROM occ ORDER BY name) TO :'bin_path' (FORMAT binary);
COPY bin FROM :'bin_path' (FORMAT binary);
SELECT count(*) AS copied, bool_and(o.occ::text = b.occ::text) AS identical
  FROM (SELECT occ, row_number() OVER (ORDER BY name) n FROM occ) o
  JOIN (SELECT occ, row_number() OVER () n FROM bin) b USING (n);
\i :abs_srcdir/test/regress_binary_copy.sql
\set VERBOSITY terse
-- version 1, one step: 2023-07-01 00:00 UTC (741484800000000 us), 4 GPUs
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(741484800000000) || int8send(4));
SELECT pg_temp.copy_binary('bin', '\x02' || int8send(1) || int8send(741484800000000) || int8send(4));
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(9223372036854775807));
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(-1));
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(741484800000000) || int8send(4) || '\x00'::bytea);
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(741484800000000));
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(741484800000000) || int8send(0));
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(2) || int8send(741484800000000) || int8send(4)
                        || int8send(741484800000000) || int8send(2));
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(9223372036854775807) || int8send(4));
SELECT pg_temp.copy_binary('bin', '\x01' || int8send(1) || int8send(9223372036854775000) || int8send(4));
SELECT pg_temp.copy_binary('bin', '\x');
\set VERBOSITY default

-- The aggregates' state is a real type, acmetrace.occupancy_state.  Helper
-- aggregates over the same support functions: occ_partial gives the state
-- itself (no final function), occ_merge combines states as a leader or a
-- Citus coordinator does, occ_merge_state the same without finalizing.
CREATE AGGREGATE occ_partial(timestamptz, timestamptz, integer) (
    SFUNC = acmetrace_internal.occupancy_trans, STYPE = acmetrace.occupancy_state);
CREATE AGGREGATE occ_merge(acmetrace.occupancy_state) (
    SFUNC = acmetrace_internal.occupancy_combine, STYPE = acmetrace.occupancy_state,
    FINALFUNC = acmetrace_internal.occupancy_final, COMBINEFUNC = acmetrace_internal.occupancy_combine, PARALLEL = SAFE);
CREATE AGGREGATE occ_merge_state(acmetrace.occupancy_state) (
    SFUNC = acmetrace_internal.occupancy_combine, STYPE = acmetrace.occupancy_state,
    COMBINEFUNC = acmetrace_internal.occupancy_combine, PARALLEL = SAFE);
-- Text form: v1: and the serialized state in hex (version 1, 3 zero bytes,
-- the start and end counts, then (int64 time, int32 gpus) starts and ends,
-- each sorted by time, then GPUs).  Written flat only when it leaves the aggregate.
SELECT occ_partial(s, e, g) AS state FROM h WHERE name = 'overlap';
SELECT occ_partial(s, e, g) AS state FROM h WHERE name = 'open';
SELECT occ_partial(s, e, g) AS no_rows FROM h WHERE false;
SELECT name, acmetrace_internal.occupancy_final(occ_partial(s, e, g)) OPERATOR(acmetrace.=) acmetrace.occupancy_agg(s, e, g) AS final_of_state_equal
  FROM h GROUP BY name ORDER BY name;
SELECT acmetrace_internal.occupancy_final(NULL) AS final_of_null,
       acmetrace_internal.occupancy_final('v1:0100000000000000000000000000000000000000') AS final_of_empty;
-- Text and binary round trips of every group's state, and the binary form
-- is the text's bytes.
CREATE TEMP TABLE states AS SELECT name, occ_partial(s, e, g) AS st FROM h GROUP BY name;
SELECT count(*) AS states,
       bool_and((st::text)::acmetrace.occupancy_state::text = st::text) AS text_round_trip,
       bool_and('v1:' || encode(acmetrace.occupancy_state_send(st), 'hex') = st::text) AS send_is_the_text_bytes
  FROM states;
SELECT current_setting('data_directory') || '/acmetrace_occupancy_state.bin' AS state_bin_path \gset
CREATE TEMP TABLE state_bin (st acmetrace.occupancy_state);
COPY (SELECT st FROM states ORDER BY name) TO :'state_bin_path' (FORMAT binary);
COPY state_bin FROM :'state_bin_path' (FORMAT binary);
SELECT count(*) AS copied, bool_and(o.st::text = b.st::text) AS identical
  FROM (SELECT st, row_number() OVER (ORDER BY name) n FROM states) o
  JOIN (SELECT st, row_number() OVER () n FROM state_bin) b USING (n);
-- Combined in any order, then finalized: the single-pass aggregate.  NULL
-- states are skipped; the same state twice counts its jobs twice.
SELECT occ_merge(st ORDER BY name) OPERATOR(acmetrace.=) (SELECT acmetrace.occupancy_agg(s, e, g) FROM h) AS ascending,
       occ_merge(st ORDER BY name DESC) OPERATOR(acmetrace.=) (SELECT acmetrace.occupancy_agg(s, e, g) FROM h) AS descending,
       occ_merge(st ORDER BY md5(name)) OPERATOR(acmetrace.=) (SELECT acmetrace.occupancy_agg(s, e, g) FROM h) AS shuffled
  FROM (SELECT name, st FROM states UNION ALL SELECT 'null', NULL) x;
SELECT occ_merge(st) FROM (VALUES (NULL::acmetrace.occupancy_state)) v(st);
SELECT occ_merge(st) AS overlap_twice FROM states, generate_series(1, 2) WHERE name = 'overlap';
SELECT acmetrace.occupancy_agg(s, e, g) AS overlap_once FROM h WHERE name = 'overlap';
-- The support functions outside an aggregate: errors, not crashes.
SELECT acmetrace_internal.occupancy_trans(NULL, now(), now(), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace_internal.occupancy_combine(st, st) FROM states WHERE name = 'one';
\echo :LAST_ERROR_SQLSTATE

-- Crafted states: text (22P02) and binary (22P03) are both checked by the
-- core's one decoder.  The valid bytes hold one job, 2023-07-01 00:00 to
-- 01:00 UTC, 4 GPUs.
SELECT '\x01000000'::bytea || int8send(1) || int8send(1) || int8send(741484800000000) || int4send(4)
       || int8send(741488400000000) || int4send(4) AS sb \gset
SELECT ('v1:' || encode(:'sb', 'hex'))::acmetrace.occupancy_state AS valid;
SELECT acmetrace_internal.occupancy_final(('v1:' || encode(:'sb', 'hex'))::acmetrace.occupancy_state);
SELECT 'v1:'::acmetrace.occupancy_state;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v2:0100000000000000000000000000000000000000'::acmetrace.occupancy_state;
SELECT 'v1:0100000000000000000000000000000000000000 '::acmetrace.occupancy_state;
SELECT 'v1:01000000000000000000000000000000000000000'::acmetrace.occupancy_state;
SELECT 'V1:0100000000000000000000000000000000000000'::acmetrace.occupancy_state;
SELECT 'v1:0100000000000000000000000000000000000000'::acmetrace.occupancy_state AS empty_state;
\set VERBOSITY terse
SELECT ('v1:' || encode(set_byte(:'sb', 0, 2), 'hex'))::acmetrace.occupancy_state AS version_2;
SELECT ('v1:' || encode(set_byte(:'sb', 3, 1), 'hex'))::acmetrace.occupancy_state AS reserved_byte;
SELECT ('v1:' || encode(substr(:'sb'::bytea, 1, 40), 'hex'))::acmetrace.occupancy_state AS truncated;
SELECT ('v1:' || encode(:'sb'::bytea || '\x00', 'hex'))::acmetrace.occupancy_state AS trailing_byte;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int8send(2) FROM 13 FOR 8), 'hex'))::acmetrace.occupancy_state AS more_ends_than_bytes;
-- an end before its start: GPUs released before they were allocated
SELECT ('v1:' || encode('\x01000000'::bytea || int8send(1) || int8send(1) || int8send(741488400000000) || int4send(4)
                        || int8send(741484800000000) || int4send(4), 'hex'))::acmetrace.occupancy_state AS ends_first;
SELECT ('v1:' || encode('\x01000000'::bytea || int8send(0) || int8send(1) || int8send(741488400000000) || int4send(4), 'hex'))::acmetrace.occupancy_state AS end_without_start;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int4send(0) FROM 29 FOR 4), 'hex'))::acmetrace.occupancy_state AS zero_gpus;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int4send(-4) FROM 29 FOR 4), 'hex'))::acmetrace.occupancy_state AS negative_gpus;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int4send(5) FROM 41 FOR 4), 'hex'))::acmetrace.occupancy_state AS releases_more_than_allocated;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int8send(9223372036854775807) FROM 21 FOR 8), 'hex'))::acmetrace.occupancy_state AS start_at_infinity;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int8send(-9223372036854775808) FROM 33 FOR 8), 'hex'))::acmetrace.occupancy_state AS end_at_minus_infinity;
SELECT ('v1:' || encode(overlay(:'sb' PLACING int8send(-211813488000000001) FROM 21 FOR 8), 'hex'))::acmetrace.occupancy_state AS before_4714_bc;
\echo :LAST_ERROR_SQLSTATE
SELECT ('v1:' || encode(overlay(:'sb' PLACING int8send(-9223372036854775808) FROM 21 FOR 8), 'hex'))::acmetrace.occupancy_state AS from_minus_infinity_valid;
-- the same bytes through binary COPY
SELECT pg_temp.copy_binary('state_bin', :'sb') AS valid_binary;
SELECT pg_temp.copy_binary('state_bin', '\x');
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('state_bin', set_byte(:'sb', 0, 0));
SELECT pg_temp.copy_binary('state_bin', :'sb'::bytea || '\x00');
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('state_bin', overlay(:'sb' PLACING int8send(-1) FROM 5 FOR 8));
SELECT pg_temp.copy_binary('state_bin', overlay(:'sb' PLACING int4send(5) FROM 41 FOR 4));
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default

-- The fn_extra cache must follow the value: rows alternate between values
-- of the same size, and between in-memory and TOASTed values.
CREATE TEMP TABLE vals (id int, occ acmetrace.occupancy);
ALTER TABLE vals ALTER occ SET STORAGE external;
INSERT INTO vals VALUES
  (1, '[["2023-07-01 00:00",1]]'), (2, '[["2023-07-01 00:00",2]]'), (3, '[["2023-07-01 00:00",3]]');
INSERT INTO vals
SELECT 3 + k, acmetrace.occupancy_agg(t, t + interval '30 minutes', k)
  FROM generate_series(1, 2) k,
       generate_series('2023-07-01'::timestamptz, '2023-07-08', '1 hour') t
 GROUP BY k;
SELECT id, pg_column_size(occ) AS bytes FROM vals ORDER BY id;
SELECT string_agg(acmetrace.gpus_at(v.occ, t)::text, ',' ORDER BY k) AS cached,
       string_agg(coalesce((SELECT s.gpus FROM acmetrace.occupancy_steps(v.occ) s
                             WHERE s.at <= t ORDER BY s.at DESC LIMIT 1), 0)::text, ',' ORDER BY k) AS reference
  FROM generate_series(1, 60) k
  JOIN vals v ON v.id = 1 + (k * 7) % 5,
       LATERAL (SELECT '2023-07-01'::timestamptz + (k * 37) * interval '1 minute' AS t) x;

-- One value over 2,000 rows is read into the cache once (DEBUG1 says when).
CREATE TEMP TABLE many AS SELECT g, '2023-07-01'::timestamptz + g * interval '1 minute' AS t FROM generate_series(1, 2000) g;
SET client_min_messages = debug1;
SELECT sum(acmetrace.gpus_at(v.occ, m.t)) FROM many m, vals v WHERE v.id = 4;
RESET client_min_messages;

-- Time-weighted statistics over a window.
SELECT * FROM acmetrace.occupancy_levels((SELECT occ FROM occ WHERE name = 'overlap'),
                                         '2023-06-30 23:00', '2023-07-01 04:00');
SELECT acmetrace.mean_gpus(occ, '2023-07-01 00:00', '2023-07-01 04:00') AS mean_gpus,
       acmetrace.allocation_pct(occ, 8, '2023-07-01 00:00', '2023-07-01 04:00') AS allocation_pct
  FROM occ WHERE name = 'overlap';
-- overlap: 2 GPUs for 1 h, 5 for 1 h, 3 for 1 h, 0 for 1 h: 10 GPU-hours / 4 h
SELECT * FROM acmetrace.occupancy_time_bins((SELECT occ FROM occ WHERE name = 'overlap'),
                                            0, 4, 2, '2023-07-01 00:00', '2023-07-01 04:00');
SELECT * FROM acmetrace.occupancy_time_bins((SELECT occ FROM occ WHERE name = 'open'),
                                            0, 10, 5, '2023-07-01 00:00', '2023-07-01 04:00');
SELECT acmetrace.mean_gpus('[]', '2023-07-01', '2023-07-02');
SELECT acmetrace.mean_gpus('[]', '2023-07-02', '2023-07-01');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.mean_gpus('[]', '2023-07-01', 'infinity');
SELECT acmetrace.allocation_pct('[]', 0, '2023-07-01', '2023-07-02');
SELECT * FROM acmetrace.occupancy_time_bins('[]', 0, 0, 2, '2023-07-01', '2023-07-02');

-- A generated 100,000-job trace against a plain-SQL sweep (a window sum
-- over start/end events), at every job's submit and start time.
SELECT acmetrace.load_generated('g', 'seren', 100000, 7);
ANALYZE acmetrace.jobs;
CREATE TEMP TABLE ref AS
SELECT job_id, what, gpus
  FROM (SELECT job_id, what, k,
               sum(d) OVER (ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS gpus
          FROM (SELECT start_time AS t, 0 AS k, gpu_num::bigint AS d, NULL AS job_id, NULL AS what
                  FROM acmetrace.jobs WHERE cluster = 'g' AND start_time IS NOT NULL AND gpu_num > 0
                UNION ALL
                SELECT end_time, 0, -gpu_num, NULL, NULL
                  FROM acmetrace.jobs WHERE cluster = 'g' AND start_time IS NOT NULL AND gpu_num > 0
                   AND end_time IS NOT NULL
                UNION ALL
                SELECT submit_time, 1, 0, job_id, 'submit' FROM acmetrace.jobs WHERE cluster = 'g'
                UNION ALL
                SELECT start_time, 1, 0, job_id, 'start' FROM acmetrace.jobs
                 WHERE cluster = 'g' AND start_time IS NOT NULL) ev) r
 WHERE k = 1;
CREATE TEMP TABLE serial_occ AS
SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ FROM acmetrace.jobs WHERE cluster = 'g';
SELECT r.what, count(*) AS compared,
       count(*) FILTER (WHERE r.gpus <> acmetrace.gpus_at(o.occ, CASE r.what WHEN 'submit' THEN j.submit_time
                                                                             ELSE j.start_time END)) AS mismatches,
       max(r.gpus) AS ref_peak
  FROM ref r JOIN acmetrace.jobs j ON j.cluster = 'g' AND j.job_id = r.job_id, serial_occ o
 GROUP BY r.what ORDER BY r.what;
SELECT acmetrace.peak(occ), (SELECT count(*) FROM acmetrace.occupancy_steps(occ)) > 100000 AS many_steps
  FROM serial_occ;

-- The same with forced parallel workers: a Partial Aggregate, the same value.
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) FROM acmetrace.jobs WHERE cluster = 'g';
CREATE TEMP TABLE parallel_occ AS
SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ FROM acmetrace.jobs WHERE cluster = 'g';
SELECT p.occ::text = s.occ::text AS parallel_equals_serial FROM parallel_occ p, serial_occ s;
SELECT r.what, count(*) AS compared,
       count(*) FILTER (WHERE r.gpus <> acmetrace.gpus_at(o.occ, CASE r.what WHEN 'submit' THEN j.submit_time
                                                                             ELSE j.start_time END)) AS mismatches
  FROM ref r JOIN acmetrace.jobs j ON j.cluster = 'g' AND j.job_id = r.job_id, parallel_occ o
 GROUP BY r.what ORDER BY r.what;
-- Per-group states through workers too: one occupancy per job type.
SELECT count(*) AS types,
       bool_and(a.occ::text = (SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)::text
                                 FROM acmetrace.jobs j WHERE j.cluster = 'g' AND j.type = a.type)) AS per_type_equal
  FROM (SELECT type, acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ
          FROM acmetrace.jobs WHERE cluster = 'g' GROUP BY type) a;
-- The 0.1.0 - 0.3.0 SQL declares the aggregates over the same C symbols
-- with STYPE = internal and a serialize/deserialize pair; until ALTER
-- EXTENSION UPDATE the new library serves it (test/e2e/upgrade.sh).  The
-- old declarations, recreated here, still give the same values in parallel.
CREATE SCHEMA old_sql;
SELECT probin AS lib FROM pg_proc WHERE oid = 'acmetrace.occupancy_in(cstring)'::regprocedure \gset
CREATE FUNCTION old_sql.trans(internal, timestamptz, timestamptz, integer) RETURNS internal
AS :'lib', 'acmetrace_occupancy_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION old_sql.rollup_trans(internal, acmetrace.occupancy) RETURNS internal
AS :'lib', 'acmetrace_occupancy_rollup_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION old_sql.combine(internal, internal) RETURNS internal
AS :'lib', 'acmetrace_occupancy_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION old_sql.serialize(internal) RETURNS bytea
AS :'lib', 'acmetrace_occupancy_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION old_sql.deserialize(bytea, internal) RETURNS internal
AS :'lib', 'acmetrace_occupancy_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION old_sql.final(internal) RETURNS acmetrace.occupancy
AS :'lib', 'acmetrace_occupancy_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE old_sql.occupancy_agg(timestamptz, timestamptz, integer) (
    SFUNC = old_sql.trans, STYPE = internal, FINALFUNC = old_sql.final, COMBINEFUNC = old_sql.combine,
    SERIALFUNC = old_sql.serialize, DESERIALFUNC = old_sql.deserialize, PARALLEL = SAFE);
CREATE AGGREGATE old_sql.rollup(acmetrace.occupancy) (
    SFUNC = old_sql.rollup_trans, STYPE = internal, FINALFUNC = old_sql.final, COMBINEFUNC = old_sql.combine,
    SERIALFUNC = old_sql.serialize, DESERIALFUNC = old_sql.deserialize, PARALLEL = SAFE);
EXPLAIN (COSTS OFF)
SELECT old_sql.occupancy_agg(start_time, end_time, gpu_num) FROM acmetrace.jobs WHERE cluster = 'g';
SELECT old_sql.occupancy_agg(start_time, end_time, gpu_num)::text = (SELECT occ::text FROM serial_occ) AS old_sql_equal
  FROM acmetrace.jobs WHERE cluster = 'g';
SELECT count(*) AS types,
       bool_and(a.occ::text = (SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)::text
                                 FROM acmetrace.jobs j WHERE j.cluster = 'g' AND j.type = a.type)) AS old_sql_per_type_equal,
       old_sql.rollup(a.occ)::text = (SELECT occ::text FROM serial_occ) AS old_sql_rollup_equal
  FROM (SELECT type, old_sql.occupancy_agg(start_time, end_time, gpu_num) AS occ
          FROM acmetrace.jobs WHERE cluster = 'g' GROUP BY type) a;
-- as a window aggregate, finalized after every row
SELECT s, e, g, old_sql.occupancy_agg(s, e, g) OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING)
  FROM h WHERE name = 'overlap' ORDER BY s, e;
DROP SCHEMA old_sql CASCADE;

-- Partial states per (type, shard) as workers or Citus shards make them,
-- through their text form, merged per type, then all together, in any
-- order: the single-pass value.
CREATE TABLE trace_states AS
SELECT type, abs(hashtext(job_id)) % 7 AS shard, occ_partial(start_time, end_time, gpu_num) AS st
  FROM acmetrace.jobs WHERE cluster = 'g' GROUP BY 1, 2;
SELECT count(*) AS states,
       bool_and((st::text)::acmetrace.occupancy_state::text = st::text) AS text_round_trip,
       sum(length(acmetrace.occupancy_state_send(st))) AS bytes
  FROM trace_states;
EXPLAIN (COSTS OFF) SELECT occ_merge(st) FROM trace_states;
SELECT occ_merge(st)::text = (SELECT occ::text FROM serial_occ) AS parallel_merge_equal FROM trace_states;
RESET force_parallel_mode;
SELECT occ_merge(st ORDER BY type, shard)::text = (SELECT occ::text FROM serial_occ) AS ascending,
       occ_merge(st ORDER BY shard DESC, type DESC)::text = (SELECT occ::text FROM serial_occ) AS descending,
       occ_merge((st::text)::acmetrace.occupancy_state ORDER BY md5(type || shard))::text
         = (SELECT occ::text FROM serial_occ) AS shuffled_through_text
  FROM trace_states;
SELECT occ_merge(m ORDER BY md5(type))::text = (SELECT occ::text FROM serial_occ) AS merged_merges
  FROM (SELECT type, occ_merge_state(st ORDER BY shard DESC) AS m FROM trace_states GROUP BY type) t;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- The time-weighted functions against SQL over the steps.
WITH o AS (SELECT occ FROM serial_occ),
     w AS (SELECT min(submit_time) AS lo, max(end_time) AS hi FROM acmetrace.jobs WHERE cluster = 'g'),
     st AS (SELECT s.at, s.gpus, lead(s.at) OVER (ORDER BY s.at) AS next FROM o, acmetrace.occupancy_steps(o.occ) s),
     seg AS (SELECT st.gpus, extract(epoch FROM least(coalesce(st.next, w.hi), w.hi) - greatest(st.at, w.lo)) AS secs
               FROM st, w WHERE st.at < w.hi AND coalesce(st.next, 'infinity') > w.lo)
SELECT abs((SELECT sum(gpus * secs) FROM seg)::float8 / extract(epoch FROM w.hi - w.lo)::float8
             / acmetrace.mean_gpus(o.occ, w.lo, w.hi) - 1) < 1e-12 AS mean_matches,
       (SELECT sum(seconds) FROM acmetrace.occupancy_levels(o.occ, w.lo, w.hi))
         = extract(epoch FROM w.hi - w.lo)::float8 AS levels_cover_window,
       (SELECT count(*) FROM seg s JOIN acmetrace.occupancy_levels(o.occ, w.lo, w.hi) l USING (gpus)) > 0 AS joined,
       (SELECT bool_and(abs(l.seconds - r.secs) < 1e-6)
          FROM acmetrace.occupancy_levels(o.occ, w.lo, w.hi) l
          JOIN (SELECT gpus, sum(secs)::float8 AS secs FROM seg GROUP BY gpus) r USING (gpus)) AS levels_match,
       (SELECT sum(seconds) FROM acmetrace.occupancy_time_bins(o.occ, 0, 2288, 10, w.lo, w.hi))
         = extract(epoch FROM w.hi - w.lo)::float8 AS bins_cover_window
  FROM o, w;

-- The seed analysis: queueing delay by occupancy bin and type, against
-- the same computed by hand with gpus_at and percentile_cont.
SELECT type, bin, jobs, round(mean_queue_s::numeric, 1) AS mean_queue_s, median_queue_s, p90_queue_s
  FROM acmetrace.queue_by_occupancy('g', 4) WHERE type IN ('Eval', 'Pretrain');
WITH o AS (SELECT occ FROM serial_occ),
     mine AS (SELECT CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type,
                     width_bucket(acmetrace.gpus_at(o.occ, j.submit_time)::float8, 0, 2288, 10) AS bin,
                     count(*) AS jobs, avg(j.queue::float8) AS mean,
                     percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) AS median,
                     percentile_cont(0.9) WITHIN GROUP (ORDER BY j.queue::float8) AS p90
                FROM acmetrace.jobs j, o WHERE j.cluster = 'g' AND j.gpu_num > 0 AND j.queue IS NOT NULL
               GROUP BY GROUPING SETS ((2), (j.type, 2)))
SELECT count(*) AS groups,
       count(*) FILTER (WHERE q.jobs = m.jobs AND abs(q.mean_queue_s - m.mean) < 1e-9
                          AND q.median_queue_s = m.median AND q.p90_queue_s = m.p90) AS equal
  FROM acmetrace.queue_by_occupancy('g') q FULL JOIN mine m USING (type, bin);
SELECT sum(jobs) AS started_jobs FROM acmetrace.queue_by_occupancy('g', 10, 'start') WHERE type = 'all';
SELECT * FROM acmetrace.queue_by_occupancy('nowhere');
SELECT * FROM acmetrace.queue_by_occupancy('g', 10, 'end');
SELECT * FROM acmetrace.queue_by_occupancy('g', 0);

DROP TABLE occ, bin, vals, serial_occ, parallel_occ, states, state_bin, trace_states;
DROP AGGREGATE occ_partial(timestamptz, timestamptz, integer);
DROP AGGREGATE occ_merge(acmetrace.occupancy_state);
DROP AGGREGATE occ_merge_state(acmetrace.occupancy_state);
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
