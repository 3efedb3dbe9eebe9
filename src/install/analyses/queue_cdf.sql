-- acmetrace.queue_cdf: CDF of the queueing delay, lines as duration_cdf's.

CREATE FUNCTION acmetrace_internal.queue_cdf_scan(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT '{0}' || acmetrace.powers_of_two(0, 21),
                                    all_jobs boolean DEFAULT false,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, queue_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(queue_cdf_scan.cluster);
    RETURN QUERY
    SELECT g.cluster, g.type, u.x, g.n, round(u.p::numeric, 2)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type, grouping(j.type) AS total,
                   count(*) AS n, acmetrace.cdf_at(j.wait_s, thresholds) AS cdf
              FROM acmetrace.jobs j
             WHERE (queue_cdf_scan.since IS NULL OR j.submit_time >= queue_cdf_scan.since)
               AND (queue_cdf_scan.until IS NULL OR j.submit_time < queue_cdf_scan.until)
               AND j.wait_s >= 0 AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
               AND (queue_cdf_scan.cluster IS NULL OR j.cluster = queue_cdf_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))) g,
           unnest(thresholds, g.cdf) u(x, p)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster COLLATE "C", g.total DESC, g.type COLLATE "C", u.x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_cdf_scan(text, double precision[], boolean, timestamptz, timestamptz) IS
  'The scan path of acmetrace.queue_cdf: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.queue_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (out_cluster text, type text, queue_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(queue_cdf_summary.cluster);
    RETURN QUERY
    WITH r AS (
        SELECT v.cluster, v.type, acmetrace_internal.vc_counts_at(v.vals, v.counts, thresholds || 'Infinity'::float8, false) AS a
          FROM acmetrace.summary_values v
         WHERE v.measure = 'wait'
           AND (queue_cdf_summary.cluster IS NULL OR v.cluster = queue_cdf_summary.cluster)),
    g AS (
        SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type ELSE 'all' END AS type, grouping(r.type) AS total,
               u.k, sum(u.c)::bigint AS c
          FROM r, unnest(r.a) WITH ORDINALITY u(c, k)
         GROUP BY GROUPING SETS ((r.cluster, u.k), (r.cluster, r.type, u.k))),
    l AS (
        SELECT g.cluster, g.type, g.total, array_agg(g.c ORDER BY g.k) AS a FROM g GROUP BY g.cluster, g.type, g.total)
    SELECT l.cluster, l.type, u.x, l.a[cardinality(l.a)], round(((u.c::float8 / l.a[cardinality(l.a)]::float8) * 100)::numeric, 2)
      FROM l, unnest(thresholds, l.a) u(x, c)
     WHERE u.x IS NOT NULL
     ORDER BY l.cluster COLLATE "C", l.total DESC, l.type COLLATE "C", u.x;
END
$$;

CREATE FUNCTION acmetrace_internal.queue_cdf_run(a1 text, a2 double precision[], a3 boolean, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, queue_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.queue_cdf_run(per_cluster, a2, a3, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) AND NOT coalesce(a3, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_cdf_scan(a1, a2, a3, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_cdf_run(text, double precision[], boolean, timestamptz, timestamptz) IS
  'acmetrace.queue_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_cdf(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT '{0}' || acmetrace.powers_of_two(0, 21),
                                    all_jobs boolean DEFAULT false,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, queue_s double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.queue_cdf_run($1, $2, $3, $4, $5)';
COMMENT ON FUNCTION acmetrace.queue_cdf(text, double precision[], boolean, timestamptz, timestamptz) IS
  'CDF (percent, 2 decimals) of the queueing delay (start - submit) of GPU jobs (all_jobs: every job) at each threshold (default 0, then 1, 2, 4, ... 2^21 s), per cluster (type ''all'') and per job type (NULL: jobs without a type), with the number of jobs of each line: the jobs queue_percentiles counts; queue_s is the threshold in seconds. since, until: only the jobs submitted in [since, until) (NULL: open).';

CREATE VIEW acmetrace.v_queue_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.queue_cdf(NULL);
COMMENT ON VIEW acmetrace.v_queue_cdf IS
  'CDF of the queueing delay (start - submit) of GPU jobs at 0, 1, 2, 4, ... 2^21 s, per cluster and type (acmetrace.queue_cdf).';
