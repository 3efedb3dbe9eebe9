-- DuckDB: occupancy_queue.plain.sql on epoch seconds.  A window sum over
-- start/end events, each job's submit time a query point ordered after the
-- events at its instant.  width_bucket(occ, 0, 2288, 10) spelled out: occ is
-- a whole number (numeric in PostgreSQL), so integer division gives the
-- bucket exactly as PostgreSQL does; NULL stays NULL.
WITH ev AS (
    SELECT start_s AS t, 0 AS k, gpu_num::BIGINT AS d, NULL::VARCHAR AS type, NULL::DOUBLE AS q
      FROM jobs WHERE cluster = 'seren' AND start_s IS NOT NULL AND gpu_num > 0
    UNION ALL
    SELECT end_s, 0, -gpu_num, NULL, NULL
      FROM jobs WHERE cluster = 'seren' AND start_s IS NOT NULL AND gpu_num > 0
       AND end_s IS NOT NULL
    UNION ALL
    SELECT submit_s, 1, 0, type, queue FROM jobs WHERE cluster = 'seren'
), run AS (
    SELECT t, k, type, q, sum(d) OVER (ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS occ FROM ev
), pt AS (
    SELECT type, q, CASE WHEN t IS NOT NULL THEN occ END AS x FROM run WHERE k = 1
)
SELECT type,
       CASE WHEN x < 0 THEN 0 WHEN x >= 2288 THEN 11 ELSE (10 * x) // 2288 + 1 END AS bin,
       avg(q), count(*)
  FROM pt
 GROUP BY 1, 2
