-- Writing a cluster back out in its published format:
--   \copy (SELECT * FROM acmetrace.trace_seren_csv('seren')) TO 'trace_seren.csv' (FORMAT csv, HEADER)
-- Timestamps are written in the cluster's zone with the published offset
-- style; numeric columns keep their published scale ("10.0").

-- Sets TimeZone to the cluster's zone for the rest of the calling function
-- (whose SET clause restores it); errors if the cluster is not loaded.
CREATE FUNCTION acmetrace_internal.use_cluster_zone(cluster text)
RETURNS void
LANGUAGE sql
AS $$ SELECT NULL FROM pg_catalog.set_config('TimeZone', acmetrace_internal.cluster_zone(cluster), true) $$;

-- A time as the published files write it in zone tz: local time and, with
-- offset, its UTC offset (+08:00).  Spelled out rather than left to the
-- session's TimeZone, which a Citus worker running the query does not share.
CREATE FUNCTION acmetrace_internal.local_text(t timestamptz, tz text, with_offset boolean)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT to_char(t AT TIME ZONE tz, 'YYYY-MM-DD HH24:MI:SS')
       || CASE WHEN NOT with_offset THEN ''
               WHEN (t AT TIME ZONE tz) < (t AT TIME ZONE 'UTC')
               THEN '-' || to_char((t AT TIME ZONE 'UTC') - (t AT TIME ZONE tz), 'HH24:MI')
               ELSE '+' || to_char((t AT TIME ZONE tz) - (t AT TIME ZONE 'UTC'), 'HH24:MI') END
$$;
COMMENT ON FUNCTION acmetrace_internal.local_text(timestamptz, text, boolean) IS
  'A time as text in zone tz (YYYY-MM-DD HH24:MI:SS), with its UTC offset (+08:00) when with_offset; NULL for NULL.';

CREATE FUNCTION acmetrace.trace_seren_csv(cluster text)
RETURNS TABLE (job_id text, "user" text, node_num integer, gpu_num integer, cpu_num integer,
               type text, state text, submit_time text, start_time text, end_time text,
               duration numeric, queue numeric, gpu_time numeric)
LANGUAGE plpgsql
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
DECLARE
    tz text;
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'trace_seren_csv');
    tz := acmetrace_internal.cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.node_num, j.gpu_num, j.cpu_num, j.type, j.state,
           acmetrace_internal.local_text(j.submit_time, tz, true),
           acmetrace_internal.local_text(j.start_time, tz, true),
           acmetrace_internal.local_text(j.end_time, tz, true),
           j.duration, j.queue, j.gpu_time
      FROM acmetrace.jobs j
     WHERE j.cluster = trace_seren_csv.cluster
     ORDER BY j.submit_time, j.job_id COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.trace_seren_csv(text) IS
  'A cluster''s jobs as rows of AcmeTrace trace_seren.csv, for COPY TO (submit order).';

CREATE FUNCTION acmetrace.trace_kalos_csv(cluster text)
RETURNS TABLE (job_id text, "user" text, node_num integer, gpu_num integer, cpu_num integer,
               "mem_per_pod_GB" numeric, shared_mem_per_pod numeric,
               type text, state text, submit_time text, start_time text, end_time text,
               fail_time text, stop_time text,
               duration numeric, queue numeric, gpu_time numeric)
LANGUAGE plpgsql
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
DECLARE
    tz text;
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'trace_kalos_csv');
    tz := acmetrace_internal.cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.node_num, j.gpu_num, j.cpu_num,
           j.mem_per_pod_gb, j.shared_mem_per_pod, j.type, j.state,
           acmetrace_internal.local_text(j.submit_time, tz, true),
           acmetrace_internal.local_text(j.start_time, tz, true),
           acmetrace_internal.local_text(j.end_time, tz, true),
           acmetrace_internal.local_text(j.fail_time, tz, true),
           acmetrace_internal.local_text(j.stop_time, tz, true),
           j.duration, j.queue, j.gpu_time
      FROM acmetrace.jobs j
     WHERE j.cluster = trace_kalos_csv.cluster
     ORDER BY j.submit_time, j.job_id COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.trace_kalos_csv(text) IS
  'A cluster''s jobs as rows of AcmeTrace trace_kalos.csv, for COPY TO (submit order).';

CREATE FUNCTION acmetrace.helios_cluster_log_csv(cluster text)
RETURNS TABLE (job_id text, "user" text, vc text, gpu_num integer, cpu_num integer,
               node_num integer, state text, submit_time text, start_time text,
               end_time text, duration numeric, queue numeric)
LANGUAGE plpgsql
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
DECLARE
    tz text;
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'helios_cluster_log_csv');
    tz := acmetrace_internal.cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.vc, j.gpu_num, j.cpu_num, j.node_num, j.state,
           acmetrace_internal.local_text(j.submit_time, tz, false),
           acmetrace_internal.local_text(j.start_time, tz, false),
           acmetrace_internal.local_text(j.end_time, tz, false),
           j.duration, j.queue
      FROM acmetrace.jobs j
     WHERE j.cluster = helios_cluster_log_csv.cluster
     ORDER BY j.submit_time, j.job_id COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.helios_cluster_log_csv(text) IS
  'A cluster''s jobs as rows of Helios cluster_log.csv, for COPY TO (submit order).';
