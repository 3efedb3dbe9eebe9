-- Views for dashboards (Metabase, Grafana, Superset): one per analysis,
-- over every loaded cluster, with stable column names and types and a
-- comment on every view and column.  Filter them by cluster (and type) in
-- the BI tool.  Each view runs its function over all clusters, so a filter
-- does not make it cheaper: the functions take a cluster argument when that
-- matters.  The views run with the privileges of the user reading them
-- (security_invoker), so table grants and row-level security still apply.
-- Each view is created with its analysis (src/install/analyses/); this
-- part, after all of them, sets and checks what every view shares.

-- Every view of the extension, wherever it is defined, reads with the
-- reader's privileges.
DO $do$
DECLARE
    v name;
BEGIN
    FOR v IN SELECT c.relname FROM pg_catalog.pg_class c
              WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v'
    LOOP
        EXECUTE format('ALTER VIEW acmetrace.%I SET (security_invoker = true)', v);
    END LOOP;
END
$do$;

-- Column comments: a column name means the same in every view, except
-- where a view overrides it (or was commented where it is defined).  The install fails if any view column is left
-- without a comment, so a new view cannot ship undocumented fields.
DO $do$
DECLARE
    common jsonb := $j${
      "cluster": "Cluster name (acmetrace.clusters.cluster)",
      "type": "Job type as published (Pretrain, Eval, SFT, MLLM, Debug, Other); 'all' for the row of every type together; NULL for jobs without a type",
      "final_state": "COMPLETED, CANCELLED or FAILED (TIMEOUT and NODE_FAIL count as FAILED)",
      "jobs": "Number of GPU jobs",
      "job_pct": "Percent of the jobs (0..100, 2 decimals)",
      "gpu_h": "GPU time in GPU-hours (published duration x gpu_num / 3600, 2 decimals)",
      "gpu_h_pct": "Percent of the GPU time (0..100, 2 decimals)",
      "cdf_pct": "Percent of the line's jobs with a value at or below the threshold (2 decimals)",
      "duration_s": "Threshold, seconds: the CDF counts durations at or below it",
      "queue_s": "Threshold, seconds: the CDF counts queueing delays at or below it",
      "min": "Smallest gpu_num",
      "q1": "First quartile of gpu_num (linear interpolation, 2 decimals)",
      "median": "Median gpu_num (2 decimals)",
      "q3": "Third quartile of gpu_num (linear interpolation, 2 decimals)",
      "max": "Largest gpu_num",
      "lower_whisker": "Smallest gpu_num at or above q1 - 1.5 IQR",
      "upper_whisker": "Largest gpu_num at or below q3 + 1.5 IQR",
      "outliers": "Jobs outside the whiskers",
      "bin": "Bin number, from 1; the last bin is open-ended",
      "gpus_from": "Allocated GPUs at the start of the bin (inclusive, 1 decimal)",
      "gpus_to": "Allocated GPUs at the end of the bin (exclusive, 1 decimal); NULL for the bin at or over capacity",
      "mean_queue_s": "Mean queueing delay (start - submit), seconds, 3 significant digits",
      "median_queue_s": "Median queueing delay, seconds (exact, 3 significant digits)",
      "p90_queue_s": "90th percentile of queueing delay, seconds (exact, 3 significant digits)",
      "queue_from_s": "Queueing delay at the start of the bin, seconds (inclusive)",
      "queue_to_s": "Queueing delay at the end of the bin, seconds (exclusive); NULL for the open last bin",
      "cancelled": "Jobs in the bin that were cancelled",
      "cancelled_job_pct": "Percent of the jobs cancelled (2 decimals); NULL for an empty bin",
      "failed_gpu_h": "GPU-hours of failed jobs (TIMEOUT and NODE_FAIL included), 2 decimals",
      "cancelled_gpu_h": "GPU-hours of cancelled jobs, 2 decimals",
      "failed_gpu_h_pct": "failed_gpu_h as a percent of gpu_h (2 decimals)",
      "cancelled_gpu_h_pct": "cancelled_gpu_h as a percent of gpu_h (2 decimals)",
      "partial": "The period is not wholly covered by the cluster's trace (its first to last submission)",
      "week": "Monday of the week the jobs ended, in the cluster's time zone",
      "category": "Failure category from acmetrace.failure_reasons; NULL for failed jobs nobody classified",
      "reason": "Failure reason from acmetrace.failure_reasons; NULL for failed jobs nobody classified",
      "mean_gpus": "Mean gpu_num (2 decimals)",
      "mean_run_s": "Mean published duration, seconds (3 significant digits)",
      "p50_s": "Median queueing delay (start - submit), seconds, within 0.5%, 3 significant digits",
      "p90_s": "90th percentile of queueing delay, seconds, within 0.5%, 3 significant digits",
      "p99_s": "99th percentile of queueing delay, seconds, within 0.5%, 3 significant digits",
      "mean_s": "Mean queueing delay, seconds, 3 significant digits",
      "max_s": "Largest queueing delay, seconds, 3 significant digits",
      "bin_lo": "Lower edge of the bin (inclusive)",
      "bin_hi": "Upper edge of the bin (exclusive, except 100 in the last bin)",
      "series": "Number of GPUs (or servers) whose average falls in the bin",
      "series_pct": "Percent of GPUs (or servers) whose average falls in the bin (2 decimals)",
      "cumulative_pct": "Percent of GPUs in this bin or below (2 decimals)",
      "job_num": "All jobs",
      "cpu_job_num": "CPU jobs (gpu_num = 0)",
      "gpu_job_num": "GPU jobs (gpu_num > 0)",
      "avg_run_time_gpu": "Mean published duration of GPU jobs, seconds",
      "avg_que_time_gpu": "Mean published queue of GPU jobs, seconds",
      "avg_gpu_num": "Mean gpu_num of GPU jobs",
      "med_run_time_gpu": "Median duration of GPU jobs (mean of the two middle values), seconds",
      "med_que_time_gpu": "Median published queue of GPU jobs, seconds",
      "med_gpu_num": "Median gpu_num of GPU jobs",
      "max_run_time_gpu": "Longest duration of a GPU job, seconds",
      "max_gpu": "Largest gpu_num",
      "complete_rate_gpu": "Share of GPU jobs with state COMPLETED, 0..1 as published",
      "cancel_rate_gpu": "Share of GPU jobs with state CANCELLED, 0..1 as published",
      "fail_rate_gpu": "1 - cancel_rate_gpu - complete_rate_gpu: FAILED, TIMEOUT and NODE_FAIL",
      "complete_gpu_time": "GPU time (duration x gpu_num) of completed GPU jobs, GPU-seconds",
      "cancel_gpu_time": "GPU time of cancelled GPU jobs, GPU-seconds",
      "fail_gpu_time": "GPU time of all GPU jobs minus completed minus cancelled, GPU-seconds",
      "complete_rate_gpu_time": "complete_gpu_time / GPU time of all GPU jobs, 0..1 as published",
      "cancel_rate_gpu_time": "cancel_gpu_time / GPU time of all GPU jobs, 0..1 as published",
      "fail_rate_gpu_time": "fail_gpu_time / GPU time of all GPU jobs, 0..1 as published",
      "avg_run_time_cpu": "Mean duration of CPU jobs, seconds; NULL without CPU jobs",
      "avg_que_time_cpu": "Mean published queue of CPU jobs, seconds",
      "med_run_time_cpu": "Median duration of CPU jobs, seconds",
      "med_que_time_cpu": "Median published queue of CPU jobs, seconds",
      "complete_rate_cpu": "Share of CPU jobs with state COMPLETED, 0..1 as published",
      "cancel_rate_cpu": "Share of CPU jobs with state CANCELLED, 0..1 as published",
      "fail_rate_cpu": "1 - cancel_rate_cpu - complete_rate_cpu"
    }$j$;
    specific jsonb := $j${
      "v_state_by_type.job_pct": "Percent of the type's GPU jobs in this state (2 decimals)",
      "v_state_by_type.gpu_h_pct": "Percent of the type's GPU time spent by jobs in this state (2 decimals)",
      "v_state_breakdown.job_pct": "Percent of the cluster's GPU jobs in this state (2 decimals)",
      "v_state_breakdown.gpu_h_pct": "Percent of the cluster's GPU time spent by jobs in this state (2 decimals)",
      "v_state_breakdown.gpu_h": "GPU time in GPU-hours: published gpu_time, else duration x gpu_num, / 3600 (2 decimals)",
      "v_type_distribution.job_pct": "Percent of the cluster's GPU jobs of this type (2 decimals)",
      "v_type_distribution.gpu_h_pct": "Percent of the cluster's GPU time spent by this type (2 decimals)",
      "v_duration_cdf.cdf_pct": "Percent of the line's GPU jobs whose published duration is at most duration_s seconds (2 decimals)",
      "v_duration_cdf.jobs": "GPU jobs the line is made of (with a published duration)",
      "v_queue_cdf.cdf_pct": "Percent of the line's GPU jobs that waited (start - submit) at most queue_s seconds (2 decimals)",
      "v_queue_cdf.jobs": "GPU jobs the line is made of (started at or after their submission)",
      "v_gpu_num_cdf.gpu_num": "Threshold, GPUs: the line counts jobs using at most this many GPUs",
      "v_gpu_num_cdf.job_pct": "Percent of GPU jobs using at most gpu_num GPUs (2 decimals)",
      "v_gpu_num_cdf.gpu_h_pct": "Percent of GPU time spent by jobs using at most gpu_num GPUs (2 decimals)",
      "v_queue_by_occupancy.jobs": "GPU jobs submitted while allocation was in this bin",
      "v_gpu_time_lost_weekly.jobs": "GPU jobs that ended in the week",
      "v_gpu_time_lost_weekly.partial": "The week is not wholly within the cluster's first to last submission (its first and last weeks, and weeks in which only jobs submitted earlier ended)",
      "v_cancelled_by_queue_eval.cancelled_job_pct": "Percent of the bin's jobs that were cancelled (2 decimals); NULL for an empty bin",
      "v_failure_taxonomy.jobs": "Jobs with this category and reason (or failed and unclassified)",
      "v_failure_taxonomy.gpu_h_pct": "Percent of the GPU time of all classified or failed jobs of the cluster (2 decimals)",
      "v_queue_percentiles.jobs": "GPU jobs that started at or after their submission",
      "v_util_histogram.bin": "Bin number: 1..10 for 0-10% .. 90-100%; 0 below 0 and 11 above 100 when present"
    }$j$;
    r record;
    txt text;
    missing text := '';
BEGIN
    FOR r IN
        SELECT c.relname, a.attname
          FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v' AND c.relname LIKE 'v\_%'
           AND pg_catalog.col_description(c.oid, a.attnum) IS NULL  -- views commented where defined
         ORDER BY c.relname, a.attnum
    LOOP
        txt := coalesce(specific ->> (r.relname || '.' || r.attname), common ->> r.attname);
        IF txt IS NULL THEN
            missing := missing || ' ' || r.relname || '.' || r.attname;
        ELSE
            EXECUTE format('COMMENT ON COLUMN acmetrace.%I.%I IS %L', r.relname, r.attname, txt);
        END IF;
    END LOOP;
    IF missing <> '' THEN
        RAISE EXCEPTION 'view columns without a comment:%', missing
            USING ERRCODE = 'invalid_object_definition',
                  HINT = 'Add the column to the common or specific comments in src/install/surface/views.sql.';
    END IF;
END
$do$;
