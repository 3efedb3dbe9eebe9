-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): final states of GPU jobs by count and GPU time, with shares.
SELECT cluster, final_state, sum(n) AS jobs,
       round(100 * sum(n) / sum(sum(n)) OVER (PARTITION BY cluster), 2),
       sum(gt) AS t,
       round(100 * sum(gt) / sum(sum(gt)) OVER (PARTITION BY cluster), 2)
  FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, final_state ORDER BY cluster, final_state
