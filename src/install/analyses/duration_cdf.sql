-- acmetrace.duration_cdf: CDF of the published duration of GPU jobs.

-- The paper's figures: CDFs and histograms over the bins aggregates.  Per
-- cluster the all-types line (type 'all') and one line per type; `jobs` is
-- how many jobs a line is made of.
CREATE FUNCTION acmetrace_internal.duration_cdf_scan(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21),
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, duration_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(duration_cdf_scan.cluster);
    RETURN QUERY
    SELECT g.cluster, g.type, u.x, g.n, round(u.p::numeric, 2)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type, grouping(j.type) AS total,
                   count(j.duration) AS n, acmetrace.cdf_at(j.duration::float8, thresholds) AS cdf
              FROM acmetrace.jobs j
             WHERE (duration_cdf_scan.since IS NULL OR j.submit_time >= duration_cdf_scan.since)
               AND (duration_cdf_scan.until IS NULL OR j.submit_time < duration_cdf_scan.until)
               AND j.gpu_num > 0 AND (duration_cdf_scan.cluster IS NULL OR j.cluster = duration_cdf_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))) g,
           unnest(thresholds, g.cdf) u(x, p)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster COLLATE "C", g.total DESC, g.type COLLATE "C", u.x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.duration_cdf_scan(text, double precision[], timestamptz, timestamptz) IS
  'The scan path of acmetrace.duration_cdf: reads acmetrace.jobs.';

-- A CDF line per cluster (all types: type 'all') and per type, from value
-- counts: the count at or below each threshold over the line's count, then
-- x 100, as cdf_at does.
CREATE FUNCTION acmetrace_internal.duration_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (out_cluster text, type text, duration_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(duration_cdf_summary.cluster);
    RETURN QUERY
    -- materialized: each line's counts are computed once, not per threshold
    WITH l AS MATERIALIZED (
        SELECT v.cluster, CASE WHEN v.all_types THEN 'all' ELSE v.type END AS type, v.all_types,
               acmetrace_internal.vc_counts_at(v.vals, v.counts, thresholds || 'Infinity'::float8, false) AS a
          FROM acmetrace.summary_values v
         WHERE v.measure = 'duration' AND v.gpu
           AND (duration_cdf_summary.cluster IS NULL OR v.cluster = duration_cdf_summary.cluster))
    SELECT l.cluster, l.type, u.x, l.a[cardinality(l.a)], round(((u.c::float8 / l.a[cardinality(l.a)]::float8) * 100)::numeric, 2)
      FROM l, unnest(thresholds, l.a) u(x, c)
     WHERE u.x IS NOT NULL
     ORDER BY l.cluster COLLATE "C", l.all_types DESC, l.type COLLATE "C", u.x;
END
$$;

CREATE FUNCTION acmetrace_internal.duration_cdf_run(a1 text, a2 double precision[], a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, duration_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.duration_cdf_run(per_cluster, a2, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.duration_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.duration_cdf_scan(a1, a2, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.duration_cdf_run(text, double precision[], timestamptz, timestamptz) IS
  'acmetrace.duration_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.duration_cdf(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21),
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, duration_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.duration_cdf_run($1, $2, $3, $4)';
COMMENT ON FUNCTION acmetrace.duration_cdf(text, double precision[], timestamptz, timestamptz) IS
  'CDF (percent, 2 decimals) of the published duration of GPU jobs at each threshold (default 1, 2, 4, ... 2^21 s), per cluster (type ''all'') and per job type (NULL: jobs without a type), with the number of jobs of each line; duration_s is the threshold in seconds. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_duration_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.duration_cdf(NULL);
COMMENT ON VIEW acmetrace.v_duration_cdf IS
  'CDF of GPU job duration at 1, 2, 4, ... 2^21 s, per cluster and type (acmetrace.duration_cdf).';
