-- acmetrace.gpu_time_lost_weekly: GPU time of failed and cancelled jobs per
-- week they ended.

-- Weeks start on Monday in the cluster's own time zone (acmetrace.clusters).
-- A week is partial when the cluster's trace (its first to its last
-- submission) does not cover all of it: its first and last weeks, and the
-- weeks after the last submission in which long jobs still ended.  With a
-- window, the trace is the window's jobs.
CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, week date, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric, partial boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_time_lost_weekly_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.week, s.n, round(s.t / 3600, 2), round(s.f / 3600, 2), round(s.c / 3600, 2),
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t),
           (s.week::timestamp AT TIME ZONE s.zone) < span.first_submit
             OR ((s.week + 7)::timestamp AT TIME ZONE s.zone) > span.last_submit
      FROM (SELECT j.cluster, c.time_zone AS zone,
                   date_trunc('week', j.end_time AT TIME ZONE c.time_zone)::date AS week,
                   count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
              JOIN acmetrace.clusters c ON c.cluster = j.cluster
             WHERE j.gpu_num > 0 AND j.end_time IS NOT NULL
               AND (gpu_time_lost_weekly_scan.cluster IS NULL OR j.cluster = gpu_time_lost_weekly_scan.cluster)
               AND ((gpu_time_lost_weekly_scan.since IS NULL OR j.submit_time >= gpu_time_lost_weekly_scan.since)
                    AND (gpu_time_lost_weekly_scan.until IS NULL OR j.submit_time < gpu_time_lost_weekly_scan.until))
             GROUP BY j.cluster, c.time_zone, 3) s
      JOIN (SELECT a.cluster, min(a.submit_time) AS first_submit, max(a.submit_time) AS last_submit
              FROM acmetrace.jobs a
             WHERE (gpu_time_lost_weekly_scan.cluster IS NULL OR a.cluster = gpu_time_lost_weekly_scan.cluster)
               AND ((gpu_time_lost_weekly_scan.since IS NULL OR a.submit_time >= gpu_time_lost_weekly_scan.since)
                    AND (gpu_time_lost_weekly_scan.until IS NULL OR a.submit_time < gpu_time_lost_weekly_scan.until))
             GROUP BY a.cluster) span ON span.cluster = s.cluster
     ORDER BY s.cluster COLLATE "C", s.week;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.gpu_time_lost_weekly: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_summary(cluster text)
RETURNS TABLE (out_cluster text, week date, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric, partial boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_time_lost_weekly_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.week, s.n, round(s.t / 3600, 2), round(s.f / 3600, 2), round(s.c / 3600, 2),
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t),
           (s.week::timestamp AT TIME ZONE c.time_zone) < span.first_submit
             OR ((s.week + 7)::timestamp AT TIME ZONE c.time_zone) > span.last_submit
      FROM (SELECT r.cluster, r.end_week AS week, sum(r.jobs)::bigint AS n,
                   coalesce(sum(r.gpu_time), 0) AS t,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.summary_weeks r
             WHERE r.gpu_num > 0 AND r.end_week IS NOT NULL
               AND (gpu_time_lost_weekly_summary.cluster IS NULL OR r.cluster = gpu_time_lost_weekly_summary.cluster)
             GROUP BY r.cluster, r.end_week) s
      JOIN acmetrace.clusters c ON c.cluster = s.cluster
      JOIN (SELECT g.cluster, min(g.first_submit) AS first_submit, max(g.last_submit) AS last_submit
              FROM acmetrace.summary_groups g GROUP BY g.cluster) span ON span.cluster = s.cluster
     ORDER BY s.cluster COLLATE "C", s.week;
END
$$;

CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric, partial boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_weekly_run(text, timestamptz, timestamptz) IS
  'acmetrace.gpu_time_lost_weekly: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_time_lost_weekly(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, failed_gpu_h_pct numeric, cancelled_gpu_h_pct numeric, partial boolean)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.gpu_time_lost_weekly(text, timestamptz, timestamptz) IS
  'Per cluster and week (Monday, in the cluster''s time zone) in which GPU jobs ended: jobs, GPU-hours (duration x gpu_num / 3600, 2 decimals) of all, failed and cancelled jobs, the failed and cancelled GPU-hours as percents of all (2 decimals), and partial: the week is not wholly within the cluster''s first to last submission. Jobs without end_time are left out. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_gpu_time_lost_weekly WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_time_lost_weekly(NULL);
COMMENT ON VIEW acmetrace.v_gpu_time_lost_weekly IS
  'GPU time of failed and cancelled GPU jobs per cluster and week they ended (acmetrace.gpu_time_lost_weekly).';
