-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): CDF of GPU job duration at 1, 2, 4, ... 2^21 s per cluster (type 'all') and type.
WITH b AS (SELECT cluster, type, grouping(type) AS g, dk AS k, sum(n) AS n
             FROM job_rollup WHERE gpu_num > 0 AND dk IS NOT NULL
            GROUP BY GROUPING SETS ((cluster, dk), (cluster, type, dk)))
SELECT cluster, CASE WHEN g = 1 THEN 'all' ELSE type END AS type, 2 ^ e AS duration_s, sum(n) AS jobs, round(100 * coalesce(sum(n) FILTER (WHERE k <= e), 0) / sum(n), 2) AS cdf_pct
  FROM b, range(0, 22) t(e)
 WHERE g = 1 OR type IS NOT NULL
 GROUP BY cluster, type, g, e ORDER BY cluster, g DESC, type, e
