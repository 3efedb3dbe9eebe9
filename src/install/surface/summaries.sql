-- Summaries: built when jobs change, read by the standard analyses.
--
-- acmetrace_internal.summarize(cluster) rebuilds one cluster's rows of
-- acmetrace.summary_clusters, summary_jobs, summary_groups, summary_weeks
-- and summary_values (and, through timeseries_summarize, the time series'
-- summary_extents, summary_hours and summary_days; summarize_delta through
-- timeseries_delta) from its jobs, in the transaction that changed them:
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
-- JIT compiled its statements for a third of a second even when the
-- cluster had a few thousand jobs (enable_sort off inflates the estimates)
SET jit = off
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
    PERFORM acmetrace_internal.usage_summarize(cl, force);
    PERFORM acmetrace_internal.timeseries_summarize(cl, force);
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
    PERFORM acmetrace_internal.usage_prune();
    PERFORM acmetrace_internal.timeseries_forget();
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

-- ---- Summaries at the cost of what changed ----

CREATE TYPE acmetrace_internal.job_interval AS (s timestamptz, e timestamptz, g bigint);
COMMENT ON TYPE acmetrace_internal.job_interval IS
  'A time interval [s, e) and GPUs (occupancy_delta''s changed intervals).';

CREATE FUNCTION acmetrace_internal.vc_merge(vals double precision[], counts bigint[],
                                            dvals double precision[], dcounts bigint[],
                                            OUT merged_vals double precision[], OUT merged_counts bigint[])
AS 'MODULE_PATHNAME', 'acmetrace_vc_merge' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.vc_merge(double precision[], bigint[], double precision[], bigint[]) IS
  'The value counts plus signed changes (dvals, dcounts: any order, repeats added), values whose count falls to 0 dropped; an error if one would fall below 0.';

-- The statement triggers on acmetrace.jobs skip the clusters a caller
-- named: it calls summarize_delta (or summarize) itself.
CREATE FUNCTION acmetrace_internal.summaries_by_caller(cl text)
RETURNS void
LANGUAGE sql
AS $$
SELECT pg_catalog.set_config('acmetrace_internal.by_caller',
           coalesce(nullif(pg_catalog.current_setting('acmetrace_internal.by_caller', true), '') || ',', '') || cl, true)
 WHERE cl IS NOT NULL
$$;
COMMENT ON FUNCTION acmetrace_internal.summaries_by_caller(text) IS
  'From now to the end of the transaction the statement triggers on acmetrace.jobs leave cluster cl''s summaries to the caller (summarize_delta or summarize), and take an INSERT as the caller''s.';

CREATE FUNCTION acmetrace_internal.by_caller(cl text)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
SELECT cl = ANY (pg_catalog.string_to_array(pg_catalog.current_setting('acmetrace_internal.by_caller', true), ','))
$$;
COMMENT ON FUNCTION acmetrace_internal.by_caller(text) IS
  'Whether summaries_by_caller named cl in this transaction.';

-- What the last summarize_delta did: 'delta', or 'rebuild: <why>'.
CREATE FUNCTION acmetrace_internal.delta_taken(how text)
RETURNS void
LANGUAGE sql
AS $$ SELECT pg_catalog.set_config('acmetrace_internal.last_delta', how, false) $$;
COMMENT ON FUNCTION acmetrace_internal.delta_taken(text) IS
  'Records (session setting acmetrace_internal.last_delta) whether summarize_delta applied the changes or rebuilt, and why.';

-- The wait_by_occupancy changes: a wait's bin is width_bucket of the GPUs
-- held at its submission t (jobs with start <= t < end).  Only times the
-- changed jobs' intervals cover change, so the occupancy is swept over the
-- jobs holding GPUs in that window (index jobs_cluster_end), now (lvl_new)
-- and before (lvl_old: now, minus the new intervals, plus the old).  Rows:
-- the bins' changes (type, bin, value, n), then one row with the highest
-- level before and after within the window (max_old, max_new), for the peak.
CREATE FUNCTION acmetrace_internal.occupancy_delta(cl text, old_rows acmetrace.jobs[], new_rows acmetrace.jobs[],
                                                   capacity bigint,
                                                   OUT type text, OUT bin integer, OUT val double precision,
                                                   OUT n bigint, OUT max_old bigint, OUT max_new bigint)
RETURNS SETOF record
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    iv    acmetrace_internal.job_interval[];
    ids   text[];
    lo    timestamptz;
    hi    timestamptz;
    a     timestamptz;
    b     timestamptz;
    open  boolean;
