-- DuckDB (v_cancelled_by_queue_eval): Eval GPU jobs in 20 s bins of queueing delay up to 300 s (bin, its lower and upper edge), then one open bin.
SELECT cluster, least(floor(wait_s / 20), 15)::INTEGER + 1 AS bin, 20 * (bin - 1), CASE WHEN bin < 16 THEN 20 * bin END, count(*),
       count(*) FILTER (WHERE state = 'CANCELLED'),
       round(100 * count(*) FILTER (WHERE state = 'CANCELLED') / count(*), 2)
  FROM jobs WHERE gpu_num > 0 AND wait_s >= 0 AND type = 'Eval'
 GROUP BY cluster, bin ORDER BY cluster, bin
