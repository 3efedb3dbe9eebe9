-- The streaming utilization loader: wide lines into per-series daily
-- blocks; repeats skipped, conflicts refused, times in every published form.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SET acmetrace.metric = 'GPU_UTIL';
SET acmetrace.cluster = 'seren';

-- A small wide file: empty, NA and NaN cells give no sample; 3 decimals,
-- negative zero and integers are kept exactly.
CREATE TEMP TABLE f1 (n int, line text);
INSERT INTO f1 VALUES
  (0, 'Time,10.140.0.1-gpu0,10.140.0.1-gpu1,10.140.0.2-gpu0'),
  (1, '2023-07-01 07:59:30+08:00,0,12.345,'),
  (2, '2023-07-01 07:59:45+08:00,100,NA,-0'),
  (3, '2023-07-01 08:00:00+08:00,99,NaN,7'),
  (4, '2023-07-01 08:00:15+08:00,,0.001,8'),
  (5, '2023-07-01 08:00:30+08:00,1,2,3');
INSERT INTO acmetrace.utilization_lines SELECT line FROM f1 ORDER BY n;
SELECT count(*) AS staged FROM acmetrace.utilization_lines;
-- Two UTC days (the file crosses midnight UTC): a block per series and day.
SELECT metric, cluster, day, series, n, min, max, sum, first_ts, last_ts
  FROM acmetrace.utilization_blocks ORDER BY day, series;
SELECT ts, series, value, float8send(value) AS bits FROM acmetrace.utilization ORDER BY series, ts;

-- The same file again: nothing added, a NOTICE counts the skipped samples.
INSERT INTO acmetrace.utilization_lines SELECT line FROM f1 ORDER BY n;
SELECT count(*) AS samples FROM acmetrace.utilization;

-- Split files that overlap (the published exports do): each sample once.
-- Times as epoch seconds, as the raw Prometheus exports.
INSERT INTO acmetrace.utilization_lines VALUES
  ('Time,10.140.0.1-gpu0,10.140.0.1-gpu1,10.140.0.2-gpu0'),
  ('1688169585,100,,-0'),        -- 2023-06-30 23:59:45 UTC, already stored
  ('1688169600,99,,7'),          -- already stored
  ('1688169630,1,2,3'),          -- already stored
  ('1688169645,50,50,50'),       -- new
  ('1688169660.5,51,51,51');     -- new, half a second
SELECT count(*) AS samples, max(ts) AS last FROM acmetrace.utilization;
SELECT series, ts, value FROM acmetrace.utilization WHERE ts > '2023-07-01 00:00:30+00' ORDER BY series, ts;

-- A different value for a stored sample: an ERROR naming the series, the
-- time and both values, and nothing of that file is loaded.
INSERT INTO acmetrace.utilization_lines VALUES
  ('Time,10.140.0.9-gpu0,10.140.0.1-gpu0'),
  ('2023-07-01 00:05:00+00,1,'),
  ('2023-07-01 00:00:00+00,5,98');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS samples, count(*) FILTER (WHERE series = '10.140.0.9-gpu0') AS from_failed_file
  FROM acmetrace.utilization;

-- Times without an offset are read in acmetrace.time_zone (default UTC).
SET acmetrace.cluster = 'kalos';
SET acmetrace.time_zone = 'Asia/Shanghai';
INSERT INTO acmetrace.utilization_lines VALUES ('Time,a'), ('2023-07-01 08:00:00,1'), ('2023-07-01T08:00:15,2');
RESET acmetrace.time_zone;
INSERT INTO acmetrace.utilization_lines VALUES ('Time,b'), ('2023-07-01 08:00:00,1');
SELECT series, ts, value FROM acmetrace.utilization WHERE cluster = 'kalos' ORDER BY series, ts;
-- an unknown zone is refused when set, and the setting keeps its value
SET acmetrace.time_zone = 'Mars/Olympus';
\echo :LAST_ERROR_SQLSTATE
SHOW acmetrace.time_zone;
RESET acmetrace.time_zone;

