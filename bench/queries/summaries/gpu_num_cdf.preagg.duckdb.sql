-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): CDF of GPU count at 0..1024 by jobs and by GPU time.
WITH g AS (SELECT cluster, gpu_num, sum(n) AS n, sum(dg) AS w
             FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, gpu_num)
SELECT cluster, x, sum(n) AS jobs,
       round(100 * coalesce(sum(n) FILTER (WHERE gpu_num <= x), 0) / sum(n), 2),
       round(100 * coalesce(sum(w) FILTER (WHERE gpu_num <= x), 0) / sum(w), 2)
  FROM g, range(0, 1025) t(x) GROUP BY cluster, x ORDER BY cluster, x
