-- The jobs' time series for dashboards: acmetrace.v_hourly_allocation,
-- v_daily_jobs and v_daily_queue, read from summary_extents, summary_hours
-- and summary_days (src/install/trace/summaries.sql).  summarize rebuilds
-- them (timeseries_summarize), summarize_delta adds and subtracts the
-- changed jobs' share (timeseries_delta), summarize_all forgets clusters
-- that are gone (timeseries_forget).  A query reads a cluster's hours or
-- days, never its jobs.
--
-- A job holds GPUs (the allocation) when gpu_num > 0, it started, and it
-- did not end at or before its start; one that has not ended holds them
-- until the cluster's last event.  Hours are UTC hours (date_bin from
-- 2000-01-01 UTC, whatever the session's TimeZone); days are the cluster's
-- local days.  Non-finite times count as missing.

-- The cluster's extent, from its jobs (one pass).  PL/pgSQL planned for
-- the cluster at hand: a SQL function's generic plan scanned every
-- cluster's jobs to find a small one's.
CREATE FUNCTION acmetrace_internal.timeseries_extent(cl text)
RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_variable
BEGIN
DELETE FROM acmetrace.summary_extents e WHERE e.cluster = cl;
INSERT INTO acmetrace.summary_extents (cluster, first_event, last_event, first_start)
SELECT cl, min(least(x.s, x.b, x.e)), max(greatest(x.s, x.b, x.e)),
       min(x.b) FILTER (WHERE x.g > 0 AND (x.e IS NULL OR x.e > x.b))
  FROM (SELECT CASE WHEN isfinite(j.submit_time) THEN j.submit_time END AS s,
               CASE WHEN isfinite(j.start_time) THEN j.start_time END AS b,
               CASE WHEN isfinite(j.end_time) THEN j.end_time END AS e,
               j.gpu_num AS g
          FROM acmetrace.jobs j WHERE j.cluster = cl) x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.timeseries_extent(text) IS
  'Rebuilds cluster cl''s row of summary_extents from its jobs.';

-- The cluster's hours, days and extent in one C pass (src/timeseries_scan.c):
-- no rows when a value does not fit its exact sums, and the SQL below runs.
CREATE FUNCTION acmetrace_internal.timeseries_scan(cluster text, zone text, utc_offset_s integer)
RETURNS TABLE (kind text, t1 timestamptz, t2 timestamptz, t3 timestamptz, day date, n1 bigint, n2 bigint,
               n3 bigint, n4 bigint, s1 numeric, s2 numeric, s3 numeric, waits bigint, wait_sum numeric,
               vals double precision[], counts bigint[])
AS 'MODULE_PATHNAME', 'acmetrace_timeseries_scan'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION acmetrace_internal.timeseries_scan(text, text, integer) IS
  'One pass over the cluster''s jobs: its summary_hours rows (kind ''hour'': t1 hour, n1 start_gpus, n2 end_gpus, s1 corr_s), summary_days rows (''day'': day, n1..n4 submitted, completed, failed, cancelled, s1..s3 gpu_s, failed_gpu_s, cancelled_gpu_s, waits, wait_sum, vals, counts; days in zone, else at the fixed utc_offset_s) and summary_extents row (''extent'': t1..t3 first_event, last_event, first_start); no rows when a numeric is not a decimal of at most 18 digits and 9 after the point, or a wait is infinite.';

CREATE FUNCTION acmetrace_internal.timeseries_summarize(cl text, force boolean)
RETURNS void
LANGUAGE plpgsql
SET work_mem = '256MB'
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    tz     text;
    day    text;
    off    integer;
    abbrev boolean;
