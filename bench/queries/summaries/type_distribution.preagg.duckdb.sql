-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): job types of GPU jobs with shares of jobs and GPU time.
SELECT cluster, type, sum(n),
       round(100 * sum(n) / sum(sum(n)) OVER (PARTITION BY cluster), 2),
       coalesce(sum(dg), 0),
       round(100 * coalesce(sum(dg), 0) / sum(coalesce(sum(dg), 0)) OVER (PARTITION BY cluster), 2)
  FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, type ORDER BY cluster, sum(n) DESC
