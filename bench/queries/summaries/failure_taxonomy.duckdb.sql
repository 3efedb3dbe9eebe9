-- DuckDB: the failure table over failure_reasons (classified jobs, and failed ones nobody classified).
SELECT j.cluster, r.category, r.reason, count(*), round(avg(j.gpu_num), 2), avg(j.duration) / 60,
       coalesce(sum(j.duration * j.gpu_num), 0) AS t,
       round(100 * coalesce(sum(j.duration * j.gpu_num), 0) / sum(coalesce(sum(j.duration * j.gpu_num), 0)) OVER (PARTITION BY j.cluster), 2)
  FROM jobs j LEFT JOIN failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
 WHERE r.job_id IS NOT NULL OR j.final_state = 'FAILED'
 GROUP BY j.cluster, r.category, r.reason ORDER BY j.cluster, r.category IS NULL, t DESC