BEGIN
    DELETE FROM acmetrace.summary_hours s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_days s WHERE s.cluster = cl;
    DELETE FROM acmetrace.summary_extents s WHERE s.cluster = cl;
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    IF NOT FOUND OR NOT (force OR acmetrace_internal.use_summaries()) THEN
        RETURN;
    END IF;
    -- an abbreviation (the loaders accept them) is a fixed offset, as AT TIME ZONE reads it
    SELECT date_part('epoch', z.utc_offset)::integer INTO off
      FROM pg_catalog.pg_timezone_abbrevs z WHERE z.abbrev = tz AND tz <> 'UTC';
    abbrev := FOUND;

    -- the one pass; the extent row comes last and always, unless the pass gave up
    WITH p AS MATERIALIZED (
        SELECT * FROM acmetrace_internal.timeseries_scan(cl, CASE WHEN NOT abbrev THEN tz END, off)),
    h AS (
        INSERT INTO acmetrace.summary_hours (cluster, hour, start_gpus, end_gpus, corr_s)
        SELECT cl, p.t1, p.n1, p.n2, p.s1 FROM p WHERE p.kind = 'hour'
        RETURNING 1),
    d AS (
        INSERT INTO acmetrace.summary_days (cluster, day, submitted, completed, failed, cancelled, gpu_s, failed_gpu_s,
                                            cancelled_gpu_s, waits, wait_sum, wait_vals, wait_counts)
        SELECT cl, p.day, p.n1, p.n2, p.n3, p.n4, p.s1, p.s2, p.s3, p.waits, p.wait_sum, p.vals, p.counts
          FROM p WHERE p.kind = 'day'
        RETURNING 1)
    INSERT INTO acmetrace.summary_extents (cluster, first_event, last_event, first_start)
    SELECT cl, p.t1, p.t2, p.t3 FROM p WHERE p.kind = 'extent';
    IF FOUND THEN
        RETURN;
    END IF;

    -- a value the pass cannot sum exactly: the same in SQL
    PERFORM acmetrace_internal.timeseries_extent(cl);

    INSERT INTO acmetrace.summary_hours (cluster, hour, start_gpus, end_gpus, corr_s)
    SELECT cl, x.h, sum(x.sg), sum(x.eg), sum(x.c)
      FROM (SELECT date_bin('1 hour', j.start_time, '2000-01-01 00:00+00') AS h, j.gpu_num::bigint AS sg, 0::bigint AS eg,
                   j.gpu_num * extract(epoch FROM date_bin('1 hour', j.start_time, '2000-01-01 00:00+00')
                                                  + interval '1 hour' - j.start_time) AS c
              FROM acmetrace.jobs j
             WHERE j.cluster = cl AND j.gpu_num > 0 AND isfinite(j.start_time)
               AND (j.end_time > j.start_time OR j.end_time IS NULL OR NOT isfinite(j.end_time))
            UNION ALL
            SELECT date_bin('1 hour', j.end_time, '2000-01-01 00:00+00'), 0, j.gpu_num,
                   -j.gpu_num * extract(epoch FROM date_bin('1 hour', j.end_time, '2000-01-01 00:00+00')
                                                   + interval '1 hour' - j.end_time)
              FROM acmetrace.jobs j
             WHERE j.cluster = cl AND j.gpu_num > 0 AND isfinite(j.start_time) AND isfinite(j.end_time)
               AND j.end_time > j.start_time) x
     GROUP BY x.h;

    -- a time's local day: through TimeZone (restored when the function
    -- returns), much cheaper per row than AT TIME ZONE, which an
    -- abbreviation (a fixed offset, as the loaders read it) needs
    IF abbrev THEN
        day := format('(j.%%1$s AT TIME ZONE %L)::date', tz);
    ELSE
        PERFORM pg_catalog.set_config('TimeZone', tz, true);
        day := 'j.%1$s::date';
    END IF;
    EXECUTE format($q$
    INSERT INTO acmetrace.summary_days (cluster, day, submitted, completed, failed, cancelled, gpu_s, failed_gpu_s,
                                        cancelled_gpu_s, waits, wait_sum, wait_vals, wait_counts)
    SELECT $1, d.day, coalesce(s.n, 0), coalesce(e.completed, 0), coalesce(e.failed, 0), coalesce(e.cancelled, 0),
           coalesce(e.gpu_s, 0), coalesce(e.failed_gpu_s, 0), coalesce(e.cancelled_gpu_s, 0),
           coalesce(w.n, 0), coalesce(w.total, 0), coalesce(w.vals, '{}'), coalesce(w.counts, '{}')
      FROM (SELECT %1$s AS day, count(*) AS n
              FROM acmetrace.jobs j WHERE j.cluster = $1 AND isfinite(j.submit_time) GROUP BY 1) s
      FULL JOIN
           (SELECT %2$s AS day,
                   count(*) FILTER (WHERE j.final_state = 'COMPLETED') AS completed,
                   count(*) FILTER (WHERE j.final_state = 'FAILED') AS failed,
                   count(*) FILTER (WHERE j.final_state = 'CANCELLED') AS cancelled,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0) AS gpu_s,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'FAILED') AS failed_gpu_s,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'CANCELLED') AS cancelled_gpu_s
              FROM acmetrace.jobs j WHERE j.cluster = $1 AND isfinite(j.end_time) GROUP BY 1) e USING (day)
      FULL JOIN
           (SELECT v.day, sum(v.c)::bigint AS n, sum(v.w::numeric * v.c) AS total,
                   array_agg(v.w ORDER BY v.w) AS vals, array_agg(v.c ORDER BY v.w) AS counts
              FROM (SELECT %3$s AS day, j.wait_s AS w, count(*) AS c
                      FROM acmetrace.jobs j
                     WHERE j.cluster = $1 AND j.gpu_num > 0 AND isfinite(j.start_time) AND isfinite(j.submit_time)
                       AND j.wait_s >= 0
                     GROUP BY 1, 2) v
             GROUP BY v.day) w USING (day)
      CROSS JOIN LATERAL (SELECT coalesce(s.day, e.day, w.day) AS day) d
    $q$, format(day, 'submit_time'), format(day, 'end_time'), format(day, 'start_time')) USING cl;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.timeseries_summarize(text, boolean) IS
  'Rebuilds cluster cl''s rows of summary_extents, summary_hours and summary_days from its jobs (summarize''s part for the time series); deletes them if the cluster is gone, or if acmetrace.summaries is off and not force.';

