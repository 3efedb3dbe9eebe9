-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): GPU time of failed and cancelled GPU jobs per type.
SELECT cluster, type, sum(n), coalesce(sum(dg), 0) AS t,
       coalesce(sum(dg) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
       coalesce(sum(dg) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c,
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM job_rollup WHERE gpu_num > 0 GROUP BY cluster, type ORDER BY cluster, type
