-- The same GROUP BY over a column precomputed outside the query (what the
-- Spark study did): the floor for this query, with occupancy free.
SELECT type, width_bucket(occ_at_submit, 0, 2288, 10) bin, avg(queue), count(*)
  FROM bench_jobs_occ
 WHERE cluster = 'seren'
 GROUP BY 1, 2