CREATE FUNCTION acmetrace_internal.timeseries_forget()
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
DELETE FROM acmetrace.summary_extents s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
DELETE FROM acmetrace.summary_hours s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
DELETE FROM acmetrace.summary_days s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.timeseries_forget() IS
  'Deletes the time-series summaries of clusters that are no longer in acmetrace.clusters.';

-- A change of jobs: each hour and day the old and new rows touch gains the
-- new rows' share and loses the old rows' (rows that fall to nothing are
-- deleted).  The extent moves outwards by difference; a change that removes
-- the first or last event (or first start) rereads it from the jobs.
CREATE FUNCTION acmetrace_internal.timeseries_delta(cl text, old_rows acmetrace.jobs[], new_rows acmetrace.jobs[])
RETURNS void
LANGUAGE plpgsql
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    tz   text;
    ext  acmetrace.summary_extents;
    omin timestamptz;
    omax timestamptz;
    ofs  timestamptz;
    nmin timestamptz;
    nmax timestamptz;
    nfs  timestamptz;
BEGIN
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    SELECT * INTO ext FROM acmetrace.summary_extents e WHERE e.cluster = cl;
    -- no rows to change, or a sum the difference cannot undo (NaN, infinite)
    IF tz IS NULL OR ext.cluster IS NULL
       OR EXISTS (SELECT 1 FROM unnest(old_rows || new_rows) x
                   WHERE x.gpu_time IN ('NaN', 'Infinity', '-Infinity') OR x.duration IN ('NaN', 'Infinity', '-Infinity')) THEN
        PERFORM acmetrace_internal.timeseries_summarize(cl, false);
        RETURN;
    END IF;

    -- the hours
    WITH x AS (
        SELECT -1 AS sgn, o.gpu_num, o.start_time, o.end_time FROM unnest(old_rows) o WHERE o.cluster = cl
        UNION ALL
        SELECT 1, n.gpu_num, n.start_time, n.end_time FROM unnest(new_rows) n WHERE n.cluster = cl),
    ev AS (
        SELECT date_bin('1 hour', x.start_time, '2000-01-01 00:00+00') AS h, x.sgn * x.gpu_num::bigint AS sg, 0::bigint AS eg,
               x.sgn * x.gpu_num * extract(epoch FROM date_bin('1 hour', x.start_time, '2000-01-01 00:00+00')
                                                      + interval '1 hour' - x.start_time) AS c
          FROM x
         WHERE x.gpu_num > 0 AND isfinite(x.start_time)
           AND (x.end_time > x.start_time OR x.end_time IS NULL OR NOT isfinite(x.end_time))
        UNION ALL
        SELECT date_bin('1 hour', x.end_time, '2000-01-01 00:00+00'), 0, x.sgn * x.gpu_num::bigint,
               -x.sgn * x.gpu_num * extract(epoch FROM date_bin('1 hour', x.end_time, '2000-01-01 00:00+00')
                                                       + interval '1 hour' - x.end_time)
          FROM x
         WHERE x.gpu_num > 0 AND isfinite(x.start_time) AND isfinite(x.end_time) AND x.end_time > x.start_time),
    g AS (SELECT ev.h, sum(ev.sg) AS sg, sum(ev.eg) AS eg, sum(ev.c) AS c FROM ev GROUP BY ev.h),
    m AS MATERIALIZED (
        SELECT g.h, s.hour IS NOT NULL AS present,
               coalesce(s.start_gpus, 0) + g.sg AS sg, coalesce(s.end_gpus, 0) + g.eg AS eg,
               coalesce(s.corr_s, 0) + g.c AS c
          FROM g LEFT JOIN acmetrace.summary_hours s ON s.cluster = cl AND s.hour = g.h),
    u AS (
        UPDATE acmetrace.summary_hours s SET start_gpus = m.sg, end_gpus = m.eg, corr_s = m.c
          FROM m WHERE s.cluster = cl AND s.hour = m.h AND m.present AND (m.sg <> 0 OR m.eg <> 0 OR m.c <> 0)),
    d AS (
        DELETE FROM acmetrace.summary_hours s USING m
         WHERE s.cluster = cl AND s.hour = m.h AND m.present AND m.sg = 0 AND m.eg = 0 AND m.c = 0)
    INSERT INTO acmetrace.summary_hours (cluster, hour, start_gpus, end_gpus, corr_s)
    SELECT cl, m.h, m.sg, m.eg, m.c FROM m WHERE NOT m.present AND (m.sg <> 0 OR m.eg <> 0 OR m.c <> 0);

    -- the days
    WITH x AS (
        SELECT -1 AS sgn, o.* FROM unnest(old_rows) o WHERE o.cluster = cl
        UNION ALL
        SELECT 1, n.* FROM unnest(new_rows) n WHERE n.cluster = cl),
    ev AS (
        SELECT (x.submit_time AT TIME ZONE tz)::date AS day, x.sgn AS sub, 0 AS comp, 0 AS fail, 0 AS canc,
               0::numeric AS gs, 0::numeric AS fgs, 0::numeric AS cgs, NULL::float8 AS w, 0 AS wn
          FROM x WHERE isfinite(x.submit_time)
        UNION ALL
        SELECT (x.end_time AT TIME ZONE tz)::date, 0,
               CASE WHEN x.final_state = 'COMPLETED' THEN x.sgn ELSE 0 END,
               CASE WHEN x.final_state = 'FAILED' THEN x.sgn ELSE 0 END,
               CASE WHEN x.final_state = 'CANCELLED' THEN x.sgn ELSE 0 END,
               CASE WHEN x.gpu_num > 0 THEN x.sgn * coalesce(x.gpu_time, x.duration * x.gpu_num, 0) ELSE 0 END,
               CASE WHEN x.gpu_num > 0 AND x.final_state = 'FAILED'
                    THEN x.sgn * coalesce(x.gpu_time, x.duration * x.gpu_num, 0) ELSE 0 END,
               CASE WHEN x.gpu_num > 0 AND x.final_state = 'CANCELLED'
                    THEN x.sgn * coalesce(x.gpu_time, x.duration * x.gpu_num, 0) ELSE 0 END,
               NULL, 0
          FROM x WHERE isfinite(x.end_time)
        UNION ALL
        SELECT (x.start_time AT TIME ZONE tz)::date, 0, 0, 0, 0, 0, 0, 0, x.wait_s, x.sgn
          FROM x
         WHERE x.gpu_num > 0 AND isfinite(x.start_time) AND isfinite(x.submit_time) AND x.wait_s >= 0),
    g AS (
        SELECT ev.day, sum(ev.sub) AS sub, sum(ev.comp) AS comp, sum(ev.fail) AS fail, sum(ev.canc) AS canc,
               sum(ev.gs) AS gs, sum(ev.fgs) AS fgs, sum(ev.cgs) AS cgs, sum(ev.wn) AS wn,
               coalesce(sum(ev.w::numeric * ev.wn), 0) AS ws,
               array_agg(ev.w) FILTER (WHERE ev.wn <> 0) AS dv, array_agg(ev.wn::bigint) FILTER (WHERE ev.wn <> 0) AS dn
          FROM ev GROUP BY ev.day),
    m AS MATERIALIZED (
        SELECT g.day, s.day IS NOT NULL AS present,
               coalesce(s.submitted, 0) + g.sub AS sub, coalesce(s.completed, 0) + g.comp AS comp,
               coalesce(s.failed, 0) + g.fail AS fail, coalesce(s.cancelled, 0) + g.canc AS canc,
               coalesce(s.gpu_s, 0) + g.gs AS gs, coalesce(s.failed_gpu_s, 0) + g.fgs AS fgs,
               coalesce(s.cancelled_gpu_s, 0) + g.cgs AS cgs,
               coalesce(s.waits, 0) + g.wn AS wn, coalesce(s.wait_sum, 0) + g.ws AS ws,
               v.merged_vals AS vals, v.merged_counts AS counts
          FROM g
          LEFT JOIN acmetrace.summary_days s ON s.cluster = cl AND s.day = g.day,
          LATERAL acmetrace_internal.vc_merge(coalesce(s.wait_vals, '{}'), coalesce(s.wait_counts, '{}'), g.dv, g.dn) v),
    z AS (
        SELECT m.*, m.sub = 0 AND m.comp = 0 AND m.fail = 0 AND m.canc = 0 AND m.gs = 0 AND m.fgs = 0 AND m.cgs = 0
                    AND m.wn = 0 AS empty
          FROM m),
    u AS (
        UPDATE acmetrace.summary_days s
           SET submitted = z.sub, completed = z.comp, failed = z.fail, cancelled = z.canc, gpu_s = z.gs,
               failed_gpu_s = z.fgs, cancelled_gpu_s = z.cgs, waits = z.wn, wait_sum = z.ws,
               wait_vals = coalesce(z.vals, '{}'), wait_counts = coalesce(z.counts, '{}')
          FROM z WHERE s.cluster = cl AND s.day = z.day AND z.present AND NOT z.empty),
    d AS (
        DELETE FROM acmetrace.summary_days s USING z
         WHERE s.cluster = cl AND s.day = z.day AND z.present AND z.empty)
    INSERT INTO acmetrace.summary_days (cluster, day, submitted, completed, failed, cancelled, gpu_s, failed_gpu_s,
                                        cancelled_gpu_s, waits, wait_sum, wait_vals, wait_counts)
    SELECT cl, z.day, z.sub, z.comp, z.fail, z.canc, z.gs, z.fgs, z.cgs, z.wn, z.ws,
           coalesce(z.vals, '{}'), coalesce(z.counts, '{}')
      FROM z WHERE NOT z.present AND NOT z.empty;

    -- the extent
    SELECT min(least(x.s, x.b, x.e)) FILTER (WHERE x.sgn < 0), max(greatest(x.s, x.b, x.e)) FILTER (WHERE x.sgn < 0),
           min(x.b) FILTER (WHERE x.sgn < 0 AND x.g > 0 AND (x.e IS NULL OR x.e > x.b)),
           min(least(x.s, x.b, x.e)) FILTER (WHERE x.sgn > 0), max(greatest(x.s, x.b, x.e)) FILTER (WHERE x.sgn > 0),
           min(x.b) FILTER (WHERE x.sgn > 0 AND x.g > 0 AND (x.e IS NULL OR x.e > x.b))
      INTO omin, omax, ofs, nmin, nmax, nfs
      FROM (SELECT y.sgn, y.g,
                   CASE WHEN isfinite(y.submit_time) THEN y.submit_time END AS s,
                   CASE WHEN isfinite(y.start_time) THEN y.start_time END AS b,
                   CASE WHEN isfinite(y.end_time) THEN y.end_time END AS e
              FROM (SELECT -1 AS sgn, o.gpu_num AS g, o.submit_time, o.start_time, o.end_time
                      FROM unnest(old_rows) o WHERE o.cluster = cl
                    UNION ALL
                    SELECT 1, n.gpu_num, n.submit_time, n.start_time, n.end_time
                      FROM unnest(new_rows) n WHERE n.cluster = cl) y) x;
    IF (omin <= ext.first_event AND NOT coalesce(nmin <= ext.first_event, false))
       OR (omax >= ext.last_event AND NOT coalesce(nmax >= ext.last_event, false))
       OR (ofs <= ext.first_start AND NOT coalesce(nfs <= ext.first_start, false)) THEN
        PERFORM acmetrace_internal.timeseries_extent(cl);
    ELSE
        UPDATE acmetrace.summary_extents e
           SET first_event = least(e.first_event, nmin), last_event = greatest(e.last_event, nmax),
               first_start = least(e.first_start, nfs)
         WHERE e.cluster = cl;
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.timeseries_delta(text, acmetrace.jobs[], acmetrace.jobs[]) IS
  'summarize_delta''s part for the time series: applies a change of jobs (old_rows as they were, new_rows as they are) to the hours and days they touch in summary_hours and summary_days, and to summary_extents (reread from the jobs when the change removes the first or last event or the first start).';

