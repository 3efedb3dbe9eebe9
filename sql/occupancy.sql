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
       acmetrace.allocation_rate(occ, 8, '2023-07-01 00:00', '2023-07-01 04:00') AS rate
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
SELECT acmetrace.allocation_rate('[]', 0, '2023-07-01', '2023-07-02');
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
     mine AS (SELECT j.type, width_bucket(acmetrace.gpus_at(o.occ, j.submit_time)::float8, 0, 2288, 10) AS bin,
                     count(*) AS jobs, avg(j.queue::float8) AS mean,
                     percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) AS median,
                     percentile_cont(0.9) WITHIN GROUP (ORDER BY j.queue::float8) AS p90
                FROM acmetrace.jobs j, o WHERE j.cluster = 'g' AND j.gpu_num > 0 AND j.queue IS NOT NULL
               GROUP BY 1, 2)
SELECT count(*) AS groups,
       count(*) FILTER (WHERE q.jobs = m.jobs AND abs(q.mean_queue_s - m.mean) < 1e-9
                          AND q.median_queue_s = m.median AND q.p90_queue_s = m.p90) AS equal
  FROM acmetrace.queue_by_occupancy('g') q FULL JOIN mine m USING (type, bin);
SELECT sum(jobs) AS started_jobs FROM acmetrace.queue_by_occupancy('g', 10, 'start');
SELECT * FROM acmetrace.queue_by_occupancy('nowhere');
SELECT * FROM acmetrace.queue_by_occupancy('g', 10, 'end');
SELECT * FROM acmetrace.queue_by_occupancy('g', 0);

DROP TABLE occ, bin, vals, serial_occ, parallel_occ;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
