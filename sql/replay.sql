-- What-if replay: a loaded trace through the scheduler under other
-- policies and capacities (acmetrace.replay, acmetrace.replay_summary).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SELECT acmetrace.load_generated('gen', 'seren', 6000, 3);
SELECT max(gpu_num) AS largest FROM acmetrace.jobs WHERE cluster = 'gen';

-- Every GPU job once, with its recorded times; at the cluster's capacity.
SELECT count(*) AS replayed,
       count(*) = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0) AS every_gpu_job,
       count(DISTINCT r.job_id) = count(*) AS once,
       count(*) FILTER (WHERE r.recorded_start IS DISTINCT FROM j.start_time
                           OR r.submit_time <> j.submit_time OR r.gpu_num <> j.gpu_num) AS recorded_differ,
       count(*) FILTER (WHERE r.start_time < r.submit_time) AS before_submit,
       count(*) FILTER (WHERE r.start_time IS NOT NULL AND r.end_time - r.start_time <> j.end_time - j.start_time) AS run_changed,
       count(*) FILTER (WHERE r.queue_s <> extract(epoch FROM r.start_time - r.submit_time)) AS queue_wrong
  FROM acmetrace.replay('gen') r JOIN acmetrace.jobs j ON j.cluster = 'gen' AND j.job_id = r.job_id;

-- Half the GPUs: FCFS queues, backfill and shortest first wait less.
CREATE TEMP TABLE policies AS
SELECT p.label, s.*
  FROM (VALUES ('fifo', 'fifo', false), ('fifo+backfill', 'fifo', true),
               ('sjf', 'sjf', false), ('priority+backfill', 'priority', true)) p(label, policy, backfill)
 CROSS JOIN LATERAL acmetrace.replay_summary('gen', p.policy, 1024, p.backfill) s
 WHERE s.type = 'all';
SELECT label, jobs, started, mean_queue_s, median_queue_s, p90_queue_s, mean_jct_s, peak_gpus
  FROM policies ORDER BY label;
SELECT (SELECT mean_queue_s FROM policies WHERE label = 'sjf') < (SELECT mean_queue_s FROM policies WHERE label = 'fifo')
         AS sjf_waits_less,
       (SELECT mean_queue_s FROM policies WHERE label = 'fifo+backfill') < (SELECT mean_queue_s FROM policies WHERE label = 'fifo')
         AS backfill_waits_less,
       (SELECT max(peak_gpus) FROM policies) <= 1024 AS never_over_capacity;
-- per type: the recorded side is the same whatever the policy
SELECT type, jobs, recorded_mean_queue_s, recorded_peak_gpus
  FROM acmetrace.replay_summary('gen', 'fifo', 1024) ORDER BY type = 'all' DESC, type;
-- replay_summary (C, src/core/replay.c) equals its earlier SQL formulas over
-- acmetrace.replay's rows, kept here as the oracle: per type and for all,
-- printed to the same rounding, in the same order (the all row first, then
-- by type, no type last).
CREATE FUNCTION pg_temp.sql_summary(cluster text, policy text, capacity integer, backfill boolean)
RETURNS TABLE (type text, jobs bigint, started bigint, rmq numeric, mq numeric, rmed numeric, med numeric,
               rp90 numeric, p90 numeric, rjct numeric, jct numeric, rpeak bigint, peak bigint, rgpus numeric, gpus numeric)
LANGUAGE sql AS $$
WITH r AS (
    SELECT r.type, r.gpu_num, r.submit_time, r.recorded_start, r.recorded_queue_s,
           r.recorded_queue_s::float8 AS recorded_q, r.queue_s, r.start_time, r.end_time,
           r.end_time - r.start_time AS run, extract(epoch FROM r.end_time - r.start_time)::float8 AS run_s
      FROM acmetrace.replay(sql_summary.cluster, sql_summary.policy, sql_summary.capacity, sql_summary.backfill) r),