-- ---- The views ----

CREATE VIEW acmetrace.v_hourly_allocation WITH (security_invoker = true) AS
SELECT a.cluster, a.bucket,
       round(a.held_s / 3600, 2) AS allocated_gpus,
       a.capacity_gpus,
       acmetrace_internal.pct(a.held_s, 3600 * a.capacity_gpus) AS allocation_pct,
       a.partial
  FROM (SELECT e.cluster, g.bucket,
               -- held GPU-seconds: 3600 x the GPUs held at the hour's start
               -- (starts - ends of the hours before) + the hour's own
               -- corrections, less what jobs still running would hold
               -- after the last event
               3600 * (coalesce(sum(h.start_gpus - h.end_gpus) OVER w, 0) - coalesce(h.start_gpus - h.end_gpus, 0))
               + coalesce(h.corr_s, 0)
               - CASE WHEN g.bucket + interval '1 hour' > e.last_event
                      THEN coalesce(sum(h.start_gpus - h.end_gpus) OVER p, 0)
                           * extract(epoch FROM g.bucket + interval '1 hour' - e.last_event)
                      ELSE 0 END AS held_s,
               coalesce(c.gpu_capacity, sc.occupancy_capacity) AS capacity_gpus,
               coalesce(g.bucket < e.first_start, true) OR g.bucket + interval '1 hour' > e.last_event AS partial
          FROM acmetrace.summary_extents e
          JOIN acmetrace.clusters c ON c.cluster = e.cluster
          LEFT JOIN acmetrace.summary_clusters sc ON sc.cluster = e.cluster
          CROSS JOIN LATERAL generate_series(date_bin('1 hour', e.first_event, '2000-01-01 00:00+00'), e.last_event,
                                             interval '1 hour') g(bucket)
          LEFT JOIN acmetrace.summary_hours h ON h.cluster = e.cluster AND h.hour = g.bucket
        WINDOW w AS (PARTITION BY e.cluster ORDER BY g.bucket ROWS UNBOUNDED PRECEDING),
               p AS (PARTITION BY e.cluster)) a
 WHERE NOT acmetrace_internal.jobs_narrowed();
