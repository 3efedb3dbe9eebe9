-- DuckDB: final states of GPU jobs by count and GPU-hours, with shares.
SELECT cluster, final_state, count(*) AS jobs,
       round(100 * count(*) / sum(count(*)) OVER (PARTITION BY cluster), 2),
       round_dec(sum(coalesce(gpu_time, duration * gpu_num)) / 3600, 2) AS gpu_h,
       round(100 * sum(coalesce(gpu_time, duration * gpu_num)) / sum(sum(coalesce(gpu_time, duration * gpu_num))) OVER (PARTITION BY cluster), 2)
  FROM jobs WHERE gpu_num > 0 GROUP BY cluster, final_state ORDER BY cluster, final_state
