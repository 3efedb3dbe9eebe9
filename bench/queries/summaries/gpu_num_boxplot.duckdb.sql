-- DuckDB: box-plot numbers of gpu_num per type and of every type ('all') (quantile_cont interpolates as percentile_cont).
WITH q AS (SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, grouping(type) AS g,
                  quantile_cont(gpu_num, [0.25, 0.5, 0.75]) AS p
             FROM jobs WHERE gpu_num > 0 GROUP BY GROUPING SETS ((cluster), (cluster, type))),
f AS (SELECT cluster, type, g, p[1] AS q1, p[2] AS q2, p[3] AS q3,
             p[1] - 1.5 * (p[3] - p[1]) AS lo, p[3] + 1.5 * (p[3] - p[1]) AS hi FROM q)
SELECT f.cluster, f.type, count(*), min(j.gpu_num), round(f.q1, 2), round(f.q2, 2), round(f.q3, 2), max(j.gpu_num),
       min(j.gpu_num) FILTER (WHERE j.gpu_num >= f.lo), max(j.gpu_num) FILTER (WHERE j.gpu_num <= f.hi),
       count(*) FILTER (WHERE j.gpu_num < f.lo OR j.gpu_num > f.hi)
  FROM f JOIN jobs j ON j.cluster = f.cluster AND (f.g = 1 OR j.type IS NOT DISTINCT FROM f.type) AND j.gpu_num > 0
 GROUP BY f.cluster, f.g, f.type, f.q1, f.q2, f.q3 ORDER BY f.cluster, f.type