-- Lines out of time order, and repeats inside one file, load as sorted.
INSERT INTO acmetrace.utilization_lines VALUES
  ('Time,c'), ('2023-07-02 00:00:30+00,3'), ('2023-07-02 00:00:00+00,1'), ('2023-07-01 23:59:45+00,0'),
  ('2023-07-02 00:00:15+00,2'), ('2023-07-02 00:00:00+00,1');
SELECT day, n, first_ts, last_ts FROM acmetrace.utilization_blocks WHERE series = 'c' ORDER BY day;
SELECT array_agg(value ORDER BY ts) FROM acmetrace.utilization WHERE series = 'c';

-- Malformed input: an ERROR with the line and column; nothing loaded.
SELECT count(*) AS before FROM acmetrace.utilization \gset
INSERT INTO acmetrace.utilization_lines VALUES ('Time,d,e'), ('2023-07-03 00:00:00+00,1,2'), ('2023-07-03 00:00:15+00,1,abc');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_lines VALUES ('Time,d,e'), ('2023-07-03 00:00:00+00,1,2'), ('2023-07-03 00:00:15+00,1');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_lines VALUES ('Time,d,e'), ('2023-07-03 00:00:00+00,1,2'), ('yesterday noon-ish,1,2');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_lines VALUES ('Time,d,e'), ('2023-07-03 00:00:00+00,1,Infinity');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_lines VALUES ('10.140.0.1,d'), ('2023-07-03 00:00:00+00,1');
\echo :LAST_ERROR_SQLSTATE
INSERT INTO acmetrace.utilization_lines VALUES ('Time,d,'), ('2023-07-03 00:00:00+00,1,2');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) = :before AS unchanged FROM acmetrace.utilization;
-- A load that fails inside a transaction leaves the next one clean.
BEGIN;
INSERT INTO acmetrace.utilization_lines VALUES ('Time,z'), ('2023-07-03 00:00:00+00,x');
ROLLBACK;
INSERT INTO acmetrace.utilization_lines VALUES ('Time,z'), ('2023-07-03 00:00:00+00,4');
SELECT series, value FROM acmetrace.utilization WHERE series = 'z';
-- Settings are checked before the first line.
RESET acmetrace.metric;
INSERT INTO acmetrace.utilization_lines VALUES ('Time,z'), ('2023-07-03 00:00:00+00,4');
\echo :LAST_ERROR_SQLSTATE
SET acmetrace.metric = 'GPU_UTIL';

-- The analyses over blocks equal the value-level queries over the rows,
-- serially and under forced parallel plans.
SET acmetrace.cluster = 'big';
INSERT INTO acmetrace.utilization_lines
SELECT line FROM (
  SELECT -1 AS t, 'Time,' || string_agg('g' || g, ',' ORDER BY g) AS line FROM generate_series(1, 40) g
  UNION ALL
  SELECT t, to_char('2023-07-01'::timestamptz + t * interval '15 s', 'YYYY-MM-DD HH24:MI:SS') || '+00,' ||
         string_agg(CASE WHEN (t * g) % 53 = 0 THEN ''
                         WHEN (t / 240 + g) % 3 = 0 THEN '0'
                         ELSE ((t * 31 + g * 17) % 100 / (1.0 + g % 3))::numeric(8, 3)::text END, ',' ORDER BY g)
    FROM generate_series(0, 12000) t, generate_series(1, 40) g
   GROUP BY t) f
 ORDER BY t;
SELECT count(*) AS blocks, sum(n) AS samples FROM acmetrace.utilization_blocks WHERE cluster = 'big';
CREATE TEMP TABLE want AS
SELECT (SELECT array_agg(percent ORDER BY x) FROM (
          SELECT x, round(((count(*) FILTER (WHERE u.value <= x))::float8 / count(*) * 100)::numeric, 2) AS percent
            FROM acmetrace.utilization u, generate_series(0, 100) x WHERE u.cluster = 'big' GROUP BY x) c) AS cdf,
       (SELECT array_agg(s ORDER BY bin) FROM (
          SELECT CASE WHEN a.m = 100 THEN 10 ELSE width_bucket(a.m, 0, 100, 10) END AS bin, count(*) AS s
            FROM (SELECT (avg(u.value::numeric))::float8 AS m FROM acmetrace.utilization u
                   WHERE u.cluster = 'big' GROUP BY u.series) a GROUP BY 1) h) AS hist,
       (SELECT ARRAY[round(100.0 * count(*) FILTER (WHERE value <= 1) / count(*), 2),
                     round(100.0 * count(*) FILTER (WHERE value >= 99) / count(*), 2)]
          FROM acmetrace.utilization WHERE cluster = 'big') AS pol,
       (SELECT acmetrace.bins(value, 0, 100, 10) FROM acmetrace.utilization WHERE cluster = 'big') AS bins;