COMMENT ON VIEW acmetrace.v_hourly_allocation IS
  'GPUs allocated per cluster and UTC hour, from the first event to the last of the trace: the mean over the hour of the GPUs held by started GPU jobs (gpu_num > 0, not ended at or before their start; a job still running holds them until the last event), against capacity. Read from the summaries (summary_hours), not the jobs; no rows for a reader whom a row-level security policy on acmetrace.jobs other than the cluster grants (acmetrace.cluster_access) shows only some jobs.';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.cluster IS 'Cluster name (acmetrace.clusters.cluster)';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.bucket IS 'Start of the hour (UTC hours)';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.allocated_gpus IS 'Mean GPUs held over the hour (GPU-seconds held / 3600, 2 decimals)';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.capacity_gpus IS 'acmetrace.clusters.gpu_capacity, else the most GPUs ever held at once (summary_clusters.occupancy_capacity); NULL when a job ends before it starts or holds a negative GPU count';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.allocation_pct IS '100 x allocated_gpus / capacity_gpus (2 decimals)';
COMMENT ON COLUMN acmetrace.v_hourly_allocation.partial IS 'The hour starts before the first start of a GPU job or ends after the last event: the trace covers it only partly';

CREATE VIEW acmetrace.v_daily_jobs WITH (security_invoker = true) AS
SELECT e.cluster, d.bucket,
       coalesce(s.submitted, 0) AS submitted, coalesce(s.completed, 0) AS completed,
       coalesce(s.failed, 0) AS failed, coalesce(s.cancelled, 0) AS cancelled,
       round(coalesce(s.gpu_s, 0) / 3600, 2) AS gpu_h,
       round(coalesce(s.failed_gpu_s, 0) / 3600, 2) AS failed_gpu_h,
       round(coalesce(s.cancelled_gpu_s, 0) / 3600, 2) AS cancelled_gpu_h,
       round(coalesce(s.failed_gpu_s + s.cancelled_gpu_s, 0) / 3600, 2) AS lost_gpu_h,
       d.bucket < e.first_event OR d.next > e.last_event AS partial
  FROM acmetrace.summary_extents e
  JOIN acmetrace.clusters c ON c.cluster = e.cluster
  CROSS JOIN LATERAL (
        SELECT g.day::date AS day, g.day AT TIME ZONE c.time_zone AS bucket,
               (g.day + interval '1 day') AT TIME ZONE c.time_zone AS next
          FROM generate_series((e.first_event AT TIME ZONE c.time_zone)::date::timestamp,
                               (e.last_event AT TIME ZONE c.time_zone)::date::timestamp, interval '1 day') g(day)) d
  LEFT JOIN acmetrace.summary_days s ON s.cluster = e.cluster AND s.day = d.day
 WHERE NOT acmetrace_internal.jobs_narrowed();
