-- DuckDB: CDF of GPU job duration at 1, 2, 4, ... 2^21 s per cluster (type 'all') and type:
-- each job counted once in its power-of-two bucket, then cumulated per threshold.
WITH b AS (SELECT cluster, type, grouping(type) AS g, CASE WHEN duration <= 1 THEN 0 ELSE ceil(log2(duration))::INTEGER END AS k, count(*) AS n
             FROM jobs WHERE gpu_num > 0 AND duration IS NOT NULL
            GROUP BY GROUPING SETS ((cluster, k), (cluster, type, k)))
SELECT cluster, CASE WHEN g = 1 THEN 'all' ELSE type END AS type, 2 ^ e AS duration_s, sum(n) AS jobs, round(100 * coalesce(sum(n) FILTER (WHERE k <= e), 0) / sum(n), 2) AS cdf_pct
  FROM b, range(0, 22) t(e)
 WHERE g = 1 OR type IS NOT NULL
 GROUP BY cluster, type, g, e ORDER BY cluster, g DESC, type, e
