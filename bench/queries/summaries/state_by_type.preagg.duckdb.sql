-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): final states of GPU jobs per type and of every type ('all'), with shares of the type.
SELECT cluster, type, final_state, n,
       round(100 * n / sum(n) OVER (PARTITION BY cluster, g, type), 2),
       round_dec(t / 3600, 2),
       round(100 * t / sum(t) OVER (PARTITION BY cluster, g, type), 2)
  FROM (SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, grouping(type) AS g, final_state,
               sum(n) AS n, coalesce(sum(dg), 0) AS t
          FROM job_rollup WHERE gpu_num > 0 GROUP BY GROUPING SETS ((cluster, final_state), (cluster, type, final_state)))
 ORDER BY cluster, type, final_state
