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

CREATE FUNCTION acmetrace.trace_seren_csv(cluster text)
RETURNS TABLE (job_id text, "user" text, node_num integer, gpu_num integer, cpu_num integer,
               type text, state text, submit_time text, start_time text, end_time text,
               duration numeric, queue numeric, gpu_time numeric)
LANGUAGE plpgsql
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'trace_seren_csv');
    PERFORM acmetrace_internal.use_cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.node_num, j.gpu_num, j.cpu_num, j.type, j.state,
           to_char(j.submit_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.start_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.end_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
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
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'trace_kalos_csv');
    PERFORM acmetrace_internal.use_cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.node_num, j.gpu_num, j.cpu_num,
           j.mem_per_pod_gb, j.shared_mem_per_pod, j.type, j.state,
           to_char(j.submit_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.start_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.end_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.fail_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
           to_char(j.stop_time, 'YYYY-MM-DD HH24:MI:SSTZH:TZM'),
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
BEGIN
    PERFORM acmetrace_internal.one_cluster(cluster, 'helios_cluster_log_csv');
    PERFORM acmetrace_internal.use_cluster_zone(cluster);
    RETURN QUERY
    SELECT j.job_id, j.user_id, j.vc, j.gpu_num, j.cpu_num, j.node_num, j.state,
           to_char(j.submit_time, 'YYYY-MM-DD HH24:MI:SS'),
           to_char(j.start_time, 'YYYY-MM-DD HH24:MI:SS'),
           to_char(j.end_time, 'YYYY-MM-DD HH24:MI:SS'),
           j.duration, j.queue
      FROM acmetrace.jobs j
     WHERE j.cluster = helios_cluster_log_csv.cluster
     ORDER BY j.submit_time, j.job_id COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.helios_cluster_log_csv(text) IS
  'A cluster''s jobs as rows of Helios cluster_log.csv, for COPY TO (submit order).';
