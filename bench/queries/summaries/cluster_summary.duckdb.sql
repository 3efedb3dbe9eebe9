-- DuckDB: acmetrace.cluster_summary(), acme_cluster_summary.csv's 28 columns per cluster, as the AcmeTrace
-- notebook computes them: GPU jobs (gpu_num > 0) and CPU jobs (gpu_num = 0) apart; averages, medians
-- (quantile_cont: the mean of the two middle values) and maxima skip NULLs; rates count state COMPLETED and
-- CANCELLED, fail = 1 - cancel - complete; fail GPU time = total - complete - cancel; every float rounded
-- to 3 decimals, ties to even (round_to, macros.duckdb.sql); the largest gpu_num as it is.
WITH g AS (
    SELECT cluster, count(*) AS n,
           count(*) FILTER (WHERE gpu_num = 0) AS n_cpu, count(*) FILTER (WHERE gpu_num > 0) AS n_gpu,
           avg(duration) FILTER (WHERE gpu_num > 0) AS avg_run_g, avg(queue) FILTER (WHERE gpu_num > 0) AS avg_que_g,
           avg(gpu_num) FILTER (WHERE gpu_num > 0) AS avg_gpu,
           quantile_cont(duration, 0.5) FILTER (WHERE gpu_num > 0) AS med_run_g,
           quantile_cont(queue, 0.5) FILTER (WHERE gpu_num > 0) AS med_que_g,
           quantile_cont(gpu_num::DOUBLE, 0.5) FILTER (WHERE gpu_num > 0) AS med_gpu,
           max(duration) FILTER (WHERE gpu_num > 0) AS max_run_g, max(gpu_num) FILTER (WHERE gpu_num > 0) AS max_gpu,
           count(*) FILTER (WHERE gpu_num > 0 AND state = 'COMPLETED') / n_gpu AS ok_g,
           count(*) FILTER (WHERE gpu_num > 0 AND state = 'CANCELLED') / n_gpu AS cancel_g,
           sum(duration * gpu_num) FILTER (WHERE gpu_num > 0) AS t_gpu,
           coalesce(sum(duration * gpu_num) FILTER (WHERE gpu_num > 0 AND state = 'COMPLETED'), 0) AS t_ok,
           coalesce(sum(duration * gpu_num) FILTER (WHERE gpu_num > 0 AND state = 'CANCELLED'), 0) AS t_cancel,
           avg(duration) FILTER (WHERE gpu_num = 0) AS avg_run_c, avg(queue) FILTER (WHERE gpu_num = 0) AS avg_que_c,
           quantile_cont(duration, 0.5) FILTER (WHERE gpu_num = 0) AS med_run_c,
           quantile_cont(queue, 0.5) FILTER (WHERE gpu_num = 0) AS med_que_c,
           count(*) FILTER (WHERE gpu_num = 0 AND state = 'COMPLETED') / n_cpu AS ok_c,
           count(*) FILTER (WHERE gpu_num = 0 AND state = 'CANCELLED') / n_cpu AS cancel_c
      FROM jobs GROUP BY cluster)
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
  FROM g ORDER BY cluster