CREATE FUNCTION pg_temp.checks() RETURNS TABLE (cdf boolean, hist boolean, pol boolean, bins boolean, series_mean boolean)
LANGUAGE sql AS $$
SELECT (SELECT array_agg(cdf_pct ORDER BY value) FROM acmetrace.util_cdf('big', 'GPU_UTIL')) = w.cdf,
       (SELECT array_agg(series ORDER BY bin) FILTER (WHERE series > 0) FROM acmetrace.util_histogram('big', 'GPU_UTIL')) = w.hist,
       (SELECT ARRAY[at_most_1_pct, at_least_99_pct] FROM acmetrace.util_polarization('big', 'GPU_UTIL')) = w.pol,
       (SELECT acmetrace.bins(samples, 0, 100, 10) FROM acmetrace.utilization_blocks WHERE cluster = 'big') = w.bins,
       (SELECT bool_and(s.mean = (SELECT avg(u.value::numeric)::float8 FROM acmetrace.utilization u
                                   WHERE u.cluster = 'big' AND u.series = s.series))
          FROM acmetrace.utilization_series s WHERE s.cluster = 'big')
  FROM want w
$$;
SELECT * FROM pg_temp.checks();
ANALYZE acmetrace.utilization_blocks;
SET parallel_setup_cost = 0;
SET min_parallel_table_scan_size = 0;
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT acmetrace.bins(samples, 0, 100, 10) FROM acmetrace.utilization_blocks;
SELECT * FROM pg_temp.checks();
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
-- A one-hour window over every series, from the blocks it overlaps.
SELECT acmetrace.bins(acmetrace.samples_between(b.samples, '2023-07-01 10:00+00', '2023-07-01 11:00+00'), 0, 100, 10)
     = (SELECT acmetrace.bins(value, 0, 100, 10) FROM acmetrace.utilization
         WHERE cluster = 'big' AND ts >= '2023-07-01 10:00+00' AND ts < '2023-07-01 11:00+00') AS window_same
  FROM acmetrace.utilization_blocks b
 WHERE b.cluster = 'big' AND b.first_ts < '2023-07-01 11:00+00' AND b.last_ts >= '2023-07-01 10:00+00';

-- The blocks are the only copy: utilization_lines stays empty.
SELECT count(*) AS staged FROM acmetrace.utilization_lines;

-- drop_cluster deletes a cluster's samples with its jobs; a cluster of
-- samples only can be dropped too; other clusters keep theirs.
SELECT cluster, count(*) AS blocks FROM acmetrace.utilization_blocks GROUP BY cluster ORDER BY cluster;
SELECT EXISTS (SELECT 1 FROM acmetrace.clusters WHERE cluster = 'big') AS big_registered;
SELECT acmetrace.drop_cluster('big') AS jobs_dropped;
SELECT acmetrace.drop_cluster('seren') AS jobs_dropped;
SELECT cluster, count(*) AS blocks FROM acmetrace.utilization_blocks GROUP BY cluster ORDER BY cluster;
SELECT acmetrace.drop_cluster('big');
\echo :LAST_ERROR_SQLSTATE
-- a cluster with jobs and samples: both go
SELECT acmetrace.load_generated('both', 'seren', 50, 1);
BEGIN;
SET LOCAL acmetrace.cluster = 'both';
SET LOCAL acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util(3, 10, 1);
COMMIT;
SELECT count(*) AS both_blocks FROM acmetrace.utilization_blocks WHERE cluster = 'both';
SELECT acmetrace.drop_cluster('both') AS jobs_dropped;
SELECT count(*) AS both_blocks_left FROM acmetrace.utilization_blocks WHERE cluster = 'both';

DISCARD TEMP;
DROP EXTENSION acmetrace;
