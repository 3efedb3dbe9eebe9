-- DuckDB: p50/p90/p99 of queueing delay by job type, approx_quantile (DuckDB's t-digest).
SELECT type, approx_quantile(wait_s, [0.5, 0.9, 0.99])
  FROM jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
