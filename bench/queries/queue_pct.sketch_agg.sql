-- p50/p90/p99 of queueing delay by job type: the sketch aggregate in plain SQL.
SELECT type, acmetrace.percentiles(acmetrace.delay_sketch_agg(wait_s), '{0.5,0.9,0.99}')
  FROM acmetrace.jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
