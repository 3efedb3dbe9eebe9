-- What a DuckDB user pre-aggregates after loading, the way acmetrace keeps
-- its summaries at load (bench/summaries times this as the build): the jobs
-- rolled up per (cluster, type, state, final state, GPUs, week the job ended,
-- power-of-two bucket of duration and of queueing delay, 20 s bin of delay)
-- with counts and GPU-time sums; each GPU's utilization sum and count.
CREATE TABLE job_rollup AS
SELECT cluster, type, state, final_state, gpu_num,
       date_trunc('week', make_timestamp(((end_s + 28800) * 1000000)::BIGINT))::DATE AS end_week,
       CASE WHEN duration IS NULL THEN NULL WHEN duration <= 1 THEN 0 ELSE ceil(log2(duration))::INTEGER END AS dk,
       CASE WHEN wait_s IS NULL OR wait_s < 0 THEN NULL WHEN wait_s = 0 THEN -1 WHEN wait_s <= 1 THEN 0
            ELSE ceil(log2(wait_s))::INTEGER END AS qk,
       CASE WHEN wait_s >= 0 THEN least(floor(wait_s / 20), 15)::INTEGER + 1 END AS q20,
       count(*) AS n, sum(duration * gpu_num) AS dg, sum(coalesce(gpu_time, duration * gpu_num)) AS gt
  FROM jobs GROUP BY ALL;
CREATE TABLE util_series AS
SELECT cluster, series, sum(value) AS s, count(value) AS n FROM utilization GROUP BY cluster, series;
