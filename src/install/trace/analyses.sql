-- The paper's and the Spark study's analyses, one SQL call each.
--
-- GPU jobs are gpu_num > 0, CPU jobs gpu_num = 0 (a NULL gpu_num is
-- neither).  GPU time is published duration x gpu_num, as the AcmeTrace
-- notebook computes it (the published gpu_time column is that product in
-- both AcmeTrace files; Helios publishes none).  A NULL cluster argument
-- means every loaded cluster.

-- numpy's round(x, d): rint(x * 10^d) / 10^d (PostgreSQL's round(float8) is rint).
CREATE FUNCTION acmetrace._round_to(x double precision, digits integer)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN digits IS NULL THEN x ELSE round(x * 10.0::float8 ^ digits) / 10.0::float8 ^ digits END $$;
COMMENT ON FUNCTION acmetrace._round_to(double precision, integer) IS
  'Rounds like numpy.round: rint(x * 10^digits) / 10^digits, ties to even; NULL digits returns x.';

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
CREATE FUNCTION acmetrace.cluster_summary(digits integer DEFAULT 3)
RETURNS TABLE (id text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
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
    IF digits < 0 OR digits > 15 THEN
        RAISE EXCEPTION 'digits must be between 0 and 15, not %', digits
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The published summary uses 3; NULL leaves the values unrounded.';
    END IF;
    RETURN QUERY
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
         GROUP BY j.cluster),
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
           acmetrace._round_to(s.avg_run_g::float8, digits),
           acmetrace._round_to(s.avg_que_g::float8, digits),
           acmetrace._round_to(s.avg_gpu::float8, digits),
           acmetrace._round_to(s.med_run_g, digits),
           acmetrace._round_to(s.med_que_g, digits),
           acmetrace._round_to(s.med_gpu, digits),
           acmetrace._round_to(s.max_run_g::float8, digits),
           s.max_gpu::float8,
           acmetrace._round_to(s.ok_g, digits),
           acmetrace._round_to(s.cancel_g, digits),
           acmetrace._round_to(1 - s.cancel_g - s.ok_g, digits),
           -- GPU-time columns only where the rates exist (some GPU job)
           CASE WHEN s.n_gpu > 0 THEN acmetrace._round_to(s.t_ok_f, digits) END,
           CASE WHEN s.n_gpu > 0 THEN acmetrace._round_to(s.t_cancel_f, digits) END,
           acmetrace._round_to(s.t_fail_f, digits),
           acmetrace._round_to(s.t_ok_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.t_cancel_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.t_fail_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.avg_run_c::float8, digits),
           acmetrace._round_to(s.avg_que_c::float8, digits),
           acmetrace._round_to(s.med_run_c, digits),
           acmetrace._round_to(s.med_que_c, digits),
           acmetrace._round_to(s.ok_c, digits),
           acmetrace._round_to(s.cancel_c, digits),
           acmetrace._round_to(1 - s.cancel_c - s.ok_c, digits)
      FROM s
     ORDER BY s.cluster COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.cluster_summary(integer) IS
  'One row per loaded cluster with every column of the published acme_cluster_summary.csv (id = cluster), computed as the AcmeTrace notebook does and rounded to digits decimals, ties to even (NULL: unrounded). See README for each column.';

