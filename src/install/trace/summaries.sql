-- Summaries of acmetrace.jobs, kept up to date in the transaction that
-- changes the jobs (acmetrace_internal.summarize, run by the loaders,
-- drop_cluster and the statement triggers on acmetrace.jobs and
-- acmetrace.clusters).  The standard analyses read these instead of
-- scanning the jobs; SET acmetrace.summaries = off makes them scan.
-- Derived data: pg_dump does not dump them, a restore rebuilds them.

CREATE TABLE acmetrace.summary_clusters (
    cluster            text PRIMARY KEY,
    jobs               bigint NOT NULL,
    occupancy_capacity bigint,
    peak_allocated     bigint,
    exact              boolean NOT NULL,
    built_at           timestamptz NOT NULL
);
COMMENT ON TABLE acmetrace.summary_clusters IS
  'One row per cluster whose summaries are built: its jobs, the GPU capacity its occupancy bins divide (gpu_capacity, else the observed peak; NULL when a job ends before it starts or holds a negative GPU count, so there is no occupancy), the peak GPUs held by started GPU jobs, whether every duration, queue and wait is finite (else the analyses scan), and when the summaries were built.';

CREATE TABLE acmetrace.summary_jobs (
    cluster            text NOT NULL,
    submit_day         date,
    end_week           date,
    type               text,
    final_state        text NOT NULL,
    gpu_num            integer,
    jobs               bigint NOT NULL,
    duration_n         bigint NOT NULL,
    duration_sum       numeric,
    duration_max       numeric,
    queue_n            bigint NOT NULL,
    queue_sum          numeric,
    gpu_time           numeric,
    gpu_time_published numeric,
    first_submit       timestamptz,
    last_submit        timestamptz
);
CREATE INDEX summary_jobs_cluster ON acmetrace.summary_jobs (cluster, submit_day);
COMMENT ON TABLE acmetrace.summary_jobs IS
  'Jobs per cluster, day of submission and week of end (the cluster''s time zone), type, final state and gpu_num: counts, exact sums and maxima of the published duration and queue, GPU time (duration x gpu_num; gpu_time_published: the published gpu_time, else that), first and last submission.';

CREATE TABLE acmetrace.summary_groups (
    cluster            text NOT NULL,
    type               text,
    final_state        text NOT NULL,
    gpu_num            integer,
    jobs               bigint NOT NULL,
    duration_n         bigint NOT NULL,
    duration_sum       numeric,
    duration_max       numeric,
    queue_n            bigint NOT NULL,
    queue_sum          numeric,
    gpu_time           numeric,
    gpu_time_published numeric,
    first_submit       timestamptz,
    last_submit        timestamptz
);
CREATE INDEX summary_groups_cluster ON acmetrace.summary_groups (cluster);
COMMENT ON TABLE acmetrace.summary_groups IS
  'summary_jobs over all days: one row per cluster, type, final state and gpu_num (a few hundred rows per cluster), what most analyses read.';

CREATE TABLE acmetrace.summary_weeks (
    cluster            text NOT NULL,
    end_week           date,
    type               text,
    final_state        text NOT NULL,
    gpu_num            integer,
    jobs               bigint NOT NULL,
    gpu_time           numeric
);
CREATE INDEX summary_weeks_cluster ON acmetrace.summary_weeks (cluster);
COMMENT ON TABLE acmetrace.summary_weeks IS
  'summary_jobs per week of end (Monday, the cluster''s time zone; NULL: not ended), type, final state and gpu_num: jobs and GPU time.';

CREATE TABLE acmetrace.summary_values (
    cluster       text NOT NULL,
    measure       text NOT NULL CHECK (measure IN ('wait', 'wait_by_occupancy', 'duration', 'queue')),
    type          text,
    all_types     boolean NOT NULL,
    gpu           boolean,
    occupancy_bin integer,
    cancelled     boolean,
    vals          double precision[] NOT NULL,
    counts        bigint[] NOT NULL
);
CREATE INDEX summary_values_cluster ON acmetrace.summary_values (cluster, measure);
-- summarize_delta rewrites a distribution on each change: lz4 (where the
-- server has it) compresses several times faster than the default pglz
DO $$
BEGIN
    ALTER TABLE acmetrace.summary_values ALTER COLUMN vals SET COMPRESSION lz4, ALTER COLUMN counts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;