BEGIN
    -- the intervals that differ: +g for an old one, -g for a new one
    SELECT array_agg(ROW(d.s, d.e, d.g)::acmetrace_internal.job_interval), min(d.s), max(d.e)
      INTO iv, lo, hi
      FROM (SELECT x.s, x.e, sum(x.g) AS g FROM (
                SELECT o.start_time AS s, coalesce(o.end_time, 'infinity') AS e, o.gpu_num::bigint AS g
                  FROM unnest(old_rows) o WHERE o.start_time IS NOT NULL AND o.gpu_num > 0
                   AND coalesce(o.end_time > o.start_time, true)
                UNION ALL
                SELECT n.start_time, coalesce(n.end_time, 'infinity'), -n.gpu_num::bigint
                  FROM unnest(new_rows) n WHERE n.start_time IS NOT NULL AND n.gpu_num > 0
                   AND coalesce(n.end_time > n.start_time, true)) x
             GROUP BY x.s, x.e HAVING sum(x.g) <> 0) d;
    ids := ARRAY(SELECT o.job_id FROM unnest(old_rows) o UNION SELECT n.job_id FROM unnest(new_rows) n);
    -- the window: the intervals and the changed waits' submissions
    SELECT least(lo, min(v.submit_time)), greatest(CASE WHEN hi < 'infinity' THEN hi END, max(v.submit_time))
      INTO a, b
      FROM (SELECT o.submit_time FROM unnest(old_rows) o WHERE o.gpu_num > 0 AND o.wait_s >= 0
            UNION ALL
            SELECT n.submit_time FROM unnest(new_rows) n WHERE n.gpu_num > 0 AND n.wait_s >= 0) v;
    open := coalesce(hi = 'infinity', false);
    IF a IS NULL THEN
        RETURN QUERY SELECT NULL::text, NULL::integer, NULL::float8, NULL::bigint, NULL::bigint, NULL::bigint;
        RETURN;
    END IF;

    RETURN QUERY
    WITH pts AS MATERIALIZED (
        -- every wait submitted in the intervals (side 0: before and now),
        -- the changed jobs' old (-1) and new (1) versions
        SELECT j.type, j.submit_time AS t, j.wait_s AS w, 0 AS side
          FROM acmetrace.jobs j
         WHERE lo IS NOT NULL AND j.cluster = cl AND j.submit_time >= lo AND j.submit_time < hi
           AND j.gpu_num > 0 AND j.wait_s >= 0 AND NOT (j.job_id = ANY (ids))
        UNION ALL
        SELECT o.type, o.submit_time, o.wait_s, -1 FROM unnest(old_rows) o WHERE o.gpu_num > 0 AND o.wait_s >= 0
        UNION ALL
        SELECT n.type, n.submit_time, n.wait_s, 1 FROM unnest(new_rows) n WHERE n.gpu_num > 0 AND n.wait_s >= 0),
    ev AS (
        -- the jobs holding GPUs at some time in [a, b] (open: from a on)
        SELECT j.start_time AS t, j.gpu_num::bigint AS cur, 0::bigint AS adj, 0 AS kind
          FROM acmetrace.jobs j
         WHERE j.cluster = cl AND j.gpu_num > 0 AND (j.end_time > a OR j.end_time IS NULL)
           AND (open OR j.start_time <= b) AND coalesce(j.end_time > j.start_time, true)
        UNION ALL
        SELECT j.end_time, -j.gpu_num::bigint, 0, 0
          FROM acmetrace.jobs j
         WHERE j.cluster = cl AND j.gpu_num > 0 AND j.end_time > a
           AND (open OR j.start_time <= b) AND j.end_time > j.start_time
        UNION ALL
        SELECT d.s, 0, d.g, 0 FROM unnest(iv) d
        UNION ALL
        SELECT d.e, 0, -d.g, 0 FROM unnest(iv) d WHERE d.e < 'infinity'
        UNION ALL
        SELECT DISTINCT p.t, 0, 0, 1 FROM pts p),
    lv AS (
        SELECT e.t, e.kind, sum(e.cur) OVER w AS lvl_new, sum(e.cur + e.adj) OVER w AS lvl_old
          FROM ev e
        WINDOW w AS (ORDER BY e.t, e.kind RANGE UNBOUNDED PRECEDING)),
    peak AS (
        SELECT max(l.lvl_old)::bigint AS mo, max(l.lvl_new)::bigint AS mn
          FROM lv l WHERE l.t >= a AND (open OR l.t <= b)),
    bins AS (
        SELECT p.type, width_bucket(CASE WHEN p.side = 1 THEN l.lvl_new ELSE l.lvl_old END::float8,
                                    0, capacity::float8, 10) AS bn, p.w, -1::bigint AS k
          FROM pts p JOIN lv l ON l.t = p.t AND l.kind = 1 WHERE p.side <= 0
        UNION ALL
        SELECT p.type, width_bucket(l.lvl_new::float8, 0, capacity::float8, 10), p.w, 1
          FROM pts p JOIN lv l ON l.t = p.t AND l.kind = 1 WHERE p.side >= 0)
    SELECT x.type, x.bn, x.w, sum(x.k)::bigint, NULL::bigint, NULL::bigint
      FROM bins x GROUP BY x.type, x.bn, x.w HAVING sum(x.k) <> 0
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, peak.mo, peak.mn FROM peak;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.occupancy_delta(text, acmetrace.jobs[], acmetrace.jobs[], bigint) IS
  'summarize_delta''s occupancy: the changes of wait_by_occupancy''s bins and the highest GPU occupancy before and after in the window the changed jobs'' intervals cover.';

