-- acmetrace.usage_by_user, acmetrace.usage_by_group: who used and who lost
-- GPU time in a window.
--
-- A job counts in [since, until) by its end_time (NULL: unbounded); a job
-- without end_time (running, pending) has not ended and is in no window.
-- GPU time is the published gpu_time, else duration x gpu_num, of GPU jobs
-- (gpu_num > 0); lost is that of FAILED (TIMEOUT, NODE_FAIL) plus
-- CANCELLED jobs; waits are start - submit of those GPU jobs (jobs that never
-- started or started before their submission left out).  capacity_pct
-- divides GPU time by the capacity (clusters.gpu_capacity, else the most GPUs
-- started GPU jobs held at once) over the window clipped to the trace: from
-- the first submission to the last end of the cluster's ended jobs.
-- One row per user (group; NULL is a row of its own) with a job in the
-- window, and a total row per cluster ('all') even for an empty window.
-- The summary path (summary_usage, days of end) answers windows that start
-- and end on the cluster's local midnights (or are unbounded); by account or
-- partition (acmetrace.slurm_jobs) always scans.

-- The choices of usage_by_group's `by`.
CREATE FUNCTION acmetrace_internal.usage_check_by(by text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE WHEN by IN ('vc', 'account', 'partition') THEN true
            ELSE acmetrace_internal.raise('22023', format('unknown group %s', coalesce(quote_literal(by), 'NULL')),
                     'by is one of ''vc'' (Helios virtual cluster), ''account'', ''partition'' (Slurm, acmetrace.slurm_jobs).') END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_check_by(text) IS
  'True when by is vc, account or partition; otherwise ERROR 22023 listing them.';

-- GPU time t (GPU-seconds) as a percent of cap GPUs over [since, until)
-- clipped to the trace [first_submit, last_end]; NULL with no trace, no
-- capacity or an empty window.
CREATE FUNCTION acmetrace_internal.usage_capacity_pct(t numeric, cap bigint, since timestamptz, until timestamptz,
                                                      first_submit timestamptz, last_end timestamptz)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE WHEN first_submit IS NOT NULL AND last_end IS NOT NULL
             AND least(until, last_end) > greatest(since, first_submit)
            THEN acmetrace_internal.pct(t, cap * extract(epoch FROM least(until, last_end) - greatest(since, first_submit))) END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_capacity_pct(numeric, bigint, timestamptz, timestamptz, timestamptz, timestamptz) IS
  'GPU-seconds t as a percent of cap GPUs over [since, until) clipped to [first_submit, last_end] (NULL bounds: the trace''s); NULL when there is no such window or no capacity.';

-- One cluster's summary_usage rows for the given end days (NULL: all), from its jobs.
CREATE FUNCTION acmetrace_internal.usage_rows(cl text, tz text, days date[])
RETURNS SETOF acmetrace.summary_usage
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT cl, x.d, x.user_id, x.vc, x.n, x.gn, x.t, x.f, x.c, x.wn, x.ws,
           m.merged_vals, m.merged_counts, x.fs, x.le
      FROM (SELECT j.d, j.user_id, j.vc, count(*) AS n, count(*) FILTER (WHERE j.gpu_num > 0) AS gn,
                   sum(j.t) AS t, sum(j.t) FILTER (WHERE j.final_state = 'FAILED') AS f,
                   sum(j.t) FILTER (WHERE j.final_state = 'CANCELLED') AS c,
                   count(j.w) AS wn, sum(j.wi) AS ws,
                   -- the value counts, built in C (an infinite wait, which
                   -- makes the cluster inexact, so unread, is left out)
                   array_agg(j.w) FILTER (WHERE j.w < 'Infinity') AS wv,
                   array_agg(1::bigint) FILTER (WHERE j.w < 'Infinity') AS wc,
                   min(j.submit_time) AS fs, max(j.end_time) AS le
              FROM (SELECT (j.end_time AT TIME ZONE tz)::date AS d, j.user_id, j.vc, j.gpu_num, j.final_state,
                           j.submit_time, j.end_time,
                           CASE WHEN j.gpu_num > 0 THEN coalesce(j.gpu_time, j.duration * j.gpu_num) END AS t,
                           CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.wait_s END AS w,
                           CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.start_time - j.submit_time END AS wi
                      FROM acmetrace.jobs j
                     WHERE days IS NULL AND j.cluster = cl AND j.end_time IS NOT NULL
                    UNION ALL
                    -- a day at a time (index jobs_cluster_end), a margin for
                    -- midnights a zone's transitions move
                    SELECT dd, j.user_id, j.vc, j.gpu_num, j.final_state, j.submit_time, j.end_time,
                           CASE WHEN j.gpu_num > 0 THEN coalesce(j.gpu_time, j.duration * j.gpu_num) END,
                           CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.wait_s END,
                           CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.start_time - j.submit_time END
                      FROM unnest(days) dd
                      JOIN acmetrace.jobs j
                        ON j.cluster = cl
                       AND j.end_time >= (dd::timestamp AT TIME ZONE tz) - interval '3 hours'
                       AND j.end_time < ((dd + 1)::timestamp AT TIME ZONE tz) + interval '3 hours'
                       AND (j.end_time AT TIME ZONE tz)::date = dd
                     WHERE days IS NOT NULL) j
             GROUP BY j.d, j.user_id, j.vc) x,
           LATERAL acmetrace_internal.vc_merge(NULL, NULL, x.wv, x.wc) m;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_rows(text, text, date[]) IS
  'The summary_usage rows of cluster cl (time zone tz) for the days of end in days (NULL: every day), from its jobs.';

-- The cluster's summary_usage rows in one C pass (src/usage_scan.c): its
-- last row, all NULL, marks a pass that went through; no rows when a value
-- does not fit its exact sums, and usage_rows runs.
CREATE FUNCTION acmetrace_internal.usage_scan_pass(cluster text, zone text, utc_offset_s integer)
RETURNS TABLE (end_day date, user_id text, vc text, jobs bigint, gpu_jobs bigint, gpu_time numeric,
               failed_gpu_time numeric, cancelled_gpu_time numeric, wait_n bigint, wait_sum interval,
               wait_vals double precision[], wait_counts bigint[], first_submit timestamptz, last_end timestamptz)
AS 'MODULE_PATHNAME', 'acmetrace_usage_scan_pass'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION acmetrace_internal.usage_scan_pass(text, text, integer) IS
  'One pass over the cluster''s ended jobs: its summary_usage rows (days of end in zone, else at the fixed utc_offset_s) and a last row of NULLs; no rows when a numeric is not a decimal of at most 18 digits and 9 after the point.';

-- summarize's part: cluster cl's rows rebuilt (deleted if it is gone or
-- acmetrace.summaries is off and not force).
CREATE FUNCTION acmetrace_internal.usage_summarize(cl text, force boolean)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
    tz     text;
    off    integer;
    abbrev boolean;
    done   boolean;
BEGIN
    DELETE FROM acmetrace.summary_usage s WHERE s.cluster = cl;
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    IF NOT FOUND OR NOT (force OR acmetrace_internal.use_summaries()) THEN
        RETURN;
    END IF;
    -- an abbreviation is a fixed offset, as AT TIME ZONE reads it
    SELECT date_part('epoch', z.utc_offset)::integer INTO off
      FROM pg_catalog.pg_timezone_abbrevs z WHERE z.abbrev = tz AND tz <> 'UTC';
    abbrev := FOUND;
    WITH p AS MATERIALIZED (
        SELECT * FROM acmetrace_internal.usage_scan_pass(cl, CASE WHEN NOT abbrev THEN tz END, off)),
    ins AS (
        INSERT INTO acmetrace.summary_usage
        SELECT cl, p.* FROM p WHERE p.end_day IS NOT NULL
        RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM p WHERE p.end_day IS NULL) INTO done;
    IF NOT done THEN
        -- a value the pass cannot sum exactly: the same in SQL
        INSERT INTO acmetrace.summary_usage SELECT * FROM acmetrace_internal.usage_rows(cl, tz, NULL);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_summarize(text, boolean) IS
  'summarize''s part for summary_usage: rebuilds cluster cl''s rows from its jobs (none if it is gone, or acmetrace.summaries is off and not force).';

-- summarize_delta's part: the days of end the changed jobs had and have, regrouped.
CREATE FUNCTION acmetrace_internal.usage_delta(cl text, old_rows acmetrace.jobs[], new_rows acmetrace.jobs[])
RETURNS void
LANGUAGE plpgsql
-- each day's jobs through the (cluster, end_time) index: a hash join read
-- every job of the cluster for a day's few thousand
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
#variable_conflict use_variable
DECLARE
    tz   text;
    days date[];
BEGIN
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    days := ARRAY(SELECT DISTINCT (x.end_time AT TIME ZONE tz)::date
                    FROM (SELECT o.end_time FROM unnest(old_rows) o WHERE o.cluster = cl
                          UNION ALL SELECT n.end_time FROM unnest(new_rows) n WHERE n.cluster = cl) x
                   WHERE x.end_time IS NOT NULL);
    IF cardinality(days) = 0 THEN
        RETURN;
    END IF;
    DELETE FROM acmetrace.summary_usage s WHERE s.cluster = cl AND s.end_day = ANY (days);
    INSERT INTO acmetrace.summary_usage SELECT * FROM acmetrace_internal.usage_rows(cl, tz, days);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_delta(text, acmetrace.jobs[], acmetrace.jobs[]) IS
  'summarize_delta''s part for summary_usage: regroups cluster cl''s days of end that the changed jobs (old_rows as they were, new_rows as they are) were or are on.';

-- summarize_all's part: rows of clusters that are gone.
CREATE FUNCTION acmetrace_internal.usage_prune()
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
DELETE FROM acmetrace.summary_usage s WHERE NOT EXISTS (SELECT 1 FROM acmetrace.clusters c WHERE c.cluster = s.cluster);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_prune() IS
  'summarize_all''s part for summary_usage: deletes the rows of clusters that are not loaded.';

-- The scan: by 'user', 'vc', 'account' or 'partition'.
CREATE FUNCTION acmetrace_internal.usage_scan(cluster text, since timestamptz, until timestamptz, by text)
RETURNS TABLE (out_cluster text, grp text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(usage_scan.cluster);
    RETURN QUERY
    WITH cs AS (
        SELECT c.cluster,
               coalesce(c.gpu_capacity,
                        CASE WHEN c.gpu_capacity IS NULL THEN
                            (SELECT nullif(acmetrace.peak(acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)
                                           FILTER (WHERE j.gpu_num > 0 AND NOT coalesce(j.end_time < j.start_time, false))), 0)
                               FROM acmetrace.jobs j WHERE j.cluster = c.cluster AND (usage_scan.cluster IS NULL OR j.cluster = usage_scan.cluster)) END) AS cap,
               (SELECT min(j.submit_time) FROM acmetrace.jobs j WHERE j.cluster = c.cluster AND j.end_time IS NOT NULL
                   AND (usage_scan.cluster IS NULL OR j.cluster = usage_scan.cluster)) AS fs,
               (SELECT max(j.end_time) FROM acmetrace.jobs j WHERE j.cluster = c.cluster
                   AND (usage_scan.cluster IS NULL OR j.cluster = usage_scan.cluster)) AS le
          FROM acmetrace.clusters c
         WHERE (usage_scan.cluster IS NULL OR c.cluster = usage_scan.cluster)),
    j AS (
        SELECT j.cluster,
               CASE usage_scan.by WHEN 'user' THEN j.user_id WHEN 'vc' THEN j.vc
                                  WHEN 'account' THEN sj.account ELSE sj.partition END AS grp,
               j.gpu_num > 0 AS gpu, j.final_state,
               CASE WHEN j.gpu_num > 0 THEN coalesce(j.gpu_time, j.duration * j.gpu_num) END AS t,
               CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.wait_s END AS w,
               -- the mean from an interval sum: exact, and the same from the summaries
               CASE WHEN j.gpu_num > 0 AND j.wait_s >= 0 THEN j.start_time - j.submit_time END AS wi
          FROM acmetrace.jobs j
          -- joined whatever by is: Citus joins shards only on their keys, and
          -- a condition on by alone would leave none
          LEFT JOIN acmetrace.slurm_jobs sj ON sj.cluster = j.cluster AND sj.job_id = j.job_id
         WHERE (usage_scan.cluster IS NULL OR j.cluster = usage_scan.cluster)
           -- a range the index jobs_cluster_end serves (NULL end_time: in none)
           AND j.end_time >= coalesce(usage_scan.since, '-infinity')
           AND (usage_scan.until IS NULL OR j.end_time < usage_scan.until)),
    g AS (
        SELECT j.cluster, grouping(j.grp) = 1 AS total, j.grp, count(*) AS n, count(*) FILTER (WHERE j.gpu) AS gn,
               coalesce(sum(j.t), 0) AS t,
               coalesce(sum(j.t) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
               coalesce(sum(j.t) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c,
               extract(epoch FROM avg(j.wi)) AS mw,
               percentile_cont(0.9) WITHIN GROUP (ORDER BY j.w) AS p90
          FROM j GROUP BY GROUPING SETS ((j.cluster, j.grp), (j.cluster))),
    r AS (
        SELECT g.cluster, false AS total, g.grp, g.n, g.gn, g.t, g.f, g.c, g.mw, g.p90 FROM g WHERE NOT g.total
        UNION ALL
        SELECT cs.cluster, true, 'all', coalesce(g.n, 0), coalesce(g.gn, 0), coalesce(g.t, 0), coalesce(g.f, 0),
               coalesce(g.c, 0), g.mw, g.p90
          FROM cs LEFT JOIN g ON g.cluster = cs.cluster AND g.total)
    SELECT r.cluster, r.grp, r.n, r.gn,
           round(r.t / 3600, 2), round(r.f / 3600, 2), round(r.c / 3600, 2), round((r.f + r.c) / 3600, 2),
           acmetrace_internal.pct(r.f + r.c, r.t),
           acmetrace_internal.sig3(r.mw::float8), acmetrace_internal.sig3(r.p90),
           acmetrace_internal.usage_capacity_pct(r.t, cs.cap, usage_scan.since, usage_scan.until, cs.fs, cs.le)
      FROM r JOIN cs ON cs.cluster = r.cluster
     ORDER BY r.cluster COLLATE "C", r.total DESC, r.f + r.c DESC, r.grp COLLATE "C" NULLS LAST;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_scan(text, timestamptz, timestamptz, text) IS
  'The scan path of acmetrace.usage_by_user and usage_by_group (by user, vc, account or partition): reads acmetrace.jobs (and acmetrace.slurm_jobs).';

-- The same rows from summary_usage: by 'user' or 'vc', windows on the
-- clusters' local midnights (usage_run checks).
CREATE FUNCTION acmetrace_internal.usage_summary(cluster text, since timestamptz, until timestamptz, by text)
RETURNS TABLE (out_cluster text, grp text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(usage_summary.cluster);
    RETURN QUERY
    WITH cs AS (
        SELECT c.cluster, coalesce(c.gpu_capacity, nullif(sc.peak_allocated, 0)) AS cap,
               (SELECT min(s.first_submit) FROM acmetrace.summary_usage s WHERE s.cluster = c.cluster
                   AND (usage_summary.cluster IS NULL OR s.cluster = usage_summary.cluster)) AS fs,
               (SELECT max(s.last_end) FROM acmetrace.summary_usage s WHERE s.cluster = c.cluster
                   AND (usage_summary.cluster IS NULL OR s.cluster = usage_summary.cluster)) AS le,
               (usage_summary.since AT TIME ZONE c.time_zone)::date AS sd,
               (usage_summary.until AT TIME ZONE c.time_zone)::date AS ud
          FROM acmetrace.clusters c
          LEFT JOIN acmetrace.summary_clusters sc ON sc.cluster = c.cluster
         WHERE (usage_summary.cluster IS NULL OR c.cluster = usage_summary.cluster)),
    s AS MATERIALIZED (
        SELECT s.*, CASE WHEN usage_summary.by = 'user' THEN s.user_id ELSE s.vc END AS grp
          FROM cs JOIN acmetrace.summary_usage s ON s.cluster = cs.cluster
         WHERE (cs.sd IS NULL OR s.end_day >= cs.sd) AND (cs.ud IS NULL OR s.end_day < cs.ud)),
    g AS (
        SELECT s.cluster, grouping(s.grp) = 1 AS total, s.grp, sum(s.jobs) AS n, sum(s.gpu_jobs) AS gn,
               coalesce(sum(s.gpu_time), 0) AS t, coalesce(sum(s.failed_gpu_time), 0) AS f,
               coalesce(sum(s.cancelled_gpu_time), 0) AS c,
               extract(epoch FROM sum(s.wait_sum) / nullif(sum(s.wait_n), 0)::float8) AS mw
          FROM s GROUP BY GROUPING SETS ((s.cluster, s.grp), (s.cluster))),
    -- the waits' value counts merged per group (vc_merge adds repeats)
    v AS (
        SELECT s.cluster, grouping(s.grp) = 1 AS total, s.grp, array_agg(u.v) AS vals, array_agg(u.n) AS counts
          FROM s, unnest(s.wait_vals, s.wait_counts) u(v, n)
         GROUP BY GROUPING SETS ((s.cluster, s.grp), (s.cluster))),
    p AS (
        SELECT v.cluster, v.total, v.grp,
               (acmetrace_internal.vc_percentiles(m.merged_vals, m.merged_counts, '{0.9}'))[1] AS p90
          FROM v, LATERAL acmetrace_internal.vc_merge(NULL, NULL, v.vals, v.counts) m),
    r AS (
        SELECT g.cluster, false AS total, g.grp, g.n, g.gn, g.t, g.f, g.c, g.mw, p.p90
          FROM g LEFT JOIN p ON p.cluster = g.cluster AND NOT p.total AND p.grp IS NOT DISTINCT FROM g.grp
         WHERE NOT g.total
        UNION ALL
        SELECT cs.cluster, true, 'all', coalesce(g.n, 0), coalesce(g.gn, 0), coalesce(g.t, 0), coalesce(g.f, 0),
               coalesce(g.c, 0), g.mw, p.p90
          FROM cs LEFT JOIN g ON g.cluster = cs.cluster AND g.total
          LEFT JOIN p ON p.cluster = cs.cluster AND p.total)
    SELECT r.cluster, r.grp, r.n::bigint, r.gn::bigint,
           round(r.t / 3600, 2), round(r.f / 3600, 2), round(r.c / 3600, 2), round((r.f + r.c) / 3600, 2),
           acmetrace_internal.pct(r.f + r.c, r.t),
           acmetrace_internal.sig3(r.mw::float8), acmetrace_internal.sig3(r.p90),
           acmetrace_internal.usage_capacity_pct(r.t, cs.cap, usage_summary.since, usage_summary.until, cs.fs, cs.le)
      FROM r JOIN cs ON cs.cluster = r.cluster
     ORDER BY r.cluster COLLATE "C", r.total DESC, r.f + r.c DESC, r.grp COLLATE "C" NULLS LAST;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_summary(text, timestamptz, timestamptz, text) IS
  'The summary path of acmetrace.usage_by_user and usage_by_group (by user or vc): reads acmetrace.summary_usage, whole days of end.';

-- Whether since and until are unbounded or local midnights of every cluster in scope.
CREATE FUNCTION acmetrace_internal.usage_days(cluster text, since timestamptz, until timestamptz)
RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
BEGIN
    RETURN (
SELECT NOT EXISTS (
    SELECT 1 FROM acmetrace.clusters c
     WHERE (usage_days.cluster IS NULL OR c.cluster = usage_days.cluster)
       AND NOT (coalesce(isfinite(usage_days.since) AND (usage_days.since AT TIME ZONE c.time_zone)::time = '00:00', true)
                AND coalesce(isfinite(usage_days.until) AND (usage_days.until AT TIME ZONE c.time_zone)::time = '00:00', true)))
    );
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_days(text, timestamptz, timestamptz) IS
  'True when since and until are each NULL or a midnight in the time zone of every cluster in scope (cluster NULL: every cluster).';

CREATE FUNCTION acmetrace_internal.usage_run(a1 text, a2 timestamptz, a3 timestamptz, a4 text)
RETURNS TABLE (cluster text, grp text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    cl text;
BEGIN
    PERFORM acmetrace_internal.known_cluster(a1);
    -- a cluster at a time (in the order of the rows), each by the path it
    -- can take: a window on one zone's midnights is not on another's
    FOR cl IN SELECT c.cluster FROM acmetrace.clusters c WHERE a1 IS NULL OR c.cluster = a1
               ORDER BY c.cluster COLLATE "C"
    LOOP
        IF a4 IN ('user', 'vc') AND acmetrace_internal.summarized(cl)
           AND pg_catalog.has_table_privilege('acmetrace.summary_usage', 'SELECT')
           AND acmetrace_internal.usage_days(cl, a2, a3) THEN
            RETURN QUERY SELECT * FROM acmetrace_internal.usage_summary(cl, a2, a3, a4);
        ELSE
            RETURN QUERY SELECT * FROM acmetrace_internal.usage_scan(cl, a2, a3, a4);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.usage_run(text, timestamptz, timestamptz, text) IS
  'acmetrace.usage_by_user and usage_by_group, a cluster at a time: from summary_usage when it can answer (by user or vc, a window on the cluster''s local midnights), else the scan.';

CREATE FUNCTION acmetrace.usage_by_user(cluster text DEFAULT NULL, since timestamptz DEFAULT NULL,
                                        until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, user_id text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE sql STABLE
AS 'SELECT * FROM acmetrace_internal.usage_run($1, $2, $3, ''user'')';
COMMENT ON FUNCTION acmetrace.usage_by_user(text, timestamptz, timestamptz) IS
  'Per cluster and user, the jobs that ended in [since, until) (NULL: unbounded; jobs without end_time are left out): jobs, GPU jobs, GPU-hours (published gpu_time, else duration x gpu_num) in all, of FAILED (TIMEOUT, NODE_FAIL) and CANCELLED jobs and lost (both), lost_pct of GPU-hours, mean and exact p90 wait (start - submit) of the GPU jobs, and GPU-hours as a percent of the capacity (gpu_capacity, else the observed peak) over the window clipped to the trace. A NULL user is a row of its own; user_id ''all'' is the cluster''s total. Ordered by cluster, then GPU-hours lost, largest first.';

CREATE FUNCTION acmetrace.usage_by_group(cluster text DEFAULT NULL, since timestamptz DEFAULT NULL,
                                         until timestamptz DEFAULT NULL, by text DEFAULT 'vc')
RETURNS TABLE (cluster text, grp text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE sql STABLE
AS $$
SELECT r.* FROM acmetrace_internal.usage_run($1, $2, $3, CASE WHEN acmetrace_internal.usage_check_by($4) THEN $4 END) r
$$;
COMMENT ON FUNCTION acmetrace.usage_by_group(text, timestamptz, timestamptz, text) IS
  'acmetrace.usage_by_user per group instead of user: by ''vc'' (Helios virtual cluster), ''account'' or ''partition'' (Slurm jobs, acmetrace.slurm_jobs; other jobs are the NULL group). grp ''all'' is the cluster''s total. Ordered by cluster, then GPU-hours lost, largest first.';

CREATE VIEW acmetrace.v_usage_by_user WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.usage_by_user(NULL);
COMMENT ON VIEW acmetrace.v_usage_by_user IS
  'GPU-hours used and lost, waits and share of capacity per cluster and user over all time (acmetrace.usage_by_user).';

CREATE VIEW acmetrace.v_usage_by_group WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.usage_by_group(NULL);
COMMENT ON VIEW acmetrace.v_usage_by_group IS
  'GPU-hours used and lost, waits and share of capacity per cluster and vc over all time (acmetrace.usage_by_group).';
COMMENT ON COLUMN acmetrace.v_usage_by_user.cluster IS 'Cluster name';
COMMENT ON COLUMN acmetrace.v_usage_by_user.user_id IS 'The user (NULL: jobs without one); ''all'': the cluster''s total';
COMMENT ON COLUMN acmetrace.v_usage_by_user.jobs IS 'Jobs that ended in the window (GPU and CPU)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.gpu_jobs IS 'GPU jobs (gpu_num > 0) that ended in the window';
COMMENT ON COLUMN acmetrace.v_usage_by_user.gpu_h IS 'GPU-hours of those GPU jobs: published gpu_time, else duration x gpu_num (2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.failed_gpu_h IS 'GPU-hours of GPU jobs whose final state is FAILED (TIMEOUT and NODE_FAIL included; 2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.cancelled_gpu_h IS 'GPU-hours of cancelled GPU jobs (2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.lost_gpu_h IS 'failed_gpu_h + cancelled_gpu_h (summed before rounding; 2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.lost_pct IS 'lost_gpu_h as a percent of gpu_h (2 decimals); NULL with no GPU-hours';
COMMENT ON COLUMN acmetrace.v_usage_by_user.mean_wait_s IS 'Mean wait (start - submit) of the GPU jobs, seconds, 3 significant digits; NULL with none';
COMMENT ON COLUMN acmetrace.v_usage_by_user.p90_wait_s IS '90th percentile of that wait, seconds (exact, 3 significant digits)';
COMMENT ON COLUMN acmetrace.v_usage_by_user.capacity_pct IS 'gpu_h as a percent of the GPU capacity (gpu_capacity, else the observed peak) over the window clipped to the trace (2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.cluster IS 'Cluster name';
COMMENT ON COLUMN acmetrace.v_usage_by_group.grp IS 'The vc (NULL: jobs without one); ''all'': the cluster''s total';
COMMENT ON COLUMN acmetrace.v_usage_by_group.jobs IS 'Jobs that ended in the window (GPU and CPU)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.gpu_jobs IS 'GPU jobs (gpu_num > 0) that ended in the window';
COMMENT ON COLUMN acmetrace.v_usage_by_group.gpu_h IS 'GPU-hours of those GPU jobs: published gpu_time, else duration x gpu_num (2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.failed_gpu_h IS 'GPU-hours of GPU jobs whose final state is FAILED (TIMEOUT and NODE_FAIL included; 2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.cancelled_gpu_h IS 'GPU-hours of cancelled GPU jobs (2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.lost_gpu_h IS 'failed_gpu_h + cancelled_gpu_h (summed before rounding; 2 decimals)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.lost_pct IS 'lost_gpu_h as a percent of gpu_h (2 decimals); NULL with no GPU-hours';
COMMENT ON COLUMN acmetrace.v_usage_by_group.mean_wait_s IS 'Mean wait (start - submit) of the GPU jobs, seconds, 3 significant digits; NULL with none';
COMMENT ON COLUMN acmetrace.v_usage_by_group.p90_wait_s IS '90th percentile of that wait, seconds (exact, 3 significant digits)';
COMMENT ON COLUMN acmetrace.v_usage_by_group.capacity_pct IS 'gpu_h as a percent of the GPU capacity (gpu_capacity, else the observed peak) over the window clipped to the trace (2 decimals)';
