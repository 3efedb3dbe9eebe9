-- The paper's and the Spark study's analyses, one SQL call each.
--
-- GPU jobs are gpu_num > 0, CPU jobs gpu_num = 0 (a NULL gpu_num is
-- neither).  GPU time is published duration x gpu_num, as the AcmeTrace
-- notebook computes it (the published gpu_time column is that product in
-- both AcmeTrace files; Helios publishes none).
--
-- One surface: the cluster is the first argument, NULL means every loaded
-- cluster and one that is not loaded is 42704 (known_cluster, a one-time
-- filter); shares are percents named *_pct (numeric, 2 decimals); seconds
-- are numeric with 3 significant digits (sig3).  Queueing delay is the
-- derived wait_s (start - submit) of GPU jobs, jobs that never started or
-- started before their submission left out; all_jobs => true adds CPU jobs.
-- cluster_summary alone keeps the published queue: it reproduces
-- acme_cluster_summary.csv.

-- The dataset's own per-cluster summary (acme_cluster_summary.csv),
-- computed as the AcmeTrace notebook does:
--   * averages, medians (the mean of the two middle values) and maxima skip
--     NULLs;
--   * complete/cancel rates count state = COMPLETED / CANCELLED, and
--     fail = 1 - cancel - complete, so TIMEOUT and NODE_FAIL are failed;
--   * fail GPU time = total - complete - cancel; its rate = fail / total;
--   * then every float is rounded to `digits` decimals with ties to even
--     (numpy's round: rint(x * 10^d) / 10^d).  NULL digits: unrounded.
-- Sums are exact (numeric) before they become double precision.
-- The notebook's arithmetic on a cluster's counts, sums, medians and
-- maxima, whichever path computed them (the scan below, the summaries in
-- summaries.sql): one row of cluster_summary.
CREATE FUNCTION acmetrace_internal.cluster_summary_row(cl text, n bigint, n_cpu bigint, n_gpu bigint, avg_run_g numeric, avg_que_g numeric,
                                                          avg_gpu numeric, med_run_g double precision, med_que_g double precision,
                                                          med_gpu double precision, max_run_g numeric, gpu_max integer,
                                                          n_gpu_ok bigint, n_gpu_cancel bigint, t_gpu numeric, t_ok numeric,
                                                          t_cancel numeric, avg_run_c numeric, avg_que_c numeric,
                                                          med_run_c double precision, med_que_c double precision,
                                                          n_cpu_ok bigint, n_cpu_cancel bigint, digits integer)
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
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    WITH g AS (SELECT cl AS cluster, n, n_cpu, n_gpu, avg_run_g, avg_que_g, avg_gpu, med_run_g, med_que_g, med_gpu,
                      max_run_g, gpu_max AS max_gpu, n_gpu_ok, n_gpu_cancel, t_gpu, t_ok, t_cancel, avg_run_c, avg_que_c,
                      med_run_c, med_que_c, n_cpu_ok, n_cpu_cancel),
    r AS (  -- the notebook's arithmetic, in its order, in double precision
        SELECT g.*,
               g.n_gpu_ok::float8 / nullif(g.n_gpu, 0) AS ok_g,
               g.n_gpu_cancel::float8 / nullif(g.n_gpu, 0) AS cancel_g,
               coalesce(g.t_ok, 0)::float8 AS t_ok_f,
               coalesce(g.t_cancel, 0)::float8 AS t_cancel_f,
               g.t_gpu::float8 AS t_gpu_f,
               g.n_cpu_ok::float8 / nullif(g.n_cpu, 0) AS ok_c,
               g.n_cpu_cancel::float8 / nullif(g.n_cpu, 0) AS cancel_c
          FROM g),
    s AS (
        SELECT r.*, r.t_gpu_f - r.t_ok_f - r.t_cancel_f AS t_fail_f FROM r)
    SELECT s.cluster, s.n, s.n_cpu, s.n_gpu,
           acmetrace_internal.round_to(s.avg_run_g::float8, digits),
           acmetrace_internal.round_to(s.avg_que_g::float8, digits),
           acmetrace_internal.round_to(s.avg_gpu::float8, digits),
           acmetrace_internal.round_to(s.med_run_g, digits),
           acmetrace_internal.round_to(s.med_que_g, digits),
           acmetrace_internal.round_to(s.med_gpu, digits),
           acmetrace_internal.round_to(s.max_run_g::float8, digits),
           s.max_gpu::float8,
           acmetrace_internal.round_to(s.ok_g, digits),
           acmetrace_internal.round_to(s.cancel_g, digits),
           acmetrace_internal.round_to(1 - s.cancel_g - s.ok_g, digits),
           -- GPU-time columns only where the rates exist (some GPU job)
           CASE WHEN s.n_gpu > 0 THEN acmetrace_internal.round_to(s.t_ok_f, digits) END,
           CASE WHEN s.n_gpu > 0 THEN acmetrace_internal.round_to(s.t_cancel_f, digits) END,
           acmetrace_internal.round_to(s.t_fail_f, digits),
           acmetrace_internal.round_to(s.t_ok_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace_internal.round_to(s.t_cancel_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace_internal.round_to(s.t_fail_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace_internal.round_to(s.avg_run_c::float8, digits),
           acmetrace_internal.round_to(s.avg_que_c::float8, digits),
           acmetrace_internal.round_to(s.med_run_c, digits),
           acmetrace_internal.round_to(s.med_que_c, digits),
           acmetrace_internal.round_to(s.ok_c, digits),
           acmetrace_internal.round_to(s.cancel_c, digits),
           acmetrace_internal.round_to(1 - s.cancel_c - s.ok_c, digits)
      FROM s
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_summary_row(text, bigint, bigint, bigint, numeric, numeric, numeric, double precision, double precision, double precision, numeric, integer, bigint, bigint, numeric, numeric, numeric, numeric, numeric, double precision, double precision, bigint, bigint, integer) IS
  'cluster_summary''s row from a cluster''s counts, sums, medians and maxima: the AcmeTrace notebook''s arithmetic and rounding.';

CREATE FUNCTION acmetrace_internal.cluster_summary_scan(cluster text DEFAULT NULL, digits integer DEFAULT 3)
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
    WITH g AS (
        SELECT j.cluster,
               count(*) AS n,
               count(*) FILTER (WHERE j.gpu_num = 0) AS n_cpu,
               count(*) FILTER (WHERE j.gpu_num > 0) AS n_gpu,
               avg(j.duration) FILTER (WHERE j.gpu_num > 0) AS avg_run_g,
               avg(j.queue) FILTER (WHERE j.gpu_num > 0) AS avg_que_g,
               avg(j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS avg_gpu,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.duration::float8) FILTER (WHERE j.gpu_num > 0) AS med_run_g,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) FILTER (WHERE j.gpu_num > 0) AS med_que_g,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.gpu_num::float8) FILTER (WHERE j.gpu_num > 0) AS med_gpu,
               max(j.duration) FILTER (WHERE j.gpu_num > 0) AS max_run_g,
               max(j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS max_gpu,
               count(*) FILTER (WHERE j.gpu_num > 0 AND j.state = 'COMPLETED') AS n_gpu_ok,
               count(*) FILTER (WHERE j.gpu_num > 0 AND j.state = 'CANCELLED') AS n_gpu_cancel,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS t_gpu,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0 AND j.state = 'COMPLETED') AS t_ok,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0 AND j.state = 'CANCELLED') AS t_cancel,
               avg(j.duration) FILTER (WHERE j.gpu_num = 0) AS avg_run_c,
               avg(j.queue) FILTER (WHERE j.gpu_num = 0) AS avg_que_c,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.duration::float8) FILTER (WHERE j.gpu_num = 0) AS med_run_c,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) FILTER (WHERE j.gpu_num = 0) AS med_que_c,
               count(*) FILTER (WHERE j.gpu_num = 0 AND j.state = 'COMPLETED') AS n_cpu_ok,
               count(*) FILTER (WHERE j.gpu_num = 0 AND j.state = 'CANCELLED') AS n_cpu_cancel
          FROM acmetrace.jobs j
         WHERE acmetrace_internal.known_cluster(cluster_summary_scan.cluster)
           AND (digits IS NULL OR digits BETWEEN 0 AND 15
                OR acmetrace_internal.raise('22023', format('digits must be between 0 and 15, not %s', digits),
                                            'The published summary uses 3; NULL leaves the values unrounded.'))
           AND (cluster_summary_scan.cluster IS NULL OR j.cluster = cluster_summary_scan.cluster)
         GROUP BY j.cluster)
    SELECT f.*
      FROM g, LATERAL acmetrace_internal.cluster_summary_row(
               g.cluster, g.n, g.n_cpu, g.n_gpu, g.avg_run_g, g.avg_que_g, g.avg_gpu, g.med_run_g, g.med_que_g, g.med_gpu,
               g.max_run_g, g.max_gpu, g.n_gpu_ok, g.n_gpu_cancel, g.t_gpu, g.t_ok, g.t_cancel, g.avg_run_c, g.avg_que_c,
               g.med_run_c, g.med_que_c, g.n_cpu_ok, g.n_cpu_cancel, digits) f
     ORDER BY f.cluster COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_summary_scan(text, integer) IS
  'The scan path of acmetrace.cluster_summary: reads acmetrace.jobs.';

