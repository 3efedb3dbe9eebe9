-- What a DuckDB user pre-aggregates after loading, the way acmetrace keeps
-- its summaries at load (bench/summaries times this as the build):
--  * job_rollup: the jobs per (cluster, type, state, final state, GPUs, week
--    the job ended in the cluster's zone, power-of-two bucket of duration and
--    of queueing delay, 20 s bin of delay) with counts, sums, counts of
--    non-NULL values, maxima and the first and last submission;
--  * job_values: exact value counts (cluster, type, GPU job or not, measure,
--    value, count) of duration, published queue and queueing delay, for
--    medians and quantiles (a cumulative sum finds them);
--  * cluster_peaks and occupancy_waits: one sweep over start/end events per
--    cluster, its peak allocation, and the queueing delay of GPU jobs counted
--    per value and tenth of capacity allocated at submission;
--  * classified_jobs: the classified jobs with what the failure table reads;
--  * util_series: each GPU's utilization sum and count.
CREATE TABLE job_rollup AS
SELECT j.cluster, type, state, final_state, gpu_num,
       date_trunc('week', timezone(c.time_zone, to_timestamp(end_s)))::DATE AS end_week,
       CASE WHEN duration IS NULL THEN NULL WHEN duration <= 1 THEN 0 ELSE ceil(log2(duration))::INTEGER END AS dk,
       CASE WHEN wait_s IS NULL OR wait_s < 0 THEN NULL WHEN wait_s = 0 THEN -1 WHEN wait_s <= 1 THEN 0
            ELSE ceil(log2(wait_s))::INTEGER END AS qk,
       CASE WHEN wait_s >= 0 THEN least(floor(wait_s / 20), 15)::INTEGER + 1 END AS q20,
       count(*) AS n, sum(duration * gpu_num) AS dg, sum(coalesce(gpu_time, duration * gpu_num)) AS gt,
       sum(duration) AS ds, count(duration) AS dn, max(duration) AS dmax, sum(queue) AS qs, count(queue) AS qn,
       min(submit_s) AS first_s, max(submit_s) AS last_s
  FROM jobs j LEFT JOIN clusters c USING (cluster) GROUP BY ALL;
CREATE TABLE job_values AS
SELECT cluster, type, gpu_num > 0 AS gpu, measure, v, count(*) AS n
  FROM (UNPIVOT (SELECT cluster, type, gpu_num, duration, queue, CASE WHEN wait_s >= 0 THEN wait_s END AS wait FROM jobs)
          ON duration, queue, wait INTO NAME measure VALUE v)
 WHERE gpu_num >= 0
 GROUP BY ALL;
CREATE TEMP TABLE sweep AS  -- (t, k, d): at an instant, releases, then allocations, then submissions
SELECT cluster, k, type, w, sum(d) OVER (PARTITION BY cluster ORDER BY t, k, d ROWS UNBOUNDED PRECEDING) AS occ
  FROM (SELECT cluster, start_s AS t, 0 AS k, gpu_num::BIGINT AS d, NULL::VARCHAR AS type, NULL::DOUBLE AS w
          FROM jobs WHERE gpu_num > 0 AND start_s IS NOT NULL AND NOT coalesce(end_s < start_s, false)
        UNION ALL
        SELECT cluster, end_s, 0, -gpu_num, NULL, NULL
          FROM jobs WHERE gpu_num > 0 AND start_s IS NOT NULL AND end_s >= start_s
        UNION ALL
        SELECT cluster, submit_s, 1, 0, type, wait_s FROM jobs WHERE gpu_num > 0 AND wait_s >= 0);
CREATE TABLE cluster_peaks AS
SELECT s.cluster, max(s.occ) FILTER (WHERE s.k = 0) AS peak,
       coalesce(any_value(c.gpu_capacity), nullif(max(s.occ) FILTER (WHERE s.k = 0), 0), 1) AS capacity
  FROM sweep s LEFT JOIN clusters c USING (cluster) GROUP BY s.cluster;
CREATE TABLE occupancy_waits AS
SELECT s.cluster, s.type,
       CASE WHEN s.occ < 0 THEN 0 WHEN s.occ >= p.capacity THEN 11 ELSE floor(10 * s.occ / p.capacity)::INTEGER + 1 END AS bin,
       s.w AS wait_s, count(*) AS n
  FROM sweep s JOIN cluster_peaks p USING (cluster) WHERE s.k = 1 GROUP BY ALL;
DROP TABLE sweep;
CREATE TABLE classified_jobs AS
SELECT r.cluster, r.category, r.reason, j.final_state, j.gpu_num, j.duration
  FROM failure_reasons r JOIN jobs j USING (cluster, job_id);
CREATE TABLE util_series AS
SELECT cluster, series, sum(value) AS s, count(value) AS n FROM utilization GROUP BY cluster, series;
