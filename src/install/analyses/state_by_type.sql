-- acmetrace.state_by_type: final states of GPU jobs per job type.

-- Final states per cluster and job type (GPU jobs).
CREATE FUNCTION acmetrace_internal.state_by_type_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(state_by_type_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type,
                   grouping(j.type) AS total, j.final_state, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE (state_by_type_scan.since IS NULL OR j.submit_time >= state_by_type_scan.since)
               AND (state_by_type_scan.until IS NULL OR j.submit_time < state_by_type_scan.until)
               AND j.gpu_num > 0 AND (state_by_type_scan.cluster IS NULL OR j.cluster = state_by_type_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster, j.final_state), (j.cluster, j.type, j.final_state))) s
    WINDOW w AS (PARTITION BY s.cluster, s.total, s.type)
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_by_type_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.state_by_type: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.state_by_type_summary(cluster text)
RETURNS TABLE (out_cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(state_by_type_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type ELSE 'all' END AS type,
                   grouping(r.type) AS total, r.final_state, sum(r.jobs)::bigint AS n, coalesce(sum(r.gpu_time), 0) AS t
              FROM acmetrace.summary_groups r
             WHERE r.gpu_num > 0 AND (state_by_type_summary.cluster IS NULL OR r.cluster = state_by_type_summary.cluster)
             GROUP BY GROUPING SETS ((r.cluster, r.final_state), (r.cluster, r.type, r.final_state))) s
    WINDOW w AS (PARTITION BY s.cluster, s.total, s.type)
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.state_by_type_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
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
            RETURN QUERY SELECT * FROM acmetrace_internal.state_by_type_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.state_by_type_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.state_by_type_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_by_type_run(text, timestamptz, timestamptz) IS
  'acmetrace.state_by_type: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.state_by_type(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.state_by_type_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.state_by_type(text, timestamptz, timestamptz) IS
  'Final state of GPU jobs per cluster and job type: jobs and their percent of the type''s jobs, GPU-hours (duration x gpu_num / 3600) and their percent of the type''s. GPU time in GPU-hours (2 decimals). TIMEOUT and NODE_FAIL count as FAILED; type ''all'' is every type together, NULL the jobs without a type. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_state_by_type WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.state_by_type(NULL);
COMMENT ON VIEW acmetrace.v_state_by_type IS
  'Final state of GPU jobs per cluster and job type by job count and GPU time (acmetrace.state_by_type).';
