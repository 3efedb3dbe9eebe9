-- DuckDB: the same per week the jobs ended, Monday in the cluster's zone (clusters.time_zone), in GPU-hours;
-- partial: the week is not wholly within the cluster's first to last submission.
WITH w AS (
    SELECT j.cluster, any_value(z.time_zone) AS zone, date_trunc('week', timezone(z.time_zone, to_timestamp(j.end_s)))::DATE AS week, count(*) AS n,
           coalesce(sum(duration * gpu_num), 0) AS t,
           coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
           coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c
      FROM jobs j JOIN clusters z USING (cluster)
     WHERE gpu_num > 0 AND end_s IS NOT NULL GROUP BY j.cluster, week),
span AS (SELECT cluster, min(submit_s) AS first_s, max(submit_s) AS last_s FROM jobs GROUP BY cluster)
SELECT w.cluster, w.week, n, round_dec(t / 3600, 2), round_dec(f / 3600, 2), round_dec(c / 3600, 2),
       round(100 * f / t, 2), round(100 * c / t, 2),
       epoch(timezone(zone, w.week::TIMESTAMP)) < first_s OR epoch(timezone(zone, (w.week + 7)::TIMESTAMP)) > last_s
  FROM w JOIN span USING (cluster) ORDER BY w.cluster, w.week
