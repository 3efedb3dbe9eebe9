-- DuckDB: CDF of GPU jobs' queueing delay at 0, 1, 2, 4, ... 2^21 s per cluster (type 'all') and type.
WITH b AS (SELECT cluster, type, grouping(type) AS g,
                  CASE WHEN wait_s = 0 THEN -1 WHEN wait_s <= 1 THEN 0 ELSE ceil(log2(wait_s))::INTEGER END AS k, count(*) AS n
             FROM jobs WHERE gpu_num > 0 AND wait_s >= 0
            GROUP BY GROUPING SETS ((cluster, k), (cluster, type, k)))
SELECT cluster, CASE WHEN g = 1 THEN 'all' ELSE type END AS type, CASE WHEN e < 0 THEN 0 ELSE 2 ^ e END AS queue_s, sum(n) AS jobs,
       round(100 * coalesce(sum(n) FILTER (WHERE k <= e), 0) / sum(n), 2) AS cdf_pct
  FROM b, range(-1, 22) t(e)
 WHERE g = 1 OR type IS NOT NULL
 GROUP BY cluster, type, g, e ORDER BY cluster, g DESC, type, e
