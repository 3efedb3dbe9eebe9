-- Which GPUs each job ran on, as utilization series names (<host>-gpu<N>):
-- what the scheduler knows and the samples do not say.  Users fill it (for a
-- generated trace from acmetrace.generate_placement); acmetrace.job_utilization
-- reads it for jobs no series carried the label of.  Deleted with its job.
CREATE TABLE acmetrace.job_gpus (
    cluster text NOT NULL,
    job_id  text NOT NULL,
    series  text[] NOT NULL
        CONSTRAINT series_named CHECK (cardinality(series) > 0 AND array_position(series, NULL) IS NULL),
    PRIMARY KEY (cluster, job_id),
    FOREIGN KEY (cluster, job_id) REFERENCES acmetrace.jobs (cluster, job_id) ON DELETE CASCADE
);
COMMENT ON TABLE acmetrace.job_gpus IS
  'The GPUs each job ran on, as utilization series names (10.140.1.29-gpu7): one row per job, filled by the user (e.g. INSERT ... SELECT from acmetrace.generate_placement); acmetrace.job_utilization reads the samples of these series between the job''s start and end. Deleted with its job (drop_cluster included).';
COMMENT ON COLUMN acmetrace.job_gpus.series IS 'The job''s series, as in acmetrace.utilization_blocks.series: at least one, no NULL';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.job_gpus', '');
