-- DuckDB: p50/p90/p99 (exact, quantile_disc), mean (3 decimals) and max of GPU jobs' queueing delay, all types and per type.
SELECT cluster, CASE WHEN g = 1 THEN 'all' ELSE type END, n, q[1], q[2], q[3], round(m, 3), mx
  FROM (SELECT cluster, type, grouping(type) AS g, count(*) AS n, quantile_disc(wait_s, [0.5, 0.9, 0.99]) AS q, avg(wait_s) AS m, max(wait_s) AS mx
          FROM jobs WHERE gpu_num > 0 AND wait_s >= 0
         GROUP BY GROUPING SETS ((cluster), (cluster, type)))
 ORDER BY cluster, g DESC, type