-- Final states per cluster and job type (GPU jobs).
CREATE FUNCTION acmetrace_internal.state_by_type_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.final_state, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT j.cluster, j.type, j.final_state, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(state_by_type_scan.cluster)
               AND j.gpu_num > 0 AND (state_by_type_scan.cluster IS NULL OR j.cluster = state_by_type_scan.cluster)
             GROUP BY j.cluster, j.type, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster, s.type)
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.state_by_type_scan(text) IS
  'The scan path of acmetrace.state_by_type: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.type_distribution_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, job_pct numeric,
               gpu_time numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n,
           acmetrace_internal.pct(s.n, sum(s.n) OVER w),
           s.t,
           acmetrace_internal.pct(s.t, sum(s.t) OVER w)
      FROM (SELECT j.cluster, j.type, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(type_distribution_scan.cluster)
               AND j.gpu_num > 0 AND (type_distribution_scan.cluster IS NULL OR j.cluster = type_distribution_scan.cluster)
             GROUP BY j.cluster, j.type) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.n DESC, s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.type_distribution_scan(text) IS
  'The scan path of acmetrace.type_distribution: reads acmetrace.jobs.';

-- Box plot numbers as matplotlib draws them: linear-interpolated quartiles,
-- whiskers at the most extreme values within 1.5 IQR of the box.
CREATE FUNCTION acmetrace_internal.gpu_num_boxplot_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 numeric,
               median numeric, q3 numeric, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH q AS (
        SELECT j.cluster, j.type,
               percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY j.gpu_num::float8) AS p
          FROM acmetrace.jobs j
         WHERE acmetrace_internal.known_cluster(gpu_num_boxplot_scan.cluster)
           AND j.gpu_num > 0 AND (gpu_num_boxplot_scan.cluster IS NULL OR j.cluster = gpu_num_boxplot_scan.cluster)
         GROUP BY j.cluster, j.type),
    f AS (
        SELECT q.cluster, q.type, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, count(*), min(j.gpu_num),
           round(f.q1::numeric, 2), round(f.q2::numeric, 2), round(f.q3::numeric, 2), max(j.gpu_num),
           min(j.gpu_num) FILTER (WHERE j.gpu_num >= f.lo_fence),
           max(j.gpu_num) FILTER (WHERE j.gpu_num <= f.hi_fence),
           count(*) FILTER (WHERE j.gpu_num < f.lo_fence OR j.gpu_num > f.hi_fence)
      FROM f
      JOIN acmetrace.jobs j ON j.cluster = f.cluster AND j.type IS NOT DISTINCT FROM f.type AND j.gpu_num > 0
     GROUP BY f.cluster, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_boxplot_scan(text) IS
  'The scan path of acmetrace.gpu_num_boxplot: reads acmetrace.jobs.';

-- Cancellations by queueing-delay bin: [0, w), [w, 2w), ... up to `upper`,
-- then one open bin for waits >= upper.  Every bin is listed, empty or not.
CREATE FUNCTION acmetrace_internal.queue_bin_count(bin_width double precision, upper double precision)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE
    WHEN NOT (bin_width > 0 AND bin_width < 'Infinity' AND upper >= bin_width AND upper < 'Infinity') THEN
        acmetrace_internal.raise('22023',
            format('bin_width must be positive and upper at least bin_width, not %s, %s',
                   coalesce(bin_width::text, 'NULL'), coalesce(upper::text, 'NULL')),
            'The Spark study uses 20 s bins up to 300 s: cancelled_by_queue(cluster, ''Eval'', 20, 300).')::integer
    WHEN upper / bin_width > 10000 THEN
        acmetrace_internal.raise('54000', format('at most 10000 bins, not %s', ceil(upper / bin_width)),
                                 'Use a wider bin_width or a lower upper.')::integer
    ELSE ceil(upper / bin_width)::integer
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_bin_count(double precision, double precision) IS
  'Checks cancelled_by_queue''s bins and returns how many closed bins there are.';

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_scan(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH p AS (SELECT acmetrace_internal.queue_bin_count(bin_width, upper) AS nb
                WHERE acmetrace_internal.known_cluster(cancelled_by_queue_scan.cluster)),
    b AS (
        SELECT j.cluster,
               CASE WHEN j.wait_s >= upper THEN p.nb + 1
                    ELSE floor(j.wait_s / bin_width)::integer + 1 END AS bin,
               j.state = 'CANCELLED' AS is_cancelled
          FROM acmetrace.jobs j, p
         WHERE (j.gpu_num > 0 OR coalesce(all_jobs, false)) AND j.wait_s >= 0
           AND (cancelled_by_queue_scan.cluster IS NULL OR j.cluster = cancelled_by_queue_scan.cluster)
           AND (cancelled_by_queue_scan.type IS NULL OR j.type = cancelled_by_queue_scan.type)),
    c AS (SELECT DISTINCT b.cluster FROM b)
    SELECT c.cluster, k.bin,
           least((k.bin - 1) * bin_width, upper),
           CASE WHEN k.bin <= p.nb THEN least(k.bin * bin_width, upper) END,
           count(b.bin), count(b.bin) FILTER (WHERE b.is_cancelled),
           acmetrace_internal.pct(count(b.bin) FILTER (WHERE b.is_cancelled), count(b.bin))
      FROM c
     CROSS JOIN p
     CROSS JOIN LATERAL generate_series(1, p.nb + 1) k(bin)
      LEFT JOIN b ON b.cluster = c.cluster AND b.bin = k.bin
     GROUP BY c.cluster, k.bin, p.nb
     ORDER BY c.cluster COLLATE "C", k.bin
$$;
COMMENT ON FUNCTION acmetrace_internal.cancelled_by_queue_scan(text, text, double precision, double precision, boolean) IS
  'The scan path of acmetrace.cancelled_by_queue: reads acmetrace.jobs.';

-- GPU time burned by jobs that failed or were cancelled.
CREATE FUNCTION acmetrace_internal.gpu_time_lost_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n, s.t, s.f, s.c,
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT j.cluster, j.type, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(gpu_time_lost_scan.cluster)
               AND j.gpu_num > 0 AND (gpu_time_lost_scan.cluster IS NULL OR j.cluster = gpu_time_lost_scan.cluster)
             GROUP BY j.cluster, j.type) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_scan(text) IS
  'The scan path of acmetrace.gpu_time_lost: reads acmetrace.jobs.';

-- Weeks start on Monday in the cluster's own time zone (acmetrace.clusters).
CREATE FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, week date, jobs bigint, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_pct numeric, cancelled_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.week, s.n, s.t, s.f, s.c,
           acmetrace_internal.pct(s.f, s.t), acmetrace_internal.pct(s.c, s.t)
      FROM (SELECT j.cluster,
                   date_trunc('week', j.end_time AT TIME ZONE c.time_zone)::date AS week,
                   count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
              JOIN acmetrace.clusters c ON c.cluster = j.cluster
             WHERE acmetrace_internal.known_cluster(gpu_time_lost_weekly_scan.cluster)
               AND j.gpu_num > 0 AND j.end_time IS NOT NULL
               AND (gpu_time_lost_weekly_scan.cluster IS NULL OR j.cluster = gpu_time_lost_weekly_scan.cluster)
             GROUP BY j.cluster, 2) s
     ORDER BY s.cluster COLLATE "C", s.week
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_time_lost_weekly_scan(text) IS
  'The scan path of acmetrace.gpu_time_lost_weekly: reads acmetrace.jobs.';

-- Queueing delay percentiles: plain SQL over delay_sketch_agg, so the
-- executor brings parallel workers, partitions, foreign tables and
-- row-level security.  The same jobs as queue_cdf.
CREATE FUNCTION acmetrace_internal.queue_percentiles_scan(cluster text DEFAULT NULL,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles numeric[], sketch acmetrace.delay_sketch)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, acmetrace.count(s.sk),
           ARRAY(SELECT acmetrace_internal.sig3(p.v)
                   FROM unnest(acmetrace.percentiles(s.sk, fractions)) WITH ORDINALITY p(v, k) ORDER BY p.k),
           s.sk
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type END AS type,
                   acmetrace.delay_sketch_agg(j.wait_s) AS sk
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(queue_percentiles_scan.cluster)
               AND acmetrace_internal.check_fractions(fractions)
               AND j.wait_s >= 0 AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
               AND (queue_percentiles_scan.cluster IS NULL OR j.cluster = queue_percentiles_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))
            HAVING grouping(j.type) = 1 OR j.type IS NOT NULL) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C" NULLS FIRST
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_percentiles_scan(text, double precision[], boolean) IS
  'The scan path of acmetrace.queue_percentiles: reads acmetrace.jobs.';

