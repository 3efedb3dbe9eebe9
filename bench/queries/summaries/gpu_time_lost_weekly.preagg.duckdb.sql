-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_rollup): the same per week the jobs ended (Monday in the cluster's zone),
-- in GPU-hours; partial from the first and last submission the rollup keeps.
WITH w AS (
    SELECT cluster, end_week AS week, sum(n) AS n,
           coalesce(sum(dg), 0) AS t,
           coalesce(sum(dg) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
           coalesce(sum(dg) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c
      FROM job_rollup WHERE gpu_num > 0 AND end_week IS NOT NULL GROUP BY cluster, week),
span AS (SELECT r.cluster, any_value(z.time_zone) AS zone, min(first_s) AS first_s, max(last_s) AS last_s
           FROM job_rollup r JOIN clusters z USING (cluster) GROUP BY r.cluster)
SELECT w.cluster, w.week, n, round_dec(t / 3600, 2), round_dec(f / 3600, 2), round_dec(c / 3600, 2),
       round(100 * f / t, 2), round(100 * c / t, 2),
       epoch(timezone(zone, w.week::TIMESTAMP)) < first_s OR epoch(timezone(zone, (w.week + 7)::TIMESTAMP)) > last_s
  FROM w JOIN span USING (cluster) ORDER BY w.cluster, w.week
