-- DuckDB over its pre-aggregates (preagg.duckdb.sql, job_values): p50/p90/p99 of GPU jobs' queueing delay as
-- quantile_disc (the first value whose cumulative count reaches p * jobs), mean (3 decimals) and max, all
-- types and per type, from the delays counted per value.
WITH v AS (
    SELECT cluster, CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, grouping(type) AS g, v, sum(n) AS n
      FROM job_values WHERE measure = 'wait' AND gpu
     GROUP BY GROUPING SETS ((cluster, v), (cluster, type, v))
    HAVING grouping(type) = 1 OR type IS NOT NULL),
c AS (SELECT *, sum(n) OVER (PARTITION BY cluster, type, g ORDER BY v) AS cum, sum(n) OVER (PARTITION BY cluster, type, g) AS jobs FROM v)
SELECT cluster, type, any_value(jobs),
       min(v) FILTER (WHERE cum >= 0.5 * jobs), min(v) FILTER (WHERE cum >= 0.9 * jobs), min(v) FILTER (WHERE cum >= 0.99 * jobs),
       round(sum(v * n) / any_value(jobs), 3), max(v)
  FROM c GROUP BY cluster, type, g ORDER BY cluster, g DESC, type
