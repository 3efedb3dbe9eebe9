-- acmetrace.gpu_time_lost: GPU time burned by jobs that failed or were
-- cancelled.

CREATE FUNCTION acmetrace_internal.gpu_time_lost_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_time_lost_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.n, round(s.t / 3600, 2), round(s.f / 3600, 2), round(s.c / 3600, 2),
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type,
                   grouping(j.type) AS total, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
             WHERE (gpu_time_lost_scan.since IS NULL OR j.submit_time >= gpu_time_lost_scan.since)
               AND (gpu_time_lost_scan.until IS NULL OR j.submit_time < gpu_time_lost_scan.until)
               AND j.gpu_num > 0 AND (gpu_time_lost_scan.cluster IS NULL OR j.cluster = gpu_time_lost_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))) s
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.gpu_time_lost: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_time_lost_summary(cluster text)
RETURNS TABLE (out_cluster text, type text, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_time_lost_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.n, round(s.t / 3600, 2), round(s.f / 3600, 2), round(s.c / 3600, 2),
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type ELSE 'all' END AS type,
                   grouping(r.type) AS total, sum(r.jobs)::bigint AS n,
                   coalesce(sum(r.gpu_time), 0) AS t,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.summary_groups r
             WHERE r.gpu_num > 0 AND (gpu_time_lost_summary.cluster IS NULL OR r.cluster = gpu_time_lost_summary.cluster)
             GROUP BY GROUPING SETS ((r.cluster), (r.cluster, r.type))) s
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.gpu_time_lost_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_run(text, timestamptz, timestamptz) IS
  'acmetrace.gpu_time_lost: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_time_lost(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_time_lost_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.gpu_time_lost(text, timestamptz, timestamptz) IS
  'Per cluster and job type (first type ''all'': every GPU job; NULL: jobs without a type): GPU jobs, GPU-hours (duration x gpu_num / 3600, 2 decimals) of all of them, of failed ones (TIMEOUT and NODE_FAIL included) and of cancelled ones, and the failed and cancelled GPU-hours as percents of all (2 decimals). since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_gpu_time_lost WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_time_lost(NULL);
COMMENT ON VIEW acmetrace.v_gpu_time_lost IS
  'GPU time of failed and cancelled GPU jobs per cluster and job type (acmetrace.gpu_time_lost).';
