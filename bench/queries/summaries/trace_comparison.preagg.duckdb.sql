-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup and cluster_peaks): acmetrace.trace_comparison(),
-- the raw form's columns from the groups' counts and first and last submissions, and each cluster's peak
-- allocation found at load.
WITH j AS (
    SELECT cluster, min(first_s) AS first_s, max(last_s) AS last_s, sum(n) AS n,
           sum(n) FILTER (WHERE gpu_num > 0) AS n_gpu, sum(gpu_num * n) FILTER (WHERE gpu_num > 0) / n_gpu AS g
      FROM job_rollup GROUP BY cluster)
SELECT c.cluster, c.source_format, year(timezone(c.time_zone, to_timestamp(j.first_s)))::INTEGER,
       to_timestamp(j.first_s), to_timestamp(j.last_s),
       round_dec((j.last_s - j.first_s) / 86400, 2), round_dec((j.last_s - j.first_s) / 86400 / 30.44, 1),
       coalesce(j.n, 0), coalesce(j.n_gpu, 0), round_dec(j.g, 2), c.gpu_capacity, p.peak
  FROM clusters c LEFT JOIN j USING (cluster) LEFT JOIN cluster_peaks p USING (cluster)
 ORDER BY c.cluster
