-- Final-state breakdown of GPU jobs by count and by GPU time.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)

SELECT cluster, final_state, gpu_jobs, round(job_share::numeric, 4) AS job_share,
       gpu_time, round(gpu_time_share::numeric, 4) AS gpu_time_share
  FROM acmetrace.state_breakdown();
SELECT final_state, gpu_jobs FROM acmetrace.state_breakdown('kalos');

-- Against a plain recomputation on crafted jobs: CPU jobs excluded,
-- TIMEOUT and NODE_FAIL folded into FAILED, Helios-style rows without a
-- published gpu_time use duration * gpu_num.
SET acmetrace.cluster = 'mix';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, state, duration, gpu_time) VALUES
  ('a', 8, 'COMPLETED', 10, 80), ('b', 8, 'TIMEOUT', 10, 80), ('c', 2, 'NODE_FAIL', 5, 10),
  ('d', 0, 'FAILED', 100, 0), ('e', 1, 'CANCELLED', 30, NULL), ('f', 4, 'FAILED', 1, 4);
RESET acmetrace.cluster;
SELECT s.final_state, s.gpu_jobs, s.gpu_time,
       s.job_share = r.n::float8 / 5 AS share_ok,
       s.gpu_time_share = (r.t / 204)::float8 AS time_share_ok
  FROM acmetrace.state_breakdown('mix') s
  JOIN (VALUES ('COMPLETED', 1, 80.0), ('CANCELLED', 1, 30.0), ('FAILED', 3, 94.0)) r(st, n, t)
    ON r.st = s.final_state;
SELECT sum(job_share) AS total_share, sum(gpu_time_share) AS total_time_share
  FROM acmetrace.state_breakdown('mix');
-- A cluster with no GPU jobs gives no rows; NULL means all clusters.
SELECT count(*) FROM acmetrace.state_breakdown('nope');
SELECT count(DISTINCT cluster) FROM acmetrace.state_breakdown(NULL);

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
