-- DuckDB: acmetrace.queue_by_occupancy(), 10 bins: queueing delay of GPU jobs per cluster, type (and every type: 'all') and tenth of
-- the cluster's GPU capacity (clusters.gpu_capacity; unknown: the observed peak) allocated when they were
-- submitted.  The allocation is a window sum over start (+GPUs) and end (-GPUs) events, each submission a
-- query point after the events at its instant (jobs with start <= submit < end hold GPUs), binned as
-- width_bucket(gpus, 0, capacity, 10) with its edges (1 decimal); mean, median and p90 (quantile_cont, as
-- percentile_cont) in seconds with 3 significant digits (sig3, macros.duckdb.sql).
WITH ev AS (
    SELECT cluster, start_s AS t, 0 AS k, gpu_num::BIGINT AS d, NULL::VARCHAR AS type, NULL::DOUBLE AS w
      FROM jobs WHERE start_s IS NOT NULL AND gpu_num > 0
    UNION ALL
    SELECT cluster, end_s, 0, -gpu_num, NULL, NULL
      FROM jobs WHERE start_s IS NOT NULL AND gpu_num > 0 AND end_s IS NOT NULL
    UNION ALL
    SELECT cluster, submit_s, 1, 0, type, wait_s FROM jobs WHERE gpu_num > 0 AND wait_s >= 0
), run AS (  -- (t, k, d): at an instant, releases before allocations before submissions
    SELECT cluster, k, type, w, sum(d) OVER (PARTITION BY cluster ORDER BY t, k, d ROWS UNBOUNDED PRECEDING) AS occ FROM ev
), cap AS (
    SELECT r.cluster, coalesce(any_value(c.gpu_capacity), nullif(max(r.occ), 0), 1) AS cap
      FROM run r LEFT JOIN clusters c USING (cluster) GROUP BY r.cluster
), b AS (
    SELECT r.cluster, r.type, cap.cap, r.w,
           CASE WHEN r.occ < 0 THEN 0 WHEN r.occ >= cap.cap THEN 11 ELSE floor(10 * r.occ / cap.cap)::INTEGER + 1 END AS bin
      FROM run r JOIN cap USING (cluster) WHERE r.k = 1
)
SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END, bin, round(cap * (bin - 1) / 10, 1), CASE WHEN bin <= 10 THEN round(cap * bin / 10, 1) END,
       count(*), sig3(avg(w)), sig3(quantile_cont(w, 0.5)), sig3(quantile_cont(w, 0.9))
  FROM b GROUP BY GROUPING SETS ((cluster, bin, cap), (cluster, type, bin, cap)) ORDER BY cluster, grouping(type) DESC, type, bin
