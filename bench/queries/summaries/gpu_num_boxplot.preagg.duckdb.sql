-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): box-plot numbers of gpu_num per type from
-- its value counts.  Quartiles as quantile_cont (percentile_cont): the lerp of the values at positions
-- floor(h) and ceil(h), h = p * (jobs - 1), found where the cumulative count passes them; whiskers at the
-- most extreme values within 1.5 IQR of the box.
WITH d AS (SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, grouping(type) AS g, gpu_num AS v, sum(n) AS n
             FROM job_rollup WHERE gpu_num > 0 GROUP BY GROUPING SETS ((cluster, gpu_num), (cluster, type, gpu_num))),
c AS (SELECT *, sum(n) OVER (PARTITION BY cluster, g, type ORDER BY v) - n AS pos, sum(n) OVER (PARTITION BY cluster, g, type) AS jobs FROM d),
q AS (
    SELECT cluster, type, g, list(lo + (h - floor(h)) * (hi - lo) ORDER BY p) AS p
      FROM (SELECT cluster, type, g, p, max(p * (jobs - 1)) AS h,
                   max(v) FILTER (WHERE pos <= floor(p * (jobs - 1))) AS lo, max(v) FILTER (WHERE pos <= ceil(p * (jobs - 1))) AS hi
              FROM c, unnest([0.25, 0.5, 0.75]) u(p) GROUP BY cluster, type, g, p)
     GROUP BY cluster, type, g),
f AS (SELECT cluster, type, g, p[1] AS q1, p[2] AS q2, p[3] AS q3,
             p[1] - 1.5 * (p[3] - p[1]) AS lo, p[3] + 1.5 * (p[3] - p[1]) AS hi FROM q)
SELECT f.cluster, f.type, sum(d.n), min(d.v), round(f.q1, 2), round(f.q2, 2), round(f.q3, 2), max(d.v),
       min(d.v) FILTER (WHERE d.v >= f.lo), max(d.v) FILTER (WHERE d.v <= f.hi),
       coalesce(sum(d.n) FILTER (WHERE d.v < f.lo OR d.v > f.hi), 0)
  FROM f JOIN d ON d.cluster = f.cluster AND d.g = f.g AND d.type IS NOT DISTINCT FROM f.type
 GROUP BY f.cluster, f.g, f.type, f.q1, f.q2, f.q3 ORDER BY f.cluster, f.type