q AS (
    SELECT r.type, grouping(r.type) = 1 AS all_rows,
           count(*) AS jobs, count(r.start_time) AS started,
           avg(r.recorded_queue_s) AS recorded_mean_queue_s, avg(r.queue_s) AS mean_queue_s,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.recorded_q) AS recorded_median_queue_s,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.queue_s) AS median_queue_s,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY r.recorded_q) AS recorded_p90_queue_s,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY r.queue_s) AS p90_queue_s,
           avg(r.recorded_q + r.run_s) AS recorded_mean_jct_s,
           avg(r.queue_s + r.run_s) AS mean_jct_s,
           sum(r.gpu_num * r.run_s) FILTER (WHERE r.recorded_start IS NOT NULL)
             / nullif(extract(epoch FROM max(r.recorded_start + r.run) - min(r.submit_time)), 0)
             AS recorded_mean_gpus,
           sum(r.gpu_num * r.run_s) FILTER (WHERE r.start_time IS NOT NULL)
             / nullif(extract(epoch FROM max(r.end_time) FILTER (WHERE r.start_time IS NOT NULL) - min(r.submit_time)), 0)
             AS mean_gpus,
           count(*) FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL) AS both_started,
           acmetrace.peak(acmetrace.occupancy_agg(r.recorded_start, r.recorded_start + r.run, r.gpu_num)
                          FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL)) AS recorded_peak,
           acmetrace.peak(acmetrace.occupancy_agg(r.start_time, r.end_time, r.gpu_num)
                          FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL)) AS peak
      FROM r GROUP BY GROUPING SETS ((r.type), ()))
SELECT CASE WHEN q.all_rows THEN 'all' ELSE q.type END, q.jobs, q.started,
       round(q.recorded_mean_queue_s::numeric, 1), round(q.mean_queue_s::numeric, 1),
       round(q.recorded_median_queue_s::numeric, 1), round(q.median_queue_s::numeric, 1),
       round(q.recorded_p90_queue_s::numeric, 1), round(q.p90_queue_s::numeric, 1),
       round(q.recorded_mean_jct_s::numeric, 1), round(q.mean_jct_s::numeric, 1),
       CASE WHEN q.both_started > 0 THEN q.recorded_peak END, CASE WHEN q.both_started > 0 THEN q.peak END,
       round(q.recorded_mean_gpus::numeric, 1), round(q.mean_gpus::numeric, 1)
  FROM q
 ORDER BY q.all_rows DESC, q.type
