-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): final states of GPU jobs by count and GPU-hours, with shares.
SELECT cluster, final_state, sum(n) AS jobs,
       round(100 * sum(n) / sum(sum(n)) OVER (PARTITION BY cluster), 2),
       round_dec(sum(gt) / 3600, 2) AS gpu_h,
       round(100 * sum(gt) / sum(sum(gt)) OVER (PARTITION BY cluster), 2)
  FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, final_state ORDER BY cluster, final_state
