-- acmetrace.failure_taxonomy: the paper's failure table over
-- acmetrace.failure_reasons.

-- Rows are (category, reason) pairs plus one row with NULL category and
-- reason for failed jobs nobody classified, so the shares add up to 100%.
CREATE FUNCTION acmetrace_internal.failure_taxonomy_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, category text, reason text, jobs bigint, mean_gpus numeric,
               mean_run_s numeric, gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(failure_taxonomy_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER (PARTITION BY s.cluster))
      FROM (SELECT j.cluster, r.category, r.reason, count(*) AS n,
                   round(avg(j.gpu_num), 2) AS g,
                   acmetrace_internal.sig3(avg(j.duration)::float8) AS m,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
              LEFT JOIN acmetrace.failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
             WHERE (failure_taxonomy_scan.since IS NULL OR j.submit_time >= failure_taxonomy_scan.since)
               AND (failure_taxonomy_scan.until IS NULL OR j.submit_time < failure_taxonomy_scan.until)
               AND (r.job_id IS NOT NULL OR j.final_state = 'FAILED')
               AND (failure_taxonomy_scan.cluster IS NULL OR j.cluster = failure_taxonomy_scan.cluster)
             GROUP BY j.cluster, r.category, r.reason) s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.failure_taxonomy_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.failure_taxonomy: reads acmetrace.jobs.';

-- Classified jobs are few: read through the join, as the scan does; the
-- failed jobs nobody classified are the summary's failed jobs minus the
-- classified ones among them.
CREATE FUNCTION acmetrace_internal.failure_taxonomy_summary(cluster text)
RETURNS TABLE (out_cluster text, category text, reason text, jobs bigint, mean_gpus numeric,
               mean_run_s numeric, gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(failure_taxonomy_summary.cluster);
    RETURN QUERY
    WITH k AS (
        SELECT j.cluster, r.category, r.reason, j.final_state = 'FAILED' AS failed, j.gpu_num, j.duration
          FROM acmetrace.failure_reasons r
          JOIN acmetrace.jobs j ON j.cluster = r.cluster AND j.job_id = r.job_id
         WHERE (failure_taxonomy_summary.cluster IS NULL OR r.cluster = failure_taxonomy_summary.cluster)),
    a AS (  -- per group: jobs, gpu_num sum and count, duration sum and count, GPU time
        SELECT k.cluster, k.category, k.reason, count(*) AS n, sum(k.gpu_num::bigint) AS sg, count(k.gpu_num) AS ng,
               sum(k.duration) AS sd, count(k.duration) AS nd, sum(k.duration * k.gpu_num) AS t
          FROM k GROUP BY k.cluster, k.category, k.reason
        UNION ALL
        SELECT f.cluster, NULL, NULL, f.n - coalesce(x.n, 0), f.sg - coalesce(x.sg, 0), f.ng - coalesce(x.ng, 0),
               f.sd - coalesce(x.sd, 0), f.nd - coalesce(x.nd, 0), coalesce(f.t, 0) - coalesce(x.t, 0)
          FROM (SELECT r.cluster, sum(r.jobs) AS n, sum(r.gpu_num::bigint * r.jobs) AS sg,
                       sum(r.jobs) FILTER (WHERE r.gpu_num IS NOT NULL) AS ng,
                       sum(r.duration_sum) AS sd, sum(r.duration_n) AS nd, sum(r.gpu_time) AS t
                  FROM acmetrace.summary_groups r
                 WHERE r.final_state = 'FAILED'
                   AND (failure_taxonomy_summary.cluster IS NULL OR r.cluster = failure_taxonomy_summary.cluster)
                 GROUP BY r.cluster) f
          LEFT JOIN (SELECT k.cluster, count(*) AS n, sum(k.gpu_num::bigint) AS sg, count(k.gpu_num) AS ng,
                            sum(k.duration) AS sd, count(k.duration) AS nd, sum(k.duration * k.gpu_num) AS t
                       FROM k WHERE k.failed GROUP BY k.cluster) x ON x.cluster = f.cluster
         WHERE f.n - coalesce(x.n, 0) > 0),
    s AS (
        SELECT a.cluster, a.category, a.reason, a.n::bigint AS n,
               round(a.sg::numeric / nullif(a.ng, 0)::numeric, 2) AS g,
               acmetrace_internal.sig3((a.sd / nullif(a.nd, 0)::numeric)::float8) AS m,
               coalesce(a.t, 0) AS t
          FROM a)
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, round(s.t / 3600, 2),
           acmetrace_internal.pct(s.t, sum(s.t) OVER (PARTITION BY s.cluster))
      FROM s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.failure_taxonomy_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, mean_gpus numeric,
               mean_run_s numeric, gpu_h numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.failure_taxonomy_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.failure_taxonomy_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.failure_taxonomy_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.failure_taxonomy_run(text, timestamptz, timestamptz) IS
  'acmetrace.failure_taxonomy: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.failure_taxonomy(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, mean_gpus numeric,
               mean_run_s numeric, gpu_h numeric, gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.failure_taxonomy_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.failure_taxonomy(text, timestamptz, timestamptz) IS
  'The paper''s failure table per cluster: for each (category, reason) in failure_reasons, jobs, mean GPUs (2 decimals), mean published duration in seconds (3 significant digits), GPU-hours (duration x gpu_num / 3600, 2 decimals) and percent (2 decimals) of the GPU time of all classified or failed jobs. The row with NULL category and reason is failed jobs without a classification. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_failure_taxonomy WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.failure_taxonomy(NULL);
COMMENT ON VIEW acmetrace.v_failure_taxonomy IS
  'Failures by category and reason with their GPU demand, duration and GPU time (acmetrace.failure_taxonomy over acmetrace.failure_reasons).';
