-- DuckDB: GPU time of failed and cancelled GPU jobs per type.
SELECT cluster, type, count(*), coalesce(sum(duration * gpu_num), 0) AS t,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c,
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM jobs WHERE gpu_num > 0 GROUP BY cluster, type ORDER BY cluster, type
