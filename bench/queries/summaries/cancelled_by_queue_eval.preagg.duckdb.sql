-- DuckDB (v_cancelled_by_queue_eval) over its pre-aggregates (preagg.duckdb.sql, job_rollup): Eval GPU jobs in 20 s bins of queueing delay up to 300 s, then one open bin.
SELECT cluster, q20 AS bin, 20 * (q20 - 1), CASE WHEN q20 < 16 THEN 20 * q20 END, sum(n),
       coalesce(sum(n) FILTER (WHERE state = 'CANCELLED'), 0),
       round(100 * coalesce(sum(n) FILTER (WHERE state = 'CANCELLED'), 0) / sum(n), 2)
  FROM job_rollup WHERE gpu_num > 0 AND q20 IS NOT NULL AND type = 'Eval'
 GROUP BY cluster, bin ORDER BY cluster, bin
