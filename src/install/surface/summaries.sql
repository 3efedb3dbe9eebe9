-- Summaries: built when jobs change, read by the standard analyses.
--
-- acmetrace_internal.summarize(cluster) rebuilds one cluster's rows of
-- acmetrace.summary_clusters, summary_jobs, summary_groups, summary_weeks
-- and summary_values from its jobs, in the transaction that changed them:
--   * the loaders name the cluster they load (acmetrace_internal.changing)
--     and the statement trigger on acmetrace.jobs rebuilds just that one;
--   * a direct UPDATE or DELETE rebuilds the clusters it touched, a direct
--     INSERT or TRUNCATE every cluster;
--   * a new cluster is summarized, a changed time zone or capacity rebuilds
--     it, deleting it drops its summaries.
-- Every analysis reads the summaries only when each cluster it covers has
-- been summarized with exact values and the reader may read them whole
-- (acmetrace_internal.summarized); else, or with SET acmetrace.summaries =
-- off, it scans acmetrace.jobs.

-- Exact distributions (value_counts.c).
CREATE FUNCTION acmetrace_internal.vc_percentiles(vals double precision[], counts bigint[], fractions double precision[])
RETURNS double precision[] AS 'MODULE_PATHNAME', 'acmetrace_vc_percentiles' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_percentiles(double precision[], bigint[], double precision[]) IS
  'percentile_cont at each fraction over the values (each repeated count times), to the bit; NULL with no values.';
CREATE FUNCTION acmetrace_internal.vc_counts_at(vals double precision[], counts bigint[], thresholds double precision[], strict boolean)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'acmetrace_vc_counts_at' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_counts_at(double precision[], bigint[], double precision[], boolean) IS
  'How many values are <= each threshold (strict: <).';
CREATE FUNCTION acmetrace_internal.vc_sum(vals double precision[], counts bigint[])
RETURNS double precision AS 'MODULE_PATHNAME', 'acmetrace_vc_sum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_sum(double precision[], bigint[]) IS
  'Sum of value x count; NULL with no values.';
CREATE FUNCTION acmetrace_internal.vc_bins(vals double precision[], counts bigint[], bin_width double precision,
                                           upper double precision, nb integer)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'acmetrace_vc_bins' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_bins(double precision[], bigint[], double precision, double precision, integer) IS
  'cancelled_by_queue''s bins over the values: element k counts bin k (floor(v / bin_width) + 1, or nb + 1 from upper on).';
CREATE FUNCTION acmetrace_internal.vc_sketch(vals double precision[], counts bigint[])
RETURNS acmetrace.delay_sketch AS 'MODULE_PATHNAME', 'acmetrace_vc_sketch' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_sketch(double precision[], bigint[]) IS
  'The delay_sketch (relative error 0.005) of the values, as delay_sketch_agg builds it.';

CREATE TYPE acmetrace_internal.summary_part AS (
    measure text, type text, all_types boolean, gpu boolean, occupancy_bin integer, cancelled boolean,
    vals double precision[], counts bigint[]);
COMMENT ON TYPE acmetrace_internal.summary_part IS
  'A row of summary_scan: a summary_values row, or the facts row (vals: capacity, peak; counts: jobs, exact, odd).';

CREATE FUNCTION acmetrace_internal.summary_scan(cluster text, capacity integer, zone text, utc_offset_s integer)
RETURNS SETOF acmetrace_internal.summary_part
AS 'MODULE_PATHNAME', 'acmetrace_summary_scan'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION acmetrace_internal.summary_scan(text, integer, text, integer) IS
  'One pass over the cluster''s jobs: fills summary_jobs (days and weeks in zone, else at the fixed utc_offset_s) when every numeric fits its exact sums, and returns the exact distributions of summary_values (waits binned by the occupancy at submission over capacity, else the observed peak) and a facts row.';

