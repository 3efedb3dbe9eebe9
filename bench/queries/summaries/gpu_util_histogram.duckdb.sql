-- DuckDB: per-GPU average utilization in 10% bins.
WITH a AS (SELECT series, avg(value) AS m FROM utilization GROUP BY series)
SELECT least(floor(m / 10), 9)::INTEGER + 1 AS bin, count(*), round(100 * count(*) / sum(count(*)) OVER (), 2)
  FROM a GROUP BY bin ORDER BY bin
