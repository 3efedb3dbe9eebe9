-- DuckDB: acmetrace.failure_taxonomy(), the failure table over failure_reasons: per (category, reason), and
-- one row (NULL, NULL) for failed jobs nobody classified; mean GPUs (2 decimals), mean duration in seconds (3
-- significant digits, sig3), GPU-hours and the GPU time's percent of the cluster's classified or failed jobs.
SELECT j.cluster, r.category, r.reason, count(*), round_dec(avg(j.gpu_num), 2), sig3(avg(j.duration)),
       round_dec(coalesce(sum(j.duration * j.gpu_num), 0) / 3600, 2),
       round(100 * coalesce(sum(j.duration * j.gpu_num), 0) / sum(coalesce(sum(j.duration * j.gpu_num), 0)) OVER (PARTITION BY j.cluster), 2)
  FROM jobs j LEFT JOIN failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
 WHERE r.job_id IS NOT NULL OR j.final_state = 'FAILED'
 GROUP BY j.cluster, r.category, r.reason ORDER BY j.cluster, r.category IS NULL, coalesce(sum(j.duration * j.gpu_num), 0) DESC
