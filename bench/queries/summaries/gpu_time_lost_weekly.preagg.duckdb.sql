-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): the same per week the jobs ended (Monday in the cluster's zone).
SELECT cluster, end_week AS week, sum(n),
       coalesce(sum(dg), 0) AS t,
       coalesce(sum(dg) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
       coalesce(sum(dg) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c,
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM job_rollup WHERE gpu_num > 0 AND end_week IS NOT NULL GROUP BY cluster, week ORDER BY cluster, week