-- Applies a change of k jobs to cluster cl's summaries, at the cost of the
-- rows those jobs touch: the days they were submitted on (summary_jobs,
-- regrouped from those days' jobs, index jobs_cluster_submit); the groups
-- and weeks whose day rows changed, by difference (a group whose maximum,
-- first or last submission, NULL or numeric scale the difference cannot
-- tell is regrouped from the day rows); the value counts, merged; the
-- waits whose occupancy bin moves (occupancy_delta); the facts.  Rebuilds
-- the cluster (summarize) when it cannot: no summaries yet, not exact or
-- odd before or after, the peak may fall or the capacity (the observed
-- peak) moves, or k is over a quarter of the jobs.
CREATE FUNCTION acmetrace_internal.summarize_delta(cl text, old_rows acmetrace.jobs[], new_rows acmetrace.jobs[])
RETURNS void
LANGUAGE plpgsql
SET work_mem = '256MB'
SET TimeZone = 'UTC'
SET jit = off
AS $$
#variable_conflict use_variable
DECLARE
    sc      acmetrace.summary_clusters;
    tz      text;
    gcap    integer;
    k       bigint;
    why     text;
    days    date[];
    nullday boolean;
    o_type  text[];
    o_bin   integer[];
    o_val   float8[];
    o_n     bigint[];
    mo      bigint;
    mn      bigint;
    newpeak bigint;
    d       date;
    day_jobs acmetrace.jobs[];
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('acmetrace.summaries'), pg_catalog.hashtext(cl));
    old_rows := ARRAY(SELECT o FROM unnest(old_rows) o WHERE o.cluster = cl);
    new_rows := ARRAY(SELECT n FROM unnest(new_rows) n WHERE n.cluster = cl);
    k := cardinality(old_rows) + cardinality(new_rows);
    SELECT * INTO sc FROM acmetrace.summary_clusters s WHERE s.cluster = cl;
    SELECT c.time_zone, c.gpu_capacity INTO tz, gcap FROM acmetrace.clusters c WHERE c.cluster = cl;
    why := CASE
        WHEN tz IS NULL OR NOT acmetrace_internal.use_summaries() THEN 'no cluster or summaries off'
        -- the delta's in-place edits (ctid) are not Citus's: a rebuild
        WHEN acmetrace_internal.distributed() THEN 'distributed'
        WHEN sc.cluster IS NULL THEN 'not summarized'
        WHEN NOT sc.exact OR sc.occupancy_capacity IS NULL THEN 'not exact or odd'
        WHEN 4 * k > sc.jobs THEN 'many changes'
        WHEN EXISTS (SELECT 1 FROM unnest(new_rows) n
                      WHERE n.gpu_num < 0 OR n.end_time < n.start_time
                         OR NOT (coalesce(isfinite(n.submit_time), true) AND coalesce(isfinite(n.start_time), true)
                                 AND coalesce(isfinite(n.end_time), true))
                         OR n.duration IN ('NaN', 'Infinity', '-Infinity') OR n.queue IN ('NaN', 'Infinity', '-Infinity')
                         OR n.gpu_time IN ('NaN', 'Infinity', '-Infinity')) THEN 'not exact or odd after'
        END;

    -- the occupancy first: a peak that may fall, or a capacity that moves, is a rebuild
    IF why IS NULL THEN
        SELECT array_agg(d.type) FILTER (WHERE d.n IS NOT NULL), array_agg(d.bin) FILTER (WHERE d.n IS NOT NULL),
               array_agg(d.val) FILTER (WHERE d.n IS NOT NULL), array_agg(d.n) FILTER (WHERE d.n IS NOT NULL),
               max(d.max_old), max(d.max_new)
          INTO o_type, o_bin, o_val, o_n, mo, mn
          FROM acmetrace_internal.occupancy_delta(cl, old_rows, new_rows, sc.occupancy_capacity) d;
        newpeak := CASE WHEN mo IS NULL THEN sc.peak_allocated
                        WHEN mn >= sc.peak_allocated THEN mn
                        WHEN mo < sc.peak_allocated THEN sc.peak_allocated END;
        IF newpeak IS NULL THEN
            why := 'the peak may fall';
        ELSIF gcap IS NULL AND greatest(newpeak, 1) <> sc.occupancy_capacity THEN
            why := 'the capacity (the peak) moves';
        END IF;
    END IF;
    IF why IS NOT NULL THEN
        PERFORM acmetrace_internal.summarize(cl);
        PERFORM acmetrace_internal.delta_taken('rebuild: ' || why);
        RETURN;
    END IF;
    PERFORM acmetrace_internal.usage_delta(cl, old_rows, new_rows);
    PERFORM acmetrace_internal.timeseries_delta(cl, old_rows, new_rows);

    -- the value counts: merged
    WITH x AS (
        SELECT o.type, o.state, o.gpu_num, o.wait_s, o.duration, o.queue, -1 AS sgn FROM unnest(old_rows) o
        UNION ALL
        SELECT n.type, n.state, n.gpu_num, n.wait_s, n.duration, n.queue, 1 FROM unnest(new_rows) n),
    d AS (
        SELECT 'wait' AS measure, x.type, false AS all_types, NULL::boolean AS gpu, NULL::integer AS bin,
               x.state = 'CANCELLED' AS cancelled, x.wait_s AS val, x.sgn::bigint AS n
          FROM x WHERE x.gpu_num > 0 AND x.wait_s >= 0
        UNION ALL
        SELECT 'duration', x.type, false, x.gpu_num > 0, NULL, NULL, x.duration::float8, x.sgn
          FROM x WHERE x.gpu_num >= 0 AND x.duration IS NOT NULL
        UNION ALL
        SELECT 'duration', NULL, true, x.gpu_num > 0, NULL, NULL, x.duration::float8, x.sgn
          FROM x WHERE x.gpu_num >= 0 AND x.duration IS NOT NULL
        UNION ALL
        SELECT 'queue', NULL, true, x.gpu_num > 0, NULL, NULL, x.queue::float8, x.sgn
          FROM x WHERE x.gpu_num >= 0 AND x.queue IS NOT NULL
        UNION ALL
        SELECT 'wait_by_occupancy', u.t, false, NULL, u.b, NULL, u.v, u.n
          FROM unnest(o_type, o_bin, o_val, o_n) u(t, b, v, n)),
    g AS (
        SELECT d.measure, d.type, d.all_types, d.gpu, d.bin, d.cancelled, array_agg(d.val) AS dv, array_agg(d.n) AS dn
          FROM d GROUP BY d.measure, d.type, d.all_types, d.gpu, d.bin, d.cancelled),
    m AS MATERIALIZED (
        SELECT g.measure, g.type, g.all_types, g.gpu, g.bin, g.cancelled, s.ctid AS rid, v.merged_vals, v.merged_counts
          FROM g
          LEFT JOIN acmetrace.summary_values s
            ON s.cluster = cl AND s.measure = g.measure AND s.type IS NOT DISTINCT FROM g.type
           AND s.all_types = g.all_types AND s.gpu IS NOT DISTINCT FROM g.gpu
           AND s.occupancy_bin IS NOT DISTINCT FROM g.bin AND s.cancelled IS NOT DISTINCT FROM g.cancelled,
          LATERAL acmetrace_internal.vc_merge(s.vals, s.counts, g.dv, g.dn) v),
    upd AS (
        UPDATE acmetrace.summary_values s SET vals = m.merged_vals, counts = m.merged_counts
          FROM m WHERE s.cluster = cl AND s.ctid = m.rid AND cardinality(m.merged_vals) > 0),
    del AS (
        DELETE FROM acmetrace.summary_values s USING m
         WHERE s.cluster = cl AND s.ctid = m.rid AND cardinality(m.merged_vals) = 0)
    INSERT INTO acmetrace.summary_values (cluster, measure, type, all_types, gpu, occupancy_bin, cancelled, vals, counts)
    SELECT cl, m.measure, m.type, m.all_types, m.gpu, m.bin, m.cancelled, m.merged_vals, m.merged_counts
      FROM m WHERE m.rid IS NULL AND cardinality(m.merged_vals) > 0;

    -- the days the jobs were and are submitted on (in the cluster's zone)
    SELECT array_agg(DISTINCT (x.submit_time AT TIME ZONE tz)::date) FILTER (WHERE x.submit_time IS NOT NULL),
           coalesce(bool_or(x.submit_time IS NULL), false)
      INTO days, nullday
      FROM (SELECT o.submit_time FROM unnest(old_rows) o UNION ALL SELECT n.submit_time FROM unnest(new_rows) n) x;
    days := coalesce(days, '{}');
    -- their jobs, a day at a time (an index range each)
    day_jobs := '{}';
    FOREACH d IN ARRAY days LOOP
        day_jobs := day_jobs || ARRAY(
            SELECT j FROM acmetrace.jobs j
             WHERE j.cluster = cl
               AND j.submit_time >= (d::timestamp AT TIME ZONE tz) - interval '3 hours'
               AND j.submit_time < ((d + 1)::timestamp AT TIME ZONE tz) + interval '3 hours'
               AND (j.submit_time AT TIME ZONE tz)::date = d);
    END LOOP;
    IF nullday THEN
        day_jobs := day_jobs || ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = cl AND j.submit_time IS NULL);
    END IF;

    -- summary_jobs: those days regrouped; the groups and weeks by difference
    WITH r AS MATERIALIZED (
        SELECT s.* FROM acmetrace.summary_jobs s
         WHERE s.cluster = cl AND (s.submit_day = ANY (days) OR (nullday AND s.submit_day IS NULL))),
    j AS (SELECT j.* FROM unnest(day_jobs) j),
    a AS MATERIALIZED (
        SELECT cl AS cluster, (j.submit_time AT TIME ZONE tz)::date AS submit_day,
               date_trunc('week', j.end_time AT TIME ZONE tz)::date AS end_week,
               j.type, j.final_state, j.gpu_num,
               count(*) AS jobs, count(j.duration) AS duration_n, sum(j.duration) AS duration_sum,
               max(j.duration) AS duration_max, count(j.queue) AS queue_n, sum(j.queue) AS queue_sum,
               sum(j.duration * j.gpu_num) AS gpu_time, sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) AS gpu_time_published,
               min(j.submit_time) AS first_submit, max(j.submit_time) AS last_submit
          FROM j GROUP BY 2, 3, 4, 5, 6),
    dj AS (
        DELETE FROM acmetrace.summary_jobs s
         WHERE s.cluster = cl AND (s.submit_day = ANY (days) OR (nullday AND s.submit_day IS NULL))),
    ij AS (INSERT INTO acmetrace.summary_jobs SELECT * FROM a),
    -- the day rows that differ, removed (-1) and added (1)
    x AS MATERIALIZED (
        SELECT -1 AS sgn, rr.* FROM (SELECT * FROM r EXCEPT ALL SELECT * FROM a) rr
        UNION ALL
        SELECT 1, aa.* FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM r) aa),
    -- the other day rows, for a group the difference cannot tell
    rest AS (
        SELECT s.* FROM acmetrace.summary_jobs s
         WHERE s.cluster = cl AND NOT (s.submit_day = ANY (days)) AND s.submit_day IS NOT NULL
        UNION ALL
        SELECT s.* FROM acmetrace.summary_jobs s WHERE NOT nullday AND s.cluster = cl AND s.submit_day IS NULL
        UNION ALL
        SELECT * FROM a),
    gd AS (
        SELECT x.type, x.final_state, x.gpu_num,
               sum(x.jobs) FILTER (WHERE x.sgn < 0) AS r_jobs, sum(x.jobs) FILTER (WHERE x.sgn > 0) AS a_jobs,
               coalesce(sum(x.sgn * x.jobs), 0) AS d_jobs, coalesce(sum(x.sgn * x.duration_n), 0) AS d_dn,
               coalesce(sum(x.sgn * x.queue_n), 0) AS d_qn,
               sum(x.duration_sum) FILTER (WHERE x.sgn < 0) AS r_ds, sum(x.duration_sum) FILTER (WHERE x.sgn > 0) AS a_ds,
               sum(x.queue_sum) FILTER (WHERE x.sgn < 0) AS r_qs, sum(x.queue_sum) FILTER (WHERE x.sgn > 0) AS a_qs,
               sum(x.gpu_time) FILTER (WHERE x.sgn < 0) AS r_gt, sum(x.gpu_time) FILTER (WHERE x.sgn > 0) AS a_gt,
               sum(x.gpu_time_published) FILTER (WHERE x.sgn < 0) AS r_gp,
               sum(x.gpu_time_published) FILTER (WHERE x.sgn > 0) AS a_gp,
               max(x.duration_max) FILTER (WHERE x.sgn < 0) AS r_dm, max(x.duration_max) FILTER (WHERE x.sgn > 0) AS a_dm,
               min(x.first_submit) FILTER (WHERE x.sgn < 0) AS r_f, min(x.first_submit) FILTER (WHERE x.sgn > 0) AS a_f,
               max(x.last_submit) FILTER (WHERE x.sgn < 0) AS r_l, max(x.last_submit) FILTER (WHERE x.sgn > 0) AS a_l
          FROM x GROUP BY x.type, x.final_state, x.gpu_num),
    gc AS MATERIALIZED (
        SELECT gd.*, g.ctid AS rid, g.jobs + 0 AS g_jobs,
               coalesce(g.jobs, 0) + gd.d_jobs AS jobs, coalesce(g.duration_n, 0) + gd.d_dn AS dn,
               coalesce(g.queue_n, 0) + gd.d_qn AS qn,
               g.duration_sum AS g_ds, g.queue_sum AS g_qs, g.gpu_time AS g_gt, g.gpu_time_published AS g_gp,
               g.duration_max AS g_dm, g.first_submit AS g_f, g.last_submit AS g_l,
               coalesce((g.cluster IS NULL AND gd.r_jobs IS NOT NULL)
               OR (gd.r_dm >= g.duration_max AND NOT coalesce(gd.a_dm >= g.duration_max, false))
               OR (gd.r_f <= g.first_submit AND NOT coalesce(gd.a_f <= g.first_submit, false))
               OR (gd.r_l >= g.last_submit AND NOT coalesce(gd.a_l >= g.last_submit, false))
               OR (scale(gd.r_ds) >= scale(g.duration_sum) AND NOT coalesce(scale(gd.a_ds) >= scale(g.duration_sum), false))
               OR (scale(gd.r_qs) >= scale(g.queue_sum) AND NOT coalesce(scale(gd.a_qs) >= scale(g.queue_sum), false))
               OR (scale(gd.r_gt) >= scale(g.gpu_time) AND NOT coalesce(scale(gd.a_gt) >= scale(g.gpu_time), false))
               OR (scale(gd.r_gp) >= scale(g.gpu_time_published)
                   AND NOT coalesce(scale(gd.a_gp) >= scale(g.gpu_time_published), false))
               OR (gd.r_gp IS NOT NULL AND gd.a_gp IS NULL
                   AND NOT (coalesce(g.duration_n, 0) + gd.d_dn > 0 AND gd.gpu_num IS NOT NULL)), false) AS unsure
          FROM gd
          LEFT JOIN acmetrace.summary_groups g
            ON g.cluster = cl AND g.type IS NOT DISTINCT FROM gd.type AND g.final_state = gd.final_state
           AND coalesce(g.gpu_num, -1) = coalesce(gd.gpu_num, -1)),
    gn AS (
        SELECT gc.rid, cl AS cluster, gc.type, gc.final_state, gc.gpu_num, gc.jobs, gc.dn AS duration_n,
               CASE WHEN gc.dn > 0 THEN coalesce(gc.g_ds, 0) - coalesce(gc.r_ds, 0) + coalesce(gc.a_ds, 0) END AS duration_sum,
               CASE WHEN gc.dn > 0 THEN greatest(gc.g_dm, gc.a_dm) END AS duration_max,
               gc.qn AS queue_n,
               CASE WHEN gc.qn > 0 THEN coalesce(gc.g_qs, 0) - coalesce(gc.r_qs, 0) + coalesce(gc.a_qs, 0) END AS queue_sum,
               CASE WHEN gc.dn > 0 AND gc.gpu_num IS NOT NULL
                    THEN coalesce(gc.g_gt, 0) - coalesce(gc.r_gt, 0) + coalesce(gc.a_gt, 0) END AS gpu_time,
               CASE WHEN gc.g_gp IS NOT NULL OR gc.a_gp IS NOT NULL
                    THEN coalesce(gc.g_gp, 0) - coalesce(gc.r_gp, 0) + coalesce(gc.a_gp, 0) END AS gpu_time_published,
               least(gc.g_f, gc.a_f) AS first_submit, greatest(gc.g_l, gc.a_l) AS last_submit
          FROM gc WHERE NOT gc.unsure AND gc.jobs > 0),
    -- the weeks, as the groups
    wd AS (
        SELECT x.end_week, x.type, x.final_state, x.gpu_num, coalesce(sum(x.sgn * x.jobs), 0) AS d_jobs,
               sum(x.gpu_time) FILTER (WHERE x.sgn < 0) AS r_gt, sum(x.gpu_time) FILTER (WHERE x.sgn > 0) AS a_gt,
               bool_or(x.sgn < 0) AS removed
          FROM x GROUP BY x.end_week, x.type, x.final_state, x.gpu_num),
    wc AS MATERIALIZED (
        SELECT wd.*, w.ctid AS rid, coalesce(w.jobs, 0) + wd.d_jobs AS jobs,
               CASE WHEN w.gpu_time IS NOT NULL OR wd.a_gt IS NOT NULL
                    THEN coalesce(w.gpu_time, 0) - coalesce(wd.r_gt, 0) + coalesce(wd.a_gt, 0) END AS gpu_time,
               coalesce((w.cluster IS NULL AND wd.removed)
               OR (wd.r_gt IS NOT NULL AND wd.a_gt IS NULL)
               OR (scale(wd.r_gt) >= scale(w.gpu_time) AND NOT coalesce(scale(wd.a_gt) >= scale(w.gpu_time), false)), false) AS unsure
          FROM wd
          LEFT JOIN acmetrace.summary_weeks w
            ON w.cluster = cl AND coalesce(w.end_week, 'infinity') = coalesce(wd.end_week, 'infinity')
           AND w.type IS NOT DISTINCT FROM wd.type AND w.final_state = wd.final_state
           AND coalesce(w.gpu_num, -1) = coalesce(wd.gpu_num, -1)),
    -- read only when some group or week needs it
    regroup AS (
        SELECT rest.* FROM rest
         WHERE EXISTS (SELECT 1 FROM gc WHERE gc.unsure) OR EXISTS (SELECT 1 FROM wc WHERE wc.unsure)),
    gu AS (
        UPDATE acmetrace.summary_groups g
           SET jobs = gn.jobs, duration_n = gn.duration_n, duration_sum = gn.duration_sum, duration_max = gn.duration_max,
               queue_n = gn.queue_n, queue_sum = gn.queue_sum, gpu_time = gn.gpu_time,
               gpu_time_published = gn.gpu_time_published, first_submit = gn.first_submit, last_submit = gn.last_submit
          FROM gn WHERE g.cluster = cl AND g.ctid = gn.rid),
    gx AS (
        DELETE FROM acmetrace.summary_groups g USING gc
         WHERE g.cluster = cl AND g.ctid = gc.rid AND (gc.unsure OR gc.jobs = 0)),
    gi AS (
        INSERT INTO acmetrace.summary_groups
        SELECT gn.cluster, gn.type, gn.final_state, gn.gpu_num, gn.jobs, gn.duration_n, gn.duration_sum, gn.duration_max,
               gn.queue_n, gn.queue_sum, gn.gpu_time, gn.gpu_time_published, gn.first_submit, gn.last_submit
          FROM gn WHERE gn.rid IS NULL
        UNION ALL
        SELECT cl, s.type, s.final_state, s.gpu_num, sum(s.jobs), sum(s.duration_n), sum(s.duration_sum), max(s.duration_max),
               sum(s.queue_n), sum(s.queue_sum), sum(s.gpu_time), sum(s.gpu_time_published), min(s.first_submit),
               max(s.last_submit)
          FROM regroup s
         WHERE EXISTS (SELECT 1 FROM gc WHERE gc.unsure AND gc.type IS NOT DISTINCT FROM s.type
                          AND gc.final_state = s.final_state AND gc.gpu_num IS NOT DISTINCT FROM s.gpu_num)
         GROUP BY s.type, s.final_state, s.gpu_num),
    wu AS (
        UPDATE acmetrace.summary_weeks w SET jobs = wc.jobs, gpu_time = wc.gpu_time
          FROM wc WHERE w.cluster = cl AND w.ctid = wc.rid AND NOT wc.unsure AND wc.jobs > 0),
    wx AS (
        DELETE FROM acmetrace.summary_weeks w USING wc
         WHERE w.cluster = cl AND w.ctid = wc.rid AND (wc.unsure OR wc.jobs = 0))
    INSERT INTO acmetrace.summary_weeks
    SELECT cl, wc.end_week, wc.type, wc.final_state, wc.gpu_num, wc.jobs, wc.gpu_time
      FROM wc WHERE wc.rid IS NULL AND NOT wc.unsure AND wc.jobs > 0
    UNION ALL
    SELECT cl, s.end_week, s.type, s.final_state, s.gpu_num, sum(s.jobs), sum(s.gpu_time)
      FROM regroup s
     WHERE EXISTS (SELECT 1 FROM wc WHERE wc.unsure AND wc.end_week IS NOT DISTINCT FROM s.end_week
                      AND wc.type IS NOT DISTINCT FROM s.type AND wc.final_state = s.final_state
                      AND wc.gpu_num IS NOT DISTINCT FROM s.gpu_num)
     GROUP BY s.end_week, s.type, s.final_state, s.gpu_num;

    UPDATE acmetrace.summary_clusters s
       SET jobs = s.jobs - cardinality(old_rows) + cardinality(new_rows), peak_allocated = newpeak,
           built_at = pg_catalog.statement_timestamp()
     WHERE s.cluster = cl;
    PERFORM acmetrace_internal.delta_taken('delta');
