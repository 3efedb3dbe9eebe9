-- DuckDB: GPU utilization samples in 10 bins of 10%, util_bins.plain.sql with
-- PostgreSQL 15's float8 width_bucket(value, 0, 100, 10) spelled out as its
-- float.c computes it (truncating 10 * value / 100 + 1, so 9.999999999999998
-- is in bin 2 there too; NaN is an error), 100 moved into the last bin,
-- printed the same way.
SELECT '[0:11]={' || string_agg(coalesce(q.c, 0)::VARCHAR, ',' ORDER BY b.b) || '}'
  FROM range(0, 12) b(b)
  LEFT JOIN (SELECT CASE WHEN value = 100 THEN 10
                         WHEN isnan(value) THEN error('operand, lower bound, and upper bound cannot be NaN')
                         WHEN value < 0 THEN 0
                         WHEN value >= 100 THEN 11
                         ELSE trunc(10 * value / 100 + 1)::BIGINT END AS b, count(*) AS c
               FROM utilization GROUP BY 1) q USING (b)
