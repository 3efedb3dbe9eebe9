-- DuckDB: span, jobs, GPUs per GPU job and the peak GPUs allocated (a window sum over start/end events).
WITH ev AS (
    SELECT start_s AS t, gpu_num::BIGINT AS d FROM jobs
     WHERE gpu_num > 0 AND start_s IS NOT NULL AND NOT coalesce(end_s < start_s, false)
    UNION ALL
    SELECT end_s, -gpu_num FROM jobs
     WHERE gpu_num > 0 AND start_s IS NOT NULL AND end_s IS NOT NULL AND end_s >= start_s
), peak AS (
    SELECT max(level) AS p FROM (SELECT sum(d) OVER (ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS level FROM ev)
)
SELECT cluster, min(submit_s), max(submit_s), round((max(submit_s) - min(submit_s)) / 86400, 2), count(*),
       count(*) FILTER (WHERE gpu_num > 0), round(avg(gpu_num) FILTER (WHERE gpu_num > 0), 2), (SELECT p FROM peak)
  FROM jobs GROUP BY cluster