-- One cluster's summaries, from its jobs: one C pass (summary_scan) for the
-- day rows, the distributions and the occupancy; the day rows again in SQL
-- (hash aggregation with room for it; days and weeks through TimeZone,
-- much cheaper per row than AT TIME ZONE) when a numeric does not fit the
-- pass's exact sums; the coarser grains from the day rows.
CREATE FUNCTION acmetrace_internal.summarize(cl text, force boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql
SET work_mem = '256MB'
SET enable_sort = off
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    tz      text;
    gcap    integer;
    abbrev  boolean;
    off     integer;
    grouped boolean;
BEGIN
    -- one rebuild of a cluster at a time: the later one reads what the
    -- earlier committed (read committed) or fails on its summary row
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('acmetrace.summaries'), pg_catalog.hashtext(cl));
    DELETE FROM acmetrace.summary_jobs s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_groups s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_weeks s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_values s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_clusters s WHERE s.cluster = cl;
    SELECT c.time_zone, c.gpu_capacity INTO tz, gcap FROM acmetrace.clusters c WHERE c.cluster = cl;
    -- gone, or acmetrace.summaries off: no summaries, so the analyses scan
    -- this cluster until refresh_summaries builds them
    IF NOT FOUND OR NOT (force OR acmetrace_internal.use_summaries()) THEN
        RETURN;
    END IF;
    -- an abbreviation (the loaders accept them) is a fixed offset, as AT TIME ZONE reads it
    SELECT date_part('epoch', z.utc_offset)::integer INTO off
      FROM pg_catalog.pg_timezone_abbrevs z WHERE z.abbrev = tz AND tz <> 'UTC';
    abbrev := FOUND;

    -- the pass: summary_values, the facts, and summary_jobs when its sums fit
    WITH p AS MATERIALIZED (
        SELECT * FROM acmetrace_internal.summary_scan(cl, gcap, CASE WHEN NOT abbrev THEN tz END, off)),
    ins AS (
        INSERT INTO acmetrace.summary_values (cluster, measure, type, all_types, gpu, occupancy_bin, cancelled, vals, counts)
        SELECT cl, p.measure, p.type, p.all_types, p.gpu, p.occupancy_bin, p.cancelled, p.vals, p.counts
          FROM p WHERE p.measure <> 'facts'
        RETURNING 1),
    facts AS (
        INSERT INTO acmetrace.summary_clusters (cluster, jobs, occupancy_capacity, peak_allocated, exact, built_at)
        SELECT cl, p.counts[1], CASE WHEN p.counts[3] = 0 THEN p.vals[1]::bigint END, p.vals[2]::bigint,
               p.counts[2] = 1, pg_catalog.statement_timestamp()
          FROM p WHERE p.measure = 'facts'
        RETURNING 1)
    SELECT p.counts[4] = 1 INTO grouped FROM p WHERE p.measure = 'facts';

    IF NOT grouped THEN
        -- a numeric the pass cannot sum exactly (NaN, infinite, over 18
        -- digits or 9 decimals): the same grouping in SQL
        IF NOT abbrev THEN
            -- restored when the function returns (its SET clause)
            PERFORM pg_catalog.set_config('TimeZone', tz, true);
            INSERT INTO acmetrace.summary_jobs
            SELECT cl, j.submit_time::date, date_trunc('week', j.end_time)::date,
                   j.type, j.final_state, j.gpu_num,
                   count(*), count(j.duration), sum(j.duration), max(j.duration),
                   count(j.queue), sum(j.queue),
                   sum(j.duration * j.gpu_num), sum(coalesce(j.gpu_time, j.duration * j.gpu_num)),
                   min(j.submit_time), max(j.submit_time)
              FROM acmetrace.jobs j
             WHERE j.cluster = cl
             GROUP BY 2, 3, 4, 5, 6;
        ELSE
            INSERT INTO acmetrace.summary_jobs
            SELECT cl, (j.submit_time AT TIME ZONE tz)::date, date_trunc('week', j.end_time AT TIME ZONE tz)::date,
                   j.type, j.final_state, j.gpu_num,
                   count(*), count(j.duration), sum(j.duration), max(j.duration),
                   count(j.queue), sum(j.queue),
                   sum(j.duration * j.gpu_num), sum(coalesce(j.gpu_time, j.duration * j.gpu_num)),
                   min(j.submit_time), max(j.submit_time)
              FROM acmetrace.jobs j
             WHERE j.cluster = cl
             GROUP BY 2, 3, 4, 5, 6;
        END IF;
    END IF;

    -- the coarser grains, from the days: a few thousand rows, not a million
    INSERT INTO acmetrace.summary_groups
    SELECT cl, s.type, s.final_state, s.gpu_num, sum(s.jobs), sum(s.duration_n), sum(s.duration_sum), max(s.duration_max),
           sum(s.queue_n), sum(s.queue_sum), sum(s.gpu_time), sum(s.gpu_time_published), min(s.first_submit), max(s.last_submit)
      FROM acmetrace.summary_jobs s WHERE s.cluster = cl
     GROUP BY s.type, s.final_state, s.gpu_num;
    INSERT INTO acmetrace.summary_weeks
    SELECT cl, s.end_week, s.type, s.final_state, s.gpu_num, sum(s.jobs), sum(s.gpu_time)
      FROM acmetrace.summary_jobs s WHERE s.cluster = cl
     GROUP BY s.end_week, s.type, s.final_state, s.gpu_num;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.summarize(text, boolean) IS
  'Rebuilds the summaries of one cluster from its jobs; deletes them if the cluster is gone, or if acmetrace.summaries is off and not force.';

CREATE FUNCTION acmetrace_internal.summarize_all(force boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    cl text;
BEGIN
    FOR cl IN SELECT s.cluster FROM acmetrace.summary_clusters s
               WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster)
              UNION
              SELECT c.cluster FROM acmetrace.clusters c
    LOOP
        PERFORM acmetrace_internal.summarize(cl, force);
    END LOOP;
    -- rows a user left without a summary_clusters row
    DELETE FROM acmetrace.summary_jobs s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
    DELETE FROM acmetrace.summary_groups s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
    DELETE FROM acmetrace.summary_weeks s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
    DELETE FROM acmetrace.summary_values s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.summarize_all(boolean) IS
  'Rebuilds the summaries of every cluster and drops those of clusters that are gone.';

