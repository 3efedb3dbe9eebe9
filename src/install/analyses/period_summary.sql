-- acmetrace.period_summary: the operator's headline, a period [since, until)
-- of a cluster against the period of the same length just before it.
-- Plain SQL over acmetrace.jobs (each measure reads only the jobs its
-- BRIN index bounds to the two periods) and the GPU_UTIL blocks.

-- One measure of one cluster: the row period_summary returns.
CREATE FUNCTION acmetrace_internal.period_row(cluster text, measure text, unit text, value numeric,
                                              previous numeric, partial boolean)
RETURNS TABLE (cluster text, measure text, unit text, value numeric, previous numeric,
               change_pct numeric, partial boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT $1, $2, $3, $4, $5, round(100 * ($4 - $5) / abs(nullif($5, 0)), 2), $6
$$;
COMMENT ON FUNCTION acmetrace_internal.period_row(text, text, text, numeric, numeric, boolean) IS
  'A row of acmetrace.period_summary: change_pct = 100 * (value - previous) / |previous|, 2 decimals; NULL when previous is 0 or NULL.';

-- The measures of one cluster over [a, b) against [pa, a).
CREATE FUNCTION acmetrace_internal.period_measures(cl text, pa timestamptz, a timestamptz, b timestamptz,
                                                   covered boolean)
RETURNS TABLE (cluster text, measure text, unit text, value numeric, previous numeric,
               change_pct numeric, partial boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
    cap numeric;
    len numeric := extract(epoch FROM b) - extract(epoch FROM a);
    alloc_v numeric; alloc_p numeric;
    sub_v bigint; sub_p bigint;
    e record; q record; u record;
BEGIN
    SELECT coalesce(c.gpu_capacity::numeric, s.occupancy_capacity::numeric) INTO cap
      FROM acmetrace.clusters c LEFT JOIN acmetrace.summary_clusters s ON s.cluster = c.cluster
     WHERE c.cluster = cl;

    -- GPU-seconds held in each period: [start_time, end_time) clipped to it,
    -- a job without end_time holding its GPUs on (as occupancy_agg does).
    -- Jobs ending before they start hold nothing.
    SELECT sum(j.gpu_num * greatest(0, extract(epoch FROM least(coalesce(j.end_time, 'infinity'), b))
                                       - extract(epoch FROM greatest(j.start_time, a)))),
           sum(j.gpu_num * greatest(0, extract(epoch FROM least(coalesce(j.end_time, 'infinity'), a))
                                       - extract(epoch FROM greatest(j.start_time, pa))))
      INTO alloc_v, alloc_p
      FROM acmetrace.jobs j
     WHERE j.cluster = cl AND j.gpu_num > 0 AND j.start_time < b
       AND (j.end_time > pa OR j.end_time IS NULL);
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'allocation_pct', 'pct',
        round(100 * coalesce(alloc_v, 0) / nullif(cap * len, 0), 2),
        round(100 * coalesce(alloc_p, 0) / nullif(cap * len, 0), 2), NOT covered);

    -- mean GPU_UTIL of the samples in each period: whole blocks from their
    -- stored sums, blocks crossing a boundary cut with samples_between
    IF EXISTS (SELECT 1 FROM acmetrace.utilization_blocks ub WHERE ub.metric = 'GPU_UTIL' AND ub.cluster = cl) THEN
        SELECT sum(p.s) FILTER (WHERE p.cur) / nullif(sum(p.n) FILTER (WHERE p.cur), 0) AS v,
               sum(p.s) FILTER (WHERE NOT p.cur) / nullif(sum(p.n) FILTER (WHERE NOT p.cur), 0) AS p
          INTO u
          FROM (SELECT w.cur,
                       CASE WHEN ub.first_ts >= w.lo AND ub.last_ts < w.hi THEN ub.sum
                            ELSE acmetrace_internal.samples_sum(acmetrace.samples_between(ub.samples, w.lo, w.hi)) END AS s,
                       CASE WHEN ub.first_ts >= w.lo AND ub.last_ts < w.hi THEN ub.n
                            ELSE (acmetrace.samples_info(acmetrace.samples_between(ub.samples, w.lo, w.hi))).samples END AS n
                  FROM (VALUES (true, a, b), (false, pa, a)) w(cur, lo, hi)
                  JOIN acmetrace.utilization_blocks ub
                    ON ub.metric = 'GPU_UTIL' AND ub.cluster = cl
                   AND ub.day BETWEEN (w.lo AT TIME ZONE 'UTC')::date AND (w.hi AT TIME ZONE 'UTC')::date
                   AND ub.first_ts < w.hi AND ub.last_ts >= w.lo) p;
        -- the samples cover both periods up to one sampling step at each end
        RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'util_mean_pct', 'pct', round(u.v, 2), round(u.p, 2),
            NOT covered OR (SELECT min(ub.first_ts) > pa + st.step OR max(ub.last_ts) < b - st.step
                              FROM acmetrace.utilization_blocks ub,
                                   (SELECT coalesce(max((ub2.last_ts - ub2.first_ts) / (ub2.n - 1)), '0') AS step
                                      FROM acmetrace.utilization_blocks ub2
                                     WHERE ub2.metric = 'GPU_UTIL' AND ub2.cluster = cl AND ub2.n > 1) st
                             WHERE ub.metric = 'GPU_UTIL' AND ub.cluster = cl
                             GROUP BY st.step));
    END IF;

    SELECT count(*) FILTER (WHERE j.submit_time >= a), count(*) FILTER (WHERE j.submit_time < a)
      INTO sub_v, sub_p
      FROM acmetrace.jobs j WHERE j.cluster = cl AND j.submit_time >= pa AND j.submit_time < b;
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'submitted', 'jobs', sub_v, sub_p, NOT covered);

    -- GPU jobs that ended in each period: GPU time (duration x gpu_num, as
    -- gpu_time_lost), the failed and cancelled ones
    SELECT count(*) FILTER (WHERE j.end_time >= a) AS n_v, count(*) FILTER (WHERE j.end_time < a) AS n_p,
           coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.end_time >= a), 0) AS t_v,
           coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.end_time < a), 0) AS t_p,
           coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.end_time >= a AND j.final_state IN ('FAILED', 'CANCELLED')), 0) AS l_v,
           coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.end_time < a AND j.final_state IN ('FAILED', 'CANCELLED')), 0) AS l_p,
           count(*) FILTER (WHERE j.end_time >= a AND j.final_state = 'FAILED') AS f_v,
           count(*) FILTER (WHERE j.end_time < a AND j.final_state = 'FAILED') AS f_p,
           count(*) FILTER (WHERE j.end_time >= a AND j.final_state = 'CANCELLED') AS c_v,
           count(*) FILTER (WHERE j.end_time < a AND j.final_state = 'CANCELLED') AS c_p
      INTO e
      FROM acmetrace.jobs j WHERE j.cluster = cl AND j.gpu_num > 0 AND j.end_time >= pa AND j.end_time < b;
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'gpu_h', 'gpu_h', round(e.t_v / 3600, 2), round(e.t_p / 3600, 2), NOT covered);
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'lost_gpu_h', 'gpu_h', round(e.l_v / 3600, 2), round(e.l_p / 3600, 2), NOT covered);
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'failed_job_pct', 'pct',
        acmetrace_internal.pct(e.f_v, e.n_v), acmetrace_internal.pct(e.f_p, e.n_p), NOT covered);
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'cancelled_job_pct', 'pct',
        acmetrace_internal.pct(e.c_v, e.n_v), acmetrace_internal.pct(e.c_p, e.n_p), NOT covered);

    -- queueing delay (start - submit) of GPU jobs started in each period;
    -- a job ending before it starts is left out, as everywhere (BRIN on end_time)
    SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY j.wait_s) FILTER (WHERE j.start_time >= a) AS v,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY j.wait_s) FILTER (WHERE j.start_time < a) AS p
      INTO q
      FROM acmetrace.jobs j
     WHERE j.cluster = cl AND j.gpu_num > 0 AND j.wait_s >= 0 AND j.start_time >= pa AND j.start_time < b
       AND (j.end_time >= j.start_time OR j.end_time IS NULL)
       AND (j.end_time >= pa OR j.end_time IS NULL);
    RETURN QUERY SELECT * FROM acmetrace_internal.period_row(cl, 'p90_queue_s', 's',
        acmetrace_internal.sig3(q.v), acmetrace_internal.sig3(q.p), NOT covered);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.period_measures(text, timestamptz, timestamptz, timestamptz, boolean) IS
  'The rows of acmetrace.period_summary for one cluster, period [a, b) against [pa, a); covered: the job trace covers [pa, b).';

