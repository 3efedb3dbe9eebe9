-- acmetrace.gpu_num_cdf: CDF of GPU count, by jobs and by GPU time.

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_scan(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1),
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, gpu_num double precision, jobs bigint, job_pct numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_num_cdf_scan.cluster);
    RETURN QUERY
SELECT g.cluster, u.x, g.n, round(u.jobs::numeric, 2), round(u.gpu_time::numeric, 2)
  FROM (SELECT j.cluster, count(*) AS n,
               acmetrace.cdf_at(j.gpu_num, thresholds) AS jobs,
               acmetrace.weighted_cdf_at(j.gpu_num, j.gpu_num * j.duration::float8, thresholds) AS gpu_time
          FROM acmetrace.jobs j
         WHERE (gpu_num_cdf_scan.since IS NULL OR j.submit_time >= gpu_num_cdf_scan.since)
               AND (gpu_num_cdf_scan.until IS NULL OR j.submit_time < gpu_num_cdf_scan.until)
           AND j.gpu_num > 0 AND (gpu_num_cdf_scan.cluster IS NULL OR j.cluster = gpu_num_cdf_scan.cluster)
         GROUP BY j.cluster) g,
       unnest(thresholds, g.jobs, g.gpu_time) u(x, jobs, gpu_time)
 ORDER BY g.cluster COLLATE "C", u.x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_cdf_scan(text, double precision[], timestamptz, timestamptz) IS
  'The scan path of acmetrace.gpu_num_cdf: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (out_cluster text, gpu_num double precision, jobs bigint, job_pct numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_num_cdf_summary.cluster);
    RETURN QUERY
    WITH d AS (
        SELECT r.cluster, r.gpu_num, sum(r.jobs)::bigint AS n, sum(r.gpu_time) AS w
          FROM acmetrace.summary_groups r
         WHERE r.gpu_num > 0 AND (gpu_num_cdf_summary.cluster IS NULL OR r.cluster = gpu_num_cdf_summary.cluster)
         GROUP BY r.cluster, r.gpu_num),
    c AS (  -- cumulative through each distinct gpu_num, led by none
        SELECT d.cluster, d.gpu_num,
               sum(d.n) OVER w AS cn, coalesce(sum(d.w) OVER w, 0) AS cw,
               sum(d.n) OVER (PARTITION BY d.cluster) AS n, sum(d.w) OVER (PARTITION BY d.cluster) AS tw
          FROM d
        WINDOW w AS (PARTITION BY d.cluster ORDER BY d.gpu_num)),
    t AS (  -- the percents once per distinct step, as cdf_at computes them
        SELECT c.cluster, min(c.n)::bigint AS n,
               array_agg(c.gpu_num::float8 ORDER BY c.gpu_num) AS v,
               array_agg(1::bigint ORDER BY c.gpu_num) AS ones,
               ARRAY[round(0::numeric, 2)] || array_agg(round(((c.cn::float8 / c.n::float8) * 100)::numeric, 2) ORDER BY c.gpu_num) AS jp,
               ARRAY[round(((0::float8 / nullif(min(c.tw), 0)::float8) * 100)::numeric, 2)]
                 || array_agg(round(((c.cw::float8 / nullif(c.tw, 0)::float8) * 100)::numeric, 2) ORDER BY c.gpu_num) AS tp
          FROM c GROUP BY c.cluster)
    SELECT t.cluster, u.x, t.n, t.jp[u.i + 1], t.tp[u.i + 1]
      FROM t, unnest(thresholds, acmetrace_internal.vc_counts_at(t.v, t.ones, thresholds, false)) u(x, i)
     ORDER BY t.cluster COLLATE "C", u.x;
END
$$;

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_run(a1 text, a2 double precision[], a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, gpu_num double precision, jobs bigint, job_pct numeric, gpu_h_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_cdf_run(per_cluster, a2, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_cdf_scan(a1, a2, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_cdf_run(text, double precision[], timestamptz, timestamptz) IS
  'acmetrace.gpu_num_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_num_cdf(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1),
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, gpu_num double precision, jobs bigint, job_pct numeric, gpu_h_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_num_cdf_run($1, $2, $3, $4)';
COMMENT ON FUNCTION acmetrace.gpu_num_cdf(text, double precision[], timestamptz, timestamptz) IS
  'CDF of GPU count over GPU jobs, by job count and weighted by GPU time (gpu_num x published duration, as the notebook), at each threshold gpu_num (default 0..1024), in percent with 2 decimals, with the number of jobs. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_gpu_num_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_num_cdf(NULL);
COMMENT ON VIEW acmetrace.v_gpu_num_cdf IS
  'CDF of GPU count at 0..1024 by job count and by GPU time, per cluster (acmetrace.gpu_num_cdf).';