CREATE FUNCTION acmetrace.refresh_summaries(cluster text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
AS $$
BEGIN
    IF cluster IS NULL THEN
        PERFORM acmetrace_internal.summarize_all(true);
        RETURN (SELECT count(*) FROM acmetrace.clusters);
    END IF;
    PERFORM acmetrace_internal.known_cluster(cluster);
    PERFORM acmetrace_internal.summarize(cluster, true);
    RETURN 1;
END
$$;
COMMENT ON FUNCTION acmetrace.refresh_summaries(text) IS
  'Rebuilds the summaries of one cluster (NULL: every cluster) from its jobs and returns how many clusters were rebuilt. Loads, drop_cluster and every change to acmetrace.jobs keep them fresh already, except while acmetrace.summaries is off (a changed cluster then loses its summaries and the analyses scan it) or a restore runs with triggers disabled (pg_restore --disable-triggers, session_replication_role = replica).';

-- The loaders name the cluster they change, so the trigger rebuilds that
-- one only.  Transaction-local: an error or a rollback forgets it.
CREATE FUNCTION acmetrace_internal.changing(cl text)
RETURNS void
LANGUAGE sql
AS $$ SELECT pg_catalog.set_config('acmetrace_internal.changing', coalesce(cl, ''), true) $$;
COMMENT ON FUNCTION acmetrace_internal.changing(text) IS
  'Tells the next statement trigger on acmetrace.jobs which one cluster a loader changes (NULL: unknown, rebuild every cluster).';

CREATE FUNCTION acmetrace_internal.jobs_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    cl text := nullif(pg_catalog.current_setting('acmetrace_internal.changing', true), '');
BEGIN
    IF cl IS NOT NULL AND TG_OP <> 'TRUNCATE' THEN
        PERFORM acmetrace_internal.changing(NULL);
        PERFORM acmetrace_internal.summarize(cl);
    ELSIF TG_OP = 'UPDATE' THEN
        FOR cl IN SELECT o.cluster FROM old_jobs o UNION SELECT n.cluster FROM new_jobs n LOOP
            PERFORM acmetrace_internal.summarize(cl);
        END LOOP;
    ELSIF TG_OP = 'DELETE' THEN
        FOR cl IN SELECT DISTINCT o.cluster FROM old_jobs o LOOP
            PERFORM acmetrace_internal.summarize(cl);
        END LOOP;
    ELSE
        -- a direct INSERT (the loaders' path keeps no copy of the rows, so
        -- which clusters it touched is unknown) or TRUNCATE
        PERFORM acmetrace_internal.summarize_all();
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.jobs_changed() IS
  'Statement triggers on acmetrace.jobs: rebuild the summaries of the cluster a loader named, of the clusters an UPDATE or DELETE touched, else of every cluster.';

CREATE FUNCTION acmetrace_internal.clusters_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    cl text;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        FOR cl IN SELECT n.cluster FROM new_clusters n
                    LEFT JOIN old_clusters o ON o.cluster = n.cluster
                   WHERE o.cluster IS NULL OR o.time_zone IS DISTINCT FROM n.time_zone
                      OR o.gpu_capacity IS DISTINCT FROM n.gpu_capacity
                  UNION
                  SELECT o.cluster FROM old_clusters o
                   WHERE NOT EXISTS (SELECT 1 FROM new_clusters n WHERE n.cluster = o.cluster)
        LOOP
            PERFORM acmetrace_internal.summarize(cl);
        END LOOP;
    ELSIF TG_OP = 'INSERT' THEN
        -- a loader registering its cluster (no jobs yet), or a restore
        -- that loads the clusters after their jobs
        FOR cl IN SELECT n.cluster FROM new_clusters n LOOP
            PERFORM acmetrace_internal.summarize(cl);
        END LOOP;
    ELSIF TG_OP = 'DELETE' THEN
        FOR cl IN SELECT o.cluster FROM old_clusters o LOOP
            PERFORM acmetrace_internal.summarize(cl);
        END LOOP;
    ELSE
        PERFORM acmetrace_internal.summarize_all();
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.clusters_changed() IS
  'Statement triggers on acmetrace.clusters: a new cluster is summarized, a changed time zone or capacity rebuilds the cluster''s summaries, a deleted cluster loses them.';

-- True when the analyses may read the summaries for cluster (NULL: every
-- cluster): acmetrace.summaries is on and each cluster has summaries built
-- from exact values (and an occupancy, when asked).
CREATE FUNCTION acmetrace_internal.summarized(cluster text, occupancy boolean DEFAULT false)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    -- the summaries hold every job: a reader who may not read them, or
    -- whom row-level security shows only some jobs, gets the scan
    IF NOT acmetrace_internal.use_summaries()
       OR pg_catalog.row_security_active('acmetrace.jobs')
       OR NOT pg_catalog.has_table_privilege('acmetrace.summary_clusters', 'SELECT')
       OR NOT pg_catalog.has_table_privilege('acmetrace.summary_groups', 'SELECT')
       OR NOT pg_catalog.has_table_privilege('acmetrace.summary_weeks', 'SELECT')
       OR NOT pg_catalog.has_table_privilege('acmetrace.summary_values', 'SELECT') THEN
        RETURN false;
    END IF;
    RETURN NOT EXISTS (SELECT 1
                         FROM acmetrace.clusters c
                         LEFT JOIN acmetrace.summary_clusters s ON s.cluster = c.cluster
                        WHERE (summarized.cluster IS NULL OR c.cluster = summarized.cluster)
                          AND (s.cluster IS NULL OR NOT s.exact
                               OR (summarized.occupancy AND s.occupancy_capacity IS NULL)));
END
$$;
COMMENT ON FUNCTION acmetrace_internal.summarized(text, boolean) IS
  'Whether the analyses answer for cluster (NULL: every cluster) from the summaries: acmetrace.summaries is on, the reader may read them and sees every job (no row-level security on acmetrace.jobs), and each cluster is summarized exactly (with an occupancy, if occupancy).';

-- Thresholds the summary path takes; anything else goes to the scan, which
-- gives the aggregates' own errors.
CREATE FUNCTION acmetrace_internal.plain_thresholds(t double precision[])
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT t IS NOT NULL AND array_ndims(t) = 1 AND cardinality(t) BETWEEN 1 AND 1000000
   AND array_position(t, NULL) IS NULL AND array_position(t, 'NaN'::float8) IS NULL
$$;
COMMENT ON FUNCTION acmetrace_internal.plain_thresholds(double precision[]) IS
  'True for a one-dimensional array of 1 to 1,000,000 thresholds without NULL or NaN.';

-- ---- The analyses' summary paths: the scan's result, from the summaries ----
-- Each mirrors acmetrace_internal.<name>_scan step for step, with the same
-- arithmetic on the same exact inputs: numeric sums of sums, percentiles
-- from exact value counts, sketches merged bucket by bucket.

CREATE FUNCTION acmetrace_internal.cluster_summary_summary(cluster text, digits integer)
RETURNS TABLE (cluster text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
               avg_run_time_gpu double precision, avg_que_time_gpu double precision,
               avg_gpu_num double precision,
               med_run_time_gpu double precision, med_que_time_gpu double precision,
               med_gpu_num double precision,
               max_run_time_gpu double precision, max_gpu double precision,
               complete_rate_gpu double precision, cancel_rate_gpu double precision,
               fail_rate_gpu double precision,
               complete_gpu_time double precision, cancel_gpu_time double precision,
               fail_gpu_time double precision,
               complete_rate_gpu_time double precision, cancel_rate_gpu_time double precision,
               fail_rate_gpu_time double precision,
               avg_run_time_cpu double precision, avg_que_time_cpu double precision,
               med_run_time_cpu double precision, med_que_time_cpu double precision,
               complete_rate_cpu double precision, cancel_rate_cpu double precision,
               fail_rate_cpu double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH g0 AS (
        SELECT s.cluster,
               sum(s.jobs)::bigint AS n,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num = 0), 0)::bigint AS n_cpu,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num > 0), 0)::bigint AS n_gpu,
               sum(s.duration_sum) FILTER (WHERE s.gpu_num > 0) / nullif(sum(s.duration_n) FILTER (WHERE s.gpu_num > 0), 0) AS avg_run_g,
               sum(s.queue_sum) FILTER (WHERE s.gpu_num > 0) / nullif(sum(s.queue_n) FILTER (WHERE s.gpu_num > 0), 0) AS avg_que_g,
               sum(s.gpu_num::bigint * s.jobs) FILTER (WHERE s.gpu_num > 0) / nullif(sum(s.jobs) FILTER (WHERE s.gpu_num > 0), 0) AS avg_gpu,
               max(s.duration_max) FILTER (WHERE s.gpu_num > 0) AS max_run_g,
               max(s.gpu_num) FILTER (WHERE s.gpu_num > 0) AS max_gpu,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num > 0 AND s.final_state = 'COMPLETED'), 0)::bigint AS n_gpu_ok,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num > 0 AND s.final_state = 'CANCELLED'), 0)::bigint AS n_gpu_cancel,
               sum(s.gpu_time) FILTER (WHERE s.gpu_num > 0) AS t_gpu,
               sum(s.gpu_time) FILTER (WHERE s.gpu_num > 0 AND s.final_state = 'COMPLETED') AS t_ok,
               sum(s.gpu_time) FILTER (WHERE s.gpu_num > 0 AND s.final_state = 'CANCELLED') AS t_cancel,
               sum(s.duration_sum) FILTER (WHERE s.gpu_num = 0) / nullif(sum(s.duration_n) FILTER (WHERE s.gpu_num = 0), 0) AS avg_run_c,
               sum(s.queue_sum) FILTER (WHERE s.gpu_num = 0) / nullif(sum(s.queue_n) FILTER (WHERE s.gpu_num = 0), 0) AS avg_que_c,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num = 0 AND s.final_state = 'COMPLETED'), 0)::bigint AS n_cpu_ok,
               coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num = 0 AND s.final_state = 'CANCELLED'), 0)::bigint AS n_cpu_cancel
          FROM acmetrace.summary_groups s
         WHERE acmetrace_internal.known_cluster(cluster_summary_summary.cluster)
           AND (digits IS NULL OR digits BETWEEN 0 AND 15
                OR acmetrace_internal.raise('22023', format('digits must be between 0 and 15, not %s', digits),
                                            'The published summary uses 3; NULL leaves the values unrounded.'))
           AND (cluster_summary_summary.cluster IS NULL OR s.cluster = cluster_summary_summary.cluster)
         GROUP BY s.cluster),
    med(cl, measure, gpu, m) AS (
        SELECT v.cluster, v.measure, v.gpu, (acmetrace_internal.vc_percentiles(v.vals, v.counts, '{0.5}'))[1]
          FROM acmetrace.summary_values v
         WHERE v.measure IN ('duration', 'queue') AND v.all_types
           AND (cluster_summary_summary.cluster IS NULL OR v.cluster = cluster_summary_summary.cluster)),
    gmed(cl, m) AS (
        SELECT x.cluster, (acmetrace_internal.vc_percentiles(array_agg(x.g::float8 ORDER BY x.g), array_agg(x.n ORDER BY x.g), '{0.5}'))[1]
          FROM (SELECT s.cluster, s.gpu_num AS g, sum(s.jobs)::bigint AS n
                  FROM acmetrace.summary_groups s
                 WHERE s.gpu_num > 0 AND (cluster_summary_summary.cluster IS NULL OR s.cluster = cluster_summary_summary.cluster)
                 GROUP BY 1, 2) x
         GROUP BY x.cluster),
    g AS (
        SELECT g0.*,
               (SELECT m.m FROM med m WHERE m.cl = g0.cluster AND m.measure = 'duration' AND m.gpu) AS med_run_g,
               (SELECT m.m FROM med m WHERE m.cl = g0.cluster AND m.measure = 'queue' AND m.gpu) AS med_que_g,
               (SELECT m.m FROM gmed m WHERE m.cl = g0.cluster) AS med_gpu,
               (SELECT m.m FROM med m WHERE m.cl = g0.cluster AND m.measure = 'duration' AND NOT m.gpu) AS med_run_c,
               (SELECT m.m FROM med m WHERE m.cl = g0.cluster AND m.measure = 'queue' AND NOT m.gpu) AS med_que_c
          FROM g0)
    SELECT f.*
      FROM g, LATERAL acmetrace_internal.cluster_summary_row(
               g.cluster, g.n, g.n_cpu, g.n_gpu, g.avg_run_g, g.avg_que_g, g.avg_gpu, g.med_run_g, g.med_que_g, g.med_gpu,
               g.max_run_g, g.max_gpu, g.n_gpu_ok, g.n_gpu_cancel, g.t_gpu, g.t_ok, g.t_cancel, g.avg_run_c, g.avg_que_c,
               g.med_run_c, g.med_que_c, g.n_cpu_ok, g.n_cpu_cancel, digits) f
     ORDER BY f.cluster COLLATE "C"
