-- DuckDB: p50/p90/p99 of queueing delay by job type, exact, interpolated
-- (quantile_cont: same ranks as percentile_cont, may differ in the last bit).
SELECT type, quantile_cont(wait_s, [0.5, 0.9, 0.99]::DOUBLE[])
  FROM jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
