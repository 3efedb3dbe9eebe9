-- The "comparison of datacenters" table of the AcmeTrace paper (year,
-- months, jobs, GPUs per job, GPUs), computed for every loaded cluster.
--
-- months = span_days / 30.44 (the mean month, 365.25 / 12), 1 decimal;
-- span_days = last_submit - first_submit in days, 2 decimals;
-- avg_gpus_per_gpu_job = mean gpu_num over jobs with gpu_num > 0, 2 decimals
-- (the paper's "GPUs per job": Acme 6.3 = Seren and Kalos GPU jobs pooled);
-- peak_allocated = most GPUs held at once by started GPU jobs (a job without
-- end_time holds its GPUs to the end; rows with end_time < start_time, which
-- acmetrace.audit reports, are left out).
CREATE FUNCTION acmetrace_internal.trace_comparison_scan(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
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
 WHERE acmetrace_internal.known_cluster(trace_comparison_scan.cluster)
   AND (trace_comparison_scan.cluster IS NULL OR c.cluster = trace_comparison_scan.cluster)
 GROUP BY c.cluster, c.source_format, c.time_zone, c.gpu_capacity
 ORDER BY c.cluster COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace_internal.trace_comparison_scan(text) IS
  'The scan path of acmetrace.trace_comparison: reads acmetrace.jobs.';