COMMENT ON TABLE acmetrace.summary_values IS
  'Exact distributions as distinct values (vals, increasing) and their counts: wait (start - submit of GPU jobs that started at or after submission) per type and cancelled or not; wait_by_occupancy per type and tenth of occupancy_capacity allocated at submission; duration per type (all_types: every type) and GPU or CPU job; the published queue per GPU or CPU job.';

-- The time series of the dashboards (acmetrace.v_hourly_allocation,
-- v_daily_jobs, v_daily_queue): additive per hour and per day, so a change
-- of a few jobs adds and subtracts their share (timeseries_delta) and a
-- query reads a cluster's few thousand rows, never its jobs.
CREATE TABLE acmetrace.summary_extents (
    cluster     text PRIMARY KEY,
    first_event timestamptz,
    last_event  timestamptz,
    first_start timestamptz
);
COMMENT ON TABLE acmetrace.summary_extents IS
  'One row per summarized cluster: the earliest and latest finite submit, start or end time of its jobs (what the time series cover) and the first start of a job that holds GPUs (NULL without jobs).';

CREATE TABLE acmetrace.summary_hours (
    cluster    text NOT NULL,
    hour       timestamptz NOT NULL,
    start_gpus bigint NOT NULL,
    end_gpus   bigint NOT NULL,
    corr_s     numeric NOT NULL,
    PRIMARY KEY (cluster, hour)
);
COMMENT ON TABLE acmetrace.summary_hours IS
  'Per cluster and UTC hour with a start or end of a job holding GPUs (gpu_num > 0, started, not ended at or before its start): GPUs of the jobs starting and ending in it, and corr_s = sum of gpu_num x (hour end - start) over the starts minus gpu_num x (hour end - end) over the ends, in GPU-seconds, so the hour holds 3600 x (starts - ends of the hours before) + corr_s.';

CREATE TABLE acmetrace.summary_days (
    cluster         text NOT NULL,
    day             date NOT NULL,
    submitted       bigint NOT NULL,
    completed       bigint NOT NULL,
    failed          bigint NOT NULL,
    cancelled       bigint NOT NULL,
    gpu_s           numeric NOT NULL,
    failed_gpu_s    numeric NOT NULL,
    cancelled_gpu_s numeric NOT NULL,
    waits           bigint NOT NULL,
    wait_sum        numeric NOT NULL,
    wait_vals       double precision[] NOT NULL,
    wait_counts     bigint[] NOT NULL,
    PRIMARY KEY (cluster, day)
);
DO $$
BEGIN
    ALTER TABLE acmetrace.summary_days ALTER COLUMN wait_vals SET COMPRESSION lz4, ALTER COLUMN wait_counts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;
COMMENT ON TABLE acmetrace.summary_days IS
  'Per cluster and local day (the cluster''s time zone): jobs submitted; jobs that ended COMPLETED, FAILED (TIMEOUT and NODE_FAIL included) or CANCELLED; GPU-seconds (published gpu_time, else duration x gpu_num) of GPU jobs that ended, of those failed and cancelled; the waits (start - submit, seconds) of GPU jobs that started that day at or after submission: count, exact sum and value counts (wait_vals increasing, wait_counts).';

-- ---- usage (acmetrace.usage_by_user, usage_by_group) ----
CREATE TABLE acmetrace.summary_usage (
    cluster            text NOT NULL,
    end_day            date NOT NULL,
    user_id            text,
    vc                 text,
    jobs               bigint NOT NULL,
    gpu_jobs           bigint NOT NULL,
    gpu_time           numeric,
    failed_gpu_time    numeric,
    cancelled_gpu_time numeric,
    wait_n             bigint NOT NULL,
    wait_sum           interval,
    wait_vals          double precision[] NOT NULL,
    wait_counts        bigint[] NOT NULL,
    first_submit       timestamptz,
    last_end           timestamptz
);
CREATE INDEX summary_usage_cluster ON acmetrace.summary_usage (cluster, end_day);
COMMENT ON TABLE acmetrace.summary_usage IS
  'Ended jobs per cluster, day of end (the cluster''s time zone), user_id and vc: jobs, GPU jobs, their GPU time (published gpu_time, else duration x gpu_num) in all, failed and cancelled, their waits (start - submit >= 0: count, sum as an exact interval, value counts), first submission and last end; what acmetrace.usage_by_user and usage_by_group read.';
