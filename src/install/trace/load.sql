-- Loading the published files with COPY.
--
-- Each published format has a staging table whose columns are exactly the
-- file's header, so `\copy ... (FORMAT csv, HEADER match)` checks the header
-- and types every cell (errors name the line).  A statement-level trigger
-- then moves the whole file into acmetrace.jobs in one INSERT and empties
-- the staging table: one COPY is one transaction, all or nothing.
--
-- The cluster a file loads as is the format's default (seren, kalos, helios)
-- unless the session sets acmetrace.cluster.

CREATE UNLOGGED TABLE acmetrace.trace_seren (
    job_id      text NOT NULL,
    "user"      text,
    node_num    integer,
    gpu_num     integer,
    cpu_num     integer,
    type        text,
    state       text NOT NULL,
    submit_time timestamptz,
    start_time  timestamptz,
    end_time    timestamptz,
    duration    numeric,
    queue       numeric,
    gpu_time    numeric
);
COMMENT ON TABLE acmetrace.trace_seren IS
  'COPY target for AcmeTrace trace_seren.csv (always empty: rows move to acmetrace.jobs).';

CREATE UNLOGGED TABLE acmetrace.trace_kalos (
    job_id             text NOT NULL,
    "user"             text,
    node_num           integer,
    gpu_num            integer,
    cpu_num            integer,
    "mem_per_pod_GB"   numeric,
    shared_mem_per_pod numeric,
    type               text,
    state              text NOT NULL,
    submit_time        timestamptz,
    start_time         timestamptz,
    end_time           timestamptz,
    fail_time          timestamptz,
    stop_time          timestamptz,
    duration           numeric,
    queue              numeric,
    gpu_time           numeric
);
COMMENT ON TABLE acmetrace.trace_kalos IS
  'COPY target for AcmeTrace trace_kalos.csv (always empty: rows move to acmetrace.jobs).';

-- Helios timestamps carry no offset: they are read in acmetrace.time_zone
-- (default UTC) and that zone is recorded for the cluster.
CREATE UNLOGGED TABLE acmetrace.helios_cluster_log (
    job_id      text NOT NULL,
    "user"      text,
    vc          text,
    gpu_num     integer,
    cpu_num     integer,
    node_num    integer,
    state       text NOT NULL,
    submit_time timestamp,
    start_time  timestamp,
    end_time    timestamp,
    duration    numeric,
    queue       numeric
);
COMMENT ON TABLE acmetrace.helios_cluster_log IS
  'COPY target for Helios cluster_log.csv (always empty: rows move to acmetrace.jobs).';