$$;

CREATE FUNCTION acmetrace_internal.state_by_type_summary(cluster text)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT r.cluster, r.type, r.final_state, sum(r.jobs)::bigint AS n, coalesce(sum(r.gpu_time), 0) AS t
              FROM acmetrace.summary_groups r
             WHERE acmetrace_internal.known_cluster(state_by_type_summary.cluster)
               AND r.gpu_num > 0 AND (state_by_type_summary.cluster IS NULL OR r.cluster = state_by_type_summary.cluster)
             GROUP BY r.cluster, r.type, r.final_state) s
    WINDOW w AS (PARTITION BY s.cluster, s.type)
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;

CREATE FUNCTION acmetrace_internal.type_distribution_summary(cluster text)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT r.cluster, r.type, sum(r.jobs)::bigint AS n, coalesce(sum(r.gpu_time), 0) AS t
              FROM acmetrace.summary_groups r
             WHERE acmetrace_internal.known_cluster(type_distribution_summary.cluster)
               AND r.gpu_num > 0 AND (type_distribution_summary.cluster IS NULL OR r.cluster = type_distribution_summary.cluster)
             GROUP BY r.cluster, r.type) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.n DESC, s.type COLLATE "C"
$$;

CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_summary(cluster text)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH d AS (
        SELECT r.cluster, r.type, r.gpu_num, sum(r.jobs)::bigint AS n
          FROM acmetrace.summary_groups r
         WHERE acmetrace_internal.known_cluster(gpu_num_boxplot_summary.cluster)
           AND r.gpu_num > 0 AND (gpu_num_boxplot_summary.cluster IS NULL OR r.cluster = gpu_num_boxplot_summary.cluster)
         GROUP BY r.cluster, r.type, r.gpu_num),
    q AS (
        SELECT d.cluster, d.type,
               acmetrace_internal.vc_percentiles(array_agg(d.gpu_num::float8 ORDER BY d.gpu_num), array_agg(d.n ORDER BY d.gpu_num),
                                                 ARRAY[0.25, 0.5, 0.75]) AS p
          FROM d GROUP BY d.cluster, d.type),
    f AS (
        SELECT q.cluster, q.type, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, sum(d.n)::bigint, min(d.gpu_num),
           round(f.q1::numeric, 2), round(f.q2::numeric, 2), round(f.q3::numeric, 2), max(d.gpu_num),
           min(d.gpu_num) FILTER (WHERE d.gpu_num >= f.lo_fence),
           max(d.gpu_num) FILTER (WHERE d.gpu_num <= f.hi_fence),
           coalesce(sum(d.n) FILTER (WHERE d.gpu_num < f.lo_fence OR d.gpu_num > f.hi_fence), 0)::bigint
      FROM f
      JOIN d ON d.cluster = f.cluster AND d.type IS NOT DISTINCT FROM f.type
     GROUP BY f.cluster, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.type COLLATE "C"
$$;

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_summary(cluster text, type text, bin_width double precision,
                                                              upper double precision)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH p AS (SELECT acmetrace_internal.queue_bin_count(bin_width, upper) AS nb
                WHERE acmetrace_internal.known_cluster(cancelled_by_queue_summary.cluster)),
    b AS (
        SELECT v.cluster, u.bin, sum(u.n) AS n, sum(u.n) FILTER (WHERE v.cancelled) AS c
          FROM acmetrace.summary_values v, p,
               unnest(acmetrace_internal.vc_bins(v.vals, v.counts, bin_width, upper, p.nb)) WITH ORDINALITY u(n, bin)
         WHERE v.measure = 'wait'
           AND (cancelled_by_queue_summary.cluster IS NULL OR v.cluster = cancelled_by_queue_summary.cluster)
           AND (cancelled_by_queue_summary.type IS NULL OR v.type = cancelled_by_queue_summary.type)
         GROUP BY v.cluster, u.bin)
    SELECT b.cluster, b.bin::integer,
           least((b.bin - 1) * bin_width, upper),
           CASE WHEN b.bin <= p.nb THEN least(b.bin * bin_width, upper) END,
           b.n::bigint, coalesce(b.c, 0)::bigint,
           acmetrace_internal.pct(coalesce(b.c, 0), b.n)
      FROM b, p
     ORDER BY b.cluster COLLATE "C", b.bin
$$;

CREATE FUNCTION acmetrace_internal.gpu_time_lost_summary(cluster text)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n, s.t, s.f, s.c,
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT r.cluster, r.type, sum(r.jobs)::bigint AS n,
                   coalesce(sum(r.gpu_time), 0) AS t,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(r.gpu_time) FILTER (WHERE r.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.summary_groups r
             WHERE acmetrace_internal.known_cluster(gpu_time_lost_summary.cluster)
               AND r.gpu_num > 0 AND (gpu_time_lost_summary.cluster IS NULL OR r.cluster = gpu_time_lost_summary.cluster)
             GROUP BY r.cluster, r.type) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C"
$$;

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

CREATE FUNCTION acmetrace_internal.queue_percentiles_summary(cluster text, fractions double precision[])
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles numeric[], sketch acmetrace.delay_sketch)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, acmetrace.count(s.sk),
           ARRAY(SELECT acmetrace_internal.sig3(p.v)
                   FROM unnest(acmetrace.percentiles(s.sk, fractions)) WITH ORDINALITY p(v, k) ORDER BY p.k),
           s.sk
      FROM (SELECT v.cluster, CASE WHEN grouping(v.type) = 0 THEN v.type END AS type,
                   acmetrace.rollup(acmetrace_internal.vc_sketch(v.vals, v.counts)) AS sk
              FROM acmetrace.summary_values v
             WHERE acmetrace_internal.known_cluster(queue_percentiles_summary.cluster)
               AND acmetrace_internal.check_fractions(fractions)
               AND v.measure = 'wait'
               AND (queue_percentiles_summary.cluster IS NULL OR v.cluster = queue_percentiles_summary.cluster)
             GROUP BY GROUPING SETS ((v.cluster), (v.cluster, v.type))
            HAVING grouping(v.type) = 1 OR v.type IS NOT NULL) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C" NULLS FIRST
