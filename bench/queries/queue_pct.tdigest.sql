-- p50/p90/p99 of queueing delay by job type: the tdigest extension (compression 100).
SELECT type, tdigest_percentile(wait_s, 100, '{0.5,0.9,0.99}'::float8[])
  FROM acmetrace.jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
