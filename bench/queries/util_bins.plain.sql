-- GPU utilization samples in 10 bins of 10%: width_bucket and GROUP BY
-- (100 moved into the last bin, as bins closes it), printed the same way.
SELECT '[0:11]=' || array_agg(coalesce(q.c, 0) ORDER BY b.b)::text
  FROM generate_series(0, 11) b(b)
  LEFT JOIN (SELECT CASE WHEN value = 100 THEN 10 ELSE width_bucket(value, 0, 100, 10) END AS b, count(*) AS c
               FROM bench_util_rows GROUP BY 1) q USING (b)
