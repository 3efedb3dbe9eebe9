-- DuckDB: CDF of GPU utilization samples at 0, 1, ..., 100%, the idiomatic
-- way: count the samples per threshold they first fall under (the smallest
-- whole x with value <= x; above 100 and NaN under none), then a cumulative
-- window sum over the thresholds, over the total.
WITH c AS (
    SELECT CASE WHEN value <= 0 THEN 0 WHEN value <= 100 THEN ceil(value)::BIGINT ELSE 101 END AS x, count(*) AS n
      FROM utilization GROUP BY 1
), t AS (SELECT sum(n) AS total FROM c),
cum AS (
    SELECT r.x, sum(coalesce(c.n, 0)) OVER (ORDER BY r.x ROWS UNBOUNDED PRECEDING) AS le
      FROM range(0, 101) r(x) LEFT JOIN c USING (x)
)
SELECT list(le::DOUBLE / t.total * 100 ORDER BY x) FROM cum, t
