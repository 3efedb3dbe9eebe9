-- The paper's failure table over acmetrace.failure_reasons.

-- Rows are (category, reason) pairs plus one row with NULL category and
-- reason for failed jobs nobody classified, so the shares add up to 100%.
CREATE FUNCTION acmetrace.failure_taxonomy(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus numeric,
               avg_minutes numeric, gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER (PARTITION BY s.cluster))
      FROM (SELECT j.cluster, r.category, r.reason, count(*) AS n,
                   round(avg(j.gpu_num), 2) AS g,
                   acmetrace_internal.sig3((avg(j.duration) / 60)::float8) AS m,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
              LEFT JOIN acmetrace.failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
             WHERE acmetrace_internal.known_cluster(failure_taxonomy.cluster)
               AND (r.job_id IS NOT NULL OR j.final_state = 'FAILED')
               AND (failure_taxonomy.cluster IS NULL OR j.cluster = failure_taxonomy.cluster)
             GROUP BY j.cluster, r.category, r.reason) s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.failure_taxonomy(text) IS
  'The paper''s failure table per cluster: for each (category, reason) in failure_reasons, jobs, average GPUs (2 decimals), average minutes (published duration, 3 significant digits), GPU time (duration x gpu_num) and percent (2 decimals) of the GPU time of all classified or failed jobs. The row with NULL category and reason is failed jobs without a classification.';
