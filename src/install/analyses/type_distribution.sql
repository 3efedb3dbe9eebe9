-- acmetrace.type_distribution: job types of GPU jobs by count and GPU time.

CREATE FUNCTION acmetrace_internal.type_distribution_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(type_distribution_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.n,
           acmetrace_internal.pct(s.n, max(s.n) FILTER (WHERE s.total = 1) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, max(s.t) FILTER (WHERE s.total = 1) OVER w)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type,
                   grouping(j.type) AS total, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE (type_distribution_scan.since IS NULL OR j.submit_time >= type_distribution_scan.since)
               AND (type_distribution_scan.until IS NULL OR j.submit_time < type_distribution_scan.until)
               AND j.gpu_num > 0 AND (type_distribution_scan.cluster IS NULL OR j.cluster = type_distribution_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.n DESC, s.type COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.type_distribution_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.type_distribution: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.type_distribution_summary(cluster text)
RETURNS TABLE (out_cluster text, type text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(type_distribution_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, s.n,
           acmetrace_internal.pct(s.n, max(s.n) FILTER (WHERE s.total = 1) OVER w),
           round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, max(s.t) FILTER (WHERE s.total = 1) OVER w)
      FROM (SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type ELSE 'all' END AS type,
                   grouping(r.type) AS total, sum(r.jobs)::bigint AS n, coalesce(sum(r.gpu_time), 0) AS t
              FROM acmetrace.summary_groups r
             WHERE r.gpu_num > 0 AND (type_distribution_summary.cluster IS NULL OR r.cluster = type_distribution_summary.cluster)
             GROUP BY GROUPING SETS ((r.cluster), (r.cluster, r.type))) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.n DESC, s.type COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.type_distribution_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
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
            RETURN QUERY SELECT * FROM acmetrace_internal.type_distribution_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.type_distribution_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.type_distribution_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.type_distribution_run(text, timestamptz, timestamptz) IS
  'acmetrace.type_distribution: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.type_distribution(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
               gpu_h numeric, gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.type_distribution_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.type_distribution(text, timestamptz, timestamptz) IS
  'Job types of GPU jobs per cluster: jobs and percent of the cluster''s GPU jobs, GPU-hours (duration x gpu_num / 3600, 2 decimals) and percent of its GPU time. First the row of type ''all'' (every GPU job, 100%), then the most frequent type first; type NULL: jobs without a type. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_type_distribution WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.type_distribution(NULL);
COMMENT ON VIEW acmetrace.v_type_distribution IS
  'Job types of GPU jobs per cluster by job count and GPU time (acmetrace.type_distribution).';
