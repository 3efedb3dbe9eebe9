-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): job types of GPU jobs, and every type ('all'), with shares of jobs and GPU-hours.
SELECT cluster, type, n,
       round(100 * n / max(n) FILTER (WHERE g = 1) OVER (PARTITION BY cluster), 2),
       round_dec(t / 3600, 2),
       round(100 * t / max(t) FILTER (WHERE g = 1) OVER (PARTITION BY cluster), 2)
  FROM (SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, grouping(type) AS g,
               sum(n) AS n, coalesce(sum(dg), 0) AS t
          FROM job_rollup WHERE gpu_num > 0 GROUP BY GROUPING SETS ((cluster), (cluster, type)))
 ORDER BY cluster, g DESC, n DESC
