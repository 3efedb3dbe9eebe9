-- DuckDB: the same per week the jobs ended, Monday in the cluster's zone (UTC+8 for Seren).
SELECT cluster, date_trunc('week', make_timestamp(((end_s + 28800) * 1000000)::BIGINT))::DATE AS week, count(*),
       coalesce(sum(duration * gpu_num), 0) AS t,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c,
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM jobs WHERE gpu_num > 0 AND end_s IS NOT NULL GROUP BY cluster, week ORDER BY cluster, week