$$;

CREATE FUNCTION acmetrace_internal.queue_by_occupancy_summary(cluster text)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT v.cluster, v.type, v.occupancy_bin,
           round((c.occupancy_capacity::double precision * (v.occupancy_bin - 1) / 10)::numeric, 1),
           CASE WHEN v.occupancy_bin <= 10 THEN round((c.occupancy_capacity::double precision * v.occupancy_bin / 10)::numeric, 1) END,
           t.n,
           acmetrace_internal.sig3(t.s / t.n),
           acmetrace_internal.sig3(t.p[1]),
           acmetrace_internal.sig3(t.p[2])
      FROM acmetrace.summary_values v
      JOIN acmetrace.summary_clusters c ON c.cluster = v.cluster
     CROSS JOIN LATERAL (SELECT (acmetrace_internal.vc_counts_at(v.vals, v.counts, '{Infinity}', false))[1] AS n,
                                acmetrace_internal.vc_percentiles(v.vals, v.counts, '{0.5,0.9}') AS p,
                                acmetrace_internal.vc_sum(v.vals, v.counts) AS s
                          OFFSET 0) t  -- each function once per row
     WHERE acmetrace_internal.known_cluster(queue_by_occupancy_summary.cluster)
       AND v.measure = 'wait_by_occupancy'
       AND (queue_by_occupancy_summary.cluster IS NULL OR v.cluster = queue_by_occupancy_summary.cluster)
     ORDER BY v.cluster COLLATE "C", v.type COLLATE "C", v.occupancy_bin
