-- p50/p90/p99 of queueing delay by job type: exact, the value of each rank.
SELECT type, percentile_disc('{0.5,0.9,0.99}'::float8[]) WITHIN GROUP (ORDER BY wait_s)
  FROM acmetrace.jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
