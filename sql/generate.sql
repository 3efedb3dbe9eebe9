-- Synthetic traces: deterministic, in the published shape, with the
-- published marginals, and never over capacity.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- The first jobs, pinned: any change to the generator shows here.
SELECT * FROM acmetrace.generate_jobs('seren', 5, 42);
SELECT job_id, gpu_num, type, state, submit_time FROM acmetrace.generate_jobs('kalos', 3, 42);

-- Same seed, same rows; another seed, other rows.
SELECT (SELECT md5(string_agg(g::text, '|')) FROM acmetrace.generate_jobs('seren', 2000, 5) g)
     = (SELECT md5(string_agg(g::text, '|')) FROM acmetrace.generate_jobs('seren', 2000, 5) g) AS same_seed_same_rows,
       (SELECT md5(string_agg(g::text, '|')) FROM acmetrace.generate_jobs('seren', 2000, 5) g)
     = (SELECT md5(string_agg(g::text, '|')) FROM acmetrace.generate_jobs('seren', 2000, 6) g) AS other_seed_same_rows;

-- 20,000 jobs per profile against the dataset's own summary (fixture).
CREATE TEMP TABLE summary (id text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
  avg_run_time_gpu float8, avg_que_time_gpu float8, avg_gpu_num float8, med_run_time_gpu float8,
  med_que_time_gpu float8, med_gpu_num float8, max_run_time_gpu float8, max_gpu float8,
  complete_rate_gpu float8, cancel_rate_gpu float8, fail_rate_gpu float8,
  complete_gpu_time float8, cancel_gpu_time float8, fail_gpu_time float8,
  complete_rate_gpu_time float8, cancel_rate_gpu_time float8, fail_rate_gpu_time float8,
  avg_run_time_cpu float8, avg_que_time_cpu float8, med_run_time_cpu float8, med_que_time_cpu float8,
  complete_rate_cpu float8, cancel_rate_cpu float8, fail_rate_cpu float8);
\copy summary FROM 'acme_cluster_summary.csv' (FORMAT csv, HEADER match)
SELECT acmetrace.load_generated('gen_seren', 'seren', 20000, 1);
SELECT acmetrace.load_generated('gen_kalos', 'kalos', 20000, 1);
SELECT cluster, source_format, gpu_capacity FROM acmetrace.clusters ORDER BY 1;
WITH g AS (
  SELECT cluster, (gpu_num > 0) AS gpu, final_state FROM acmetrace.jobs
), rates AS (
  SELECT cluster,
         avg(gpu::int) AS gpu_share,
         avg((final_state = 'COMPLETED')::int) FILTER (WHERE gpu) AS complete_gpu,
         avg((final_state = 'CANCELLED')::int) FILTER (WHERE gpu) AS cancel_gpu,
         avg((final_state = 'FAILED')::int) FILTER (WHERE gpu) AS fail_gpu,
         avg((final_state = 'COMPLETED')::int) FILTER (WHERE NOT gpu) AS complete_cpu,
         avg((final_state = 'CANCELLED')::int) FILTER (WHERE NOT gpu) AS cancel_cpu,
         avg((final_state = 'FAILED')::int) FILTER (WHERE NOT gpu) AS fail_cpu
    FROM g GROUP BY cluster
)
SELECT r.cluster,
       abs(r.gpu_share - s.gpu_job_num::float8 / s.job_num) < 0.02 AS gpu_share_ok,
       abs(r.complete_gpu - s.complete_rate_gpu) < 0.02 AND abs(r.cancel_gpu - s.cancel_rate_gpu) < 0.02
         AND abs(r.fail_gpu - s.fail_rate_gpu) < 0.02 AS gpu_states_ok,
       abs(r.complete_cpu - s.complete_rate_cpu) < 0.02 AND abs(r.cancel_cpu - s.cancel_rate_cpu) < 0.02
         AND abs(r.fail_cpu - s.fail_rate_cpu) < 0.02 AS cpu_states_ok
  FROM rates r JOIN summary s ON lower(s.id) = substr(r.cluster, 5)
 ORDER BY 1;

-- Allocated GPUs never exceed capacity: a sweep over start/end events,
-- releases before allocations at the same instant.
SELECT cluster, max(allocated) AS peak, max(allocated) <= max(cap) AS within_capacity
  FROM (SELECT e.cluster, c.gpu_capacity AS cap,
               sum(e.delta) OVER (PARTITION BY e.cluster ORDER BY e.t, e.delta) AS allocated
          FROM (SELECT cluster, start_time AS t, gpu_num AS delta FROM acmetrace.jobs WHERE start_time IS NOT NULL AND gpu_num > 0
                UNION ALL
                SELECT cluster, end_time, -gpu_num FROM acmetrace.jobs WHERE start_time IS NOT NULL AND gpu_num > 0) e
          JOIN acmetrace.clusters c USING (cluster)) s
 GROUP BY cluster ORDER BY 1;

-- Shape: GPU counts are powers of two up to 1024, 8 GPUs a node, types known.
SELECT count(*) FILTER (WHERE gpu_num > 0 AND (gpu_num & (gpu_num - 1)) <> 0) AS not_power_of_two,
       count(*) FILTER (WHERE gpu_num > 1024) AS over_1024,
       count(*) FILTER (WHERE gpu_num > 0 AND node_num <> (gpu_num + 7) / 8) AS wrong_nodes,
       count(*) FILTER (WHERE start_time IS NULL AND NOT (state = 'CANCELLED' AND duration = 0 AND queue IS NULL)) AS bad_never_started
  FROM acmetrace.jobs;
SELECT anomaly, jobs FROM acmetrace.audit('gen_seren') WHERE jobs > 0;

