-- CDF of GPU utilization samples at 0, 1, ..., 100% in plain SQL, the
-- idiomatic way: count the samples per threshold they first fall under (the
-- smallest whole x with value <= x; above 100 and NaN under none), then a
-- cumulative window sum over the thresholds, over the total.
WITH c AS (
    SELECT CASE WHEN value <= 0 THEN 0 WHEN value <= 100 THEN ceil(value)::int ELSE 101 END AS x, count(*) AS n
      FROM bench_util_rows GROUP BY 1
), t AS (SELECT sum(n) AS total FROM c),
cum AS (
    SELECT g.x, sum(coalesce(c.n, 0)) OVER (ORDER BY g.x ROWS UNBOUNDED PRECEDING) AS le
      FROM generate_series(0, 100) g(x) LEFT JOIN c USING (x)
)
SELECT array_agg(le::float8 / t.total * 100 ORDER BY x) FROM cum, t
