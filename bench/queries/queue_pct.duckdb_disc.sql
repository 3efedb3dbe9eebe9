-- DuckDB: p50/p90/p99 of queueing delay by job type, exact, the value of each
-- rank: quantile_disc picks rank max(1, ceil(q * n)) as percentile_disc does.
SELECT type, quantile_disc(wait_s, [0.5, 0.9, 0.99]::DOUBLE[])
  FROM jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
