-- DuckDB: queueing delay of GPU jobs by type and tenth of the 2,288 GPUs
-- allocated when they were submitted (a window sum over start/end events,
-- each submission a query point after the events at its instant), with the
-- exact median and p90 (quantile_cont).
WITH ev AS (
    SELECT start_s AS t, 0 AS k, gpu_num::BIGINT AS d, NULL::VARCHAR AS type, NULL::DOUBLE AS w, false AS gpu
      FROM jobs WHERE start_s IS NOT NULL AND gpu_num > 0
    UNION ALL
    SELECT end_s, 0, -gpu_num, NULL, NULL, false
      FROM jobs WHERE start_s IS NOT NULL AND gpu_num > 0 AND end_s IS NOT NULL
    UNION ALL
    SELECT submit_s, 1, 0, type, wait_s, gpu_num > 0 FROM jobs
), run AS (
    SELECT t, k, type, w, gpu, sum(d) OVER (ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS occ FROM ev
)
SELECT 'seren' AS cluster, type,
       CASE WHEN occ < 0 THEN 0 WHEN occ >= 2288 THEN 11 ELSE (10 * occ) // 2288 + 1 END AS bin,
       count(*), avg(w), quantile_cont(w, 0.5), quantile_cont(w, 0.9)
  FROM run WHERE k = 1 AND gpu AND w >= 0
 GROUP BY type, bin ORDER BY type, bin
