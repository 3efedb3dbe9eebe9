-- Final-state breakdown of GPU jobs by count and by GPU time.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)

SELECT cluster, final_state, jobs, job_pct, gpu_h, gpu_h_pct
  FROM acmetrace.state_breakdown();
SELECT final_state, jobs FROM acmetrace.state_breakdown('kalos');

-- Against a plain recomputation on crafted jobs: CPU jobs excluded,
-- TIMEOUT and NODE_FAIL folded into FAILED, Helios-style rows without a
-- published gpu_time use duration * gpu_num.
SET acmetrace.cluster = 'mix';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, state, duration, gpu_time) VALUES
  ('a', 8, 'COMPLETED', 10, 80), ('b', 8, 'TIMEOUT', 10, 80), ('c', 2, 'NODE_FAIL', 5, 10),
  ('d', 0, 'FAILED', 100, 0), ('e', 1, 'CANCELLED', 30, NULL), ('f', 4, 'FAILED', 1, 4);
RESET acmetrace.cluster;
SELECT s.final_state, s.jobs, s.gpu_h, s.gpu_h = round(r.t / 3600, 2) AS gpu_h_ok,
       s.job_pct = round(100.0 * r.n / 5, 2) AS share_ok,
       s.gpu_h_pct = round(100 * r.t / 204, 2) AS time_share_ok
  FROM acmetrace.state_breakdown('mix') s
  JOIN (VALUES ('COMPLETED', 1, 80.0), ('CANCELLED', 1, 30.0), ('FAILED', 3, 94.0)) r(st, n, t)
    ON r.st = s.final_state;
SELECT sum(job_pct) AS total_pct, sum(gpu_h_pct) AS total_time_pct
  FROM acmetrace.state_breakdown('mix');
-- A cluster that is not loaded is an error naming the loaded ones; NULL
-- means all clusters.
SELECT count(*) FROM acmetrace.state_breakdown('nope');
SELECT count(DISTINCT cluster) FROM acmetrace.state_breakdown(NULL);

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
