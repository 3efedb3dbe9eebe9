-- Final-state breakdown of GPU jobs, by job count and by GPU time.

CREATE FUNCTION acmetrace.state_breakdown(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, final_state text, gpu_jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.final_state, s.n,
           s.n::double precision / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::double precision
      FROM (SELECT j.cluster, j.final_state, count(*) AS n,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0
               AND ($1 IS NULL OR j.cluster = $1)
             GROUP BY j.cluster, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.state_breakdown(text) IS
  'Per cluster and final state, GPU jobs (gpu_num > 0): count and share of jobs, GPU time (published gpu_time, else duration * gpu_num) and share of GPU time. TIMEOUT and NODE_FAIL count as FAILED.';
