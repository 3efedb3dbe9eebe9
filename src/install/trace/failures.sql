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
