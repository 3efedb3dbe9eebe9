-- DuckDB: final states of GPU jobs per type, with shares of the type.
SELECT cluster, type, final_state, count(*),
       round(100 * count(*) / sum(count(*)) OVER (PARTITION BY cluster, type), 2),
       coalesce(sum(duration * gpu_num), 0),
       round(100 * coalesce(sum(duration * gpu_num), 0) / sum(coalesce(sum(duration * gpu_num), 0)) OVER (PARTITION BY cluster, type), 2)
  FROM jobs WHERE gpu_num > 0 GROUP BY cluster, type, final_state ORDER BY cluster, type, final_state
