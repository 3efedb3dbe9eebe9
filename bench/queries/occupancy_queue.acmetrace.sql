-- Queueing delay by cluster occupancy at submit time: the issue's typical use.
WITH o AS (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) occ
             FROM acmetrace.jobs WHERE cluster = 'seren')
SELECT type, width_bucket(acmetrace.gpus_at(o.occ, j.submit_time), 0, 2288, 10) bin, avg(j.queue), count(*)
  FROM acmetrace.jobs j, o
 WHERE j.cluster = 'seren'
 GROUP BY 1, 2