$$;

-- A CDF line per cluster (all types: type NULL) and per type, from value
-- counts: the count at or below each threshold over the line's count, then
-- x 100, as cdf_at does.
CREATE FUNCTION acmetrace_internal.duration_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    -- materialized: each line's counts are computed once, not per threshold
    WITH l AS MATERIALIZED (
        SELECT v.cluster, v.type,
               acmetrace_internal.vc_counts_at(v.vals, v.counts, thresholds || 'Infinity'::float8, false) AS a
          FROM acmetrace.summary_values v
         WHERE acmetrace_internal.known_cluster(duration_cdf_summary.cluster)
           AND v.measure = 'duration' AND v.gpu AND (v.all_types OR v.type IS NOT NULL)
           AND (duration_cdf_summary.cluster IS NULL OR v.cluster = duration_cdf_summary.cluster))
    SELECT l.cluster, l.type, u.x, l.a[cardinality(l.a)], round(((u.c::float8 / l.a[cardinality(l.a)]::float8) * 100)::numeric, 2)
      FROM l, unnest(thresholds, l.a) u(x, c)
     WHERE u.x IS NOT NULL
     ORDER BY l.cluster COLLATE "C", l.type COLLATE "C" NULLS FIRST, u.x
$$;

CREATE FUNCTION acmetrace_internal.queue_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH r AS (
        SELECT v.cluster, v.type, acmetrace_internal.vc_counts_at(v.vals, v.counts, thresholds || 'Infinity'::float8, false) AS a
          FROM acmetrace.summary_values v
         WHERE acmetrace_internal.known_cluster(queue_cdf_summary.cluster)
           AND v.measure = 'wait'
           AND (queue_cdf_summary.cluster IS NULL OR v.cluster = queue_cdf_summary.cluster)),
    g AS (
        SELECT r.cluster, CASE WHEN grouping(r.type) = 0 THEN r.type END AS type, u.k, sum(u.c)::bigint AS c
          FROM r, unnest(r.a) WITH ORDINALITY u(c, k)
         GROUP BY GROUPING SETS ((r.cluster, u.k), (r.cluster, r.type, u.k))
        HAVING grouping(r.type) = 1 OR r.type IS NOT NULL),
    l AS (
        SELECT g.cluster, g.type, array_agg(g.c ORDER BY g.k) AS a FROM g GROUP BY g.cluster, g.type)
    SELECT l.cluster, l.type, u.x, l.a[cardinality(l.a)], round(((u.c::float8 / l.a[cardinality(l.a)]::float8) * 100)::numeric, 2)
      FROM l, unnest(thresholds, l.a) u(x, c)
     WHERE u.x IS NOT NULL
     ORDER BY l.cluster COLLATE "C", l.type COLLATE "C" NULLS FIRST, u.x
$$;

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_summary(cluster text, thresholds double precision[])
RETURNS TABLE (cluster text, x double precision, jobs bigint, job_pct numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH d AS (
        SELECT r.cluster, r.gpu_num, sum(r.jobs)::bigint AS n, sum(r.gpu_time) AS w
          FROM acmetrace.summary_groups r
         WHERE acmetrace_internal.known_cluster(gpu_num_cdf_summary.cluster)
           AND r.gpu_num > 0 AND (gpu_num_cdf_summary.cluster IS NULL OR r.cluster = gpu_num_cdf_summary.cluster)
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
     ORDER BY t.cluster COLLATE "C", u.x
$$;

CREATE FUNCTION acmetrace_internal.state_breakdown_summary(cluster text)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT r.cluster, r.final_state, sum(r.jobs)::bigint AS n, sum(r.gpu_time_published) AS t
              FROM acmetrace.summary_groups r
             WHERE acmetrace_internal.known_cluster(state_breakdown_summary.cluster)
               AND r.gpu_num > 0
               AND (state_breakdown_summary.cluster IS NULL OR r.cluster = state_breakdown_summary.cluster)
             GROUP BY r.cluster, r.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;

-- Classified jobs are few: read through the join, as the scan does; the
-- failed jobs nobody classified are the summary's failed jobs minus the
-- classified ones among them.
CREATE FUNCTION acmetrace_internal.failure_taxonomy_summary(cluster text)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus numeric,
               avg_minutes numeric, gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
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
               acmetrace_internal.sig3(((a.sd / nullif(a.nd, 0)::numeric) / 60)::float8) AS m,
               coalesce(a.t, 0) AS t
          FROM a
         WHERE acmetrace_internal.known_cluster(failure_taxonomy_summary.cluster))
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER (PARTITION BY s.cluster))
      FROM s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C"
$$;

CREATE FUNCTION acmetrace_internal.trace_comparison_summary(cluster text)
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT c.cluster, c.source_format,
       date_part('year', min(s.first_submit) AT TIME ZONE c.time_zone)::integer,
       min(s.first_submit), max(s.last_submit),
       round(date_part('epoch', max(s.last_submit) - min(s.first_submit))::numeric / 86400, 2),
       round(date_part('epoch', max(s.last_submit) - min(s.first_submit))::numeric / 86400 / 30.44, 1),
       coalesce(sum(s.jobs), 0)::bigint,
       coalesce(sum(s.jobs) FILTER (WHERE s.gpu_num > 0), 0)::bigint,
       round(sum(s.gpu_num::bigint * s.jobs) FILTER (WHERE s.gpu_num > 0)
             / nullif(sum(s.jobs) FILTER (WHERE s.gpu_num > 0), 0), 2),
       c.gpu_capacity,
       sc.peak_allocated
  FROM acmetrace.clusters c
  LEFT JOIN acmetrace.summary_groups s ON s.cluster = c.cluster
  LEFT JOIN acmetrace.summary_clusters sc ON sc.cluster = c.cluster
 WHERE acmetrace_internal.known_cluster(trace_comparison_summary.cluster)
   AND (trace_comparison_summary.cluster IS NULL OR c.cluster = trace_comparison_summary.cluster)
 GROUP BY c.cluster, c.source_format, c.time_zone, c.gpu_capacity, sc.peak_allocated
 ORDER BY c.cluster COLLATE "C"