COMMENT ON VIEW acmetrace.v_daily_jobs IS
  'Jobs per cluster and local day (the cluster''s time zone), from the first event to the last: all jobs submitted; jobs that ended COMPLETED, FAILED (TIMEOUT and NODE_FAIL included) or CANCELLED; GPU-hours of GPU jobs (gpu_num > 0) that ended that day, GPU time as state_breakdown counts it (published gpu_time, else duration x gpu_num), all and failed, cancelled and lost (both). Read from the summaries (summary_days), not the jobs; no rows for a reader whom a row-level security policy on acmetrace.jobs other than the cluster grants (acmetrace.cluster_access) shows only some jobs.';
COMMENT ON COLUMN acmetrace.v_daily_jobs.cluster IS 'Cluster name (acmetrace.clusters.cluster)';
COMMENT ON COLUMN acmetrace.v_daily_jobs.bucket IS 'Start of the day: local midnight in the cluster''s time zone';
COMMENT ON COLUMN acmetrace.v_daily_jobs.submitted IS 'Jobs (CPU and GPU) submitted that day';
COMMENT ON COLUMN acmetrace.v_daily_jobs.completed IS 'Jobs (CPU and GPU) that ended that day COMPLETED';
COMMENT ON COLUMN acmetrace.v_daily_jobs.failed IS 'Jobs (CPU and GPU) that ended that day FAILED, TIMEOUT or NODE_FAIL';
COMMENT ON COLUMN acmetrace.v_daily_jobs.cancelled IS 'Jobs (CPU and GPU) that ended that day CANCELLED';
COMMENT ON COLUMN acmetrace.v_daily_jobs.gpu_h IS 'GPU-hours of GPU jobs that ended that day (published gpu_time, else duration x gpu_num; 2 decimals)';
COMMENT ON COLUMN acmetrace.v_daily_jobs.failed_gpu_h IS 'GPU-hours of failed GPU jobs that ended that day (2 decimals)';
COMMENT ON COLUMN acmetrace.v_daily_jobs.cancelled_gpu_h IS 'GPU-hours of cancelled GPU jobs that ended that day (2 decimals)';
COMMENT ON COLUMN acmetrace.v_daily_jobs.lost_gpu_h IS 'GPU-hours of failed and cancelled GPU jobs that ended that day (their exact sum, 2 decimals)';
COMMENT ON COLUMN acmetrace.v_daily_jobs.partial IS 'The day starts before the first event or ends after the last: the trace covers it only partly';

