-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): final states of GPU jobs per type, with shares of the type.
SELECT cluster, type, final_state, sum(n),
       round(100 * sum(n) / sum(sum(n)) OVER (PARTITION BY cluster, type), 2),
       coalesce(sum(dg), 0),
       round(100 * coalesce(sum(dg), 0) / sum(coalesce(sum(dg), 0)) OVER (PARTITION BY cluster, type), 2)
  FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, type, final_state ORDER BY cluster, type, final_state
