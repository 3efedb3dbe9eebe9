-- GPU metrics read from Prometheus (dcgm-exporter's series): the COPY
-- target of the converter's lines (src/core/prometheus.h gives their
-- format; src/prometheus_load.c streams them into
-- acmetrace.utilization_blocks) and the spans of the job labels the
-- samples carried.

CREATE UNLOGGED TABLE acmetrace.prometheus_samples (series text, job text, samples text);
COMMENT ON TABLE acmetrace.prometheus_samples IS
  'COPY target for the lines of acmetrace-prometheus samples (series <host>-gpu<index>, job label or NULL, "<Unix ms>:<value>" pairs; control lines !end and !error): the samples are streamed into acmetrace.utilization_blocks under acmetrace.metric and acmetrace.cluster, the job labels into acmetrace.utilization_jobs (always empty).';

CREATE TABLE acmetrace.utilization_jobs (
    metric   text NOT NULL CONSTRAINT metric_is_upper_case CHECK (metric ~ '^[A-Z][A-Z0-9_]*$'),
    cluster  text NOT NULL,
    series   text NOT NULL,
    job_id   text NOT NULL,
    first_ts timestamptz NOT NULL,
    last_ts  timestamptz NOT NULL,
    CONSTRAINT span_is_ordered CHECK (first_ts <= last_ts),
    PRIMARY KEY (metric, cluster, series, job_id)
);
COMMENT ON TABLE acmetrace.utilization_jobs IS
  'The job label each series'' samples carried (Prometheus''s hpc_job): one row per metric, cluster, series and job, the first and last time of the samples with that label, widened by every load.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization_jobs', '');
