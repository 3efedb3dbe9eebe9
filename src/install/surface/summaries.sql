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
-- The analyses, each with its summary path, are in src/install/analyses/.

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

-- ---- What the analyses' dispatchers (acmetrace_internal.<name>_run, in
-- src/install/analyses/) ask before they read the summaries ----

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
