-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): GPU-hours of failed and cancelled GPU jobs per type and of every type ('all').
SELECT cluster, type, n, round_dec(t / 3600, 2), round_dec(f / 3600, 2), round_dec(c / 3600, 2),
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM (SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, sum(n) AS n,
               coalesce(sum(dg), 0) AS t,
               coalesce(sum(dg) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
               coalesce(sum(dg) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c
          FROM job_rollup WHERE gpu_num > 0 GROUP BY GROUPING SETS ((cluster), (cluster, type)))
 ORDER BY cluster, type
