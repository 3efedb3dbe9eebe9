-- Final-state breakdown of GPU jobs, by job count and by GPU time.

CREATE FUNCTION acmetrace_internal.state_breakdown_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT j.cluster, j.final_state, count(*) AS n,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) AS t
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(state_breakdown_scan.cluster)
               AND j.gpu_num > 0
               AND (state_breakdown_scan.cluster IS NULL OR j.cluster = state_breakdown_scan.cluster)
             GROUP BY j.cluster, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.state_breakdown_scan(text) IS
  'The scan path of acmetrace.state_breakdown: reads acmetrace.jobs.';
