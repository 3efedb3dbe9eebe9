-- acmetrace.gpu_time_lost_weekly: GPU time of failed and cancelled jobs per
-- week they ended.

-- Weeks start on Monday in the cluster's own time zone (acmetrace.clusters).
CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.week, s.n, s.t, s.f, s.c,
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT j.cluster,
                   date_trunc('week', j.end_time AT TIME ZONE c.time_zone)::date AS week,
                   count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
              JOIN acmetrace.clusters c ON c.cluster = j.cluster
             WHERE acmetrace_internal.known_cluster(gpu_time_lost_weekly_scan.cluster)
               AND j.gpu_num > 0 AND j.end_time IS NOT NULL
               AND (gpu_time_lost_weekly_scan.cluster IS NULL OR j.cluster = gpu_time_lost_weekly_scan.cluster)
             GROUP BY j.cluster, 2) s
     ORDER BY s.cluster COLLATE "C", s.week
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(text) IS
  'The scan path of acmetrace.gpu_time_lost_weekly: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_summary(cluster text)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.week, s.n, s.t, s.f, s.c,
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT r.cluster, r.end_week AS week, sum(r.jobs)::bigint AS n,
                   coalesce(sum(r.gpu_time), 0) AS t,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.summary_weeks r
             WHERE acmetrace_internal.known_cluster(gpu_time_lost_weekly_summary.cluster)
               AND r.gpu_num > 0 AND r.end_week IS NOT NULL
               AND (gpu_time_lost_weekly_summary.cluster IS NULL OR r.cluster = gpu_time_lost_weekly_summary.cluster)
             GROUP BY r.cluster, r.end_week) s
     ORDER BY s.cluster COLLATE "C", s.week
$$;

CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_run(a1 text)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_weekly_run(text) IS
  'acmetrace.gpu_time_lost_weekly: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_time_lost_weekly(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_time_lost_weekly_run($1)';
COMMENT ON FUNCTION acmetrace.gpu_time_lost_weekly(text) IS
  'Per cluster and week (Monday, in the cluster''s time zone) in which GPU jobs ended: jobs, GPU time (duration x gpu_num) of all, failed and cancelled jobs, and the two percents. Jobs without end_time are left out.';

CREATE VIEW acmetrace.v_gpu_time_lost_weekly WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_time_lost_weekly(NULL);
COMMENT ON VIEW acmetrace.v_gpu_time_lost_weekly IS
  'GPU time of failed and cancelled GPU jobs per cluster and week they ended (acmetrace.gpu_time_lost_weekly).';
