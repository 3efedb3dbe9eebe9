-- DuckDB: the same per week the jobs ended, Monday in the cluster's zone (clusters.time_zone).
SELECT j.cluster, date_trunc('week', timezone(z.time_zone, to_timestamp(j.end_s)))::DATE AS week, count(*),
       coalesce(sum(duration * gpu_num), 0) AS t,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
       coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c,
       round(100 * f / t, 2), round(100 * c / t, 2)
  FROM jobs j JOIN clusters z USING (cluster)
 WHERE gpu_num > 0 AND end_s IS NOT NULL GROUP BY j.cluster, week ORDER BY j.cluster, week
