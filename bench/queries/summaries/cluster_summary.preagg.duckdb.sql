-- DuckDB over its pre-aggregates (preagg.duckdb.sql): acmetrace.cluster_summary() as the raw form computes
-- it, from job_rollup's counts, sums and maxima and the medians of job_values' (and job_rollup's gpu_num)
-- value counts: quantile_cont's median is the lerp of the values at the two middle positions, found where
-- the cumulative count passes them.
WITH g AS (
    SELECT cluster, sum(n) AS n,
           coalesce(sum(n) FILTER (WHERE gpu_num = 0), 0) AS n_cpu, coalesce(sum(n) FILTER (WHERE gpu_num > 0), 0) AS n_gpu,
           sum(ds) FILTER (WHERE gpu_num > 0) / sum(dn) FILTER (WHERE gpu_num > 0) AS avg_run_g,
           sum(qs) FILTER (WHERE gpu_num > 0) / sum(qn) FILTER (WHERE gpu_num > 0) AS avg_que_g,
           sum(gpu_num * n) FILTER (WHERE gpu_num > 0) / n_gpu AS avg_gpu,
           max(dmax) FILTER (WHERE gpu_num > 0) AS max_run_g, max(gpu_num) FILTER (WHERE gpu_num > 0) AS max_gpu,
           coalesce(sum(n) FILTER (WHERE gpu_num > 0 AND state = 'COMPLETED'), 0) / n_gpu AS ok_g,
           coalesce(sum(n) FILTER (WHERE gpu_num > 0 AND state = 'CANCELLED'), 0) / n_gpu AS cancel_g,
           sum(dg) FILTER (WHERE gpu_num > 0) AS t_gpu,
           coalesce(sum(dg) FILTER (WHERE gpu_num > 0 AND state = 'COMPLETED'), 0) AS t_ok,
           coalesce(sum(dg) FILTER (WHERE gpu_num > 0 AND state = 'CANCELLED'), 0) AS t_cancel,
           sum(ds) FILTER (WHERE gpu_num = 0) / sum(dn) FILTER (WHERE gpu_num = 0) AS avg_run_c,
           sum(qs) FILTER (WHERE gpu_num = 0) / sum(qn) FILTER (WHERE gpu_num = 0) AS avg_que_c,
           coalesce(sum(n) FILTER (WHERE gpu_num = 0 AND state = 'COMPLETED'), 0) / n_cpu AS ok_c,
           coalesce(sum(n) FILTER (WHERE gpu_num = 0 AND state = 'CANCELLED'), 0) / n_cpu AS cancel_c
      FROM job_rollup GROUP BY cluster),
v AS (  -- the value counts of each line: duration and queue of GPU and of CPU jobs, gpu_num of GPU jobs
    SELECT cluster, measure, gpu, v, sum(n) AS n FROM job_values WHERE measure IN ('duration', 'queue') GROUP BY ALL
    UNION ALL
    SELECT cluster, 'gpu_num', true, gpu_num, sum(n) FROM job_rollup WHERE gpu_num > 0 GROUP BY ALL),
c AS (  -- each value's first position (0-based) and the median's position h in its line
    SELECT *, sum(n) OVER w - n AS pos, 0.5 * (sum(n) OVER (PARTITION BY cluster, measure, gpu) - 1) AS h
      FROM v WINDOW w AS (PARTITION BY cluster, measure, gpu ORDER BY v)),
m AS (  -- the lerp of the values at positions floor(h) and ceil(h)
    SELECT cluster, measure, gpu, lo + (h - floor(h)) * (hi - lo) AS med
      FROM (SELECT cluster, measure, gpu, max(h) AS h,
                   max(v) FILTER (WHERE pos <= floor(h)) AS lo, max(v) FILTER (WHERE pos <= ceil(h)) AS hi
              FROM c GROUP BY cluster, measure, gpu)),
k AS (
    SELECT cluster, any_value(med) FILTER (WHERE measure = 'duration' AND gpu) AS med_run_g,
           any_value(med) FILTER (WHERE measure = 'queue' AND gpu) AS med_que_g,
           any_value(med) FILTER (WHERE measure = 'gpu_num') AS med_gpu,
           any_value(med) FILTER (WHERE measure = 'duration' AND NOT gpu) AS med_run_c,
           any_value(med) FILTER (WHERE measure = 'queue' AND NOT gpu) AS med_que_c
      FROM m GROUP BY cluster)
SELECT cluster, n, n_cpu, n_gpu,
       round_to(avg_run_g, 3), round_to(avg_que_g, 3), round_to(avg_gpu, 3),
       round_to(med_run_g, 3), round_to(med_que_g, 3), round_to(med_gpu, 3),
       round_to(max_run_g, 3), max_gpu::DOUBLE,
       round_to(ok_g, 3), round_to(cancel_g, 3), round_to(1 - cancel_g - ok_g, 3),
       CASE WHEN n_gpu > 0 THEN round_to(t_ok, 3) END, CASE WHEN n_gpu > 0 THEN round_to(t_cancel, 3) END,
       round_to(t_gpu - t_ok - t_cancel, 3),
       round_to(t_ok / nullif(t_gpu, 0), 3), round_to(t_cancel / nullif(t_gpu, 0), 3),
       round_to((t_gpu - t_ok - t_cancel) / nullif(t_gpu, 0), 3),
       round_to(avg_run_c, 3), round_to(avg_que_c, 3), round_to(med_run_c, 3), round_to(med_que_c, 3),
       round_to(ok_c, 3), round_to(cancel_c, 3), round_to(1 - cancel_c - ok_c, 3)
  FROM g LEFT JOIN k USING (cluster) ORDER BY cluster
