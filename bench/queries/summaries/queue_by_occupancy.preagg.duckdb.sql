-- DuckDB over its pre-aggregates (preagg.duckdb.sql, occupancy_waits and cluster_peaks): acmetrace.queue_by_occupancy()
-- from the delays counted per value and occupancy bin at load: mean, and median and p90 as quantile_cont (the
-- lerp of the values at positions floor(h) and ceil(h), h = p * (jobs - 1), found where the cumulative count
-- passes them), 3 significant digits (sig3).
WITH w AS (  -- each type's delays, and every type's ('all')
    SELECT cluster, type, bin, wait_s, n FROM occupancy_waits
    UNION ALL
    SELECT cluster, 'all', bin, wait_s, sum(n) FROM occupancy_waits GROUP BY cluster, bin, wait_s),
c AS (
    SELECT *, sum(n) OVER l - n AS pos, sum(n) OVER (PARTITION BY cluster, type, bin) AS jobs
      FROM w WINDOW l AS (PARTITION BY cluster, type, bin ORDER BY wait_s)),
q AS (  -- per line and fraction p
    SELECT cluster, type, bin, p, any_value(jobs) AS jobs, sum(wait_s * n) / any_value(jobs) AS mean, max(p * (jobs - 1)) AS h,
           max(wait_s) FILTER (WHERE pos <= floor(p * (jobs - 1))) AS lo, max(wait_s) FILTER (WHERE pos <= ceil(p * (jobs - 1))) AS hi
      FROM c, unnest([0.5, 0.9]) u(p) GROUP BY cluster, type, bin, p)
SELECT q.cluster, q.type, q.bin, round(k.capacity * (q.bin - 1) / 10, 1),
       CASE WHEN q.bin <= 10 THEN round(k.capacity * q.bin / 10, 1) END, any_value(q.jobs), sig3(any_value(q.mean)),
       sig3(any_value(lo + (h - floor(h)) * (hi - lo)) FILTER (WHERE p = 0.5)),
       sig3(any_value(lo + (h - floor(h)) * (hi - lo)) FILTER (WHERE p = 0.9))
  FROM q JOIN cluster_peaks k USING (cluster) GROUP BY q.cluster, q.type, q.bin, k.capacity ORDER BY q.cluster, q.type, q.bin
