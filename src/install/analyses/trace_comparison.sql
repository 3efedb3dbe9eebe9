-- acmetrace.trace_comparison: the "comparison of datacenters" table of the
-- AcmeTrace paper (year, months, jobs, GPUs per job, GPUs), computed for
-- every loaded cluster.
--
-- months = span_days / 30.44 (the mean month, 365.25 / 12), 1 decimal;
-- span_days = last_submit - first_submit in days, 2 decimals;
-- avg_gpus_per_gpu_job = mean gpu_num over jobs with gpu_num > 0, 2 decimals
-- (the paper's "GPUs per job": Acme 6.3 = Seren and Kalos GPU jobs pooled);
-- peak_allocated = most GPUs held at once by started GPU jobs (a job without
-- end_time holds its GPUs to the end; rows with end_time < start_time, which
-- acmetrace.audit reports, are left out).
CREATE FUNCTION acmetrace_internal.trace_comparison_scan(cluster text DEFAULT NULL)
RETURNS TABLE (out_cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(trace_comparison_scan.cluster);
    RETURN QUERY
SELECT c.cluster, c.source_format,
       date_part('year', min(j.submit_time) AT TIME ZONE c.time_zone)::integer,
       min(j.submit_time), max(j.submit_time),
       round(date_part('epoch', max(j.submit_time) - min(j.submit_time))::numeric / 86400, 2),
       round(date_part('epoch', max(j.submit_time) - min(j.submit_time))::numeric / 86400 / 30.44, 1),
       count(j.job_id),
       count(j.job_id) FILTER (WHERE j.gpu_num > 0),
       round(avg(j.gpu_num) FILTER (WHERE j.gpu_num > 0), 2),
       c.gpu_capacity,
       acmetrace.peak(acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)
                      FILTER (WHERE j.gpu_num > 0 AND NOT coalesce(j.end_time < j.start_time, false)))
  FROM acmetrace.clusters c
  LEFT JOIN acmetrace.jobs j ON j.cluster = c.cluster
 WHERE (trace_comparison_scan.cluster IS NULL OR c.cluster = trace_comparison_scan.cluster)
 GROUP BY c.cluster, c.source_format, c.time_zone, c.gpu_capacity
 ORDER BY c.cluster COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.trace_comparison_scan(text) IS
  'The scan path of acmetrace.trace_comparison: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.trace_comparison_summary(cluster text)
RETURNS TABLE (out_cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(trace_comparison_summary.cluster);
    RETURN QUERY
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
 WHERE (trace_comparison_summary.cluster IS NULL OR c.cluster = trace_comparison_summary.cluster)
 GROUP BY c.cluster, c.source_format, c.time_zone, c.gpu_capacity, sc.peak_allocated
 ORDER BY c.cluster COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.trace_comparison_run(a1 text)
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.trace_comparison_run(per_cluster);
        END LOOP;
        RETURN;
    END IF;
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

CREATE VIEW acmetrace.v_trace_comparison WITH (security_invoker = true) AS
SELECT * FROM acmetrace.trace_comparison(NULL);
COMMENT ON VIEW acmetrace.v_trace_comparison IS
  'acmetrace.trace_comparison() as a view, for BI tools: one row per loaded cluster.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.cluster IS 'Cluster name (acmetrace.clusters.cluster).';
COMMENT ON COLUMN acmetrace.v_trace_comparison.source_format IS 'Format the cluster was loaded from: acme_seren, acme_kalos, helios, philly, generated.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.year IS 'Year of the first submission, in the cluster''s time zone.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.first_submit IS 'Earliest submit_time.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.last_submit IS 'Latest submit_time.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.span_days IS 'last_submit - first_submit in days, rounded to 2 decimals.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.months IS 'span_days / 30.44 (mean month length, 365.25 / 12), rounded to 1 decimal.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.jobs IS 'Number of jobs.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.gpu_jobs IS 'Jobs with gpu_num > 0.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.avg_gpus_per_gpu_job IS 'Mean gpu_num over the GPU jobs, rounded to 2 decimals (the paper''s GPUs per job).';
COMMENT ON COLUMN acmetrace.v_trace_comparison.gpus IS 'GPU capacity (acmetrace.clusters.gpu_capacity); NULL when unknown.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.peak_allocated IS 'Most GPUs allocated at one instant by started GPU jobs (no end_time: held to the end; end_time < start_time: left out).';
