-- The same in plain SQL: a window sum over start/end events, with each
-- job's submit time as a query point ordered after the events at its instant.
WITH ev AS (
    SELECT start_time AS t, 0 AS k, gpu_num::bigint AS d, NULL::text AS type, NULL::numeric AS q
      FROM acmetrace.jobs WHERE cluster = 'seren' AND start_time IS NOT NULL AND gpu_num > 0
    UNION ALL
    SELECT end_time, 0, -gpu_num, NULL, NULL
      FROM acmetrace.jobs WHERE cluster = 'seren' AND start_time IS NOT NULL AND gpu_num > 0
       AND end_time IS NOT NULL
    UNION ALL
    SELECT submit_time, 1, 0, type, queue FROM acmetrace.jobs WHERE cluster = 'seren'
), run AS (
    SELECT t, k, type, q, sum(d) OVER (ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS occ FROM ev
)
SELECT type, width_bucket(CASE WHEN t IS NOT NULL THEN occ END, 0, 2288, 10) bin, avg(q), count(*)
  FROM run WHERE k = 1
 GROUP BY 1, 2