$$;
-- 'mixed': gen's jobs with a fifth of them untyped, a tenth run for no
-- time and some recorded starts off the whole second; 'cpu': no GPU job.
BEGIN;
SET LOCAL acmetrace.cluster = 'mixed';
INSERT INTO acmetrace.trace_seren (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT job_id, user_id, node_num, gpu_num, cpu_num, CASE WHEN n % 5 = 0 THEN NULL ELSE type END, state,
       submit_time, start_time + CASE WHEN n % 7 = 0 THEN interval '0.25 s' ELSE interval '0' END,
       CASE WHEN n % 10 = 3 THEN start_time ELSE end_time END, duration, queue, gpu_time
  FROM (SELECT j.*, row_number() OVER (ORDER BY j.job_id) AS n FROM acmetrace.jobs j WHERE j.cluster = 'gen') j;
SET LOCAL acmetrace.cluster = 'cpu';
INSERT INTO acmetrace.trace_seren (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT job_id, user_id, node_num, 0, cpu_num, type, state, submit_time, start_time, end_time, duration, queue, gpu_time
  FROM acmetrace.jobs WHERE cluster = 'gen' LIMIT 20;
COMMIT;
SELECT count(*) FILTER (WHERE type IS NULL) > 0 AS untyped, count(*) FILTER (WHERE start_time = end_time) > 0 AS zero_runs,
       count(*) FILTER (WHERE start_time <> date_trunc('second', start_time)) > 0 AS fractional_starts
  FROM acmetrace.jobs WHERE cluster = 'mixed';
CREATE TEMP TABLE summary_cases AS
SELECT * FROM (VALUES ('gen', 'fifo', 1024, false), ('gen', 'fifo', 1024, true), ('gen', 'sjf', 1024, true),
                      ('gen', 'priority', 1024, true), ('gen', 'fifo', NULL, false),
                      ('mixed', 'fifo', 1024, false), ('mixed', 'priority', 1024, true), ('mixed', 'sjf', 2048, false),
                      ('cpu', 'fifo', 8, false)) c(cluster, policy, capacity, backfill);
CREATE TEMP TABLE old_summary AS
SELECT c.*, q.* FROM summary_cases c CROSS JOIN LATERAL pg_temp.sql_summary(c.cluster, c.policy, c.capacity, c.backfill)
  WITH ORDINALITY q;
CREATE TEMP TABLE new_summary AS
SELECT c.*, s.* FROM summary_cases c CROSS JOIN LATERAL acmetrace.replay_summary(c.cluster, c.policy, c.capacity, c.backfill)
  WITH ORDINALITY s;
-- both differences empty; some jobs never start (they leave after their recorded wait)
SELECT (SELECT count(*) FROM old_summary) AS old_rows, (SELECT count(*) FROM new_summary) AS new_rows,
       (SELECT count(*) FROM (TABLE old_summary EXCEPT ALL TABLE new_summary) d) AS only_old,
       (SELECT count(*) FROM (TABLE new_summary EXCEPT ALL TABLE old_summary) d) AS only_new,
       (SELECT started < jobs FROM new_summary WHERE cluster = 'mixed' AND policy = 'fifo' AND type = 'all') AS some_never_start,
       (SELECT count(*) FROM new_summary WHERE cluster = 'mixed' AND policy = 'fifo' AND type IS NULL) AS untyped_rows;
SELECT cluster, policy, capacity, backfill, ordinality, type, jobs, started, mq, med, p90, jct, rpeak, peak, gpus
  FROM old_summary WHERE cluster <> 'gen' ORDER BY cluster, policy, capacity, ordinality;
-- the rows as replay_summary prints them: the all row first
SELECT * FROM acmetrace.replay_summary('mixed', 'fifo', 1024);
SELECT * FROM acmetrace.replay_summary('cpu', 'fifo', 8);

-- A trace decided by FCFS, replayed under FCFS at the same capacity,
-- starts every job at its recorded time.
BEGIN;
SET LOCAL acmetrace.cluster = 'fcfs';
INSERT INTO acmetrace.trace_seren (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT r.job_id, j.user_id, j.node_num, j.gpu_num, j.cpu_num, j.type, j.state,
       r.submit_time, r.start_time, r.end_time, j.duration, r.queue_s, j.gpu_time
  FROM acmetrace.replay('gen', 'fifo', 1024) r JOIN acmetrace.jobs j ON j.cluster = 'gen' AND j.job_id = r.job_id;
COMMIT;
SELECT count(*) AS replayed,
       count(*) FILTER (WHERE start_time IS DISTINCT FROM recorded_start) AS starts_differ,
       count(*) FILTER (WHERE recorded_queue_s > 0) > 100 AS it_queued
  FROM acmetrace.replay('fcfs', 'fifo', 1024);

-- Shortest predicted first: predictions equal to the run times give the
-- oracle's order; a job without a prediction goes last.
CREATE TEMP TABLE exact AS
  SELECT job_id, coalesce(extract(epoch FROM end_time - start_time), 0) AS predicted_s
    FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0;
SELECT count(*) FILTER (WHERE a.start_time IS DISTINCT FROM b.start_time) AS differ_from_oracle
  FROM acmetrace.replay('gen', 'sjf', 1024) a
  JOIN acmetrace.replay('gen', 'sjf', 1024, predictions => 'exact') b USING (job_id);
CREATE TEMP TABLE some_unknown AS SELECT * FROM exact WHERE predicted_s < 100 AND predicted_s > 0;
SELECT avg(queue_s) FILTER (WHERE p.job_id IS NULL) > avg(queue_s) FILTER (WHERE p.job_id IS NOT NULL)
         AS unknown_wait_longer
  FROM acmetrace.replay('gen', 'sjf', 1024, predictions => 'some_unknown') r
  LEFT JOIN some_unknown p USING (job_id);

-- Errors.
SELECT * FROM acmetrace.replay('gen', 'lifo');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', 1000);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', 1020);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', 512);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', -8);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', predictions => 'exact');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'fifo', 1024, NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.replay('gen', 'sjf', 1024, predictions => 'no_such_table');
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE no_prediction_column (job_id text, guess float8);
SELECT * FROM acmetrace.replay('gen', 'sjf', 1024, predictions => 'no_prediction_column');
\echo :LAST_ERROR_SQLSTATE
DROP TABLE no_prediction_column;
-- a cluster without a recorded capacity needs one; an unknown cluster is 42704
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SELECT cluster, gpu_capacity FROM acmetrace.clusters WHERE gpu_capacity IS NULL;
SELECT * FROM acmetrace.replay('helios');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM acmetrace.replay('no_such_cluster', 'fifo', 8);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM acmetrace.replay('helios', 'fifo', 64);

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