-- The seed analysis: queueing delay against occupancy, per job type.  The
-- occupancy of a cluster is computed once, into a variable that every
-- job's gpus_at reads (its cache keeps it decoded); carried through a join
-- instead, a copy of it would travel with every row.
-- PL/pgSQL cannot name an IN and an OUT parameter alike: the public
-- function wraps this one.
CREATE FUNCTION acmetrace_internal.queue_by_occupancy_scan(in_cluster text, nbins integer, measured_at text,
                                                      capacity bigint, all_jobs boolean)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
#variable_conflict use_variable
DECLARE
    cl  text;
    occ acmetrace.occupancy;
    cap bigint;
BEGIN
    PERFORM acmetrace_internal.known_cluster(in_cluster);
    IF measured_at IS NULL OR measured_at NOT IN ('submit', 'start') THEN
        PERFORM acmetrace_internal.raise('22023', format('measured_at must be ''submit'' or ''start'', not %s',
                                                         coalesce(quote_literal(measured_at), 'NULL')),
              '''submit'': occupancy when the job arrived; ''start'': when it started.');
    END IF;
    IF nbins IS NULL OR nbins < 1 THEN
        PERFORM acmetrace_internal.raise('22023', format('nbins must be at least 1, not %s', coalesce(nbins::text, 'NULL')),
              'The paper uses 10 bins of the cluster''s GPUs.');
    END IF;
    IF capacity < 1 THEN
        PERFORM acmetrace_internal.raise('22023', format('capacity must be positive, not %s', capacity),
              'NULL uses the cluster''s GPU capacity, else the observed peak.');
    END IF;
    FOR cl IN SELECT c.cluster FROM acmetrace.clusters c
               WHERE in_cluster IS NULL OR c.cluster = in_cluster
               ORDER BY c.cluster COLLATE "C"
    LOOP
        SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) INTO occ
          FROM acmetrace.jobs j WHERE j.cluster = cl;
        -- unknown capacity: bin up to the observed peak
        SELECT coalesce(capacity, c.gpu_capacity, nullif(acmetrace.peak(occ), 0), 1) INTO cap
          FROM acmetrace.clusters c WHERE c.cluster = cl;
        RETURN QUERY
        SELECT cl, s.type, s.b,
               round((cap::double precision * (s.b - 1) / nbins)::numeric, 1),
               CASE WHEN s.b <= nbins THEN round((cap::double precision * s.b / nbins)::numeric, 1) END,
               count(*),
               acmetrace_internal.sig3(avg(s.q)),
               acmetrace_internal.sig3(percentile_cont(0.5) WITHIN GROUP (ORDER BY s.q)),
               acmetrace_internal.sig3(percentile_cont(0.9) WITHIN GROUP (ORDER BY s.q))
          FROM (SELECT j.type,
                       width_bucket(acmetrace.gpus_at(occ, CASE measured_at WHEN 'submit' THEN j.submit_time
                                                                            ELSE j.start_time END)::double precision,
                                    0, cap::double precision, nbins) AS b,
                       j.wait_s AS q
                  FROM acmetrace.jobs j
                 WHERE j.cluster = cl
                   AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
                   AND j.wait_s >= 0) s
         GROUP BY s.type, s.b
         ORDER BY s.type COLLATE "C", s.b;
    END LOOP;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_by_occupancy_scan(text, integer, text, bigint, boolean) IS
  'The scan path of acmetrace.queue_by_occupancy: reads acmetrace.jobs.';


-- The paper's figures: CDFs and histograms over the bins aggregates.  Per
-- cluster the all-types line (type NULL) and one line per type; `jobs` is
-- how many jobs a line is made of.
CREATE FUNCTION acmetrace_internal.duration_cdf_scan(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT g.cluster, g.type, u.x, g.n, round(u.p::numeric, 2)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type END AS type,
                   count(j.duration) AS n, acmetrace.cdf_at(j.duration::float8, thresholds) AS cdf
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(duration_cdf_scan.cluster)
               AND j.gpu_num > 0 AND (duration_cdf_scan.cluster IS NULL OR j.cluster = duration_cdf_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))
            HAVING grouping(j.type) = 1 OR j.type IS NOT NULL) g,
           unnest(thresholds, g.cdf) u(x, p)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster COLLATE "C", g.type COLLATE "C" NULLS FIRST, u.x
$$;
COMMENT ON FUNCTION acmetrace_internal.duration_cdf_scan(text, double precision[]) IS
  'The scan path of acmetrace.duration_cdf: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.queue_cdf_scan(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT '{0}' || acmetrace.powers_of_two(0, 21),
                                    all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, x double precision, jobs bigint, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT g.cluster, g.type, u.x, g.n, round(u.p::numeric, 2)
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type END AS type,
                   count(*) AS n, acmetrace.cdf_at(j.wait_s, thresholds) AS cdf
              FROM acmetrace.jobs j
             WHERE acmetrace_internal.known_cluster(queue_cdf_scan.cluster)
               AND j.wait_s >= 0 AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
               AND (queue_cdf_scan.cluster IS NULL OR j.cluster = queue_cdf_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))
            HAVING grouping(j.type) = 1 OR j.type IS NOT NULL) g,
           unnest(thresholds, g.cdf) u(x, p)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster COLLATE "C", g.type COLLATE "C" NULLS FIRST, u.x
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_cdf_scan(text, double precision[], boolean) IS
  'The scan path of acmetrace.queue_cdf: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.gpu_num_cdf_scan(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1))
RETURNS TABLE (cluster text, x double precision, jobs bigint, job_pct numeric, gpu_time_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, g.n, round(u.jobs::numeric, 2), round(u.gpu_time::numeric, 2)
  FROM (SELECT j.cluster, count(*) AS n,
               acmetrace.cdf_at(j.gpu_num, thresholds) AS jobs,
               acmetrace.weighted_cdf_at(j.gpu_num, j.gpu_num * j.duration::float8, thresholds) AS gpu_time
          FROM acmetrace.jobs j
         WHERE acmetrace_internal.known_cluster(gpu_num_cdf_scan.cluster)
           AND j.gpu_num > 0 AND (gpu_num_cdf_scan.cluster IS NULL OR j.cluster = gpu_num_cdf_scan.cluster)
         GROUP BY j.cluster) g,
       unnest(thresholds, g.jobs, g.gpu_time) u(x, jobs, gpu_time)
 ORDER BY g.cluster COLLATE "C", u.x
$$;
COMMENT ON FUNCTION acmetrace_internal.gpu_num_cdf_scan(text, double precision[]) IS
  'The scan path of acmetrace.gpu_num_cdf: reads acmetrace.jobs.';

-- Utilization: metric names are stored upper case, so any spelling finds them.
CREATE FUNCTION acmetrace.util_cdf(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL',
                                   thresholds double precision[] DEFAULT acmetrace.steps(0, 100, 1))
RETURNS TABLE (cluster text, x double precision, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, round(u.p::numeric, 2)
  FROM (SELECT b.cluster, acmetrace.cdf_at(b.samples, thresholds) AS cdf
          FROM acmetrace.utilization_blocks b
         WHERE acmetrace_internal.known_cluster(util_cdf.cluster, util_cdf.metric)
           AND b.metric = upper(util_cdf.metric) AND (util_cdf.cluster IS NULL OR b.cluster = util_cdf.cluster)
         GROUP BY b.cluster) g,
       unnest(thresholds, g.cdf) u(x, p)
 ORDER BY g.cluster COLLATE "C", u.x
$$;
COMMENT ON FUNCTION acmetrace.util_cdf(text, text, double precision[]) IS
  'CDF (percent, 2 decimals) of a utilization metric (default GPU_UTIL, any case) over all its samples, per cluster, at each threshold (default 0..100), counted straight from the compressed blocks.';

CREATE FUNCTION acmetrace.util_histogram(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL', nbins integer DEFAULT 10)
RETURNS TABLE (cluster text, bin integer, bin_lo double precision, bin_hi double precision, series bigint,
               series_pct numeric, cumulative_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT h.cluster, r.bin, r.bin_lo, r.bin_hi, r.count, round(r.count_pct::numeric, 2), round(r.cumulative_pct::numeric, 2)
  FROM (SELECT a.cluster, acmetrace.bins(a.mean, 0, 100, nbins) AS counts
          FROM (SELECT b.cluster, (sum(b.sum) / sum(b.n))::double precision AS mean
                  FROM acmetrace.utilization_blocks b
                 WHERE acmetrace_internal.known_cluster(util_histogram.cluster, util_histogram.metric)
                   AND b.metric = upper(util_histogram.metric)
                   AND (util_histogram.cluster IS NULL OR b.cluster = util_histogram.cluster)
                 GROUP BY b.cluster, b.series) a
         GROUP BY a.cluster) h,
       acmetrace.bin_rows(h.counts, 0, 100) r
 ORDER BY h.cluster COLLATE "C", r.bin
$$;
COMMENT ON FUNCTION acmetrace.util_histogram(text, text, integer) IS
  'Histogram of the per-series (per-GPU or per-server) average of a utilization metric (default GPU_UTIL, any case) in nbins equal bins over 0..100, per cluster: the Spark study''s 10% bins, in series and percent of series (2 decimals). Averages are exact (the blocks'' numeric sums over their counts, rounded once) and read from the block summaries without decoding a sample. Bins 0 and nbins+1 count averages below 0 and above 100.';

-- Counted with bins_at: [0] is v < the float8 just above 1 (v <= 1), [2] and
-- [3] are v >= 99.
CREATE FUNCTION acmetrace.util_polarization(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL')
RETURNS TABLE (cluster text, samples bigint, at_most_1_pct numeric, at_least_99_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, g.samples, acmetrace_internal.pct(g.c[0], g.samples), acmetrace_internal.pct(g.c[2] + g.c[3], g.samples)
  FROM (SELECT b.cluster, sum(b.n)::bigint AS samples,
               acmetrace.bins_at(b.samples, ARRAY[1 + 2::float8 ^ -52, 99, 1.7976931348623157e308]) AS c
          FROM acmetrace.utilization_blocks b
         WHERE acmetrace_internal.known_cluster(util_polarization.cluster, util_polarization.metric)
           AND b.metric = upper(util_polarization.metric)
           AND (util_polarization.cluster IS NULL OR b.cluster = util_polarization.cluster)
         GROUP BY b.cluster) g
 ORDER BY g.cluster COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.util_polarization(text, text) IS
  'How polarized a utilization metric (default GPU_UTIL, any case) is, per cluster: the percent (2 decimals) of samples at or below 1 and at or above 99.';
