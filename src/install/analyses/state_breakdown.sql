-- acmetrace.state_breakdown: the final-state breakdown of GPU jobs, by job
-- count and by GPU time.

CREATE FUNCTION acmetrace_internal.state_breakdown_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(state_breakdown_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT j.cluster, j.final_state, count(*) AS n,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) AS t
              FROM acmetrace.jobs j
             WHERE (state_breakdown_scan.since IS NULL OR j.submit_time >= state_breakdown_scan.since)
               AND (state_breakdown_scan.until IS NULL OR j.submit_time < state_breakdown_scan.until)
               AND j.gpu_num > 0
               AND (state_breakdown_scan.cluster IS NULL OR j.cluster = state_breakdown_scan.cluster)
             GROUP BY j.cluster, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_breakdown_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.state_breakdown: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.state_breakdown_summary(cluster text)
RETURNS TABLE (out_cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(state_breakdown_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT r.cluster, r.final_state, sum(r.jobs)::bigint AS n, sum(r.gpu_time_published) AS t
              FROM acmetrace.summary_groups r
             WHERE r.gpu_num > 0
               AND (state_breakdown_summary.cluster IS NULL OR r.cluster = state_breakdown_summary.cluster)
             GROUP BY r.cluster, r.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.state_breakdown_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.state_breakdown_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.state_breakdown_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.state_breakdown_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_breakdown_run(text, timestamptz, timestamptz) IS
  'acmetrace.state_breakdown: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.state_breakdown(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.state_breakdown_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.state_breakdown(text, timestamptz, timestamptz) IS
  'Per cluster and final state, GPU jobs (gpu_num > 0): count and percent of jobs, GPU-hours (published gpu_time, else duration * gpu_num, / 3600, 2 decimals) and percent of GPU time. TIMEOUT and NODE_FAIL count as FAILED. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_state_breakdown WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.state_breakdown(NULL);
COMMENT ON VIEW acmetrace.v_state_breakdown IS
  'Final state of GPU jobs per cluster by job count and GPU time (acmetrace.state_breakdown).';
