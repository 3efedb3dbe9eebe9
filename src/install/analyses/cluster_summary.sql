-- acmetrace.cluster_summary: acme_cluster_summary.csv, per loaded cluster.

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
-- maxima, whichever path computed them (the scan and the summary path
-- below): one row of cluster_summary.
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
RETURNS TABLE (out_cluster text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
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
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(cluster_summary_scan.cluster);
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
         WHERE (digits IS NULL OR digits BETWEEN 0 AND 15
                OR acmetrace_internal.raise('22023', format('digits must be between 0 and 15, not %s', digits),
                                            'The published summary uses 3; NULL leaves the values unrounded.'))
           AND (cluster_summary_scan.cluster IS NULL OR j.cluster = cluster_summary_scan.cluster)
         GROUP BY j.cluster)
    SELECT f.*
      FROM g, LATERAL acmetrace_internal.cluster_summary_row(
               g.cluster, g.n, g.n_cpu, g.n_gpu, g.avg_run_g, g.avg_que_g, g.avg_gpu, g.med_run_g, g.med_que_g, g.med_gpu,
               g.max_run_g, g.max_gpu, g.n_gpu_ok, g.n_gpu_cancel, g.t_gpu, g.t_ok, g.t_cancel, g.avg_run_c, g.avg_que_c,
               g.med_run_c, g.med_que_c, g.n_cpu_ok, g.n_cpu_cancel, digits) f
     ORDER BY f.cluster COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_summary_scan(text, integer) IS
  'The scan path of acmetrace.cluster_summary: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.cluster_summary_summary(cluster text, digits integer)
RETURNS TABLE (out_cluster text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
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
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(cluster_summary_summary.cluster);
    RETURN QUERY
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
         WHERE (digits IS NULL OR digits BETWEEN 0 AND 15
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
     ORDER BY f.cluster COLLATE "C";
END
$$;

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
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.cluster_summary_run(per_cluster, a2);
        END LOOP;
        RETURN;
    END IF;
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

CREATE VIEW acmetrace.v_cluster_summary WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.cluster_summary(NULL);
COMMENT ON VIEW acmetrace.v_cluster_summary IS
  'acmetrace.cluster_summary(): the published acme_cluster_summary.csv columns per loaded cluster, rounded to 3 decimals as published.';