CREATE FUNCTION acmetrace_internal.period_summary_run(arg_cluster text, arg_since timestamptz,
                                                     arg_until timestamptz)
RETURNS TABLE (cluster text, measure text, unit text, value numeric, previous numeric,
               change_pct numeric, partial boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
    cl text; tz text;
    first_ev timestamptz; last_ev timestamptz; kept boolean;
    a timestamptz; b timestamptz; pa timestamptz;
BEGIN
    PERFORM acmetrace_internal.known_cluster(arg_cluster);
    IF arg_since >= arg_until THEN
        PERFORM acmetrace_internal.raise('22023', format('since %s is not before until %s', arg_since, arg_until),
              'The period is [since, until): give since before until (NULL since is until minus 7 days).');
    END IF;
    FOR cl, tz IN SELECT c.cluster, c.time_zone FROM acmetrace.clusters c
                   WHERE arg_cluster IS NULL OR c.cluster = arg_cluster
                   ORDER BY c.cluster COLLATE "C"
    LOOP
        -- the trace: its first and last finite event (submit, start or
        -- end), as summary_extents keeps it (else a scan of every job)
        kept := false;
        IF acmetrace_internal.summarized(cl)
           AND pg_catalog.has_table_privilege('acmetrace.summary_extents', 'SELECT') THEN
            SELECT e.first_event, e.last_event INTO first_ev, last_ev
              FROM acmetrace.summary_extents e WHERE e.cluster = cl;
            kept := FOUND;
        END IF;
        IF NOT kept THEN
            SELECT min(least(x.s, x.b, x.e)), max(greatest(x.s, x.b, x.e))
              INTO first_ev, last_ev
              FROM (SELECT CASE WHEN isfinite(j.submit_time) THEN j.submit_time END AS s,
                           CASE WHEN isfinite(j.start_time) THEN j.start_time END AS b,
                           CASE WHEN isfinite(j.end_time) THEN j.end_time END AS e
                      FROM acmetrace.jobs j WHERE j.cluster = cl) x;
        END IF;
        CONTINUE WHEN last_ev IS NULL AND arg_until IS NULL;   -- no jobs: no period to end at
        b := coalesce(arg_until, last_ev);
        -- 7 days back in the cluster's zone (a week across a DST change is 7 local days)
        a := coalesce(arg_since, ((b AT TIME ZONE tz) - interval '7 days') AT TIME ZONE tz);
        IF a >= b THEN
            PERFORM acmetrace_internal.raise('22023',
                  format('since %s is not before until %s (the last event of cluster %s)', a, b, cl),
                  'The period is [since, until): give since before the cluster''s last event, or give until.');
        END IF;
        -- the period before: the same number of seconds
        pa := a - make_interval(secs => extract(epoch FROM b) - extract(epoch FROM a));
        RETURN QUERY SELECT * FROM acmetrace_internal.period_measures(cl, pa, a, b,
            coalesce(first_ev <= pa AND last_ev >= b, false));
    END LOOP;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.period_summary_run(text, timestamptz, timestamptz) IS
  'acmetrace.period_summary: the window of each cluster, then its measures (acmetrace_internal.period_measures).';

CREATE FUNCTION acmetrace.period_summary(cluster text DEFAULT NULL, since timestamptz DEFAULT NULL,
                                         until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, measure text, unit text, value numeric, previous numeric,
               change_pct numeric, partial boolean)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.period_summary_run($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.period_summary(text, timestamptz, timestamptz) IS
  'The headline of a period [since, until) per cluster against the period of the same length just before it: allocation_pct (GPU-seconds held by GPU jobs / (capacity x seconds)), util_mean_pct (mean GPU_UTIL sample, only for clusters with GPU_UTIL), submitted (jobs), gpu_h and lost_gpu_h (failed + cancelled; GPU jobs ended in the period), failed_job_pct and cancelled_job_pct (of GPU jobs ended in the period), p90_queue_s (GPU jobs started in the period). NULL until: the cluster''s last event; NULL since: until minus 7 days. change_pct is the relative change; partial: the trace (for util_mean_pct, the samples) does not cover both periods.';
