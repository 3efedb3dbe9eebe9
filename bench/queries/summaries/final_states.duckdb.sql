-- DuckDB: final states of GPU jobs by count and GPU time, with shares.
SELECT cluster, final_state, count(*) AS jobs,
       round(100 * count(*) / sum(count(*)) OVER (PARTITION BY cluster), 2),
       sum(coalesce(gpu_time, duration * gpu_num)) AS t,
       round(100 * sum(coalesce(gpu_time, duration * gpu_num)) / sum(sum(coalesce(gpu_time, duration * gpu_num))) OVER (PARTITION BY cluster), 2)
  FROM jobs WHERE gpu_num > 0 GROUP BY cluster, final_state ORDER BY cluster, final_state