-- Final states per cluster and job type (GPU jobs).
CREATE FUNCTION acmetrace.state_by_type(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.final_state, s.n,
           s.n::float8 / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::float8
      FROM (SELECT j.cluster, j.type, j.final_state, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (state_by_type.cluster IS NULL OR j.cluster = state_by_type.cluster)
             GROUP BY j.cluster, j.type, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster, s.type)
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.state_by_type(text) IS
  'Final state of GPU jobs per cluster and job type: jobs and their share within the type, GPU time (duration x gpu_num) and its share within the type. TIMEOUT and NODE_FAIL count as FAILED; type NULL for traces without types.';

CREATE FUNCTION acmetrace.type_distribution(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n,
           s.n::float8 / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::float8
      FROM (SELECT j.cluster, j.type, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (type_distribution.cluster IS NULL OR j.cluster = type_distribution.cluster)
             GROUP BY j.cluster, j.type) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.n DESC, s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.type_distribution(text) IS
  'Job types of GPU jobs per cluster: jobs and share of the cluster''s GPU jobs, GPU time (duration x gpu_num) and share of its GPU time. Most frequent type first.';

-- Box plot numbers as matplotlib draws them: linear-interpolated quartiles,
-- whiskers at the most extreme values within 1.5 IQR of the box.
CREATE FUNCTION acmetrace.gpu_num_boxplot(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 double precision,
               median double precision, q3 double precision, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH q AS (
        SELECT j.cluster, j.type,
               percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY j.gpu_num::float8) AS p
          FROM acmetrace.jobs j
         WHERE j.gpu_num > 0 AND (gpu_num_boxplot.cluster IS NULL OR j.cluster = gpu_num_boxplot.cluster)
         GROUP BY j.cluster, j.type),
    f AS (
        SELECT q.cluster, q.type, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, count(*), min(j.gpu_num), f.q1, f.q2, f.q3, max(j.gpu_num),
           min(j.gpu_num) FILTER (WHERE j.gpu_num >= f.lo_fence),
           max(j.gpu_num) FILTER (WHERE j.gpu_num <= f.hi_fence),
           count(*) FILTER (WHERE j.gpu_num < f.lo_fence OR j.gpu_num > f.hi_fence)
      FROM f
      JOIN acmetrace.jobs j ON j.cluster = f.cluster AND j.type IS NOT DISTINCT FROM f.type AND j.gpu_num > 0
     GROUP BY f.cluster, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.gpu_num_boxplot(text) IS
  'GPU count of GPU jobs per cluster and type as box-plot numbers: min, quartiles (linear interpolation, as percentile_cont and numpy), max, whiskers at the most extreme gpu_num within 1.5 IQR of the box, and the number of jobs outside them.';

-- Cancellations by queueing-delay bin: [0, w), [w, 2w), ... up to `upper`,
-- then one open bin for queue >= upper.  Every bin is listed, empty or not.
CREATE FUNCTION acmetrace._queue_bin_count(bin_width double precision, upper double precision)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    IF NOT (bin_width > 0 AND bin_width < 'Infinity' AND upper >= bin_width AND upper < 'Infinity') THEN
        RAISE EXCEPTION 'bin_width must be positive and upper at least bin_width, not %, %',
                        coalesce(bin_width::text, 'NULL'), coalesce(upper::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The Spark study uses 20 s bins up to 300 s: cancelled_by_queue(cluster, ''Eval'', 20, 300).';
    END IF;
    IF upper / bin_width > 10000 THEN
        RAISE EXCEPTION 'at most 10000 bins, not %', ceil(upper / bin_width)
            USING ERRCODE = 'program_limit_exceeded',
                  HINT = 'Use a wider bin_width or a lower upper.';
    END IF;
    RETURN ceil(upper / bin_width)::integer;
END
$$;
COMMENT ON FUNCTION acmetrace._queue_bin_count(double precision, double precision) IS
  'Checks cancelled_by_queue''s bins and returns how many closed bins there are.';

CREATE FUNCTION acmetrace.cancelled_by_queue(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300)
RETURNS TABLE (cluster text, bin integer, queue_from double precision, queue_to double precision,
               jobs bigint, cancelled bigint, cancelled_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH p AS (SELECT acmetrace._queue_bin_count(bin_width, upper) AS nb),
    b AS (
        SELECT j.cluster,
               CASE WHEN j.queue::float8 >= upper THEN p.nb + 1
                    ELSE floor(j.queue::float8 / bin_width)::integer + 1 END AS bin,
               j.state = 'CANCELLED' AS is_cancelled
          FROM acmetrace.jobs j, p
         WHERE j.gpu_num > 0 AND j.queue >= 0
           AND (cancelled_by_queue.cluster IS NULL OR j.cluster = cancelled_by_queue.cluster)
           AND (cancelled_by_queue.type IS NULL OR j.type = cancelled_by_queue.type)),
    c AS (SELECT DISTINCT b.cluster FROM b)
    SELECT c.cluster, k.bin,
           least((k.bin - 1) * bin_width, upper),
           CASE WHEN k.bin <= p.nb THEN least(k.bin * bin_width, upper) END,
           count(b.bin), count(b.bin) FILTER (WHERE b.is_cancelled),
           100.0::float8 * count(b.bin) FILTER (WHERE b.is_cancelled) / nullif(count(b.bin), 0)
      FROM c
     CROSS JOIN p
     CROSS JOIN LATERAL generate_series(1, p.nb + 1) k(bin)
      LEFT JOIN b ON b.cluster = c.cluster AND b.bin = k.bin
     GROUP BY c.cluster, k.bin, p.nb
     ORDER BY c.cluster COLLATE "C", k.bin
$$;
COMMENT ON FUNCTION acmetrace.cancelled_by_queue(text, text, double precision, double precision) IS
  'GPU jobs of one type (default Eval; NULL: every type) by published queueing delay in bins of bin_width seconds up to upper, then one open bin (queue_to NULL): jobs, cancelled jobs and the percent cancelled. Every bin is listed; jobs with a negative or NULL queue are left out.';

-- GPU time burned by jobs that failed or were cancelled.
CREATE FUNCTION acmetrace.gpu_time_lost(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_share double precision, cancelled_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.t, s.f, s.c,
           (s.f / nullif(s.t, 0))::float8, (s.c / nullif(s.t, 0))::float8
      FROM (SELECT j.cluster, j.type,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (gpu_time_lost.cluster IS NULL OR j.cluster = gpu_time_lost.cluster)
             GROUP BY j.cluster, j.type) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.gpu_time_lost(text) IS
  'Per cluster and job type: GPU time (duration x gpu_num) of all GPU jobs, of failed ones (TIMEOUT and NODE_FAIL included) and of cancelled ones, and the two shares.';

-- Weeks start on Monday in the cluster's own time zone (acmetrace.clusters).
CREATE FUNCTION acmetrace.gpu_time_lost_weekly(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, week date, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_share double precision, cancelled_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.week, s.t, s.f, s.c,
           (s.f / nullif(s.t, 0))::float8, (s.c / nullif(s.t, 0))::float8
      FROM (SELECT j.cluster,
                   date_trunc('week', j.end_time AT TIME ZONE c.time_zone)::date AS week,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
              JOIN acmetrace.clusters c ON c.cluster = j.cluster
             WHERE j.gpu_num > 0 AND j.end_time IS NOT NULL
               AND (gpu_time_lost_weekly.cluster IS NULL OR j.cluster = gpu_time_lost_weekly.cluster)
             GROUP BY j.cluster, 2) s
     ORDER BY s.cluster COLLATE "C", s.week
$$;
COMMENT ON FUNCTION acmetrace.gpu_time_lost_weekly(text) IS
  'Per cluster and week (Monday, in the cluster''s time zone) in which GPU jobs ended: GPU time (duration x gpu_num) of all, failed and cancelled jobs, and the two shares. Jobs without end_time are left out.';

-- Queueing delay percentiles, for reports and BI tools: plain SQL over
-- delay_sketch_agg, so the executor brings parallel workers, partitions,
-- foreign tables and row-level security.
CREATE FUNCTION acmetrace.queue_percentiles(cluster text,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            gpu_jobs_only boolean DEFAULT false)
RETURNS TABLE (type text, jobs bigint, percentiles double precision[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    PERFORM acmetrace._cluster_zone(queue_percentiles.cluster);
    IF fractions IS NULL OR gpu_jobs_only IS NULL THEN
        RAISE EXCEPTION 'fractions and gpu_jobs_only must not be NULL'
            USING ERRCODE = 'null_value_not_allowed', HINT = 'Pass e.g. ''{0.5,0.9,0.99}'' and false.';
    END IF;
    RETURN QUERY
    SELECT s.type, acmetrace.count(s.sk), acmetrace.percentiles(s.sk, fractions), s.sk
      FROM (SELECT j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
              FROM acmetrace.jobs j
             WHERE j.cluster = queue_percentiles.cluster
               AND j.wait_s >= 0
               AND (NOT gpu_jobs_only OR j.gpu_num > 0)
             GROUP BY j.type) s
     ORDER BY s.type;
END
$$;
COMMENT ON FUNCTION acmetrace.queue_percentiles(text, double precision[], boolean) IS
  'Queueing delay (start_time - submit_time, seconds) percentiles per job type, within 0.5%; jobs that never started or started before their submit time are left out. The sketch column rolls up: acmetrace.rollup(sketch) is the whole cluster.';

CREATE VIEW acmetrace.queue_delay_summary AS
SELECT s.cluster, s.type, acmetrace.count(s.sk) AS jobs,
       acmetrace.percentile(s.sk, 0.5) AS p50_s,
       acmetrace.percentile(s.sk, 0.9) AS p90_s,
       acmetrace.percentile(s.sk, 0.99) AS p99_s,
       acmetrace.mean(s.sk) AS mean_s,
       acmetrace.max(s.sk) AS max_s
  FROM (SELECT j.cluster, j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
          FROM acmetrace.jobs j
         WHERE j.wait_s >= 0
         GROUP BY j.cluster, j.type) s;
COMMENT ON VIEW acmetrace.queue_delay_summary IS
  'Queueing delay per cluster and job type: jobs, p50/p90/p99 (within 0.5%), mean and max in seconds. Jobs that never started or started before their submit time are left out.';

-- The seed analysis: queueing delay against occupancy, per job type.
CREATE FUNCTION acmetrace.queue_by_occupancy(cluster text, nbins integer DEFAULT 10,
                                             measured_at text DEFAULT 'submit', capacity bigint DEFAULT NULL)
RETURNS TABLE (type text, bin integer, gpus_from double precision, gpus_to double precision, jobs bigint,
               mean_queue_s double precision, median_queue_s double precision, p90_queue_s double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    occ acmetrace.occupancy;
    cap bigint := capacity;
BEGIN
    PERFORM acmetrace._cluster_zone(queue_by_occupancy.cluster);
    IF measured_at IS NULL OR measured_at NOT IN ('submit', 'start') THEN
        RAISE EXCEPTION 'measured_at must be ''submit'' or ''start'', not %', coalesce(quote_literal(measured_at), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = '''submit'': occupancy when the job arrived; ''start'': when it started.';
    END IF;
    IF nbins IS NULL OR nbins < 1 THEN
        RAISE EXCEPTION 'nbins must be at least 1, not %', coalesce(nbins::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) INTO occ
      FROM acmetrace.jobs j WHERE j.cluster = queue_by_occupancy.cluster;
    IF cap IS NULL THEN
        SELECT c.gpu_capacity INTO cap FROM acmetrace.clusters c WHERE c.cluster = queue_by_occupancy.cluster;
    END IF;
    -- unknown capacity: bin up to the observed peak
    cap := coalesce(cap, nullif(acmetrace.peak(occ), 0), 1);
    IF cap < 1 THEN
        RAISE EXCEPTION 'capacity must be positive, not %', cap USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    SELECT s.type, s.b,
           (cap::double precision * (s.b - 1) / nbins),
           CASE WHEN s.b <= nbins THEN cap::double precision * s.b / nbins END,
           count(*),
           avg(s.q),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY s.q),
           percentile_cont(0.9) WITHIN GROUP (ORDER BY s.q)
      FROM (SELECT j.type,
                   width_bucket(acmetrace.gpus_at(occ, CASE measured_at WHEN 'submit' THEN j.submit_time
                                                                        ELSE j.start_time END)::double precision,
                                0, cap::double precision, nbins) AS b,
                   j.queue::double precision AS q
              FROM acmetrace.jobs j
             WHERE j.cluster = queue_by_occupancy.cluster
               AND j.gpu_num > 0
               AND j.queue IS NOT NULL
               AND CASE measured_at WHEN 'submit' THEN j.submit_time ELSE j.start_time END IS NOT NULL) s
     GROUP BY s.type, s.b
     ORDER BY s.type COLLATE "C", s.b;
END
$$;
COMMENT ON FUNCTION acmetrace.queue_by_occupancy(text, integer, text, bigint) IS
  'Queueing delay (published queue column, seconds) of GPU jobs by job type and by bin of GPUs allocated when the job was submitted (or started): width_bucket(gpus_at, 0, capacity, nbins); bin nbins+1 is at or over capacity. capacity defaults to the cluster''s, else the observed peak.';

-- The paper's figures: CDFs and histograms over the bins aggregates.
CREATE FUNCTION acmetrace._job_cdf(in_cluster text, col text, thresholds double precision[])
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    SELECT g.cluster, g.type, u.x, u.percent
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type END AS type,
                   acmetrace.cdf_at(j.%I::float8, $2) AS cdf
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND ($1 IS NULL OR j.cluster = $1)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))
            HAVING grouping(j.type) = 1 OR j.type IS NOT NULL) g,
           unnest($2, g.cdf) u(x, percent)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster, g.type NULLS FIRST, u.x $q$, col)
    USING in_cluster, thresholds;
END
$$;

COMMENT ON FUNCTION acmetrace._job_cdf(text, text, double precision[]) IS
  'Shared body of duration_cdf and queue_cdf.';

CREATE FUNCTION acmetrace.duration_cdf(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT * FROM acmetrace._job_cdf(cluster, 'duration', thresholds) $$;
COMMENT ON FUNCTION acmetrace.duration_cdf(text, double precision[]) IS
  'CDF (percent) of the published duration of GPU jobs at each threshold (default 1, 2, 4, ... 2^21 s), per cluster (type NULL) and per job type; NULL cluster = every cluster.';

CREATE FUNCTION acmetrace.queue_cdf(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT * FROM acmetrace._job_cdf(cluster, 'queue', thresholds) $$;
COMMENT ON FUNCTION acmetrace.queue_cdf(text, double precision[]) IS
  'CDF (percent) of the published queueing delay of GPU jobs at each threshold, per cluster (type NULL) and per job type.';

CREATE FUNCTION acmetrace.gpu_num_cdf(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1))
RETURNS TABLE (cluster text, x double precision, job_percent double precision, gpu_time_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, u.jobs, u.gpu_time
  FROM (SELECT j.cluster,
               acmetrace.cdf_at(j.gpu_num, thresholds) AS jobs,
               acmetrace.weighted_cdf_at(j.gpu_num, j.gpu_num * j.duration::float8, thresholds) AS gpu_time
          FROM acmetrace.jobs j
         WHERE j.gpu_num > 0 AND (gpu_num_cdf.cluster IS NULL OR j.cluster = gpu_num_cdf.cluster)
         GROUP BY j.cluster) g,
       unnest(thresholds, g.jobs, g.gpu_time) u(x, jobs, gpu_time)
 ORDER BY g.cluster, u.x
$$;
COMMENT ON FUNCTION acmetrace.gpu_num_cdf(text, double precision[]) IS
  'CDF of GPU count over GPU jobs, by job count and weighted by GPU time (gpu_num x published duration, as the notebook), at each threshold (default 0..1024).';

CREATE FUNCTION acmetrace.util_cdf(metric text, cluster text DEFAULT NULL,
                                   thresholds double precision[] DEFAULT acmetrace.steps(0, 100, 1))
RETURNS TABLE (cluster text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, u.percent
  FROM (SELECT b.cluster, acmetrace.cdf_at(b.samples, thresholds) AS cdf
          FROM acmetrace.utilization_blocks b
         WHERE b.metric = util_cdf.metric AND (util_cdf.cluster IS NULL OR b.cluster = util_cdf.cluster)
         GROUP BY b.cluster) g,
       unnest(thresholds, g.cdf) u(x, percent)
 ORDER BY g.cluster, u.x
$$;
COMMENT ON FUNCTION acmetrace.util_cdf(text, text, double precision[]) IS
  'CDF (percent) of a utilization metric over all its samples, per cluster, at each threshold (default 0..100), counted straight from the compressed blocks.';

CREATE FUNCTION acmetrace.util_histogram(metric text, cluster text DEFAULT NULL, nbins integer DEFAULT 10)
RETURNS TABLE (cluster text, bin integer, bin_lo double precision, bin_hi double precision, series bigint,
               percent double precision, cumulative_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT h.cluster, r.bin, r.bin_lo, r.bin_hi, r.count, r.percent, r.cumulative_percent
  FROM (SELECT a.cluster, acmetrace.bins(a.mean, 0, 100, nbins) AS counts
          FROM (SELECT b.cluster, (sum(b.sum) / sum(b.n))::double precision AS mean
                  FROM acmetrace.utilization_blocks b
                 WHERE b.metric = util_histogram.metric
                   AND (util_histogram.cluster IS NULL OR b.cluster = util_histogram.cluster)
                 GROUP BY b.cluster, b.series) a
         GROUP BY a.cluster) h,
       acmetrace.bin_rows(h.counts, 0, 100) r
 ORDER BY h.cluster, r.bin
$$;
COMMENT ON FUNCTION acmetrace.util_histogram(text, text, integer) IS
  'Histogram of the per-series (per-GPU or per-server) average of a utilization metric in nbins equal bins over 0..100, per cluster: the Spark study''s 10% bins. Averages are exact (the blocks'' numeric sums over their counts, rounded once) and read from the block summaries without decoding a sample. Bins 0 and nbins+1 count averages below 0 and above 100.';

-- Counted with bins_at: [0] is v < the float8 just above 1 (v <= 1), [2] and
-- [3] are v >= 99; percents as count(*) FILTER (...)::float8 / count(*) * 100.
CREATE FUNCTION acmetrace.util_polarization(metric text, cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, samples bigint, percent_at_most_1 double precision, percent_at_least_99 double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, g.samples, g.c[0]::float8 / g.samples * 100, (g.c[2] + g.c[3])::float8 / g.samples * 100
  FROM (SELECT b.cluster, sum(b.n)::bigint AS samples,
               acmetrace.bins_at(b.samples, ARRAY[1 + 2::float8 ^ -52, 99, 1.7976931348623157e308]) AS c
          FROM acmetrace.utilization_blocks b
         WHERE b.metric = util_polarization.metric
           AND (util_polarization.cluster IS NULL OR b.cluster = util_polarization.cluster)
         GROUP BY b.cluster) g
 ORDER BY g.cluster
$$;
COMMENT ON FUNCTION acmetrace.util_polarization(text, text) IS
  'How polarized a utilization metric is, per cluster: the percent of samples at or below 1 and at or above 99.';
