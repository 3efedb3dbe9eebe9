-- DuckDB over its pre-aggregates (preagg.duckdb.sql): acmetrace.util_histogram: per cluster, each GPU's average GPU_UTIL
-- in 10 bins of 10% (PostgreSQL's width_bucket, 100 in the last bin; bin 0
-- below 0, 11 above 100, empty bins included), with nominal edges, GPUs,
-- percent and cumulative percent of GPUs.
WITH a AS (SELECT cluster, series, s / n AS m FROM util_series),
b AS (SELECT cluster, CASE WHEN m = 100 THEN 10 WHEN m < 0 THEN 0 WHEN m >= 100 THEN 11
                           ELSE trunc(10 * m / 100 + 1)::BIGINT END AS bin, count(*) AS n
        FROM a GROUP BY ALL),
g AS (SELECT c.cluster, r.bin, coalesce(b.n, 0) AS n
        FROM (SELECT DISTINCT cluster FROM a) c CROSS JOIN range(0, 12) r(bin) LEFT JOIN b USING (cluster, bin))
SELECT cluster, bin, CASE WHEN bin = 0 THEN '-Infinity'::DOUBLE ELSE 100.0 * (bin - 1) / 10 END,
       CASE WHEN bin = 11 THEN 'Infinity'::DOUBLE WHEN bin = 10 THEN 100 ELSE 100.0 * bin / 10 END, n,
       round(100.0 * n / sum(n) OVER (PARTITION BY cluster), 2),
       round(100.0 * sum(n) OVER (PARTITION BY cluster ORDER BY bin) / sum(n) OVER (PARTITION BY cluster), 2)
  FROM g ORDER BY cluster, bin
