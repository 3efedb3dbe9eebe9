-- acmetrace.gpu_num_boxplot: GPU count of GPU jobs per type, as box-plot numbers.

-- Box plot numbers as matplotlib draws them: linear-interpolated quartiles,
-- whiskers at the most extreme values within 1.5 IQR of the box.
CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_scan(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_num_boxplot_scan.cluster);
    RETURN QUERY
    WITH q AS (
        SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type, grouping(j.type) AS total,
               percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY j.gpu_num::float8) AS p
          FROM acmetrace.jobs j
         WHERE j.gpu_num > 0 AND (gpu_num_boxplot_scan.cluster IS NULL OR j.cluster = gpu_num_boxplot_scan.cluster)
           AND ((gpu_num_boxplot_scan.since IS NULL OR j.submit_time >= gpu_num_boxplot_scan.since)
                    AND (gpu_num_boxplot_scan.until IS NULL OR j.submit_time < gpu_num_boxplot_scan.until))
         GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))),
    f AS (
        SELECT q.cluster, q.type, q.total, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, count(*), min(j.gpu_num),
           round(f.q1::numeric, 2), round(f.q2::numeric, 2), round(f.q3::numeric, 2), max(j.gpu_num),
           min(j.gpu_num) FILTER (WHERE j.gpu_num >= f.lo_fence),
           max(j.gpu_num) FILTER (WHERE j.gpu_num <= f.hi_fence),
           count(*) FILTER (WHERE j.gpu_num < f.lo_fence OR j.gpu_num > f.hi_fence)
      FROM f
      JOIN acmetrace.jobs j ON j.cluster = f.cluster AND (f.total = 1 OR j.type IS NOT DISTINCT FROM f.type) AND j.gpu_num > 0
                           AND ((gpu_num_boxplot_scan.since IS NULL OR j.submit_time >= gpu_num_boxplot_scan.since)
                    AND (gpu_num_boxplot_scan.until IS NULL OR j.submit_time < gpu_num_boxplot_scan.until))
     GROUP BY f.cluster, f.total, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.total DESC, f.type COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_boxplot_scan(text, timestamptz, timestamptz) IS
  'The scan path of acmetrace.gpu_num_boxplot: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_summary(cluster text)
RETURNS TABLE (out_cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(gpu_num_boxplot_summary.cluster);
    RETURN QUERY
    WITH d AS (
        SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type ELSE 'all' END AS type, grouping(r.type) AS total,
               r.gpu_num, sum(r.jobs)::bigint AS n
          FROM acmetrace.summary_groups r
         WHERE r.gpu_num > 0 AND (gpu_num_boxplot_summary.cluster IS NULL OR r.cluster = gpu_num_boxplot_summary.cluster)
         GROUP BY GROUPING SETS ((r.cluster, r.gpu_num), (r.cluster, r.type, r.gpu_num))),
    q AS (
        SELECT d.cluster, d.type, d.total,
               acmetrace_internal.vc_percentiles(array_agg(d.gpu_num::float8 ORDER BY d.gpu_num), array_agg(d.n ORDER BY d.gpu_num),
                                                 ARRAY[0.25, 0.5, 0.75]) AS p
          FROM d GROUP BY d.cluster, d.type, d.total),
    f AS (
        SELECT q.cluster, q.type, q.total, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, sum(d.n)::bigint, min(d.gpu_num),
           round(f.q1::numeric, 2), round(f.q2::numeric, 2), round(f.q3::numeric, 2), max(d.gpu_num),
           min(d.gpu_num) FILTER (WHERE d.gpu_num >= f.lo_fence),
           max(d.gpu_num) FILTER (WHERE d.gpu_num <= f.hi_fence),
           coalesce(sum(d.n) FILTER (WHERE d.gpu_num < f.lo_fence OR d.gpu_num > f.hi_fence), 0)::bigint
      FROM f
      JOIN d ON d.cluster = f.cluster AND d.total = f.total AND d.type IS NOT DISTINCT FROM f.type
     GROUP BY f.cluster, f.total, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.total DESC, f.type COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_run(a1 text, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_boxplot_run(per_cluster, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_boxplot_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_boxplot_scan(a1, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_boxplot_run(text, timestamptz, timestamptz) IS
  'acmetrace.gpu_num_boxplot: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_num_boxplot(cluster text DEFAULT NULL,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_num_boxplot_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.gpu_num_boxplot(text, timestamptz, timestamptz) IS
  'GPU count of GPU jobs per cluster and type (first type ''all'': every GPU job; NULL: jobs without a type) as box-plot numbers: min, quartiles (linear interpolation, as percentile_cont and numpy; 2 decimals), max, whiskers at the most extreme gpu_num within 1.5 IQR of the box, and the number of jobs outside them. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_gpu_num_boxplot WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_num_boxplot(NULL);
COMMENT ON VIEW acmetrace.v_gpu_num_boxplot IS
  'GPU count per job type as box-plot numbers (acmetrace.gpu_num_boxplot).';