$$;

-- ---- The analyses: the summaries when they can answer, else the scan ----
-- acmetrace.<name> (SQL, so callers keep its parameter names) calls
-- acmetrace_internal.<name>_run, whose PL/pgSQL keeps each branch's plan
-- for the session and plans the scan only when it runs.

CREATE FUNCTION acmetrace_internal.cluster_summary_run(a1 text, a2 integer)
RETURNS TABLE (cluster text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
               avg_run_time_gpu double precision, avg_que_time_gpu double precision,
               avg_gpu_num double precision,
               med_run_time_gpu double precision, med_que_time_gpu double precision,
               med_gpu_num double precision,
               max_run_time_gpu double precision, max_gpu double precision,
               complete_rate_gpu double precision, cancel_rate_gpu double precision,
               fail_rate_gpu double precision,
               complete_gpu_time double precision, cancel_gpu_time double precision,
               fail_gpu_time double precision,
               complete_rate_gpu_time double precision, cancel_rate_gpu_time double precision,
               fail_rate_gpu_time double precision,
               avg_run_time_cpu double precision, avg_que_time_cpu double precision,
               med_run_time_cpu double precision, med_que_time_cpu double precision,
               complete_rate_cpu double precision, cancel_rate_cpu double precision,
               fail_rate_cpu double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.cluster_summary_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.cluster_summary_scan(a1, a2);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_summary_run(text, integer) IS
  'acmetrace.cluster_summary: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.cluster_summary(cluster text DEFAULT NULL, digits integer DEFAULT 3)
RETURNS TABLE (cluster text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
               avg_run_time_gpu double precision, avg_que_time_gpu double precision,
               avg_gpu_num double precision,
               med_run_time_gpu double precision, med_que_time_gpu double precision,
               med_gpu_num double precision,
               max_run_time_gpu double precision, max_gpu double precision,
               complete_rate_gpu double precision, cancel_rate_gpu double precision,
               fail_rate_gpu double precision,
               complete_gpu_time double precision, cancel_gpu_time double precision,
               fail_gpu_time double precision,
               complete_rate_gpu_time double precision, cancel_rate_gpu_time double precision,
               fail_rate_gpu_time double precision,
               avg_run_time_cpu double precision, avg_que_time_cpu double precision,
               med_run_time_cpu double precision, med_que_time_cpu double precision,
               complete_rate_cpu double precision, cancel_rate_cpu double precision,
               fail_rate_cpu double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.cluster_summary_run($1, $2)';
COMMENT ON FUNCTION acmetrace.cluster_summary(text, integer) IS
  'One row per loaded cluster (NULL: every one) with every column of the published acme_cluster_summary.csv (its id column is named cluster here), computed as the AcmeTrace notebook does and rounded to digits decimals, ties to even (NULL: unrounded). See README for each column.';

CREATE FUNCTION acmetrace_internal.state_breakdown_run(a1 text)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.state_breakdown_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.state_breakdown_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_breakdown_run(text) IS
  'acmetrace.state_breakdown: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.state_breakdown(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.state_breakdown_run($1)';
COMMENT ON FUNCTION acmetrace.state_breakdown(text) IS
  'Per cluster and final state, GPU jobs (gpu_num > 0): count and percent of jobs, GPU time (published gpu_time, else duration * gpu_num) and percent of GPU time. TIMEOUT and NODE_FAIL count as FAILED.';

CREATE FUNCTION acmetrace_internal.state_by_type_run(a1 text)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.state_by_type_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.state_by_type_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.state_by_type_run(text) IS
  'acmetrace.state_by_type: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.state_by_type(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.state_by_type_run($1)';
COMMENT ON FUNCTION acmetrace.state_by_type(text) IS
  'Final state of GPU jobs per cluster and job type: jobs and their percent of the type''s jobs, GPU time (duration x gpu_num) and its percent of the type''s. TIMEOUT and NODE_FAIL count as FAILED; type NULL for traces without types.';

CREATE FUNCTION acmetrace_internal.type_distribution_run(a1 text)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.type_distribution_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.type_distribution_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.type_distribution_run(text) IS
  'acmetrace.type_distribution: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.type_distribution(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.type_distribution_run($1)';
COMMENT ON FUNCTION acmetrace.type_distribution(text) IS
  'Job types of GPU jobs per cluster: jobs and percent of the cluster''s GPU jobs, GPU time (duration x gpu_num) and percent of its GPU time. Most frequent type first.';

CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_run(a1 text)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_boxplot_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_boxplot_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_boxplot_run(text) IS
  'acmetrace.gpu_num_boxplot: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_num_boxplot(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_num_boxplot_run($1)';
COMMENT ON FUNCTION acmetrace.gpu_num_boxplot(text) IS
  'GPU count of GPU jobs per cluster and type as box-plot numbers: min, quartiles (linear interpolation, as percentile_cont and numpy; 2 decimals), max, whiskers at the most extreme gpu_num within 1.5 IQR of the box, and the number of jobs outside them.';

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_run(a1 text, a2 text, a3 double precision, a4 double precision, a5 boolean)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) AND NOT coalesce(a5, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.cancelled_by_queue_summary(a1, a2, a3, a4);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.cancelled_by_queue_scan(a1, a2, a3, a4, a5);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cancelled_by_queue_run(text, text, double precision, double precision, boolean) IS
  'acmetrace.cancelled_by_queue: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.cancelled_by_queue(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.cancelled_by_queue_run($1, $2, $3, $4, $5)';
COMMENT ON FUNCTION acmetrace.cancelled_by_queue(text, text, double precision, double precision, boolean) IS
  'GPU jobs (all_jobs: every job) of one type (default Eval; NULL: every type) by queueing delay (start - submit) in bins of bin_width seconds up to upper, then one open bin (queue_to_s NULL): jobs, cancelled jobs and the percent cancelled. Every bin is listed; jobs that never started are left out.';

CREATE FUNCTION acmetrace_internal.gpu_time_lost_run(a1 text)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_time_lost_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_run(text) IS
  'acmetrace.gpu_time_lost: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_time_lost(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_time_lost_run($1)';
COMMENT ON FUNCTION acmetrace.gpu_time_lost(text) IS
  'Per cluster and job type: GPU jobs, GPU time (duration x gpu_num) of all of them, of failed ones (TIMEOUT and NODE_FAIL included) and of cancelled ones, and the two percents.';

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

CREATE FUNCTION acmetrace_internal.queue_percentiles_run(a1 text, a2 double precision[], a3 boolean)
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles numeric[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) AND NOT coalesce(a3, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_percentiles_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_percentiles_scan(a1, a2, a3);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_percentiles_run(text, double precision[], boolean) IS
  'acmetrace.queue_percentiles: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_percentiles(cluster text DEFAULT NULL,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles numeric[], sketch acmetrace.delay_sketch)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.queue_percentiles_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.queue_percentiles(text, double precision[], boolean) IS
  'Queueing delay (start_time - submit_time, seconds, 3 significant digits) percentiles of GPU jobs (all_jobs: every job) per cluster, for all types (type NULL) and per type, within 0.5%; jobs that never started or started before their submit time are left out. The sketch column rolls up: acmetrace.rollup(sketch) merges clusters.';

CREATE FUNCTION acmetrace_internal.queue_by_occupancy_run(a1 text, a2 integer, a3 text, a4 bigint, a5 boolean)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1, true) AND a2 IS NOT DISTINCT FROM 10 AND a3 IS NOT DISTINCT FROM 'submit' AND a4 IS NULL AND NOT coalesce(a5, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_by_occupancy_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_by_occupancy_scan(a1, a2, a3, a4, a5);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_by_occupancy_run(text, integer, text, bigint, boolean) IS
  'acmetrace.queue_by_occupancy: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_by_occupancy(cluster text DEFAULT NULL, nbins integer DEFAULT 10,
                                             measured_at text DEFAULT 'submit', capacity bigint DEFAULT NULL,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.queue_by_occupancy_run($1, $2, $3, $4, $5)';
COMMENT ON FUNCTION acmetrace.queue_by_occupancy(text, integer, text, bigint, boolean) IS
  'Queueing delay (start - submit, seconds, 3 significant digits) of GPU jobs (all_jobs: every job) by cluster, job type and bin of GPUs allocated when the job was submitted (or started): width_bucket(gpus_at, 0, capacity, nbins); bin nbins+1 is at or over capacity. capacity defaults to the cluster''s, else the observed peak.';

CREATE FUNCTION acmetrace_internal.duration_cdf_run(a1 text, a2 double precision[])
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.duration_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.duration_cdf_scan(a1, a2);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.duration_cdf_run(text, double precision[]) IS
  'acmetrace.duration_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.duration_cdf(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.duration_cdf_run($1, $2)';
COMMENT ON FUNCTION acmetrace.duration_cdf(text, double precision[]) IS
  'CDF (percent, 2 decimals) of the published duration of GPU jobs at each threshold (default 1, 2, 4, ... 2^21 s), per cluster (type NULL) and per job type, with the number of jobs of each line.';

CREATE FUNCTION acmetrace_internal.queue_cdf_run(a1 text, a2 double precision[], a3 boolean)
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) AND NOT coalesce(a3, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_cdf_scan(a1, a2, a3);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_cdf_run(text, double precision[], boolean) IS
  'acmetrace.queue_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_cdf(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT '{0}' || acmetrace.powers_of_two(0, 21),
                                    all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.queue_cdf_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.queue_cdf(text, double precision[], boolean) IS
  'CDF (percent, 2 decimals) of the queueing delay (start - submit) of GPU jobs (all_jobs: every job) at each threshold (default 0, then 1, 2, 4, ... 2^21 s), per cluster (type NULL) and per job type, with the number of jobs of each line: the jobs queue_percentiles counts.';

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_run(a1 text, a2 double precision[])
RETURNS TABLE (cluster text, x double precision, jobs bigint, job_pct numeric, gpu_time_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) AND acmetrace_internal.plain_thresholds(a2) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_cdf_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.gpu_num_cdf_scan(a1, a2);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_cdf_run(text, double precision[]) IS
  'acmetrace.gpu_num_cdf: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.gpu_num_cdf(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1))
RETURNS TABLE (cluster text, x double precision, jobs bigint, job_pct numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.gpu_num_cdf_run($1, $2)';
COMMENT ON FUNCTION acmetrace.gpu_num_cdf(text, double precision[]) IS
  'CDF of GPU count over GPU jobs, by job count and weighted by GPU time (gpu_num x published duration, as the notebook), at each threshold (default 0..1024), in percent with 2 decimals, with the number of jobs.';

CREATE FUNCTION acmetrace_internal.failure_taxonomy_run(a1 text)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus numeric,
               avg_minutes numeric, gpu_time numeric, gpu_time_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.failure_taxonomy_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.failure_taxonomy_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.failure_taxonomy_run(text) IS
  'acmetrace.failure_taxonomy: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.failure_taxonomy(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus numeric,
               avg_minutes numeric, gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.failure_taxonomy_run($1)';
COMMENT ON FUNCTION acmetrace.failure_taxonomy(text) IS
  'The paper''s failure table per cluster: for each (category, reason) in failure_reasons, jobs, average GPUs (2 decimals), average minutes (published duration, 3 significant digits), GPU time (duration x gpu_num) and percent (2 decimals) of the GPU time of all classified or failed jobs. The row with NULL category and reason is failed jobs without a classification.';

CREATE FUNCTION acmetrace_internal.trace_comparison_run(a1 text)
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF acmetrace_internal.summarized(a1) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.trace_comparison_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.trace_comparison_scan(a1);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.trace_comparison_run(text) IS
  'acmetrace.trace_comparison: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.trace_comparison(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.trace_comparison_run($1)';
COMMENT ON FUNCTION acmetrace.trace_comparison(text) IS
  'One row per loaded cluster (NULL: every one) with the columns of the AcmeTrace paper''s comparison of datacenters: year, span, jobs, GPU jobs, mean GPUs per GPU job, GPU capacity, peak GPUs allocated.';
