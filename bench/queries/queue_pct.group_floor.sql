-- The grouping floor: the same rows grouped by type, counted and nothing
-- else, so the sketch's own cost is the difference.
SELECT type, count(*)
  FROM acmetrace.jobs
 WHERE cluster = 'seren' AND wait_s >= 0 AND gpu_num > 0
 GROUP BY type