CREATE VIEW acmetrace.v_daily_queue WITH (security_invoker = true) AS
SELECT q.cluster, q.bucket, q.jobs,
       acmetrace_internal.sig3(q.p[1]) AS p50_s, acmetrace_internal.sig3(q.p[2]) AS p90_s,
       acmetrace_internal.sig3(q.p[3]) AS p99_s,
       acmetrace_internal.sig3((q.wait_sum / nullif(q.jobs, 0))::float8) AS mean_s,
       q.partial
  FROM (SELECT e.cluster, d.bucket, coalesce(s.waits, 0) AS jobs, s.wait_sum,
               acmetrace_internal.vc_percentiles(s.wait_vals, s.wait_counts, '{0.5,0.9,0.99}') AS p,
               d.bucket < e.first_event OR d.next > e.last_event AS partial
          FROM acmetrace.summary_extents e
          JOIN acmetrace.clusters c ON c.cluster = e.cluster
          CROSS JOIN LATERAL (
                SELECT g.day::date AS day, g.day AT TIME ZONE c.time_zone AS bucket,
                       (g.day + interval '1 day') AT TIME ZONE c.time_zone AS next
                  FROM generate_series((e.first_event AT TIME ZONE c.time_zone)::date::timestamp,
                                       (e.last_event AT TIME ZONE c.time_zone)::date::timestamp, interval '1 day') g(day)) d
          LEFT JOIN acmetrace.summary_days s ON s.cluster = e.cluster AND s.day = d.day
         WHERE NOT acmetrace_internal.jobs_narrowed()) q;
