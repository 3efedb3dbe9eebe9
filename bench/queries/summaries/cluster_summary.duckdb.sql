-- DuckDB: acme_cluster_summary.csv's columns per cluster (median() is exact).
SELECT cluster, count(*), count(*) FILTER (WHERE gpu_num = 0), count(*) FILTER (WHERE gpu_num > 0),
       avg(duration) FILTER (WHERE gpu_num > 0), avg(queue) FILTER (WHERE gpu_num > 0),
       avg(gpu_num) FILTER (WHERE gpu_num > 0),
       median(duration) FILTER (WHERE gpu_num > 0), median(queue) FILTER (WHERE gpu_num > 0),
       median(gpu_num) FILTER (WHERE gpu_num > 0),
       max(duration) FILTER (WHERE gpu_num > 0), max(gpu_num) FILTER (WHERE gpu_num > 0),
       avg((state = 'COMPLETED')::int) FILTER (WHERE gpu_num > 0), avg((state = 'CANCELLED')::int) FILTER (WHERE gpu_num > 0),
       sum(duration * gpu_num) FILTER (WHERE gpu_num > 0 AND state = 'COMPLETED'),
       sum(duration * gpu_num) FILTER (WHERE gpu_num > 0 AND state = 'CANCELLED'),
       sum(duration * gpu_num) FILTER (WHERE gpu_num > 0),
       avg(duration) FILTER (WHERE gpu_num = 0), avg(queue) FILTER (WHERE gpu_num = 0),
       median(duration) FILTER (WHERE gpu_num = 0), median(queue) FILTER (WHERE gpu_num = 0),
       avg((state = 'COMPLETED')::int) FILTER (WHERE gpu_num = 0), avg((state = 'CANCELLED')::int) FILTER (WHERE gpu_num = 0)
  FROM jobs GROUP BY cluster ORDER BY cluster