-- Arguments.
SELECT count(*) FROM acmetrace.generate_jobs('seren', 0, 1);
SELECT count(*) FROM acmetrace.generate_jobs(NULL, 10, 1);
SELECT * FROM acmetrace.generate_jobs('philly', 10, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.generate_jobs('seren', -1, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.load_generated('x', 'seren', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.load_generated('Bad Name', 'seren', 10);
\echo :LAST_ERROR_SQLSTATE
-- The caller's acmetrace.cluster survives load_generated.
BEGIN;
SET LOCAL acmetrace.cluster = 'mine';
SELECT acmetrace.load_generated('gen_tiny', 'kalos', 3, 1);
SHOW acmetrace.cluster;
ROLLBACK;

-- Wide utilization lines.
SELECT * FROM acmetrace.generate_util(3, 4, 1, '2023-07-01 00:00:00+00', 15, 0.25);
SELECT count(*) FROM acmetrace.generate_util(1, 0, 1);
SELECT count(*) FROM acmetrace.generate_util(3, NULL, 1);
SELECT acmetrace.generate_util(0, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(100001, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(1, -1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(1, 1, 1, now(), 0);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(1, 1, 1, now(), 15, 1.5);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(1, 1, 1, now(), 15, 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util(1, 1, 1, 'infinity', 15, 0);
\echo :LAST_ERROR_SQLSTATE

-- Placement: the GPUs each GPU job of a generated trace ran on.
CREATE TEMP TABLE placed AS
  SELECT * FROM acmetrace.generate_placement('seren', 3000, 5);
-- every GPU job that ran, with as many GPUs as it has, at its own times
SELECT count(*) AS placed,
       count(*) FILTER (WHERE j.job_id IS NULL) AS not_in_trace,
       count(*) FILTER (WHERE cardinality(p.series) <> j.gpu_num) AS wrong_size,
       count(*) FILTER (WHERE p.start_time <> j.start_time OR p.end_time <> j.end_time) AS wrong_times
  FROM placed p LEFT JOIN acmetrace.generate_jobs('seren', 3000, 5) j USING (job_id);
SELECT count(*) AS ran_unplaced
  FROM acmetrace.generate_jobs('seren', 3000, 5) j
 WHERE j.gpu_num > 0 AND j.end_time > j.start_time
   AND NOT EXISTS (SELECT 1 FROM placed p WHERE p.job_id = j.job_id);
-- no GPU runs two jobs at once; a job's GPUs are distinct
SELECT count(*) AS double_booked
  FROM (SELECT job_id, start_time, end_time, unnest(series) AS s FROM placed) a
  JOIN (SELECT job_id, start_time, end_time, unnest(series) AS s FROM placed) b
    ON a.s = b.s AND a.job_id < b.job_id AND a.start_time < b.end_time AND b.start_time < a.end_time;
SELECT count(*) AS repeated_gpu
  FROM placed WHERE cardinality(series) <> (SELECT count(DISTINCT x) FROM unnest(series) x);
SELECT job_id, start_time, series FROM placed ORDER BY start_time, job_id LIMIT 3;

-- Utilization over the placement: the header names every GPU, a GPU no
-- job runs on is idle (<= 1), the jobs' GPUs are mostly busy.
SELECT count(*) AS lines, min(length(l)) > 0 AS nonempty
  FROM acmetrace.generate_util('seren', 3000, 5, 'GPU_UTIL', '2023-03-01 06:00+00', 40) l;
SELECT cardinality(string_to_array(l, ',')) AS columns, split_part(l, ',', 2289) AS last
  FROM acmetrace.generate_util('seren', 3000, 5, 'GPU_UTIL', '2023-03-01 06:00+00', 0) l;
BEGIN;
SET LOCAL acmetrace.cluster = 'gen_util';
SET LOCAL acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines
  SELECT * FROM acmetrace.generate_util('seren', 3000, 5, 'GPU_UTIL', '2023-03-01 06:00+00', 40);
WITH ran AS (SELECT job_id, start_time, end_time, unnest(series) AS series FROM placed),
     s AS (SELECT u.value, EXISTS (SELECT 1 FROM ran r WHERE r.series = u.series
                                     AND u.ts >= r.start_time AND u.ts < r.end_time) AS running
             FROM acmetrace.utilization u WHERE u.cluster = 'gen_util')
SELECT running, count(*) > 0 AS some, max(value) <= 1 AS all_idle,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY value) >= 90 AS median_busy
  FROM s GROUP BY running ORDER BY running;
ROLLBACK;
-- the same arguments, the same lines
SELECT (SELECT md5(string_agg(l, E'\n')) FROM acmetrace.generate_util('kalos', 500, 2, 'SM_ACTIVE', '2023-05-02', 20, 0.1) l)
     = (SELECT md5(string_agg(l, E'\n')) FROM acmetrace.generate_util('kalos', 500, 2, 'SM_ACTIVE', '2023-05-02', 20, 0.1) l)
       AS deterministic;
SELECT acmetrace.generate_util('seren', 10, 1, 'NODE_CPU_UTILIZATION', now(), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util('philly', 10, 1, 'GPU_UTIL', now(), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util('seren', 10, 1, 'GPU_UTIL', now(), -1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util('seren', -1, 1, 'GPU_UTIL', now(), 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util('seren', 10, 1, 'GPU_UTIL', now(), 1, 1.5);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.generate_util('seren', 10, 1, 'GPU_UTIL', 'infinity', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM acmetrace.generate_util('seren', 10, 1, NULL, now(), 1);
SELECT * FROM acmetrace.generate_placement('kalos', -1);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM acmetrace.generate_placement('seren', 0);
SELECT count(*) FROM acmetrace.generate_placement(NULL, 10);

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
