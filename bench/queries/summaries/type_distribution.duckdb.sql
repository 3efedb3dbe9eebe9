-- DuckDB: job types of GPU jobs with shares of jobs and GPU time.
SELECT cluster, type, count(*),
       round(100 * count(*) / sum(count(*)) OVER (PARTITION BY cluster), 2),
       coalesce(sum(duration * gpu_num), 0),
       round(100 * coalesce(sum(duration * gpu_num), 0) / sum(coalesce(sum(duration * gpu_num), 0)) OVER (PARTITION BY cluster), 2)
  FROM jobs WHERE gpu_num > 0 GROUP BY cluster, type ORDER BY cluster, count(*) DESC