END
$$;
COMMENT ON FUNCTION acmetrace_internal.summarize_delta(text, acmetrace.jobs[], acmetrace.jobs[]) IS
  'Applies a change of jobs (old_rows: as they were, new_rows: as they are now) to cluster cl''s summaries, touching only the rows they change; afterwards the summaries equal what summarize(cl) builds. Rebuilds with summarize(cl) when it cannot be incremental.';

-- The loaders name the cluster they change, so the trigger rebuilds that
-- one only.  Transaction-local: an error or a rollback forgets it.
CREATE FUNCTION acmetrace_internal.changing(cl text)
RETURNS void
LANGUAGE sql
AS $$ SELECT pg_catalog.set_config('acmetrace_internal.changing', coalesce(cl, ''), true) $$;
COMMENT ON FUNCTION acmetrace_internal.changing(text) IS
  'Tells the next statement trigger on acmetrace.jobs which one cluster a loader changes (NULL: unknown, rebuild every cluster).';

-- Whether n changed jobs of cl are better rebuilt than applied (as
-- summarize_delta decides, before the trigger copies them into arrays).
CREATE FUNCTION acmetrace_internal.many_changes(cl text, n bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
BEGIN
    RETURN (
SELECT 4 * 2 * n > coalesce((SELECT s.jobs FROM acmetrace.summary_clusters s WHERE s.cluster = cl), 0)
    );
END
$$;
COMMENT ON FUNCTION acmetrace_internal.many_changes(text, bigint) IS
  'Whether an UPDATE or DELETE of n jobs of cluster cl rebuilds its summaries rather than applying the change (over an eighth of its jobs).';

CREATE FUNCTION acmetrace_internal.jobs_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    cl text := nullif(pg_catalog.current_setting('acmetrace_internal.changing', true), '');
BEGIN
    IF cl IS NOT NULL AND TG_OP <> 'TRUNCATE' THEN
        PERFORM acmetrace_internal.changing(NULL);
        IF NOT coalesce(acmetrace_internal.by_caller(cl), false) THEN
            PERFORM acmetrace_internal.summarize(cl);
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        -- a few jobs of a cluster: what they change (summarize_delta, which
        -- rebuilds when it cannot); many: a rebuild
        FOR cl IN SELECT o.cluster FROM old_jobs o UNION SELECT n.cluster FROM new_jobs n LOOP
            CONTINUE WHEN coalesce(acmetrace_internal.by_caller(cl), false);
            IF acmetrace_internal.many_changes(cl, (SELECT count(*) FROM old_jobs o WHERE o.cluster = cl)) THEN
                PERFORM acmetrace_internal.summarize(cl);
                PERFORM acmetrace_internal.delta_taken('rebuild: many changes');
            ELSE
                PERFORM acmetrace_internal.summarize_delta(cl,
                    ARRAY(SELECT o::acmetrace.jobs FROM old_jobs o WHERE o.cluster = cl),
                    ARRAY(SELECT j::acmetrace.jobs FROM new_jobs j WHERE j.cluster = cl));
            END IF;
        END LOOP;
    ELSIF TG_OP = 'DELETE' THEN
        FOR cl IN SELECT DISTINCT o.cluster FROM old_jobs o LOOP
            CONTINUE WHEN coalesce(acmetrace_internal.by_caller(cl), false);
            IF acmetrace_internal.many_changes(cl, (SELECT count(*) FROM old_jobs o WHERE o.cluster = cl)) THEN
                PERFORM acmetrace_internal.summarize(cl);
                PERFORM acmetrace_internal.delta_taken('rebuild: many changes');
            ELSE
                PERFORM acmetrace_internal.summarize_delta(cl,
                    ARRAY(SELECT o::acmetrace.jobs FROM old_jobs o WHERE o.cluster = cl), '{}');
            END IF;
        END LOOP;
    ELSIF TG_OP = 'INSERT' AND nullif(pg_catalog.current_setting('acmetrace_internal.by_caller', true), '') IS NOT NULL THEN
        -- a caller holds clusters (the Slurm loader's upsert): its rows,
        -- whose summaries it keeps
        NULL;
    ELSE
        -- a direct INSERT (the loaders' path keeps no copy of the rows, so
        -- which clusters it touched is unknown) or TRUNCATE
        PERFORM acmetrace_internal.summarize_all();
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.jobs_changed() IS
  'Statement triggers on acmetrace.jobs: rebuild the summaries of the cluster a loader named; apply an UPDATE or DELETE of a few jobs of a cluster (summarize_delta), rebuild the clusters it changed many jobs of; rebuild every cluster after a direct INSERT or TRUNCATE; leave the clusters summaries_by_caller named to the caller, and an INSERT while a caller holds some (its rows).';

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
-- The summaries carry the same cluster policy as the jobs (trace/access.sql):
-- only another policy on the jobs shows a reader part of a cluster.
CREATE FUNCTION acmetrace_internal.jobs_narrowed()
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT pg_catalog.row_security_active('acmetrace.jobs')
   AND EXISTS (SELECT 1 FROM pg_catalog.pg_policy p
                WHERE p.polrelid = 'acmetrace.jobs'::pg_catalog.regclass AND p.polname NOT IN ('cluster_access', 'every_row'))
$$;
COMMENT ON FUNCTION acmetrace_internal.jobs_narrowed() IS
  'True when row-level security shows the current role only some of a cluster''s jobs: a policy on acmetrace.jobs other than the cluster grants applies. The summaries then do not answer for it.';

CREATE FUNCTION acmetrace_internal.summarized(cluster text, occupancy boolean DEFAULT false)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    -- the summaries hold every job of a cluster: a reader who may not read
    -- them, or whom a policy shows only some of a cluster's jobs, gets the scan
    IF NOT acmetrace_internal.use_summaries()
       OR acmetrace_internal.jobs_narrowed()
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
  'Whether the analyses answer for cluster (NULL: every cluster) from the summaries: acmetrace.summaries is on, the reader may read them and sees every job of the clusters it sees (no row-level security policy on acmetrace.jobs but the cluster grants), and each cluster is summarized exactly (with an occupancy, if occupancy).';

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