COMMENT ON VIEW acmetrace.v_daily_queue IS
  'Queueing delay (start - submit) of the GPU jobs (gpu_num > 0) that started each local day (the cluster''s time zone), at or after their submission: exact percentiles (percentile_cont over every wait) and mean. Read from the summaries'' exact value counts (summary_days), not the jobs; no rows for a reader whom a row-level security policy on acmetrace.jobs other than the cluster grants (acmetrace.cluster_access) shows only some jobs.';
COMMENT ON COLUMN acmetrace.v_daily_queue.cluster IS 'Cluster name (acmetrace.clusters.cluster)';
COMMENT ON COLUMN acmetrace.v_daily_queue.bucket IS 'Start of the day: local midnight in the cluster''s time zone';
COMMENT ON COLUMN acmetrace.v_daily_queue.jobs IS 'GPU jobs that started that day at or after their submission';
COMMENT ON COLUMN acmetrace.v_daily_queue.p50_s IS 'Median wait, seconds (exact, 3 significant digits); NULL without jobs';
COMMENT ON COLUMN acmetrace.v_daily_queue.p90_s IS '90th percentile of the wait, seconds (exact, 3 significant digits)';
COMMENT ON COLUMN acmetrace.v_daily_queue.p99_s IS '99th percentile of the wait, seconds (exact, 3 significant digits)';
COMMENT ON COLUMN acmetrace.v_daily_queue.mean_s IS 'Mean wait, seconds (3 significant digits)';
COMMENT ON COLUMN acmetrace.v_daily_queue.partial IS 'The day starts before the first event or ends after the last: the trace covers it only partly';
