-- Slurm accounting (sacct output): the staging table, the Slurm fields
-- acmetrace.jobs has no column for, and the rules that give jobs a type.
--
--   TZ=UTC sacct --allusers --allocations --parsable2 --delimiter=$'\x1f' \
--     --starttime=S --endtime=E --format=JobIDRaw,JobID,Cluster,Partition,QOS,Account,User,JobName,Submit,Eligible,Start,End,State,ExitCode,NNodes,NCPUS,ReqTRES,AllocTRES,Timelimit,NodeList
--   \copy acmetrace.sacct_jobs FROM 'jobs.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
--
-- --parsable2 neither quotes nor escapes, so the delimiter must be a byte no
-- field holds: the unit separator 0x1f. CSV mode with the record separator
-- 0x1e as quote reads every field verbatim (no backslash escapes, no quotes);
-- HEADER match checks the field list; a line with a field too many or too
-- few is COPY's own error, naming the line.

CREATE UNLOGGED TABLE acmetrace.sacct_jobs (
    "JobIDRaw"  text,
    "JobID"     text,
    "Cluster"   text,
    "Partition" text,
    "QOS"       text,
    "Account"   text,
    "User"      text,
    "JobName"   text,
    "Submit"    text,
    "Eligible"  text,
    "Start"     text,
    "End"       text,
    "State"     text,
    "ExitCode"  text,
    "NNodes"    text,
    "NCPUS"     text,
    "ReqTRES"   text,
    "AllocTRES" text,
    "Timelimit" text,
    "NodeList"  text
);
COMMENT ON TABLE acmetrace.sacct_jobs IS
  E'COPY target for sacct output (always empty: jobs move to acmetrace.jobs and acmetrace.slurm_jobs). Load with \\copy acmetrace.sacct_jobs FROM ''jobs.txt'' (FORMAT csv, HEADER match, DELIMITER E''\\x1f'', QUOTE E''\\x1e''); doc/reference.md gives the sacct command line.';

-- One row per Slurm job of acmetrace.jobs: what the common shape has no
-- column for.  Deleted with its job.
CREATE TABLE acmetrace.slurm_jobs (
    cluster       text NOT NULL,
    job_id        text NOT NULL,
    slurm_cluster text NOT NULL,
    slurm_job_id  text NOT NULL,
    partition     text,
    qos           text,
    account       text,
    job_name      text,
    eligible_time timestamptz,
    cancelled_by  text,
    exit_code     integer,
    exit_signal   integer,
    req_gpus      integer,
    alloc_gpus    integer,
    gpu_type      text,
    mem_mb        bigint,
    timelimit_s   bigint,
    nodelist      text,
    PRIMARY KEY (cluster, job_id),
    FOREIGN KEY (cluster, job_id) REFERENCES acmetrace.jobs (cluster, job_id) ON DELETE CASCADE
);
COMMENT ON TABLE acmetrace.slurm_jobs IS
  'The sacct fields of each Slurm job that acmetrace.jobs has no column for; job_id is JobIDRaw, as in acmetrace.jobs.';
COMMENT ON COLUMN acmetrace.slurm_jobs.slurm_cluster IS 'Cluster as sacct prints it (Slurm''s ClusterName): one per acmetrace cluster, so job ids of two Slurm clusters never meet';
COMMENT ON COLUMN acmetrace.slurm_jobs.slurm_job_id IS 'JobID as sacct prints it: 123, an array task 123_4 (a pending range 123_[5-9]), a heterogeneous component 123+1';
COMMENT ON COLUMN acmetrace.slurm_jobs.cancelled_by IS 'The uid of "CANCELLED by <uid>", else NULL';
COMMENT ON COLUMN acmetrace.slurm_jobs.exit_code IS 'ExitCode before the colon (the batch script''s exit status)';
COMMENT ON COLUMN acmetrace.slurm_jobs.exit_signal IS 'ExitCode after the colon (the signal that ended it, 0 if none)';
COMMENT ON COLUMN acmetrace.slurm_jobs.req_gpus IS 'gres/gpu of ReqTRES (0: none asked)';
COMMENT ON COLUMN acmetrace.slurm_jobs.alloc_gpus IS 'gres/gpu of AllocTRES; NULL while nothing is allocated (a pending job). acmetrace.jobs.gpu_num is this, else req_gpus';
COMMENT ON COLUMN acmetrace.slurm_jobs.mem_mb IS 'mem of AllocTRES, else ReqTRES, in MiB';
COMMENT ON COLUMN acmetrace.slurm_jobs.timelimit_s IS 'Timelimit in seconds; NULL for UNLIMITED or Partition_Limit';
COMMENT ON COLUMN acmetrace.slurm_jobs.nodelist IS 'NodeList as sacct prints it (node[01-04]); NULL while none is assigned';

-- Job types by rule: the first rule (lowest position) whose pattern matches
-- gives the type; a job no rule matches is Other.
CREATE TABLE acmetrace.job_type_rules (
    position integer PRIMARY KEY,
    cluster  text,
    field    text NOT NULL CHECK (field IN ('job_name', 'partition', 'qos', 'account', 'user')),
    pattern  text NOT NULL,
    type     text NOT NULL CHECK (type <> '')
);
COMMENT ON TABLE acmetrace.job_type_rules IS
  'Ordered rules giving Slurm jobs their type: the rule with the lowest position whose pattern (a case-insensitive POSIX regular expression) matches the job''s field, among the rules of its cluster and those with cluster NULL; no match: Other. Applied at load; acmetrace.apply_job_type_rules re-applies them to loaded jobs.';

SELECT pg_catalog.pg_extension_config_dump('acmetrace.slurm_jobs', '');
SELECT pg_catalog.pg_extension_config_dump('acmetrace.job_type_rules', '');
