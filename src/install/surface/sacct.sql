-- Slurm accounting: one line of `sacct --parsable2` output, parsed in C
-- (src/sacct_fns.c, src/core/sacct.c).

CREATE TYPE acmetrace_internal.sacct_row AS (
    job_id        text,
    slurm_job_id  text,
    slurm_cluster text,
    partition     text,
    qos           text,
    account       text,
    user_name     text,
    job_name      text,
    submit_time   timestamp,
    eligible_time timestamp,
    start_time    timestamp,
    end_time      timestamp,
    state         text,
    cancelled_by  text,
    exit_code     integer,
    exit_signal   integer,
    node_num      integer,
    cpu_num       integer,
    gpu_num       integer,
    req_gpus      integer,
    alloc_gpus    integer,
    gpu_type      text,
    mem_mb        bigint,
    timelimit_s   bigint,
    nodelist      text
);
COMMENT ON TYPE acmetrace_internal.sacct_row IS
  'One sacct line, parsed by acmetrace_internal.sacct_parse: job_id is JobIDRaw; slurm_job_id JobID as printed; times without zone (Unknown, None, empty: NULL); state the base word and cancelled_by the uid of CANCELLED by <uid>; exit_code:exit_signal from ExitCode; gpu_num the gres/gpu count of AllocTRES when non-empty, else of ReqTRES, 0 when none; req_gpus/alloc_gpus NULL when that list is empty; gpu_type from gres/gpu:<type>; mem_mb the mem of AllocTRES, else of ReqTRES, in MiB (rounded up); timelimit_s NULL for UNLIMITED and Partition_Limit; nodelist NULL for None assigned. Other empty fields are NULL.';

-- Not STRICT: a NULL line or fields is an error, a NULL element an empty field.
CREATE FUNCTION acmetrace_internal.sacct_parse(line bigint, fields text[])
RETURNS acmetrace_internal.sacct_row
AS 'MODULE_PATHNAME', 'acmetrace_sacct_parse'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.sacct_parse(bigint, text[]) IS
  'One line of sacct --parsable2 output: fields are its 20 fields in the order JobIDRaw, JobID, Cluster, Partition, QOS, Account, User, JobName, Submit, Eligible, Start, End, State, ExitCode, NNodes, NCPUS, ReqTRES, AllocTRES, Timelimit, NodeList (NULL element: empty field). Errors name the line and field, e.g. sacct line 7, field Submit: invalid time "2023-13-01T00:00:00"; SQLSTATE 22007 for times, 0A000 for a job step (run sacct with --allocations), 22P02 for any other malformed field, 22023 for an array that is not 20 fields, 22004 for a NULL line or fields.';
