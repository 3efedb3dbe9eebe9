-- DuckDB: p50/p90/p99 (exact, quantile_cont), mean and max of GPU jobs' queueing delay, all types and per type.
SELECT cluster, type, count(*), quantile_cont(wait_s, [0.5, 0.9, 0.99]), avg(wait_s), max(wait_s)
  FROM jobs WHERE gpu_num > 0 AND wait_s >= 0
 GROUP BY GROUPING SETS ((cluster), (cluster, type)) ORDER BY cluster, type NULLS FIRST
