-- DuckDB: acmetrace.trace_comparison(), one row per cluster (clusters: source format, zone, GPU capacity):
-- the year of the first submission in the cluster's zone, first and last submission, span in days
-- (2 decimals) and months of 30.44 days (1 decimal), jobs, GPU jobs, mean GPUs per GPU job (2 decimals),
-- capacity, and the peak GPUs allocated (a window sum over start/end events of started GPU jobs; no end:
-- held to the end; end before start: left out).
WITH ev AS (
    SELECT cluster, start_s AS t, gpu_num::BIGINT AS d FROM jobs
     WHERE gpu_num > 0 AND start_s IS NOT NULL AND NOT coalesce(end_s < start_s, false)
    UNION ALL
    SELECT cluster, end_s, -gpu_num FROM jobs
     WHERE gpu_num > 0 AND start_s IS NOT NULL AND end_s IS NOT NULL AND end_s >= start_s
), peak AS (  -- (t, d): at an instant, releases before allocations
    SELECT cluster, max(level) AS p
      FROM (SELECT cluster, sum(d) OVER (PARTITION BY cluster ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS level FROM ev)
     GROUP BY cluster
), j AS (
    SELECT cluster, min(submit_s) AS first_s, max(submit_s) AS last_s, count(*) AS n,
           count(*) FILTER (WHERE gpu_num > 0) AS n_gpu, avg(gpu_num) FILTER (WHERE gpu_num > 0) AS g
      FROM jobs GROUP BY cluster
)
SELECT c.cluster, c.source_format, year(timezone(c.time_zone, to_timestamp(j.first_s)))::INTEGER,
       to_timestamp(j.first_s), to_timestamp(j.last_s),
       round_dec((j.last_s - j.first_s) / 86400, 2), round_dec((j.last_s - j.first_s) / 86400 / 30.44, 1),
       coalesce(j.n, 0), coalesce(j.n_gpu, 0), round_dec(j.g, 2), c.gpu_capacity, peak.p
  FROM clusters c LEFT JOIN j USING (cluster) LEFT JOIN peak USING (cluster)
 ORDER BY c.cluster
