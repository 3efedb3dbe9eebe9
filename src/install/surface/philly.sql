-- The Philly job log loader (triggers.sql attaches it).

-- Raises from inside a query (a CASE branch); the result type is a dummy.
CREATE FUNCTION acmetrace_internal.philly_invalid(msg text, hint text, code text DEFAULT '22P02')
RETURNS text
LANGUAGE sql
AS $$ SELECT acmetrace_internal.raise(code, msg, hint)::text $$;
COMMENT ON FUNCTION acmetrace_internal.philly_invalid(text, text, text) IS
  'Raises msg with SQLSTATE code and hint; lets the Philly loader reject a value from inside its query.';

-- A Philly time: local wall clock "YYYY-MM-DD HH:MM:SS" read in zone tz.
-- null, "" and "None" (how the trace's own scripts read a missing time) are
-- NULL.  Inlined into the loader's query.
CREATE FUNCTION acmetrace_internal.philly_time(val text, tz text, job text, field text)
RETURNS timestamptz
LANGUAGE sql
AS $$
SELECT CASE
         WHEN val IS NULL OR val IN ('', 'None') THEN NULL
         WHEN val ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?$' THEN val::timestamp AT TIME ZONE tz
         ELSE acmetrace_internal.philly_invalid(
                format('job "%s": %s "%s" is not a time', job, field, val),
                'Philly times are written YYYY-MM-DD HH:MM:SS; a missing time is null or "None".',
                '22007')::timestamptz
       END
$$;
COMMENT ON FUNCTION acmetrace_internal.philly_time(text, text, text, text) IS
  'A Philly time string read in zone tz; null, "" and "None" give NULL, anything else not like 2017-10-07 01:11:39 is an error naming the job.';

-- Statement trigger on acmetrace.philly_job_log.
--
-- Mapping (DOMAIN.md, Philly README):
--   jobid -> job_id (missing: 23502), user -> user_id, vc -> vc;
--   status Pass/Killed/Failed -> COMPLETED/CANCELLED/FAILED, else 22P02;
--   submitted_time -> submit_time;
--   start_time = the first attempt's start_time, end_time = the last
--   attempt's end_time; no attempts: never started, both NULL; a missing
--   time stays NULL (guessing from a neighbour would invent a run time); a
--   last attempt without end_time was still running when the trace ended;
--   gpu_num = GPUs of the last attempt (sum over its servers of the gpus
--   list), node_num = its servers; no attempt or no GPU recorded: NULL, not
--   0, since Philly has no CPU jobs and 0 would count the job as one;
--   cpu_num NULL (not published);
--   duration, queue, gpu_time: Philly publishes none, but the analyses read
--   these columns, so the loader derives them: end - start, start - submit
--   (seconds), duration * gpu_num; NULL when a term is unknown.
CREATE FUNCTION acmetrace_internal.load_philly()
RETURNS trigger
LANGUAGE plpgsql
-- The planner's default guess of 100 rows per JSON set function makes the
-- loader query look huge; JIT then spends ~1 s compiling it for any file.
SET jit = off
AS $$
DECLARE
    saved_tz text := acmetrace_internal.setting('acmetrace.time_zone');
    v_cl     text;
    v_tz     text;
    v_doc    json;
    v_kind   text;
    v_loaded bigint;
    v_gpus   bigint;
BEGIN
    -- Philly times carry no offset.  Default zone America/Los_Angeles: the
    -- cluster is Microsoft's (Redmond) and the trace's utilization files
    -- write their times in PDT/PST.  SET acmetrace.time_zone overrides it;
    -- the zone is recorded in acmetrace.clusters like Helios's.
    IF saved_tz IS NULL THEN
        PERFORM pg_catalog.set_config('acmetrace.time_zone', 'America/Los_Angeles', true);
    END IF;
    v_cl := acmetrace_internal.load_target('philly', 'philly');
    IF saved_tz IS NULL THEN
        PERFORM pg_catalog.set_config('acmetrace.time_zone', '', true);
    END IF;
    SELECT c.time_zone INTO v_tz FROM acmetrace.clusters c WHERE c.cluster = v_cl;

    -- Malformed JSON fails here with 22P02 and the line number.
    SELECT coalesce(string_agg(coalesce(r.line, ''), E'\n' ORDER BY r.line_no), '')::json
      INTO v_doc FROM new_rows r;
    v_kind := json_typeof(v_doc);
    IF v_kind <> 'array' THEN
        PERFORM acmetrace_internal.raise('22P02', format('cluster_job_log must be one JSON array of jobs, not a JSON %s', v_kind),
              'Load Philly''s cluster_job_log file unmodified: [{"status": ..., "jobid": ..., "attempts": [...]}, ...].');
    END IF;

    PERFORM acmetrace_internal.changing(v_cl);   -- the summaries trigger rebuilds v_cl only
    BEGIN
        WITH job AS MATERIALIZED (
            SELECT e.ord, r.jobid, r.status, r."user", r.vc,
                   acmetrace_internal.philly_time(r.submitted_time, v_tz, r.jobid, 'submitted_time') AS submit_time,
                   CASE WHEN r.attempts IS NULL OR json_typeof(r.attempts) = 'null' THEN '[]'::json
                        WHEN json_typeof(r.attempts) = 'array' THEN r.attempts
                        ELSE acmetrace_internal.philly_invalid(format('job "%s": attempts is not a list', r.jobid),
                                                       'attempts is a JSON array of {"start_time", "end_time", "detail"}.')::json
                   END AS attempts
              FROM json_array_elements(v_doc) WITH ORDINALITY AS e(j, ord)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(e.j) = 'object' THEN e.j
                            ELSE acmetrace_internal.philly_invalid(format('element %s of the array is a JSON %s, not a job object', e.ord, json_typeof(e.j)),
                                                           'cluster_job_log is an array of job objects.')::json
                       END)
                   AS r(jobid text, status text, "user" text, vc text, submitted_time text, attempts json)
        ),
        att AS MATERIALIZED (
            SELECT jb.ord, a.n,
                   acmetrace_internal.philly_time(ar.start_time, v_tz, jb.jobid, 'start_time') AS start_time,
                   acmetrace_internal.philly_time(ar.end_time, v_tz, jb.jobid, 'end_time') AS end_time,
                   CASE WHEN ar.detail IS NULL OR json_typeof(ar.detail) = 'null' THEN '[]'::json
                        WHEN json_typeof(ar.detail) = 'array' THEN ar.detail
                        ELSE acmetrace_internal.philly_invalid(format('job "%s": attempt %s: detail is not a list', jb.jobid, a.n),
                                                       'detail is a JSON array of {"ip", "gpus"}.')::json
                   END AS detail
              FROM job jb
             CROSS JOIN LATERAL json_array_elements(jb.attempts) WITH ORDINALITY AS a(x, n)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(a.x) = 'object' THEN a.x
                            ELSE acmetrace_internal.philly_invalid(format('job "%s": attempt %s is not a JSON object', jb.jobid, a.n),
                                                           'attempts is a JSON array of {"start_time", "end_time", "detail"}.')::json
                       END)
                   AS ar(start_time text, end_time text, detail json)
        ),
        srv AS MATERIALIZED (
            SELECT at.ord, at.n, d.ip,
                   CASE WHEN d.gpus IS NULL OR json_typeof(d.gpus) = 'null' THEN '[]'::json
                        WHEN json_typeof(d.gpus) = 'array' THEN d.gpus
                        ELSE acmetrace_internal.philly_invalid(format('job "%s": attempt %s: gpus of server "%s" is not a list', jb.jobid, at.n, d.ip),
                                                       'gpus is a JSON array of GPU names, e.g. ["gpu0", "gpu1"].')::json
                   END AS gpus
              FROM att at
              JOIN job jb ON jb.ord = at.ord
             CROSS JOIN LATERAL json_array_elements(at.detail) AS s(x)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(s.x) = 'object' THEN s.x
                            ELSE acmetrace_internal.philly_invalid(format('job "%s": attempt %s: a server is not a JSON object', jb.jobid, at.n),
                                                           'detail is a JSON array of {"ip", "gpus"}.')::json
                       END)
                   AS d(ip text, gpus json)
        ),
        per_job AS (
            SELECT at.ord, max(at.n) AS n_last,
                   (array_agg(at.start_time ORDER BY at.n))[1] AS start_time,
                   (array_agg(at.end_time ORDER BY at.n DESC))[1] AS end_time
              FROM att at GROUP BY at.ord
        ),
        last_attempt AS (
            SELECT s.ord, count(*) AS node_num, sum(json_array_length(s.gpus)) AS gpu_num
              FROM srv s JOIN per_job p ON p.ord = s.ord AND p.n_last = s.n
             GROUP BY s.ord
        ),
        seen AS (
            INSERT INTO acmetrace.philly_gpus AS pg (cluster, ip, gpu)
            SELECT DISTINCT v_cl, s.ip, g.gpu
              FROM srv s CROSS JOIN LATERAL json_array_elements_text(s.gpus) AS g(gpu)
             WHERE s.ip IS NOT NULL AND g.gpu IS NOT NULL
            ON CONFLICT DO NOTHING
        ),
        mapped AS (
            SELECT CASE WHEN coalesce(jb.jobid, '') = ''
                        THEN acmetrace_internal.philly_invalid(format('element %s of the array has no jobid', jb.ord),
                                                       'Every Philly job has a "jobid" such as "application_1506638472019_14199".',
                                                       '23502')
                        ELSE jb.jobid END AS job_id,
                   jb."user" AS user_id, jb.vc,
                   CASE jb.status
                        WHEN 'Pass'   THEN 'COMPLETED'
                        WHEN 'Killed' THEN 'CANCELLED'
                        WHEN 'Failed' THEN 'FAILED'
                        ELSE acmetrace_internal.philly_invalid(format('job "%s" has %s', jb.jobid, coalesce('unknown status "' || jb.status || '"', 'no status')),
                                                       'Philly statuses are Pass, Killed and Failed (COMPLETED, CANCELLED, FAILED).')
                   END AS state,
                   nullif(la.node_num, 0)::integer AS node_num,
                   nullif(la.gpu_num, 0)::integer AS gpu_num,
                   jb.submit_time, p.start_time, p.end_time
              FROM job jb
              LEFT JOIN per_job p ON p.ord = jb.ord
              LEFT JOIN last_attempt la ON la.ord = jb.ord
        )
        INSERT INTO acmetrace.jobs
               (cluster, job_id, user_id, vc, state, node_num, gpu_num, cpu_num,
                submit_time, start_time, end_time, duration, queue, gpu_time)
        SELECT v_cl, m.job_id, m.user_id, m.vc, m.state, m.node_num, m.gpu_num, NULL,
               m.submit_time, m.start_time, m.end_time,
               date_part('epoch', m.end_time - m.start_time)::numeric,
               date_part('epoch', m.start_time - m.submit_time)::numeric,
               date_part('epoch', m.end_time - m.start_time)::numeric * m.gpu_num
          FROM mapped m;
        GET DIAGNOSTICS v_loaded = ROW_COUNT;
    EXCEPTION WHEN unique_violation THEN
        PERFORM acmetrace_internal.duplicate_error(v_cl, ARRAY(
            SELECT r.jobid FROM json_array_elements(v_doc) AS e(j)
             CROSS JOIN LATERAL json_to_record(e.j) AS r(jobid text)));
    END;

    -- Capacity: the distinct GPUs any attempt ran on, over every file loaded
    -- into the cluster (a lower bound: a GPU no job used is not seen).
    -- (counted first: Citus updates its reference table clusters only
    -- from values, not from a distributed table's rows)
    v_gpus := (SELECT count(*) FROM acmetrace.philly_gpus g WHERE g.cluster = v_cl);
    UPDATE acmetrace.clusters c
       SET gpu_capacity = coalesce(nullif(v_gpus, 0)::integer, c.gpu_capacity)
     WHERE c.cluster = v_cl;
    PERFORM acmetrace_internal.jobs_written(v_cl);

    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    PERFORM acmetrace_internal.analyze_jobs(v_loaded);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.load_philly() IS
  'Trigger of acmetrace.philly_job_log: joins the staged lines in file order, parses them as one JSON array and loads the jobs into acmetrace.jobs (source_format philly).';
