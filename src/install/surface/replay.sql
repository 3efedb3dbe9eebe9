-- What-if replay of a loaded trace through the scheduler core (src/core/replay.c).

CREATE FUNCTION acmetrace.replay(cluster text, policy text DEFAULT 'fifo', capacity integer DEFAULT NULL,
                                 backfill boolean DEFAULT false, predictions regclass DEFAULT NULL)
RETURNS TABLE (job_id text, type text, gpu_num integer, submit_time timestamptz,
               recorded_start timestamptz, recorded_queue_s bigint,
               start_time timestamptz, end_time timestamptz, queue_s bigint)
AS 'MODULE_PATHNAME', 'acmetrace_replay'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION acmetrace.replay(text, text, integer, boolean, regclass) IS
  'The GPU jobs of a loaded cluster run again through the scheduler at their recorded submit times and run times, under policy fifo, priority (by job type) or sjf (shortest first: predicted_s of the predictions table, else the recorded run time) on capacity GPUs (default: the cluster''s), with or without EASY backfill: every job with its recorded and its replayed start.';

CREATE FUNCTION acmetrace.replay_summary(cluster text, policy text DEFAULT 'fifo', capacity integer DEFAULT NULL,
                                         backfill boolean DEFAULT false, predictions regclass DEFAULT NULL)
RETURNS TABLE (type text, jobs bigint, started bigint,
               recorded_mean_queue_s numeric, mean_queue_s numeric,
               recorded_median_queue_s numeric, median_queue_s numeric,
               recorded_p90_queue_s numeric, p90_queue_s numeric,
               recorded_mean_jct_s numeric, mean_jct_s numeric,
               recorded_peak_gpus bigint, peak_gpus bigint,
               recorded_mean_gpus numeric, mean_gpus numeric)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
-- Only the columns the summary reads, not materialized a second time (the
-- function scan already holds the rows); one float8 queue column, so the
-- median and p90 of each share a sort.
WITH r AS (
    SELECT r.type, r.gpu_num, r.submit_time, r.recorded_start, r.recorded_queue_s,
           r.recorded_queue_s::float8 AS recorded_q, r.queue_s, r.start_time, r.end_time,
           r.end_time - r.start_time AS run, extract(epoch FROM r.end_time - r.start_time)::float8 AS run_s
      FROM acmetrace.replay(replay_summary.cluster, replay_summary.policy, replay_summary.capacity,
                            replay_summary.backfill, replay_summary.predictions) r),
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
           -- GPUs held at once, recorded and replayed, over the jobs that started in both
           count(*) FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL) AS both_started,
           acmetrace.peak(acmetrace.occupancy_agg(r.recorded_start, r.recorded_start + r.run, r.gpu_num)
                          FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL)) AS recorded_peak,
           acmetrace.peak(acmetrace.occupancy_agg(r.start_time, r.end_time, r.gpu_num)
                          FILTER (WHERE r.start_time IS NOT NULL AND r.recorded_start IS NOT NULL)) AS peak
      FROM r GROUP BY GROUPING SETS ((r.type), ()))
SELECT CASE WHEN q.all_rows THEN NULL ELSE q.type END, q.jobs, q.started,
       round(q.recorded_mean_queue_s::numeric, 1), round(q.mean_queue_s::numeric, 1),
       round(q.recorded_median_queue_s::numeric, 1), round(q.median_queue_s::numeric, 1),
       round(q.recorded_p90_queue_s::numeric, 1), round(q.p90_queue_s::numeric, 1),
       round(q.recorded_mean_jct_s::numeric, 1), round(q.mean_jct_s::numeric, 1),
       CASE WHEN q.both_started > 0 THEN q.recorded_peak END, CASE WHEN q.both_started > 0 THEN q.peak END,
       round(q.recorded_mean_gpus::numeric, 1), round(q.mean_gpus::numeric, 1)
  FROM q
 ORDER BY q.all_rows DESC, q.type
$$;
COMMENT ON FUNCTION acmetrace.replay_summary(text, text, integer, boolean, regclass) IS
  'acmetrace.replay summarized per job type and for all GPU jobs (type NULL): queueing delay (mean, median, p90) and mean job completion time (queue + run), peak and mean GPUs held, recorded beside replayed.';
