-- The paper's failure table over acmetrace.failure_reasons.

-- Rows are (category, reason) pairs plus one row with NULL category and
-- reason for failed jobs nobody classified, so the shares add up to 100%.
CREATE FUNCTION acmetrace_internal.failure_taxonomy_scan(cluster text DEFAULT NULL)
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
             WHERE acmetrace_internal.known_cluster(failure_taxonomy_scan.cluster)
               AND (r.job_id IS NOT NULL OR j.final_state = 'FAILED')
               AND (failure_taxonomy_scan.cluster IS NULL OR j.cluster = failure_taxonomy_scan.cluster)
             GROUP BY j.cluster, r.category, r.reason) s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.failure_taxonomy_scan(text) IS
  'The scan path of acmetrace.failure_taxonomy: reads acmetrace.jobs.';
