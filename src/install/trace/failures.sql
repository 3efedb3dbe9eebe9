-- Failure taxonomy: the traces say a job failed, not why.  Users classify
-- failures from their own logs into acmetrace.failure_reasons, and
-- failure_taxonomy() turns that into the paper's table.

CREATE TABLE acmetrace.failure_reasons (
    cluster  text NOT NULL,
    job_id   text NOT NULL,
    category text NOT NULL,
    reason   text NOT NULL,
    PRIMARY KEY (cluster, job_id),
    -- a reason for a job that is not loaded is a typo; dropping a cluster drops its reasons
    FOREIGN KEY (cluster, job_id) REFERENCES acmetrace.jobs (cluster, job_id) ON DELETE CASCADE
);
COMMENT ON TABLE acmetrace.failure_reasons IS
  'One failure classification per job, filled by the user from their own log analysis (e.g. Infrastructure / NVLink error, Script / FileNotFoundError).';
COMMENT ON COLUMN acmetrace.failure_reasons.category IS 'Broad class, e.g. Infrastructure, Framework, Script';
COMMENT ON COLUMN acmetrace.failure_reasons.reason IS 'Specific reason, e.g. NVLink error, CUDA error, FileNotFoundError';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.failure_reasons', '');

-- Rows are (category, reason) pairs plus one row with NULL category and
-- reason for failed jobs nobody classified, so the shares add up to 100%.
CREATE FUNCTION acmetrace.failure_taxonomy(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus double precision,
               avg_minutes double precision, gpu_time numeric, gpu_time_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, s.t,
           (100 * s.t / nullif(sum(s.t) OVER (PARTITION BY s.cluster), 0))::float8
      FROM (SELECT j.cluster, r.category, r.reason, count(*) AS n,
                   avg(j.gpu_num)::float8 AS g,
                   (avg(j.duration) / 60)::float8 AS m,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
              LEFT JOIN acmetrace.failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
             WHERE (r.job_id IS NOT NULL OR j.final_state = 'FAILED')
               AND (failure_taxonomy.cluster IS NULL OR j.cluster = failure_taxonomy.cluster)
             GROUP BY j.cluster, r.category, r.reason) s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.failure_taxonomy(text) IS
  'The paper''s failure table per cluster: for each (category, reason) in failure_reasons, jobs, average GPUs, average minutes (published duration), GPU time (duration x gpu_num) and percent of the GPU time of all classified or failed jobs. The row with NULL category and reason is failed jobs without a classification.';
