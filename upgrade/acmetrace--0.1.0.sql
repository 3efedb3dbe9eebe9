-- FROZEN: never edit.  acmetrace 0.1.0's install script exactly as it shipped;
-- every later version installs through it and the upgrade scripts.
-- acmetrace install script, assembled at build time from src/sql/*.sql.
\echo Use "CREATE EXTENSION acmetrace" to load this file. \quit
-- The normalized job relation and the cluster registry.

CREATE TABLE acmetrace.clusters (
    cluster       text PRIMARY KEY
                  CONSTRAINT cluster_name_is_lower_case
                  CHECK (cluster ~ '^[a-z][a-z0-9_]*$'),
    source_format text NOT NULL
                  CHECK (source_format IN ('acme_seren', 'acme_kalos', 'helios', 'generated', 'philly')),
    gpu_capacity  integer CHECK (gpu_capacity > 0),
    time_zone     text NOT NULL DEFAULT 'UTC'
);
COMMENT ON TABLE acmetrace.clusters IS
  'One row per loaded cluster: its source format, GPU capacity (NULL when unknown) and the time zone its published timestamps are written in.';

-- Published columns are kept exactly as published (numeric keeps "10.0");
-- derived columns are computed from the timestamps and can never drift.
-- The columns analyses filter, group and aggregate by come first, so a scan
-- deforms only the start of each row (aggregates over a million jobs run
-- about 20% faster than with the published column order).
CREATE TABLE acmetrace.jobs (
    cluster      text NOT NULL,
    type         text,
    wait_s       double precision GENERATED ALWAYS AS
                 (date_part('epoch', start_time - submit_time)) STORED,
    run_s        double precision GENERATED ALWAYS AS
                 (date_part('epoch', end_time - start_time)) STORED,
    gpu_s        double precision GENERATED ALWAYS AS
                 (date_part('epoch', end_time - start_time) * gpu_num) STORED,
    gpu_num      integer,
    node_num     integer,
    cpu_num      integer,
    submit_time  timestamptz,
    start_time   timestamptz,
    end_time     timestamptz,
    state        text NOT NULL,
    final_state  text GENERATED ALWAYS AS
                 (CASE WHEN state IN ('TIMEOUT', 'NODE_FAIL') THEN 'FAILED' ELSE state END) STORED,
    job_id       text NOT NULL,
    user_id      text,
    duration     numeric,
    queue        numeric,
    gpu_time     numeric,
    vc               text,
    mem_per_pod_gb   numeric,
    shared_mem_per_pod numeric,
    fail_time    timestamptz,
    stop_time    timestamptz,
    PRIMARY KEY (cluster, job_id)
);
COMMENT ON TABLE acmetrace.jobs IS
  'Every loaded trace in one shape. duration/queue/gpu_time are the published values; run_s, wait_s, gpu_s are derived from the timestamps; final_state maps TIMEOUT and NODE_FAIL to FAILED.';
COMMENT ON COLUMN acmetrace.jobs.final_state IS 'state with TIMEOUT and NODE_FAIL counted as FAILED, as the AcmeTrace paper does';
COMMENT ON COLUMN acmetrace.jobs.run_s IS 'end_time - start_time in seconds (NULL if either is missing)';
COMMENT ON COLUMN acmetrace.jobs.wait_s IS 'start_time - submit_time in seconds (NULL if the job never started)';
COMMENT ON COLUMN acmetrace.jobs.gpu_s IS 'run_s * gpu_num';
COMMENT ON COLUMN acmetrace.jobs.vc IS 'Helios virtual cluster (NULL for other formats)';

-- Both tables hold user data: pg_dump must dump their rows.
SELECT pg_catalog.pg_extension_config_dump('acmetrace.clusters', '');
SELECT pg_catalog.pg_extension_config_dump('acmetrace.jobs', '');

-- The one check behind every "cluster is not loaded" error; returns its zone.
CREATE FUNCTION acmetrace._cluster_zone(cluster text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    tz text;
BEGIN
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = _cluster_zone.cluster;
    IF tz IS NULL THEN
        RAISE EXCEPTION 'cluster "%" is not loaded', cluster
            USING ERRCODE = 'undefined_object',
                  HINT = 'SELECT cluster FROM acmetrace.clusters lists the loaded clusters.';
    END IF;
    RETURN tz;
END
$$;

-- GPU capacity of the clusters DOMAIN.md documents (NULL for others).
CREATE FUNCTION acmetrace._known_capacity(cluster text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE cluster WHEN 'seren' THEN 2288 WHEN 'kalos' THEN 2416 END $$;

CREATE FUNCTION acmetrace.drop_cluster(cluster text)
RETURNS bigint
LANGUAGE plpgsql STRICT
AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM acmetrace._cluster_zone(cluster);
    DELETE FROM acmetrace.jobs j WHERE j.cluster = drop_cluster.cluster;
    GET DIAGNOSTICS n = ROW_COUNT;
    DELETE FROM acmetrace.clusters c WHERE c.cluster = drop_cluster.cluster;
    RETURN n;
END
$$;
COMMENT ON FUNCTION acmetrace.drop_cluster(text) IS
  'Deletes a cluster and all its jobs; returns the number of jobs deleted.';
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

-- Resolves and registers the cluster a load writes to; returns its name.
CREATE FUNCTION acmetrace._load_target(default_cluster text, fmt text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    cl       text := coalesce(nullif(current_setting('acmetrace.cluster', true), ''), default_cluster);
    tz       text;
    have_fmt text;
    have_tz  text;
BEGIN
    IF cl !~ '^[a-z][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'invalid cluster name "%"', cl
            USING ERRCODE = 'invalid_name',
                  HINT = 'Cluster names are lower case letters, digits and _, starting with a letter, e.g. SET acmetrace.cluster = ''' ||
                         coalesce(nullif(regexp_replace(lower(cl), '[^a-z0-9_]', '_', 'g'), ''), 'mycluster') || '''.';
    END IF;
    tz := CASE fmt
              WHEN 'acme_seren' THEN 'Asia/Shanghai'   -- published as +08:00
              WHEN 'acme_kalos' THEN 'UTC'             -- published as +00:00
              ELSE coalesce(nullif(current_setting('acmetrace.time_zone', true), ''), 'UTC')
          END;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names WHERE name = tz)
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_abbrevs WHERE abbrev = tz) THEN
        RAISE EXCEPTION 'unknown time zone "%" in acmetrace.time_zone', tz
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Use a name from pg_timezone_names, e.g. SET acmetrace.time_zone = ''Asia/Shanghai''.';
    END IF;

    INSERT INTO acmetrace.clusters AS c (cluster, source_format, gpu_capacity, time_zone)
    VALUES (cl, fmt,
            acmetrace._known_capacity(cl),
            tz)
    ON CONFLICT ON CONSTRAINT clusters_pkey DO NOTHING;

    SELECT c.source_format, c.time_zone INTO have_fmt, have_tz
      FROM acmetrace.clusters c WHERE c.cluster = cl;
    IF have_fmt <> fmt THEN
        RAISE EXCEPTION 'cluster "%" holds % jobs; this file is in % format', cl, have_fmt, fmt
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'SET acmetrace.cluster to another name to load this file beside it.';
    END IF;
    IF have_tz <> tz THEN
        RAISE EXCEPTION 'cluster "%" was loaded with time zone %, this load uses %', cl, have_tz, tz
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('SET acmetrace.time_zone = %L to append to it.', have_tz);
    END IF;
    RETURN cl;
END
$$;

-- Statement trigger on every staging table.  TG_ARGV: format, default cluster.
-- Explains a unique violation of a load: a job id twice in the file, or
-- already loaded in the cluster.  Shared by every loader; always raises.
CREATE FUNCTION acmetrace._duplicate_error(cl text, ids text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    dup  text;
    ndup bigint;
BEGIN
    SELECT i.id, count(*) OVER () INTO dup, ndup
      FROM unnest(ids) AS i(id) GROUP BY i.id HAVING count(*) > 1
     ORDER BY i.id LIMIT 1;
    IF dup IS NOT NULL THEN
        RAISE EXCEPTION 'job id "%" appears more than once in this file (% duplicated ids); nothing was loaded', dup, ndup
            USING ERRCODE = 'unique_violation',
                  HINT = 'Each job id must be unique within a cluster; check that the file was not concatenated twice.';
    END IF;
    SELECT i.id, count(*) OVER () INTO dup, ndup
      FROM unnest(ids) AS i(id) JOIN acmetrace.jobs j ON j.cluster = cl AND j.job_id = i.id
     ORDER BY i.id LIMIT 1;
    RAISE EXCEPTION 'cluster "%" already holds % of the % jobs in this file (first: job id "%"); nothing was loaded',
                    cl, ndup, cardinality(ids), dup
        USING ERRCODE = 'unique_violation',
              HINT = format('To reload it run SELECT acmetrace.drop_cluster(%L) first; to load it beside the loaded one, SET acmetrace.cluster to another name.', cl);
END
$$;
COMMENT ON FUNCTION acmetrace._duplicate_error(text, text[]) IS
  'Raises the 23505 error of a load whose job ids (ids) repeat within the file or are already loaded in cluster cl.';

CREATE FUNCTION acmetrace._load_staged()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    fmt    text := TG_ARGV[0];
    cl     text := acmetrace._load_target(TG_ARGV[1], fmt);
    tz     text;
    sel    text;
BEGIN
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    sel := CASE fmt
        WHEN 'acme_seren' THEN
            'job_id, "user", type, state, node_num, gpu_num, cpu_num,
             submit_time, start_time, end_time, duration, queue, gpu_time,
             NULL, NULL, NULL, NULL, NULL'
        WHEN 'acme_kalos' THEN
            'job_id, "user", type, state, node_num, gpu_num, cpu_num,
             submit_time, start_time, end_time, duration, queue, gpu_time,
             NULL, "mem_per_pod_GB", shared_mem_per_pod, fail_time, stop_time'
        WHEN 'helios' THEN
            'job_id, "user", NULL, state, node_num, gpu_num, cpu_num,
             submit_time AT TIME ZONE $2, start_time AT TIME ZONE $2,
             end_time AT TIME ZONE $2, duration, queue, NULL,
             vc, NULL, NULL, NULL, NULL'
    END;
    BEGIN
        EXECUTE 'INSERT INTO acmetrace.jobs
                   (cluster, job_id, user_id, type, state, node_num, gpu_num, cpu_num,
                    submit_time, start_time, end_time, duration, queue, gpu_time,
                    vc, mem_per_pod_gb, shared_mem_per_pod, fail_time, stop_time)
                 SELECT $1, ' || sel || ' FROM new_rows'
        USING cl, tz;
    EXCEPTION WHEN unique_violation THEN
        PERFORM acmetrace._duplicate_error(cl, ARRAY(SELECT n.job_id FROM new_rows n));
    END;
    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    -- Fresh statistics: without them the planner takes a just-loaded jobs
    -- table for a few rows and may re-run an aggregate per joined row.
    ANALYZE acmetrace.jobs;
    RETURN NULL;
END
$$;

CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.trace_seren
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_staged('acme_seren', 'seren');
CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.trace_kalos
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_staged('acme_kalos', 'kalos');
CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.helios_cluster_log
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_staged('helios', 'helios');
-- Loading Philly's cluster_job_log (Microsoft, ATC 2019): one JSON array.
--
--   \copy acmetrace.philly_job_log (line) FROM 'cluster_job_log' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
--
-- COPY reads lines, so the file arrives one physical line per row.  Quote
-- \x01 and delimiter \x02 are control bytes that JSON text never contains
-- (inside strings they must be escaped, between tokens only blanks are
-- allowed), and CSV mode has no backslash escapes, so every line arrives
-- verbatim: "\\", "\"" and "\u00e9" reach the JSON parser untouched.  The
-- statement trigger joins the lines in file order (line_no, numbered as COPY
-- reads them), parses the text once as json and maps every job into
-- acmetrace.jobs, all in the COPY's transaction: all or nothing.
--
-- Limits: the joined text is one text value, so the file must be under 1 GB
-- (it is parsed as json: jsonb would cap it near 256 MB); memory use is a
-- few times the file size.  The published cluster_job_log (117,325 jobs)
-- is far below that.

CREATE UNLOGGED TABLE acmetrace.philly_job_log (
    line    text,
    -- COPY evaluates the default row by row as it reads: file order.
    line_no bigint GENERATED ALWAYS AS IDENTITY
);
COMMENT ON TABLE acmetrace.philly_job_log IS
  E'COPY target for Philly cluster_job_log, one physical line per row, loaded with \\copy acmetrace.philly_job_log (line) FROM ''cluster_job_log'' (FORMAT csv, QUOTE E''\\x01'', DELIMITER E''\\x02'') (always empty: jobs move to acmetrace.jobs).';
COMMENT ON COLUMN acmetrace.philly_job_log.line IS 'One line of the file, verbatim.';
COMMENT ON COLUMN acmetrace.philly_job_log.line_no IS 'Increasing in file order; the lines are joined in this order.';

-- Philly publishes no GPU count; the GPUs its jobs ran on are the best
-- measure of the cluster.  A table rather than a count, so that appending a
-- second file counts the union, and drop_cluster clears it (cascade).
CREATE TABLE acmetrace.philly_gpus (
    cluster text NOT NULL REFERENCES acmetrace.clusters ON DELETE CASCADE,
    ip      text NOT NULL,
    gpu     text NOT NULL,
    PRIMARY KEY (cluster, ip, gpu)
);
COMMENT ON TABLE acmetrace.philly_gpus IS
  'Every (server ip, gpu) pair seen in any attempt of a loaded Philly job log; acmetrace.clusters.gpu_capacity of a Philly cluster is their count.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.philly_gpus', '');

-- Raises from inside a query (a CASE branch); the result type is a dummy.
CREATE FUNCTION acmetrace._philly_invalid(msg text, hint text, code text DEFAULT '22P02')
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '%', msg USING ERRCODE = code, HINT = hint;
END
$$;
COMMENT ON FUNCTION acmetrace._philly_invalid(text, text, text) IS
  'Raises msg with SQLSTATE code and hint; lets the Philly loader reject a value from inside its query.';

-- A Philly time: local wall clock "YYYY-MM-DD HH:MM:SS" read in zone tz.
-- null, "" and "None" (how the trace's own scripts read a missing time) are
-- NULL.  Inlined into the loader's query.
CREATE FUNCTION acmetrace._philly_time(val text, tz text, job text, field text)
RETURNS timestamptz
LANGUAGE sql
AS $$
SELECT CASE
         WHEN val IS NULL OR val IN ('', 'None') THEN NULL
         WHEN val ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?$' THEN val::timestamp AT TIME ZONE tz
         ELSE acmetrace._philly_invalid(
                format('job "%s": %s "%s" is not a time', job, field, val),
                'Philly times are written YYYY-MM-DD HH:MM:SS; a missing time is null or "None".',
                '22007')::timestamptz
       END
$$;
COMMENT ON FUNCTION acmetrace._philly_time(text, text, text, text) IS
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
CREATE FUNCTION acmetrace._load_philly()
RETURNS trigger
LANGUAGE plpgsql
-- The planner's default guess of 100 rows per JSON set function makes the
-- loader query look huge; JIT then spends ~1 s compiling it for any file.
SET jit = off
AS $$
DECLARE
    saved_tz text := nullif(current_setting('acmetrace.time_zone', true), '');
    v_cl     text;
    v_tz     text;
    v_doc    json;
    v_kind   text;
BEGIN
    -- Philly times carry no offset.  Default zone America/Los_Angeles: the
    -- cluster is Microsoft's (Redmond) and the trace's utilization files
    -- write their times in PDT/PST.  SET acmetrace.time_zone overrides it;
    -- the zone is recorded in acmetrace.clusters like Helios's.
    IF saved_tz IS NULL THEN
        PERFORM pg_catalog.set_config('acmetrace.time_zone', 'America/Los_Angeles', true);
    END IF;
    v_cl := acmetrace._load_target('philly', 'philly');
    IF saved_tz IS NULL THEN
        PERFORM pg_catalog.set_config('acmetrace.time_zone', '', true);
    END IF;
    SELECT c.time_zone INTO v_tz FROM acmetrace.clusters c WHERE c.cluster = v_cl;

    -- Malformed JSON fails here with 22P02 and the line number.
    SELECT coalesce(string_agg(coalesce(r.line, ''), E'\n' ORDER BY r.line_no), '')::json
      INTO v_doc FROM new_rows r;
    v_kind := json_typeof(v_doc);
    IF v_kind <> 'array' THEN
        RAISE EXCEPTION 'cluster_job_log must be one JSON array of jobs, not a JSON %', v_kind
            USING ERRCODE = 'invalid_text_representation',
                  HINT = 'Load Philly''s cluster_job_log file unmodified: [{"status": ..., "jobid": ..., "attempts": [...]}, ...].';
    END IF;

    BEGIN
        WITH job AS MATERIALIZED (
            SELECT e.ord, r.jobid, r.status, r."user", r.vc,
                   acmetrace._philly_time(r.submitted_time, v_tz, r.jobid, 'submitted_time') AS submit_time,
                   CASE WHEN r.attempts IS NULL OR json_typeof(r.attempts) = 'null' THEN '[]'::json
                        WHEN json_typeof(r.attempts) = 'array' THEN r.attempts
                        ELSE acmetrace._philly_invalid(format('job "%s": attempts is not a list', r.jobid),
                                                       'attempts is a JSON array of {"start_time", "end_time", "detail"}.')::json
                   END AS attempts
              FROM json_array_elements(v_doc) WITH ORDINALITY AS e(j, ord)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(e.j) = 'object' THEN e.j
                            ELSE acmetrace._philly_invalid(format('element %s of the array is a JSON %s, not a job object', e.ord, json_typeof(e.j)),
                                                           'cluster_job_log is an array of job objects.')::json
                       END)
                   AS r(jobid text, status text, "user" text, vc text, submitted_time text, attempts json)
        ),
        att AS MATERIALIZED (
            SELECT jb.ord, a.n,
                   acmetrace._philly_time(ar.start_time, v_tz, jb.jobid, 'start_time') AS start_time,
                   acmetrace._philly_time(ar.end_time, v_tz, jb.jobid, 'end_time') AS end_time,
                   CASE WHEN ar.detail IS NULL OR json_typeof(ar.detail) = 'null' THEN '[]'::json
                        WHEN json_typeof(ar.detail) = 'array' THEN ar.detail
                        ELSE acmetrace._philly_invalid(format('job "%s": attempt %s: detail is not a list', jb.jobid, a.n),
                                                       'detail is a JSON array of {"ip", "gpus"}.')::json
                   END AS detail
              FROM job jb
             CROSS JOIN LATERAL json_array_elements(jb.attempts) WITH ORDINALITY AS a(x, n)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(a.x) = 'object' THEN a.x
                            ELSE acmetrace._philly_invalid(format('job "%s": attempt %s is not a JSON object', jb.jobid, a.n),
                                                           'attempts is a JSON array of {"start_time", "end_time", "detail"}.')::json
                       END)
                   AS ar(start_time text, end_time text, detail json)
        ),
        srv AS MATERIALIZED (
            SELECT at.ord, at.n, d.ip,
                   CASE WHEN d.gpus IS NULL OR json_typeof(d.gpus) = 'null' THEN '[]'::json
                        WHEN json_typeof(d.gpus) = 'array' THEN d.gpus
                        ELSE acmetrace._philly_invalid(format('job "%s": attempt %s: gpus of server "%s" is not a list', jb.jobid, at.n, d.ip),
                                                       'gpus is a JSON array of GPU names, e.g. ["gpu0", "gpu1"].')::json
                   END AS gpus
              FROM att at
              JOIN job jb ON jb.ord = at.ord
             CROSS JOIN LATERAL json_array_elements(at.detail) AS s(x)
             CROSS JOIN LATERAL json_to_record(
                       CASE WHEN json_typeof(s.x) = 'object' THEN s.x
                            ELSE acmetrace._philly_invalid(format('job "%s": attempt %s: a server is not a JSON object', jb.jobid, at.n),
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
                        THEN acmetrace._philly_invalid(format('element %s of the array has no jobid', jb.ord),
                                                       'Every Philly job has a "jobid" such as "application_1506638472019_14199".',
                                                       '23502')
                        ELSE jb.jobid END AS job_id,
                   jb."user" AS user_id, jb.vc,
                   CASE jb.status
                        WHEN 'Pass'   THEN 'COMPLETED'
                        WHEN 'Killed' THEN 'CANCELLED'
                        WHEN 'Failed' THEN 'FAILED'
                        ELSE acmetrace._philly_invalid(format('job "%s" has %s', jb.jobid, coalesce('unknown status "' || jb.status || '"', 'no status')),
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
    EXCEPTION WHEN unique_violation THEN
        PERFORM acmetrace._duplicate_error(v_cl, ARRAY(
            SELECT r.jobid FROM json_array_elements(v_doc) AS e(j)
             CROSS JOIN LATERAL json_to_record(e.j) AS r(jobid text)));
    END;

    -- Capacity: the distinct GPUs any attempt ran on, over every file loaded
    -- into the cluster (a lower bound: a GPU no job used is not seen).
    UPDATE acmetrace.clusters c
       SET gpu_capacity = coalesce(nullif((SELECT count(*) FROM acmetrace.philly_gpus g WHERE g.cluster = v_cl), 0)::integer,
                                   c.gpu_capacity)
     WHERE c.cluster = v_cl;

    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    ANALYZE acmetrace.jobs;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace._load_philly() IS
  'Trigger of acmetrace.philly_job_log: joins the staged lines in file order, parses them as one JSON array and loads the jobs into acmetrace.jobs (source_format philly).';

CREATE TRIGGER load_into_jobs AFTER INSERT ON acmetrace.philly_job_log
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_philly();
-- Writing a cluster back out in its published format:
--   \copy (SELECT * FROM acmetrace.trace_seren_csv('seren')) TO 'trace_seren.csv' (FORMAT csv, HEADER)
-- Timestamps are written in the cluster's zone with the published offset
-- style; numeric columns keep their published scale ("10.0").

-- Sets TimeZone to the cluster's zone for the rest of the calling function
-- (whose SET clause restores it); errors if the cluster is not loaded.
CREATE FUNCTION acmetrace._use_cluster_zone(cluster text)
RETURNS void
LANGUAGE sql
AS $$ SELECT NULL FROM pg_catalog.set_config('TimeZone', acmetrace._cluster_zone(cluster), true) $$;

CREATE FUNCTION acmetrace.trace_seren_csv(cluster text)
RETURNS TABLE (job_id text, "user" text, node_num integer, gpu_num integer, cpu_num integer,
               type text, state text, submit_time text, start_time text, end_time text,
               duration numeric, queue numeric, gpu_time numeric)
LANGUAGE plpgsql STRICT
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
BEGIN
    PERFORM acmetrace._use_cluster_zone(cluster);
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
LANGUAGE plpgsql STRICT
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
BEGIN
    PERFORM acmetrace._use_cluster_zone(cluster);
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
LANGUAGE plpgsql STRICT
SET TimeZone = 'UTC'
AS $$
#variable_conflict use_column
BEGIN
    PERFORM acmetrace._use_cluster_zone(cluster);
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
-- Trace audit: where the published rows break their own documented rules.

-- The checks, as data: name, meaning, and a condition over jobs j joined to
-- clusters c ($1 is the tolerance in seconds).
CREATE FUNCTION acmetrace.audit_checks()
RETURNS TABLE (anomaly text, description text, condition text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
VALUES
 ('duration_mismatch', 'published duration differs from end_time - start_time',
  'abs(j.duration - j.run_s) > $1'),
 ('duration_is_end_minus_submit', 'published duration differs from end_time - start_time but equals end_time - submit_time (queue counted in)',
  'abs(j.duration - j.run_s) > $1 AND abs(j.duration - date_part(''epoch'', j.end_time - j.submit_time)) <= $1'),
 ('queue_mismatch', 'published queue differs from start_time - submit_time',
  'abs(j.queue - j.wait_s) > $1'),
 ('gpu_time_mismatch', 'published gpu_time differs from (end_time - start_time) * gpu_num',
  'abs(j.gpu_time - j.gpu_s) > $1 * j.gpu_num'),
 ('gpu_time_not_duration_x_gpus', 'published gpu_time differs from published duration * gpu_num',
  'abs(j.gpu_time - j.duration * j.gpu_num) > $1 * j.gpu_num'),
 ('end_before_start', 'end_time earlier than start_time',
  'j.end_time < j.start_time'),
 ('start_before_submit', 'start_time earlier than submit_time',
  'j.start_time < j.submit_time'),
 ('never_started', 'no start_time: the job never ran',
  'j.start_time IS NULL'),
 ('missing_end', 'started but no end_time',
  'j.start_time IS NOT NULL AND j.end_time IS NULL'),
 ('missing_submit', 'no submit_time',
  'j.submit_time IS NULL'),
 ('negative_value', 'a negative node_num, gpu_num, cpu_num, duration, queue or gpu_time',
  'least(j.node_num, j.gpu_num, j.cpu_num, j.duration, j.queue, j.gpu_time) < 0'),
 ('gpus_over_capacity', 'gpu_num larger than the cluster''s GPU capacity',
  'j.gpu_num > c.gpu_capacity'),
 ('run_over_one_year', 'end_time - start_time longer than 366 days',
  'j.run_s > 366 * 86400'),
 ('time_out_of_range', 'a timestamp before 2000 or in the future',
  'least(j.submit_time, j.start_time, j.end_time) < ''2000-01-01 UTC'' OR greatest(j.submit_time, j.start_time, j.end_time) > now() + interval ''1 day'''),
 ('unknown_state', 'state not one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL',
  'j.state NOT IN (''COMPLETED'', ''CANCELLED'', ''FAILED'', ''TIMEOUT'', ''NODE_FAIL'')'),
 ('unknown_type', 'type not one of Pretrain, Eval, SFT, MLLM, Debug, Other',
  'j.type NOT IN (''Pretrain'', ''Eval'', ''SFT'', ''MLLM'', ''Debug'', ''Other'')')
$$;
COMMENT ON FUNCTION acmetrace.audit_checks() IS
  'The anomaly checks acmetrace.audit() runs, with their meaning and SQL condition.';

-- PL/pgSQL cannot name an IN and an OUT parameter alike: audit() wraps this.
CREATE FUNCTION acmetrace._audit(in_cluster text, tolerance_s double precision, examples integer)
RETURNS TABLE (cluster text, anomaly text, jobs bigint, example_job_ids text[])
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
    chk    record;
    counts text := '';
    names  text[] := '{}';
    q      text;
BEGIN
    IF tolerance_s IS NULL OR tolerance_s < 0 OR tolerance_s = 'NaN' THEN
        RAISE EXCEPTION 'tolerance_s must be a non-negative number, got %', coalesce(tolerance_s::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Published times are whole seconds; the default tolerance is 1 second.';
    END IF;
    IF examples IS NULL OR examples < 0 THEN
        RAISE EXCEPTION 'examples must be >= 0, got %', coalesce(examples::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF in_cluster IS NOT NULL THEN
        PERFORM acmetrace._cluster_zone(in_cluster);
    END IF;

    -- One scan for every count, then examples only for non-zero checks.
    FOR chk IN SELECT * FROM acmetrace.audit_checks() LOOP
        names  := names || chk.anomaly;
        counts := counts || format(', count(j.job_id) FILTER (WHERE coalesce(%s, false))', chk.condition);
    END LOOP;
    q := 'SELECT g.cluster, u.anomaly, u.n
            FROM (SELECT c.cluster, ARRAY[' || substr(counts, 3) || '] AS ns
                    FROM acmetrace.clusters c
                    LEFT JOIN acmetrace.jobs j ON j.cluster = c.cluster
                   WHERE $2::text IS NULL OR c.cluster = $2
                   GROUP BY c.cluster) g,
                 unnest($3::text[], g.ns) WITH ORDINALITY u(anomaly, n, k)
           ORDER BY g.cluster COLLATE "C", u.k';
    FOR chk IN EXECUTE q USING tolerance_s, in_cluster, names LOOP
        cluster := chk.cluster;
        anomaly := chk.anomaly;
        jobs := chk.n;
        example_job_ids := '{}';
        IF chk.n > 0 AND examples > 0 THEN
            EXECUTE format('SELECT array_agg(job_id) FROM (
                              SELECT j.job_id FROM acmetrace.jobs j
                                JOIN acmetrace.clusters c ON c.cluster = j.cluster
                               WHERE j.cluster = $2 AND (%s)
                               ORDER BY j.submit_time NULLS LAST, j.job_id COLLATE "C"
                               LIMIT $3) s',
                           (SELECT a.condition FROM acmetrace.audit_checks() a WHERE a.anomaly = chk.anomaly))
               INTO example_job_ids USING tolerance_s, chk.cluster, examples;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
CREATE FUNCTION acmetrace.audit(cluster text DEFAULT NULL,
                                tolerance_s double precision DEFAULT 1,
                                examples integer DEFAULT 5)
RETURNS TABLE (cluster text, anomaly text, jobs bigint, example_job_ids text[])
LANGUAGE sql STABLE
AS 'SELECT * FROM acmetrace._audit($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.audit(text, double precision, integer) IS
  'Per cluster and anomaly (see audit_checks()): how many jobs break the rule and the first few job ids in submit order. Differences up to tolerance_s seconds are accepted.';
-- Final-state breakdown of GPU jobs, by job count and by GPU time.

CREATE FUNCTION acmetrace.state_breakdown(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, final_state text, gpu_jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.final_state, s.n,
           s.n::double precision / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::double precision
      FROM (SELECT j.cluster, j.final_state, count(*) AS n,
                   sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0
               AND ($1 IS NULL OR j.cluster = $1)
             GROUP BY j.cluster, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.state_breakdown(text) IS
  'Per cluster and final state, GPU jobs (gpu_num > 0): count and share of jobs, GPU time (published gpu_time, else duration * gpu_num) and share of GPU time. TIMEOUT and NODE_FAIL count as FAILED.';
-- Synthetic traces with the published shape and marginals (src/core/jobgen.c).

CREATE FUNCTION acmetrace.generate_jobs(profile text, n integer, seed integer DEFAULT 1)
RETURNS SETOF acmetrace.trace_seren
AS 'MODULE_PATHNAME', 'acmetrace_generate_jobs'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.generate_jobs(text, integer, integer) IS
  'n synthetic jobs in the trace_seren.csv shape with the marginals of the seren or kalos cluster, started by a capacity-limited FIFO scheduler; the same seed gives the same rows.';

CREATE FUNCTION acmetrace.generate_util(series integer, samples integer, seed integer DEFAULT 1,
                                        start timestamptz DEFAULT '2023-07-01 00:00:00+00',
                                        step_s integer DEFAULT 15,
                                        blank_share double precision DEFAULT 0)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'acmetrace_generate_util'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.generate_util(integer, integer, integer, timestamptz, integer, double precision) IS
  'The lines of a synthetic wide utilization CSV: a header (Time and one column per series), then one line per sample, blank_share of the cells empty.';

-- Loads n generated jobs as a cluster, through the same path as a file.
CREATE FUNCTION acmetrace.load_generated(cluster text, profile text, n integer, seed integer DEFAULT 1)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    loaded bigint;
    saved  text := current_setting('acmetrace.cluster', true);
BEGIN
    IF cluster IS NULL OR profile IS NULL OR n IS NULL OR seed IS NULL THEN
        RAISE EXCEPTION 'load_generated arguments must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    PERFORM pg_catalog.set_config('acmetrace.cluster', cluster, true);
    INSERT INTO acmetrace.trace_seren SELECT * FROM acmetrace.generate_jobs(profile, n, seed);
    GET DIAGNOSTICS loaded = ROW_COUNT;
    UPDATE acmetrace.clusters c
       SET gpu_capacity = acmetrace._known_capacity(profile)
     WHERE c.cluster = load_generated.cluster AND c.gpu_capacity IS NULL;
    PERFORM pg_catalog.set_config('acmetrace.cluster', coalesce(saved, ''), true);
    RETURN loaded;
END
$$;
COMMENT ON FUNCTION acmetrace.load_generated(text, text, integer, integer) IS
  'Generates n jobs with a profile (seren, kalos) and loads them as a cluster, with the profile''s GPU capacity; returns the jobs loaded.';
-- Wide utilization files as long rows.
--
-- The published files have one column per server or GPU (up to 2,288 for
-- per-GPU metrics, over the 1,600-column table limit), so their lines are
-- copied whole into a one-column staging table and unpivoted in C.

CREATE FUNCTION acmetrace.unpivot(header text, line text)
RETURNS TABLE (ts timestamptz, series text, value double precision)
AS 'MODULE_PATHNAME', 'acmetrace_unpivot'
LANGUAGE C STRICT STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.unpivot(text, text) IS
  'One line of a wide utilization CSV as (ts, series, value) rows, one per non-empty value cell; header is the file''s first line.';

-- value and ts first: aggregates over millions of samples then read them at
-- fixed offsets, without walking the text columns.
CREATE TABLE acmetrace.utilization (
    value   double precision NOT NULL,
    ts      timestamptz NOT NULL,
    metric  text NOT NULL,
    cluster text NOT NULL,
    series  text NOT NULL
);
COMMENT ON TABLE acmetrace.utilization IS
  'Utilization samples as long rows: one per metric, cluster, time and series (server, GPU, or Philly machine/GPU). Empty, NA and NaN cells have no row.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization', '');

CREATE UNLOGGED TABLE acmetrace.utilization_lines (line text);
COMMENT ON TABLE acmetrace.utilization_lines IS
  'COPY target for wide utilization files, one line per row (always empty: rows move to acmetrace.utilization).';

CREATE FUNCTION acmetrace._load_utilization()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    metric text := nullif(current_setting('acmetrace.metric', true), '');
    cl     text := nullif(current_setting('acmetrace.cluster', true), '');
    hdr    text;
BEGIN
    IF metric IS NULL OR metric !~ '^[A-Za-z][A-Za-z0-9_]*$' THEN
        RAISE EXCEPTION 'set acmetrace.metric to the metric this file holds (got %)', coalesce(quote_literal(metric), 'nothing')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'For example SET acmetrace.metric = ''NODE_CPU_UTILIZATION''; names are letters, digits and _.';
    END IF;
    IF cl IS NULL OR cl !~ '^[a-z][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'set acmetrace.cluster to the cluster this file describes (got %)', coalesce(quote_literal(cl), 'nothing')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'For example SET acmetrace.cluster = ''seren''; names are lower case letters, digits and _.';
    END IF;
    -- The transition table keeps COPY's order: its first row is the header.
    SELECT n.line INTO hdr FROM new_rows n LIMIT 1;
    IF hdr IS NULL OR lower(split_part(hdr, ',', 1)) NOT IN ('time', '"time"') THEN
        RAISE EXCEPTION 'the first line must be the header (Time,...), got "%"', left(hdr, 60)
            USING ERRCODE = 'bad_copy_file_format',
                  HINT = 'Copy the whole file, header included, in one \copy.';
    END IF;
    INSERT INTO acmetrace.utilization (metric, cluster, ts, series, value)
    SELECT metric, cl, u.ts, u.series, u.value
      FROM new_rows n, acmetrace.unpivot(hdr, n.line) u
     WHERE n.line IS DISTINCT FROM hdr AND n.line <> '';
    DELETE FROM acmetrace.utilization_lines;
    RETURN NULL;
END
$$;

CREATE TRIGGER load_into_utilization AFTER INSERT ON acmetrace.utilization_lines
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_utilization();
-- GPU occupancy: the step function of allocated GPUs over time, as a type,
-- an aggregate that sweeps job start/end events, and accessors.

CREATE TYPE acmetrace.occupancy;

CREATE FUNCTION acmetrace.occupancy_in(cstring)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_in'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_out(acmetrace.occupancy)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_out'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_recv(internal)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_send(acmetrace.occupancy)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.occupancy (
    INPUT = acmetrace.occupancy_in,
    OUTPUT = acmetrace.occupancy_out,
    RECEIVE = acmetrace.occupancy_recv,
    SEND = acmetrace.occupancy_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.occupancy IS
  'GPUs allocated over time, a step function. Text form [["<timestamptz>",<gpus>],...]: each step gives the allocation from its time until the next step; 0 before the first.';

CREATE FUNCTION acmetrace.occupancy_eq(acmetrace.occupancy, acmetrace.occupancy)
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_ne(acmetrace.occupancy, acmetrace.occupancy)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN NOT acmetrace.occupancy_eq($1, $2);

CREATE OPERATOR acmetrace.= (
    LEFTARG = acmetrace.occupancy, RIGHTARG = acmetrace.occupancy,
    FUNCTION = acmetrace.occupancy_eq, COMMUTATOR = OPERATOR(acmetrace.=),
    NEGATOR = OPERATOR(acmetrace.<>)
);
CREATE OPERATOR acmetrace.<> (
    LEFTARG = acmetrace.occupancy, RIGHTARG = acmetrace.occupancy,
    FUNCTION = acmetrace.occupancy_ne, COMMUTATOR = OPERATOR(acmetrace.<>),
    NEGATOR = OPERATOR(acmetrace.=)
);
COMMENT ON OPERATOR acmetrace.= (acmetrace.occupancy, acmetrace.occupancy) IS
  'The two occupancies are the same step function.';

-- Aggregate support: the state is internal (jobs, 24 bytes each).
CREATE FUNCTION acmetrace._occupancy_trans(internal, timestamptz, timestamptz, integer)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_final(internal)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.occupancy_agg(start_time timestamptz, end_time timestamptz, gpus integer) (
    SFUNC = acmetrace._occupancy_trans,
    STYPE = internal,
    FINALFUNC = acmetrace._occupancy_final,
    COMBINEFUNC = acmetrace._occupancy_combine,
    SERIALFUNC = acmetrace._occupancy_serialize,
    DESERIALFUNC = acmetrace._occupancy_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.occupancy_agg(timestamptz, timestamptz, integer) IS
  'GPUs allocated over time by jobs holding gpus over [start_time, end_time); releases count before allocations at the same instant. Rows with NULL start_time or gpus, or 0 GPUs, are ignored; NULL end_time holds for ever; end_time < start_time is an error. No rows give the empty occupancy [].';

-- Accessors.
CREATE FUNCTION acmetrace.gpus_at(occ acmetrace.occupancy, at timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_gpus_at'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.gpus_at(acmetrace.occupancy, timestamptz) IS
  'GPUs allocated at an instant: jobs with start_time <= at < end_time.';

CREATE FUNCTION acmetrace.peak(occ acmetrace.occupancy)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_peak'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.peak(acmetrace.occupancy) IS
  'Highest number of GPUs allocated at any instant (0 for the empty occupancy).';

CREATE FUNCTION acmetrace.occupancy_steps(occ acmetrace.occupancy, OUT at timestamptz, OUT gpus bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_steps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.occupancy_steps(acmetrace.occupancy) IS
  'The steps of an occupancy in time order: from "at" until the next row, "gpus" GPUs are allocated.';

CREATE FUNCTION acmetrace.occupancy_levels(occ acmetrace.occupancy, from_time timestamptz, to_time timestamptz,
                                           OUT gpus bigint, OUT seconds double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_levels'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.occupancy_levels(acmetrace.occupancy, timestamptz, timestamptz) IS
  'Seconds spent at each allocation level within [from_time, to_time), by level.';

CREATE FUNCTION acmetrace.mean_gpus(occ acmetrace.occupancy, from_time timestamptz, to_time timestamptz)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_mean_gpus'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.mean_gpus(acmetrace.occupancy, timestamptz, timestamptz) IS
  'Time-weighted mean of GPUs allocated over [from_time, to_time).';

CREATE FUNCTION acmetrace.allocation_rate(occ acmetrace.occupancy, capacity bigint,
                                          from_time timestamptz, to_time timestamptz)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_allocation_rate'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.allocation_rate(acmetrace.occupancy, bigint, timestamptz, timestamptz) IS
  'mean_gpus over [from_time, to_time) divided by capacity: the share of the cluster''s GPUs allocated on average.';

-- Bins follow width_bucket(gpus, lo, hi, nbins), so they agree with queries
-- that bin gpus_at() the same way.
CREATE FUNCTION acmetrace.occupancy_time_bins(occ acmetrace.occupancy, lo bigint, hi bigint, nbins integer,
                                              from_time timestamptz, to_time timestamptz)
RETURNS TABLE (bin integer, gpus_from double precision, gpus_to double precision,
               seconds double precision, share double precision)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    WITH lv AS (
        SELECT width_bucket(l.gpus::double precision, lo::double precision, hi::double precision, nbins) AS b,
               l.seconds
          FROM acmetrace.occupancy_levels(occ, from_time, to_time) l
    ), bins AS (
        SELECT g AS b FROM generate_series(1, nbins) g
        UNION
        SELECT lv.b FROM lv
    )
    SELECT bins.b,
           CASE WHEN bins.b > 0 THEN lo + (hi - lo)::double precision * (bins.b - 1) / nbins END,
           CASE WHEN bins.b <= nbins THEN lo + (hi - lo)::double precision * bins.b / nbins END,
           coalesce(sum(lv.seconds), 0),
           coalesce(sum(lv.seconds), 0) / extract(epoch FROM to_time - from_time)::double precision
      FROM bins LEFT JOIN lv ON lv.b = bins.b
     GROUP BY bins.b
     ORDER BY bins.b
$$;
COMMENT ON FUNCTION acmetrace.occupancy_time_bins(acmetrace.occupancy, bigint, bigint, integer, timestamptz, timestamptz) IS
  'Seconds within [from_time, to_time) spent in each bin of allocated GPUs, bins as width_bucket(gpus, lo, hi, nbins): 1..nbins always, 0 (below lo) and nbins+1 (hi and above) when time was spent there. share = seconds / window length.';

-- The seed analysis: queueing delay against occupancy, per job type.
CREATE FUNCTION acmetrace.queue_by_occupancy(cluster text, nbins integer DEFAULT 10,
                                             measured_at text DEFAULT 'submit', capacity bigint DEFAULT NULL)
RETURNS TABLE (type text, bin integer, gpus_from double precision, gpus_to double precision, jobs bigint,
               mean_queue_s double precision, median_queue_s double precision, p90_queue_s double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    occ acmetrace.occupancy;
    cap bigint := capacity;
BEGIN
    PERFORM acmetrace._cluster_zone(queue_by_occupancy.cluster);
    IF measured_at IS NULL OR measured_at NOT IN ('submit', 'start') THEN
        RAISE EXCEPTION 'measured_at must be ''submit'' or ''start'', not %', coalesce(quote_literal(measured_at), 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = '''submit'': occupancy when the job arrived; ''start'': when it started.';
    END IF;
    IF nbins IS NULL OR nbins < 1 THEN
        RAISE EXCEPTION 'nbins must be at least 1, not %', coalesce(nbins::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) INTO occ
      FROM acmetrace.jobs j WHERE j.cluster = queue_by_occupancy.cluster;
    IF cap IS NULL THEN
        SELECT c.gpu_capacity INTO cap FROM acmetrace.clusters c WHERE c.cluster = queue_by_occupancy.cluster;
    END IF;
    -- unknown capacity: bin up to the observed peak
    cap := coalesce(cap, nullif(acmetrace.peak(occ), 0), 1);
    IF cap < 1 THEN
        RAISE EXCEPTION 'capacity must be positive, not %', cap USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    SELECT s.type, s.b,
           (cap::double precision * (s.b - 1) / nbins),
           CASE WHEN s.b <= nbins THEN cap::double precision * s.b / nbins END,
           count(*),
           avg(s.q),
           percentile_cont(0.5) WITHIN GROUP (ORDER BY s.q),
           percentile_cont(0.9) WITHIN GROUP (ORDER BY s.q)
      FROM (SELECT j.type,
                   width_bucket(acmetrace.gpus_at(occ, CASE measured_at WHEN 'submit' THEN j.submit_time
                                                                        ELSE j.start_time END)::double precision,
                                0, cap::double precision, nbins) AS b,
                   j.queue::double precision AS q
              FROM acmetrace.jobs j
             WHERE j.cluster = queue_by_occupancy.cluster
               AND j.gpu_num > 0
               AND j.queue IS NOT NULL
               AND CASE measured_at WHEN 'submit' THEN j.submit_time ELSE j.start_time END IS NOT NULL) s
     GROUP BY s.type, s.b
     ORDER BY s.type COLLATE "C", s.b;
END
$$;
COMMENT ON FUNCTION acmetrace.queue_by_occupancy(text, integer, text, bigint) IS
  'Queueing delay (published queue column, seconds) of GPU jobs by job type and by bin of GPUs allocated when the job was submitted (or started): width_bucket(gpus_at, 0, capacity, nbins); bin nbins+1 is at or over capacity. capacity defaults to the cluster''s, else the observed peak.';
-- delay_sketch: a mergeable quantile sketch with a guaranteed relative
-- error, its aggregates, accessors, and queueing-delay percentiles.

CREATE TYPE acmetrace.delay_sketch;

CREATE FUNCTION acmetrace.delay_sketch_in(cstring)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_out(acmetrace.delay_sketch)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_sketch_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_recv(internal)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_send(acmetrace.delay_sketch)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_sketch_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.delay_sketch (
    INPUT = acmetrace.delay_sketch_in,
    OUTPUT = acmetrace.delay_sketch_out,
    RECEIVE = acmetrace.delay_sketch_recv,
    SEND = acmetrace.delay_sketch_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.delay_sketch IS
  'Quantile sketch of non-negative values: every percentile is within the relative error (default 0.5%) of the value of that rank; mergeable with acmetrace.rollup. Text form v1 err=<e> n=<count> zeros=<count> min=<x> max=<x> sum=<x> int=<0|1> b=<bucket>:<count>,+<step>:<count>...';

-- Aggregate support: the state is an internal bucket array.
CREATE FUNCTION acmetrace._sketch_trans(internal, double precision)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_trans(internal, double precision, double precision)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_rollup_trans(internal, acmetrace.delay_sketch)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_sketch_rollup_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_sketch_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_sketch_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_sketch_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_final(internal)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision) (
    SFUNC = acmetrace._sketch_trans,
    STYPE = internal,
    SSPACE = 16384,
    FINALFUNC = acmetrace._sketch_final,
    COMBINEFUNC = acmetrace._sketch_combine,
    SERIALFUNC = acmetrace._sketch_serialize,
    DESERIALFUNC = acmetrace._sketch_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision) IS
  'Sketch of the non-NULL values with relative error 0.005: each percentile is within 0.5% of the value of that rank. Values must be >= 0 and finite; no values give NULL.';

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision, relative_error double precision) (
    SFUNC = acmetrace._sketch_trans,
    STYPE = internal,
    SSPACE = 16384,
    FINALFUNC = acmetrace._sketch_final,
    COMBINEFUNC = acmetrace._sketch_combine,
    SERIALFUNC = acmetrace._sketch_serialize,
    DESERIALFUNC = acmetrace._sketch_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision, double precision) IS
  'Sketch of the non-NULL values with the given relative error (0.001 to 0.25, constant within a group). Values must be >= 0 and finite; no values give NULL.';

CREATE AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) (
    SFUNC = acmetrace._sketch_rollup_trans,
    STYPE = internal,
    SSPACE = 16384,
    FINALFUNC = acmetrace._sketch_final,
    COMBINEFUNC = acmetrace._sketch_combine,
    SERIALFUNC = acmetrace._sketch_serialize,
    DESERIALFUNC = acmetrace._sketch_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) IS
  'Merges stored sketches into one, exactly as if one sketch had seen all their values. The sketches must share a relative error; NULLs are skipped.';

-- Accessors.
CREATE FUNCTION acmetrace.percentile(sketch acmetrace.delay_sketch, fraction double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_percentile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.percentile(acmetrace.delay_sketch, double precision) IS
  'Value at the rank percentile_disc(fraction) would pick, within the sketch''s relative error; exact for 0, for the minimum and maximum, and for small integers. NULL for an empty sketch.';

CREATE FUNCTION acmetrace.percentiles(sketch acmetrace.delay_sketch, fractions double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'acmetrace_sketch_percentiles'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.percentiles(acmetrace.delay_sketch, double precision[]) IS
  'acmetrace.percentile for each fraction, in an array of the same shape (NULL fractions give NULL).';

CREATE FUNCTION acmetrace.rank_of(sketch acmetrace.delay_sketch, value double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_rank_of'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.rank_of(acmetrace.delay_sketch, double precision) IS
  'Fraction of the values <= value (the CDF): at least the true fraction and at most the true fraction at value * (1 + e) / (1 - e); exact below the minimum, from the maximum up, and for small integers.';

CREATE FUNCTION acmetrace.count(sketch acmetrace.delay_sketch)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_sketch_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.count(acmetrace.delay_sketch) IS
  'Number of values in the sketch. Call it schema-qualified: count(x) is also the SQL aggregate.';

CREATE FUNCTION acmetrace.mean(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_mean'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.mean(acmetrace.delay_sketch) IS
  'Mean of the values (their float8 sum over the count); NULL for an empty sketch.';

CREATE FUNCTION acmetrace.min(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_min'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.min(acmetrace.delay_sketch) IS
  'Smallest value, exactly; NULL for an empty sketch. Call it schema-qualified.';

CREATE FUNCTION acmetrace.max(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_max'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.max(acmetrace.delay_sketch) IS
  'Largest value, exactly; NULL for an empty sketch. Call it schema-qualified.';

CREATE FUNCTION acmetrace.relative_error(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_relative_error'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.relative_error(acmetrace.delay_sketch) IS
  'The relative error the sketch was built with.';

-- Queueing delay percentiles, for reports and BI tools.
CREATE FUNCTION acmetrace._queue_sketches(cluster text, gpu_jobs_only boolean,
                                          OUT type text, OUT sketch acmetrace.delay_sketch)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_queue_sketches'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION acmetrace._queue_sketches(text, boolean) IS
  'One scan of acmetrace.jobs: delay_sketch_agg(wait_s) per type for a cluster (wait_s >= 0). Refuses to run under row-level security.';

CREATE FUNCTION acmetrace.queue_percentiles(cluster text,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            gpu_jobs_only boolean DEFAULT false)
RETURNS TABLE (type text, jobs bigint, percentiles double precision[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    PERFORM acmetrace._cluster_zone(queue_percentiles.cluster);
    IF fractions IS NULL OR gpu_jobs_only IS NULL THEN
        RAISE EXCEPTION 'fractions and gpu_jobs_only must not be NULL'
            USING ERRCODE = 'null_value_not_allowed', HINT = 'Pass e.g. ''{0.5,0.9,0.99}'' and false.';
    END IF;
    IF row_security_active('acmetrace.jobs') THEN
        -- the one-scan C path would bypass the policies: ask the executor
        RETURN QUERY
        SELECT s.type, acmetrace.count(s.sk), acmetrace.percentiles(s.sk, fractions), s.sk
          FROM (SELECT j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
                  FROM acmetrace.jobs j
                 WHERE j.cluster = queue_percentiles.cluster
                   AND j.wait_s >= 0
                   AND (NOT gpu_jobs_only OR j.gpu_num > 0)
                 GROUP BY j.type) s
         ORDER BY s.type;
    ELSE
        RETURN QUERY
        SELECT q.type, acmetrace.count(q.sketch), acmetrace.percentiles(q.sketch, fractions), q.sketch
          FROM acmetrace._queue_sketches(queue_percentiles.cluster, gpu_jobs_only) q
         ORDER BY q.type;
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace.queue_percentiles(text, double precision[], boolean) IS
  'Queueing delay (start_time - submit_time, seconds) percentiles per job type, within 0.5%, in one scan; jobs that never started or started before their submit time are left out. The sketch column rolls up: acmetrace.rollup(sketch) is the whole cluster.';

CREATE VIEW acmetrace.queue_delay_summary AS
SELECT s.cluster, s.type, acmetrace.count(s.sk) AS jobs,
       acmetrace.percentile(s.sk, 0.5) AS p50_s,
       acmetrace.percentile(s.sk, 0.9) AS p90_s,
       acmetrace.percentile(s.sk, 0.99) AS p99_s,
       acmetrace.mean(s.sk) AS mean_s,
       acmetrace.max(s.sk) AS max_s
  FROM (SELECT j.cluster, j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
          FROM acmetrace.jobs j
         WHERE j.wait_s >= 0
         GROUP BY j.cluster, j.type) s;
COMMENT ON VIEW acmetrace.queue_delay_summary IS
  'Queueing delay per cluster and job type: jobs, p50/p90/p99 (within 0.5%), mean and max in seconds. Jobs that never started or started before their submit time are left out.';
-- Bins and CDFs: four parallel aggregates, a companion that turns bin
-- counts into rows, and the paper's figures on top of them.

CREATE FUNCTION acmetrace._bins_trans(internal, double precision, double precision, double precision, integer)
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_bins_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_at_trans(internal, double precision, double precision[])
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_bins_at_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._cdf_trans(internal, double precision, double precision[])
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_cdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._wcdf_trans(internal, double precision, double precision, double precision[])
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_wcdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._hist_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_hist_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._hist_serialize(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'acmetrace_hist_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION acmetrace._hist_deserialize(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'acmetrace_hist_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_final(internal)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'acmetrace_bins_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._cdf_final(internal)
RETURNS double precision[] AS 'MODULE_PATHNAME', 'acmetrace_cdf_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.bins(value double precision, lo double precision, hi double precision, nbins integer) (
    SFUNC = acmetrace._bins_trans, STYPE = internal, FINALFUNC = acmetrace._bins_final,
    COMBINEFUNC = acmetrace._hist_combine, SERIALFUNC = acmetrace._hist_serialize,
    DESERIALFUNC = acmetrace._hist_deserialize, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins(double precision, double precision, double precision, integer) IS
  'Counts in nbins equal-width bins over [lo, hi], as bigint[] indexed 0..nbins+1: [0] below lo, [i] bin i (closed on the left, bin nbins also on the right), [nbins+1] above hi. Inside [lo, hi) the bin is width_bucket''s. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.bins_at(value double precision, edges double precision[]) (
    SFUNC = acmetrace._bins_at_trans, STYPE = internal, FINALFUNC = acmetrace._bins_final,
    COMBINEFUNC = acmetrace._hist_combine, SERIALFUNC = acmetrace._hist_serialize,
    DESERIALFUNC = acmetrace._hist_deserialize, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins_at(double precision, double precision[]) IS
  'Counts between k+1 increasing edges, as bigint[] indexed 0..k+1: [0] below the first edge, [i] for [edge i, edge i+1) (the last bin closed), [k+1] above the last edge. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.cdf_at(value double precision, thresholds double precision[]) (
    SFUNC = acmetrace._cdf_trans, STYPE = internal, FINALFUNC = acmetrace._cdf_final,
    COMBINEFUNC = acmetrace._hist_combine, SERIALFUNC = acmetrace._hist_serialize,
    DESERIALFUNC = acmetrace._hist_deserialize, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.cdf_at(double precision, double precision[]) IS
  'Percent of the non-NULL, non-NaN values <= each threshold, in the thresholds'' order (the AcmeTrace notebook''s len(v[v <= x]) / len(v) * 100). No values give NULL.';

CREATE AGGREGATE acmetrace.weighted_cdf_at(value double precision, weight double precision, thresholds double precision[]) (
    SFUNC = acmetrace._wcdf_trans, STYPE = internal, FINALFUNC = acmetrace._cdf_final,
    COMBINEFUNC = acmetrace._hist_combine, SERIALFUNC = acmetrace._hist_serialize,
    DESERIALFUNC = acmetrace._hist_deserialize, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.weighted_cdf_at(double precision, double precision, double precision[]) IS
  'Percent of the total weight carried by rows with value <= each threshold (rows with a NULL or NaN value or weight are left out; negative or infinite weights are errors). Zero total weight gives NULL.';

-- Threshold helpers for the paper's axes.  PL/pgSQL, not SQL: an inlined
-- SQL body becomes a sub-select evaluated at run time, while an immutable
-- non-inlinable call with constant arguments is folded into a constant by
-- the planner, which the aggregates then check once instead of per row.
CREATE FUNCTION acmetrace.powers_of_two(from_exp integer, to_exp integer)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$ BEGIN RETURN ARRAY(SELECT 2.0::float8 ^ i FROM generate_series(from_exp, to_exp) i); END $$;
COMMENT ON FUNCTION acmetrace.powers_of_two(integer, integer) IS
  'ARRAY[2^from_exp, ..., 2^to_exp]: the paper''s duration axis is powers_of_two(0, 21).';

CREATE FUNCTION acmetrace.steps(from_value double precision, to_value double precision, step double precision)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$ BEGIN RETURN ARRAY(SELECT from_value + i * step FROM generate_series(0, floor((to_value - from_value) / step)::int) i); END $$;
COMMENT ON FUNCTION acmetrace.steps(double precision, double precision, double precision) IS
  'ARRAY[from_value, from_value + step, ..., <= to_value]: the GPU-count axis is steps(0, 1024, 1).';

-- Bin counts as rows, for BI tools.
CREATE FUNCTION acmetrace.bin_rows(counts bigint[], lo double precision, hi double precision)
RETURNS TABLE (bin integer, bin_lo double precision, bin_hi double precision, count bigint,
               percent double precision, cumulative_percent double precision)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    n integer := array_upper(counts, 1) - 1;
BEGIN
    IF array_ndims(counts) <> 1 OR array_lower(counts, 1) <> 0 OR n < 1 THEN
        RAISE EXCEPTION 'bin_rows expects the array acmetrace.bins returns (indexed from 0, at least 3 cells)'
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass acmetrace.bins(value, lo, hi, nbins) with the same lo and hi.';
    END IF;
    RETURN QUERY
    SELECT i, CASE WHEN i = 0 THEN '-Infinity'::float8 ELSE lo + (hi - lo) * (i - 1) / n END,
              CASE WHEN i = n + 1 THEN 'Infinity'::float8 WHEN i = n THEN hi ELSE lo + (hi - lo) * i / n END,
           counts[i],
           counts[i]::float8 / sum(counts[i]) OVER () * 100,
           sum(counts[i]) OVER (ORDER BY i)::float8 / sum(counts[i]) OVER () * 100
      FROM generate_series(0, n + 1) i
     ORDER BY i;
END
$$;
COMMENT ON FUNCTION acmetrace.bin_rows(bigint[], double precision, double precision) IS
  'The result of acmetrace.bins as rows (bin 0 below lo and nbins+1 above hi included): nominal edges, count, percent of all counted values and cumulative percent.';

CREATE FUNCTION acmetrace.bin_rows(counts bigint[], edges double precision[])
RETURNS TABLE (bin integer, bin_lo double precision, bin_hi double precision, count bigint,
               percent double precision, cumulative_percent double precision)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    k integer := cardinality(edges) - 1;
BEGIN
    IF array_ndims(counts) <> 1 OR array_lower(counts, 1) <> 0 OR array_upper(counts, 1) <> k + 1 THEN
        RAISE EXCEPTION 'bin_rows expects the array acmetrace.bins_at returns for these % edges', k + 1
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Pass acmetrace.bins_at(value, edges) with the same edges.';
    END IF;
    RETURN QUERY
    SELECT i, CASE WHEN i = 0 THEN '-Infinity'::float8 ELSE edges[i] END,
              CASE WHEN i = k + 1 THEN 'Infinity'::float8 ELSE edges[i + 1] END,
           counts[i],
           counts[i]::float8 / sum(counts[i]) OVER () * 100,
           sum(counts[i]) OVER (ORDER BY i)::float8 / sum(counts[i]) OVER () * 100
      FROM generate_series(0, k + 1) i
     ORDER BY i;
END
$$;
COMMENT ON FUNCTION acmetrace.bin_rows(bigint[], double precision[]) IS
  'The result of acmetrace.bins_at as rows: bin i spans [edges[i], edges[i+1]) (bin 0 below the first edge, the last bin above the last edge).';

-- The paper's figures.
CREATE FUNCTION acmetrace._job_cdf(in_cluster text, col text, thresholds double precision[])
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    SELECT g.cluster, g.type, u.x, u.percent
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type END AS type,
                   acmetrace.cdf_at(j.%I::float8, $2) AS cdf
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND ($1 IS NULL OR j.cluster = $1)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))
            HAVING grouping(j.type) = 1 OR j.type IS NOT NULL) g,
           unnest($2, g.cdf) u(x, percent)
     WHERE g.cdf IS NOT NULL
     ORDER BY g.cluster, g.type NULLS FIRST, u.x $q$, col)
    USING in_cluster, thresholds;
END
$$;

COMMENT ON FUNCTION acmetrace._job_cdf(text, text, double precision[]) IS
  'Shared body of duration_cdf and queue_cdf.';

CREATE FUNCTION acmetrace.duration_cdf(cluster text DEFAULT NULL,
                                       thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT * FROM acmetrace._job_cdf(cluster, 'duration', thresholds) $$;
COMMENT ON FUNCTION acmetrace.duration_cdf(text, double precision[]) IS
  'CDF (percent) of the published duration of GPU jobs at each threshold (default 1, 2, 4, ... 2^21 s), per cluster (type NULL) and per job type; NULL cluster = every cluster.';

CREATE FUNCTION acmetrace.queue_cdf(cluster text DEFAULT NULL,
                                    thresholds double precision[] DEFAULT acmetrace.powers_of_two(0, 21))
RETURNS TABLE (cluster text, type text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT * FROM acmetrace._job_cdf(cluster, 'queue', thresholds) $$;
COMMENT ON FUNCTION acmetrace.queue_cdf(text, double precision[]) IS
  'CDF (percent) of the published queueing delay of GPU jobs at each threshold, per cluster (type NULL) and per job type.';

CREATE FUNCTION acmetrace.gpu_num_cdf(cluster text DEFAULT NULL,
                                      thresholds double precision[] DEFAULT acmetrace.steps(0, 1024, 1))
RETURNS TABLE (cluster text, x double precision, job_percent double precision, gpu_time_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, u.jobs, u.gpu_time
  FROM (SELECT j.cluster,
               acmetrace.cdf_at(j.gpu_num, thresholds) AS jobs,
               acmetrace.weighted_cdf_at(j.gpu_num, j.gpu_num * j.duration::float8, thresholds) AS gpu_time
          FROM acmetrace.jobs j
         WHERE j.gpu_num > 0 AND (gpu_num_cdf.cluster IS NULL OR j.cluster = gpu_num_cdf.cluster)
         GROUP BY j.cluster) g,
       unnest(thresholds, g.jobs, g.gpu_time) u(x, jobs, gpu_time)
 ORDER BY g.cluster, u.x
$$;
COMMENT ON FUNCTION acmetrace.gpu_num_cdf(text, double precision[]) IS
  'CDF of GPU count over GPU jobs, by job count and weighted by GPU time (gpu_num x published duration, as the notebook), at each threshold (default 0..1024).';

CREATE FUNCTION acmetrace.util_cdf(metric text, cluster text DEFAULT NULL,
                                   thresholds double precision[] DEFAULT acmetrace.steps(0, 100, 1))
RETURNS TABLE (cluster text, x double precision, percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, u.percent
  FROM (SELECT t.cluster, acmetrace.cdf_at(t.value, thresholds) AS cdf
          FROM acmetrace.utilization t
         WHERE t.metric = util_cdf.metric AND (util_cdf.cluster IS NULL OR t.cluster = util_cdf.cluster)
         GROUP BY t.cluster) g,
       unnest(thresholds, g.cdf) u(x, percent)
 ORDER BY g.cluster, u.x
$$;
COMMENT ON FUNCTION acmetrace.util_cdf(text, text, double precision[]) IS
  'CDF (percent) of a utilization metric over all its samples, per cluster, at each threshold (default 0..100).';

CREATE FUNCTION acmetrace.util_histogram(metric text, cluster text DEFAULT NULL, nbins integer DEFAULT 10)
RETURNS TABLE (cluster text, bin integer, bin_lo double precision, bin_hi double precision, series bigint,
               percent double precision, cumulative_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT h.cluster, r.bin, r.bin_lo, r.bin_hi, r.count, r.percent, r.cumulative_percent
  FROM (SELECT a.cluster, acmetrace.bins(a.mean, 0, 100, nbins) AS counts
          FROM (SELECT t.cluster, avg(t.value) AS mean
                  FROM acmetrace.utilization t
                 WHERE t.metric = util_histogram.metric
                   AND (util_histogram.cluster IS NULL OR t.cluster = util_histogram.cluster)
                 GROUP BY t.cluster, t.series) a
         GROUP BY a.cluster) h,
       acmetrace.bin_rows(h.counts, 0, 100) r
 ORDER BY h.cluster, r.bin
$$;
COMMENT ON FUNCTION acmetrace.util_histogram(text, text, integer) IS
  'Histogram of the per-series (per-GPU or per-server) average of a utilization metric in nbins equal bins over 0..100, per cluster: the Spark study''s 10% bins. Bins 0 and nbins+1 count averages below 0 and above 100.';

CREATE FUNCTION acmetrace.util_polarization(metric text, cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, samples bigint, percent_at_most_1 double precision, percent_at_least_99 double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT t.cluster, count(*),
       count(*) FILTER (WHERE t.value <= 1)::float8 / count(*) * 100,
       count(*) FILTER (WHERE t.value >= 99)::float8 / count(*) * 100
  FROM acmetrace.utilization t
 WHERE t.metric = util_polarization.metric
   AND (util_polarization.cluster IS NULL OR t.cluster = util_polarization.cluster)
   AND NOT t.value = 'NaN'
 GROUP BY t.cluster
 ORDER BY t.cluster
$$;
COMMENT ON FUNCTION acmetrace.util_polarization(text, text) IS
  'How polarized a utilization metric is, per cluster: the percent of samples at or below 1 and at or above 99.';
-- The paper's and the Spark study's analyses, one SQL call each.
--
-- GPU jobs are gpu_num > 0, CPU jobs gpu_num = 0 (a NULL gpu_num is
-- neither).  GPU time is published duration x gpu_num, as the AcmeTrace
-- notebook computes it (the published gpu_time column is that product in
-- both AcmeTrace files; Helios publishes none).  A NULL cluster argument
-- means every loaded cluster.

-- numpy's round(x, d): rint(x * 10^d) / 10^d (PostgreSQL's round(float8) is rint).
CREATE FUNCTION acmetrace._round_to(x double precision, digits integer)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN digits IS NULL THEN x ELSE round(x * 10.0::float8 ^ digits) / 10.0::float8 ^ digits END $$;
COMMENT ON FUNCTION acmetrace._round_to(double precision, integer) IS
  'Rounds like numpy.round: rint(x * 10^digits) / 10^digits, ties to even; NULL digits returns x.';

-- The dataset's own per-cluster summary (acme_cluster_summary.csv),
-- computed as the AcmeTrace notebook does:
--   * averages, medians (the mean of the two middle values) and maxima skip
--     NULLs;
--   * complete/cancel rates count state = COMPLETED / CANCELLED, and
--     fail = 1 - cancel - complete, so TIMEOUT and NODE_FAIL are failed;
--   * fail GPU time = total - complete - cancel; its rate = fail / total;
--   * then every float is rounded to `digits` decimals with ties to even
--     (numpy's round: rint(x * 10^d) / 10^d).  NULL digits: unrounded.
-- Sums are exact (numeric) before they become double precision.
CREATE FUNCTION acmetrace.cluster_summary(digits integer DEFAULT 3)
RETURNS TABLE (id text, job_num bigint, cpu_job_num bigint, gpu_job_num bigint,
               avg_run_time_gpu double precision, avg_que_time_gpu double precision,
               avg_gpu_num double precision,
               med_run_time_gpu double precision, med_que_time_gpu double precision,
               med_gpu_num double precision,
               max_run_time_gpu double precision, max_gpu double precision,
               complete_rate_gpu double precision, cancel_rate_gpu double precision,
               fail_rate_gpu double precision,
               complete_gpu_time double precision, cancel_gpu_time double precision,
               fail_gpu_time double precision,
               complete_rate_gpu_time double precision, cancel_rate_gpu_time double precision,
               fail_rate_gpu_time double precision,
               avg_run_time_cpu double precision, avg_que_time_cpu double precision,
               med_run_time_cpu double precision, med_que_time_cpu double precision,
               complete_rate_cpu double precision, cancel_rate_cpu double precision,
               fail_rate_cpu double precision)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF digits < 0 OR digits > 15 THEN
        RAISE EXCEPTION 'digits must be between 0 and 15, not %', digits
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The published summary uses 3; NULL leaves the values unrounded.';
    END IF;
    RETURN QUERY
    WITH g AS (
        SELECT j.cluster,
               count(*) AS n,
               count(*) FILTER (WHERE j.gpu_num = 0) AS n_cpu,
               count(*) FILTER (WHERE j.gpu_num > 0) AS n_gpu,
               avg(j.duration) FILTER (WHERE j.gpu_num > 0) AS avg_run_g,
               avg(j.queue) FILTER (WHERE j.gpu_num > 0) AS avg_que_g,
               avg(j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS avg_gpu,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.duration::float8) FILTER (WHERE j.gpu_num > 0) AS med_run_g,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) FILTER (WHERE j.gpu_num > 0) AS med_que_g,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.gpu_num::float8) FILTER (WHERE j.gpu_num > 0) AS med_gpu,
               max(j.duration) FILTER (WHERE j.gpu_num > 0) AS max_run_g,
               max(j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS max_gpu,
               count(*) FILTER (WHERE j.gpu_num > 0 AND j.state = 'COMPLETED') AS n_gpu_ok,
               count(*) FILTER (WHERE j.gpu_num > 0 AND j.state = 'CANCELLED') AS n_gpu_cancel,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0) AS t_gpu,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0 AND j.state = 'COMPLETED') AS t_ok,
               sum(j.duration * j.gpu_num) FILTER (WHERE j.gpu_num > 0 AND j.state = 'CANCELLED') AS t_cancel,
               avg(j.duration) FILTER (WHERE j.gpu_num = 0) AS avg_run_c,
               avg(j.queue) FILTER (WHERE j.gpu_num = 0) AS avg_que_c,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.duration::float8) FILTER (WHERE j.gpu_num = 0) AS med_run_c,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY j.queue::float8) FILTER (WHERE j.gpu_num = 0) AS med_que_c,
               count(*) FILTER (WHERE j.gpu_num = 0 AND j.state = 'COMPLETED') AS n_cpu_ok,
               count(*) FILTER (WHERE j.gpu_num = 0 AND j.state = 'CANCELLED') AS n_cpu_cancel
          FROM acmetrace.jobs j
         GROUP BY j.cluster),
    r AS (  -- the notebook's arithmetic, in its order, in double precision
        SELECT g.*,
               g.n_gpu_ok::float8 / nullif(g.n_gpu, 0) AS ok_g,
               g.n_gpu_cancel::float8 / nullif(g.n_gpu, 0) AS cancel_g,
               coalesce(g.t_ok, 0)::float8 AS t_ok_f,
               coalesce(g.t_cancel, 0)::float8 AS t_cancel_f,
               g.t_gpu::float8 AS t_gpu_f,
               g.n_cpu_ok::float8 / nullif(g.n_cpu, 0) AS ok_c,
               g.n_cpu_cancel::float8 / nullif(g.n_cpu, 0) AS cancel_c
          FROM g),
    s AS (
        SELECT r.*, r.t_gpu_f - r.t_ok_f - r.t_cancel_f AS t_fail_f FROM r)
    SELECT s.cluster, s.n, s.n_cpu, s.n_gpu,
           acmetrace._round_to(s.avg_run_g::float8, digits),
           acmetrace._round_to(s.avg_que_g::float8, digits),
           acmetrace._round_to(s.avg_gpu::float8, digits),
           acmetrace._round_to(s.med_run_g, digits),
           acmetrace._round_to(s.med_que_g, digits),
           acmetrace._round_to(s.med_gpu, digits),
           acmetrace._round_to(s.max_run_g::float8, digits),
           s.max_gpu::float8,
           acmetrace._round_to(s.ok_g, digits),
           acmetrace._round_to(s.cancel_g, digits),
           acmetrace._round_to(1 - s.cancel_g - s.ok_g, digits),
           -- GPU-time columns only where the rates exist (some GPU job)
           CASE WHEN s.n_gpu > 0 THEN acmetrace._round_to(s.t_ok_f, digits) END,
           CASE WHEN s.n_gpu > 0 THEN acmetrace._round_to(s.t_cancel_f, digits) END,
           acmetrace._round_to(s.t_fail_f, digits),
           acmetrace._round_to(s.t_ok_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.t_cancel_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.t_fail_f / nullif(s.t_gpu_f, 0), digits),
           acmetrace._round_to(s.avg_run_c::float8, digits),
           acmetrace._round_to(s.avg_que_c::float8, digits),
           acmetrace._round_to(s.med_run_c, digits),
           acmetrace._round_to(s.med_que_c, digits),
           acmetrace._round_to(s.ok_c, digits),
           acmetrace._round_to(s.cancel_c, digits),
           acmetrace._round_to(1 - s.cancel_c - s.ok_c, digits)
      FROM s
     ORDER BY s.cluster COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace.cluster_summary(integer) IS
  'One row per loaded cluster with every column of the published acme_cluster_summary.csv (id = cluster), computed as the AcmeTrace notebook does and rounded to digits decimals, ties to even (NULL: unrounded). See README for each column.';

-- Final states per cluster and job type (GPU jobs).
CREATE FUNCTION acmetrace.state_by_type(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, final_state text, jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.final_state, s.n,
           s.n::float8 / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::float8
      FROM (SELECT j.cluster, j.type, j.final_state, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (state_by_type.cluster IS NULL OR j.cluster = state_by_type.cluster)
             GROUP BY j.cluster, j.type, j.final_state) s
    WINDOW w AS (PARTITION BY s.cluster, s.type)
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C",
              array_position(ARRAY['COMPLETED', 'CANCELLED', 'FAILED'], s.final_state),
              s.final_state COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.state_by_type(text) IS
  'Final state of GPU jobs per cluster and job type: jobs and their share within the type, GPU time (duration x gpu_num) and its share within the type. TIMEOUT and NODE_FAIL count as FAILED; type NULL for traces without types.';

CREATE FUNCTION acmetrace.type_distribution(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, job_share double precision,
               gpu_time numeric, gpu_time_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.n,
           s.n::float8 / sum(s.n) OVER w,
           s.t,
           (s.t / nullif(sum(s.t) OVER w, 0))::float8
      FROM (SELECT j.cluster, j.type, count(*) AS n,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (type_distribution.cluster IS NULL OR j.cluster = type_distribution.cluster)
             GROUP BY j.cluster, j.type) s
    WINDOW w AS (PARTITION BY s.cluster)
     ORDER BY s.cluster COLLATE "C", s.n DESC, s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.type_distribution(text) IS
  'Job types of GPU jobs per cluster: jobs and share of the cluster''s GPU jobs, GPU time (duration x gpu_num) and share of its GPU time. Most frequent type first.';

-- Box plot numbers as matplotlib draws them: linear-interpolated quartiles,
-- whiskers at the most extreme values within 1.5 IQR of the box.
CREATE FUNCTION acmetrace.gpu_num_boxplot(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, min integer, q1 double precision,
               median double precision, q3 double precision, max integer,
               lower_whisker integer, upper_whisker integer, outliers bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH q AS (
        SELECT j.cluster, j.type,
               percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY j.gpu_num::float8) AS p
          FROM acmetrace.jobs j
         WHERE j.gpu_num > 0 AND (gpu_num_boxplot.cluster IS NULL OR j.cluster = gpu_num_boxplot.cluster)
         GROUP BY j.cluster, j.type),
    f AS (
        SELECT q.cluster, q.type, q.p[1] AS q1, q.p[2] AS q2, q.p[3] AS q3,
               q.p[1] - 1.5 * (q.p[3] - q.p[1]) AS lo_fence,
               q.p[3] + 1.5 * (q.p[3] - q.p[1]) AS hi_fence
          FROM q)
    SELECT f.cluster, f.type, count(*), min(j.gpu_num), f.q1, f.q2, f.q3, max(j.gpu_num),
           min(j.gpu_num) FILTER (WHERE j.gpu_num >= f.lo_fence),
           max(j.gpu_num) FILTER (WHERE j.gpu_num <= f.hi_fence),
           count(*) FILTER (WHERE j.gpu_num < f.lo_fence OR j.gpu_num > f.hi_fence)
      FROM f
      JOIN acmetrace.jobs j ON j.cluster = f.cluster AND j.type IS NOT DISTINCT FROM f.type AND j.gpu_num > 0
     GROUP BY f.cluster, f.type, f.q1, f.q2, f.q3
     ORDER BY f.cluster COLLATE "C", f.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.gpu_num_boxplot(text) IS
  'GPU count of GPU jobs per cluster and type as box-plot numbers: min, quartiles (linear interpolation, as percentile_cont and numpy), max, whiskers at the most extreme gpu_num within 1.5 IQR of the box, and the number of jobs outside them.';

-- Cancellations by queueing-delay bin: [0, w), [w, 2w), ... up to `upper`,
-- then one open bin for queue >= upper.  Every bin is listed, empty or not.
CREATE FUNCTION acmetrace._queue_bin_count(bin_width double precision, upper double precision)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    IF NOT (bin_width > 0 AND bin_width < 'Infinity' AND upper >= bin_width AND upper < 'Infinity') THEN
        RAISE EXCEPTION 'bin_width must be positive and upper at least bin_width, not %, %',
                        coalesce(bin_width::text, 'NULL'), coalesce(upper::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The Spark study uses 20 s bins up to 300 s: cancelled_by_queue(cluster, ''Eval'', 20, 300).';
    END IF;
    IF upper / bin_width > 10000 THEN
        RAISE EXCEPTION 'at most 10000 bins, not %', ceil(upper / bin_width)
            USING ERRCODE = 'program_limit_exceeded',
                  HINT = 'Use a wider bin_width or a lower upper.';
    END IF;
    RETURN ceil(upper / bin_width)::integer;
END
$$;
COMMENT ON FUNCTION acmetrace._queue_bin_count(double precision, double precision) IS
  'Checks cancelled_by_queue''s bins and returns how many closed bins there are.';

CREATE FUNCTION acmetrace.cancelled_by_queue(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300)
RETURNS TABLE (cluster text, bin integer, queue_from double precision, queue_to double precision,
               jobs bigint, cancelled bigint, cancelled_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH p AS (SELECT acmetrace._queue_bin_count(bin_width, upper) AS nb),
    b AS (
        SELECT j.cluster,
               CASE WHEN j.queue::float8 >= upper THEN p.nb + 1
                    ELSE floor(j.queue::float8 / bin_width)::integer + 1 END AS bin,
               j.state = 'CANCELLED' AS is_cancelled
          FROM acmetrace.jobs j, p
         WHERE j.gpu_num > 0 AND j.queue >= 0
           AND (cancelled_by_queue.cluster IS NULL OR j.cluster = cancelled_by_queue.cluster)
           AND (cancelled_by_queue.type IS NULL OR j.type = cancelled_by_queue.type)),
    c AS (SELECT DISTINCT b.cluster FROM b)
    SELECT c.cluster, k.bin,
           least((k.bin - 1) * bin_width, upper),
           CASE WHEN k.bin <= p.nb THEN least(k.bin * bin_width, upper) END,
           count(b.bin), count(b.bin) FILTER (WHERE b.is_cancelled),
           100.0::float8 * count(b.bin) FILTER (WHERE b.is_cancelled) / nullif(count(b.bin), 0)
      FROM c
     CROSS JOIN p
     CROSS JOIN LATERAL generate_series(1, p.nb + 1) k(bin)
      LEFT JOIN b ON b.cluster = c.cluster AND b.bin = k.bin
     GROUP BY c.cluster, k.bin, p.nb
     ORDER BY c.cluster COLLATE "C", k.bin
$$;
COMMENT ON FUNCTION acmetrace.cancelled_by_queue(text, text, double precision, double precision) IS
  'GPU jobs of one type (default Eval; NULL: every type) by published queueing delay in bins of bin_width seconds up to upper, then one open bin (queue_to NULL): jobs, cancelled jobs and the percent cancelled. Every bin is listed; jobs with a negative or NULL queue are left out.';

-- GPU time burned by jobs that failed or were cancelled.
CREATE FUNCTION acmetrace.gpu_time_lost(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, type text, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_share double precision, cancelled_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.type, s.t, s.f, s.c,
           (s.f / nullif(s.t, 0))::float8, (s.c / nullif(s.t, 0))::float8
      FROM (SELECT j.cluster, j.type,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
             WHERE j.gpu_num > 0 AND (gpu_time_lost.cluster IS NULL OR j.cluster = gpu_time_lost.cluster)
             GROUP BY j.cluster, j.type) s
     ORDER BY s.cluster COLLATE "C", s.type COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.gpu_time_lost(text) IS
  'Per cluster and job type: GPU time (duration x gpu_num) of all GPU jobs, of failed ones (TIMEOUT and NODE_FAIL included) and of cancelled ones, and the two shares.';

-- Weeks start on Monday in the cluster's own time zone (acmetrace.clusters).
CREATE FUNCTION acmetrace.gpu_time_lost_weekly(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, week date, gpu_time numeric, failed_gpu_time numeric,
               cancelled_gpu_time numeric, failed_share double precision, cancelled_share double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.week, s.t, s.f, s.c,
           (s.f / nullif(s.t, 0))::float8, (s.c / nullif(s.t, 0))::float8
      FROM (SELECT j.cluster,
                   date_trunc('week', j.end_time AT TIME ZONE c.time_zone)::date AS week,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'FAILED'), 0) AS f,
                   coalesce(sum(j.duration * j.gpu_num) FILTER (WHERE j.final_state = 'CANCELLED'), 0) AS c
              FROM acmetrace.jobs j
              JOIN acmetrace.clusters c ON c.cluster = j.cluster
             WHERE j.gpu_num > 0 AND j.end_time IS NOT NULL
               AND (gpu_time_lost_weekly.cluster IS NULL OR j.cluster = gpu_time_lost_weekly.cluster)
             GROUP BY j.cluster, 2) s
     ORDER BY s.cluster COLLATE "C", s.week
$$;
COMMENT ON FUNCTION acmetrace.gpu_time_lost_weekly(text) IS
  'Per cluster and week (Monday, in the cluster''s time zone) in which GPU jobs ended: GPU time (duration x gpu_num) of all, failed and cancelled jobs, and the two shares. Jobs without end_time are left out.';
-- Failure taxonomy: the traces say a job failed, not why.  Users classify
-- failures from their own logs into acmetrace.failure_reasons, and
-- failure_taxonomy() turns that into the paper's table.

CREATE TABLE acmetrace.failure_reasons (
    cluster  text NOT NULL,
    job_id   text NOT NULL,
    category text NOT NULL,
    reason   text NOT NULL,
    PRIMARY KEY (cluster, job_id),
    -- a reason for a job that is not loaded is a typo; dropping a cluster drops its reasons
    FOREIGN KEY (cluster, job_id) REFERENCES acmetrace.jobs (cluster, job_id) ON DELETE CASCADE
);
COMMENT ON TABLE acmetrace.failure_reasons IS
  'One failure classification per job, filled by the user from their own log analysis (e.g. Infrastructure / NVLink error, Script / FileNotFoundError).';
COMMENT ON COLUMN acmetrace.failure_reasons.category IS 'Broad class, e.g. Infrastructure, Framework, Script';
COMMENT ON COLUMN acmetrace.failure_reasons.reason IS 'Specific reason, e.g. NVLink error, CUDA error, FileNotFoundError';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.failure_reasons', '');

-- Rows are (category, reason) pairs plus one row with NULL category and
-- reason for failed jobs nobody classified, so the shares add up to 100%.
CREATE FUNCTION acmetrace.failure_taxonomy(cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, category text, reason text, jobs bigint, avg_gpus double precision,
               avg_minutes double precision, gpu_time numeric, gpu_time_percent double precision)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT s.cluster, s.category, s.reason, s.n, s.g, s.m, s.t,
           (100 * s.t / nullif(sum(s.t) OVER (PARTITION BY s.cluster), 0))::float8
      FROM (SELECT j.cluster, r.category, r.reason, count(*) AS n,
                   avg(j.gpu_num)::float8 AS g,
                   (avg(j.duration) / 60)::float8 AS m,
                   coalesce(sum(j.duration * j.gpu_num), 0) AS t
              FROM acmetrace.jobs j
              LEFT JOIN acmetrace.failure_reasons r ON r.cluster = j.cluster AND r.job_id = j.job_id
             WHERE (r.job_id IS NOT NULL OR j.final_state = 'FAILED')
               AND (failure_taxonomy.cluster IS NULL OR j.cluster = failure_taxonomy.cluster)
             GROUP BY j.cluster, r.category, r.reason) s
     ORDER BY s.cluster COLLATE "C", s.category IS NULL, s.t DESC, s.category COLLATE "C", s.reason COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.failure_taxonomy(text) IS
  'The paper''s failure table per cluster: for each (category, reason) in failure_reasons, jobs, average GPUs, average minutes (published duration), GPU time (duration x gpu_num) and percent of the GPU time of all classified or failed jobs. The row with NULL category and reason is failed jobs without a classification.';
-- The "comparison of datacenters" table of the AcmeTrace paper (year,
-- months, jobs, GPUs per job, GPUs), computed for every loaded cluster.
--
-- months = span_days / 30.44 (the mean month, 365.25 / 12), 1 decimal;
-- span_days = last_submit - first_submit in days, 2 decimals;
-- avg_gpus_per_gpu_job = mean gpu_num over jobs with gpu_num > 0, 2 decimals
-- (the paper's "GPUs per job": Acme 6.3 = Seren and Kalos GPU jobs pooled);
-- peak_allocated = most GPUs held at once by started GPU jobs (a job without
-- end_time holds its GPUs to the end; rows with end_time < start_time, which
-- acmetrace.audit reports, are left out).
CREATE FUNCTION acmetrace.trace_comparison()
RETURNS TABLE (cluster text, source_format text, year integer,
               first_submit timestamptz, last_submit timestamptz,
               span_days numeric, months numeric,
               jobs bigint, gpu_jobs bigint, avg_gpus_per_gpu_job numeric,
               gpus integer, peak_allocated bigint)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT c.cluster, c.source_format,
       date_part('year', min(j.submit_time) AT TIME ZONE c.time_zone)::integer,
       min(j.submit_time), max(j.submit_time),
       round(date_part('epoch', max(j.submit_time) - min(j.submit_time))::numeric / 86400, 2),
       round(date_part('epoch', max(j.submit_time) - min(j.submit_time))::numeric / 86400 / 30.44, 1),
       count(j.job_id),
       count(j.job_id) FILTER (WHERE j.gpu_num > 0),
       round(avg(j.gpu_num) FILTER (WHERE j.gpu_num > 0), 2),
       c.gpu_capacity,
       acmetrace.peak(acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)
                      FILTER (WHERE j.gpu_num > 0 AND NOT coalesce(j.end_time < j.start_time, false)))
  FROM acmetrace.clusters c
  LEFT JOIN acmetrace.jobs j ON j.cluster = c.cluster
 GROUP BY c.cluster, c.source_format, c.time_zone, c.gpu_capacity
 ORDER BY c.cluster COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.trace_comparison() IS
  'One row per loaded cluster with the columns of the AcmeTrace paper''s comparison of datacenters: year, span, jobs, GPU jobs, mean GPUs per GPU job, GPU capacity, peak GPUs allocated.';

CREATE VIEW acmetrace.v_trace_comparison WITH (security_invoker = true) AS
SELECT * FROM acmetrace.trace_comparison();
COMMENT ON VIEW acmetrace.v_trace_comparison IS
  'acmetrace.trace_comparison() as a view, for BI tools: one row per loaded cluster.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.cluster IS 'Cluster name (acmetrace.clusters.cluster).';
COMMENT ON COLUMN acmetrace.v_trace_comparison.source_format IS 'Format the cluster was loaded from: acme_seren, acme_kalos, helios, philly, generated.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.year IS 'Year of the first submission, in the cluster''s time zone.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.first_submit IS 'Earliest submit_time.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.last_submit IS 'Latest submit_time.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.span_days IS 'last_submit - first_submit in days, rounded to 2 decimals.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.months IS 'span_days / 30.44 (mean month length, 365.25 / 12), rounded to 1 decimal.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.jobs IS 'Number of jobs.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.gpu_jobs IS 'Jobs with gpu_num > 0.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.avg_gpus_per_gpu_job IS 'Mean gpu_num over the GPU jobs, rounded to 2 decimals (the paper''s GPUs per job).';
COMMENT ON COLUMN acmetrace.v_trace_comparison.gpus IS 'GPU capacity (acmetrace.clusters.gpu_capacity); NULL when unknown.';
COMMENT ON COLUMN acmetrace.v_trace_comparison.peak_allocated IS 'Most GPUs allocated at one instant by started GPU jobs (no end_time: held to the end; end_time < start_time: left out).';
CREATE FUNCTION acmetrace.version()
RETURNS text
AS 'MODULE_PATHNAME', 'acmetrace_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.version() IS
  'Version of the loaded acmetrace shared library (equals the extension version when the install is consistent).';
-- Views for dashboards (Metabase, Grafana, Superset): one per analysis,
-- over every loaded cluster, with stable column names and types and a
-- comment on every view and column.  Filter them by cluster (and type) in
-- the BI tool.  Each view runs its function over all clusters, so a filter
-- does not make it cheaper: the functions take a cluster argument when that
-- matters.  The views run with the privileges of the user reading them
-- (security_invoker), so table grants and row-level security still apply.

CREATE VIEW acmetrace.v_cluster_summary WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.cluster_summary(NULL);
COMMENT ON VIEW acmetrace.v_cluster_summary IS
  'acmetrace.cluster_summary() unrounded: the published acme_cluster_summary.csv columns per loaded cluster.';

CREATE VIEW acmetrace.v_final_states WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.state_breakdown(NULL);
COMMENT ON VIEW acmetrace.v_final_states IS
  'Final state of GPU jobs per cluster by job count and GPU time (acmetrace.state_breakdown).';

CREATE VIEW acmetrace.v_final_states_by_type WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.state_by_type(NULL);
COMMENT ON VIEW acmetrace.v_final_states_by_type IS
  'Final state of GPU jobs per cluster and job type by job count and GPU time (acmetrace.state_by_type).';

CREATE VIEW acmetrace.v_type_distribution WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.type_distribution(NULL);
COMMENT ON VIEW acmetrace.v_type_distribution IS
  'Job types of GPU jobs per cluster by job count and GPU time (acmetrace.type_distribution).';

CREATE VIEW acmetrace.v_gpu_num_boxplot WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_num_boxplot(NULL);
COMMENT ON VIEW acmetrace.v_gpu_num_boxplot IS
  'GPU count per job type as box-plot numbers (acmetrace.gpu_num_boxplot).';

CREATE VIEW acmetrace.v_duration_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.duration_cdf(NULL);
COMMENT ON VIEW acmetrace.v_duration_cdf IS
  'CDF of GPU job duration at 1, 2, 4, ... 2^21 s, per cluster and type (acmetrace.duration_cdf).';

CREATE VIEW acmetrace.v_queue_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.queue_cdf(NULL);
COMMENT ON VIEW acmetrace.v_queue_cdf IS
  'CDF of GPU job queueing delay at 1, 2, 4, ... 2^21 s, per cluster and type (acmetrace.queue_cdf).';

CREATE VIEW acmetrace.v_gpu_num_cdf WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_num_cdf(NULL);
COMMENT ON VIEW acmetrace.v_gpu_num_cdf IS
  'CDF of GPU count at 0..1024 by job count and by GPU time, per cluster (acmetrace.gpu_num_cdf).';

CREATE VIEW acmetrace.v_queue_by_occupancy WITH (security_invoker = true) AS
    SELECT c.cluster, q.type, q.bin, q.gpus_from, q.gpus_to, q.jobs,
           q.mean_queue_s, q.median_queue_s, q.p90_queue_s
      FROM acmetrace.clusters c,
           LATERAL acmetrace.queue_by_occupancy(c.cluster) q;
COMMENT ON VIEW acmetrace.v_queue_by_occupancy IS
  'Queueing delay of GPU jobs per cluster, type and tenth of GPU capacity allocated when they were submitted (acmetrace.queue_by_occupancy with 10 bins).';

CREATE VIEW acmetrace.v_cancelled_eval_by_queue WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.cancelled_by_queue(NULL, 'Eval', 20, 300);
COMMENT ON VIEW acmetrace.v_cancelled_eval_by_queue IS
  'Eval GPU jobs by queueing delay in 20 s bins up to 300 s, then over 300 s: jobs and cancellations (acmetrace.cancelled_by_queue).';

CREATE VIEW acmetrace.v_gpu_time_lost WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_time_lost(NULL);
COMMENT ON VIEW acmetrace.v_gpu_time_lost IS
  'GPU time of failed and cancelled GPU jobs per cluster and job type (acmetrace.gpu_time_lost).';

CREATE VIEW acmetrace.v_gpu_time_lost_weekly WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.gpu_time_lost_weekly(NULL);
COMMENT ON VIEW acmetrace.v_gpu_time_lost_weekly IS
  'GPU time of failed and cancelled GPU jobs per cluster and week they ended (acmetrace.gpu_time_lost_weekly).';

CREATE VIEW acmetrace.v_failure_taxonomy WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.failure_taxonomy(NULL);
COMMENT ON VIEW acmetrace.v_failure_taxonomy IS
  'Failures by category and reason with their GPU demand, duration and GPU time (acmetrace.failure_taxonomy over acmetrace.failure_reasons).';

CREATE VIEW acmetrace.v_queue_delay WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.queue_delay_summary;
COMMENT ON VIEW acmetrace.v_queue_delay IS
  'Queueing delay percentiles per cluster and job type, within 0.5% (acmetrace.queue_delay_summary).';

CREATE VIEW acmetrace.v_gpu_util_histogram WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.util_histogram('GPU_UTIL', NULL, 10);
COMMENT ON VIEW acmetrace.v_gpu_util_histogram IS
  'Per-GPU average GPU_UTIL in 10% bins per cluster, the Spark study''s histogram (acmetrace.util_histogram).';

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
      "type": "Job type as published (Pretrain, Eval, SFT, MLLM, Debug, Other); NULL when the trace has no types, or for the all-types row of a CDF",
      "final_state": "COMPLETED, CANCELLED or FAILED (TIMEOUT and NODE_FAIL count as FAILED)",
      "jobs": "Number of GPU jobs",
      "gpu_jobs": "Number of GPU jobs (gpu_num > 0)",
      "job_share": "Share of the jobs, 0..1",
      "gpu_time": "GPU time in GPU-seconds: published duration x gpu_num",
      "gpu_time_share": "Share of the GPU time, 0..1",
      "x": "Threshold: the CDF counts values at or below x",
      "percent": "Percent of jobs with a value at or below x",
      "job_percent": "Percent of GPU jobs using at most x GPUs",
      "gpu_time_percent": "Percent of GPU time spent by jobs using at most x GPUs",
      "min": "Smallest gpu_num",
      "q1": "First quartile of gpu_num (linear interpolation)",
      "median": "Median gpu_num",
      "q3": "Third quartile of gpu_num (linear interpolation)",
      "max": "Largest gpu_num",
      "lower_whisker": "Smallest gpu_num at or above q1 - 1.5 IQR",
      "upper_whisker": "Largest gpu_num at or below q3 + 1.5 IQR",
      "outliers": "Jobs outside the whiskers",
      "bin": "Bin number, from 1; the last bin is open-ended",
      "gpus_from": "Allocated GPUs at the start of the bin (inclusive)",
      "gpus_to": "Allocated GPUs at the end of the bin (exclusive); NULL for the bin at or over capacity",
      "mean_queue_s": "Mean published queueing delay, seconds",
      "median_queue_s": "Median published queueing delay, seconds (exact)",
      "p90_queue_s": "90th percentile of published queueing delay, seconds (exact)",
      "queue_from": "Queueing delay at the start of the bin, seconds (inclusive)",
      "queue_to": "Queueing delay at the end of the bin, seconds (exclusive); NULL for the open last bin",
      "cancelled": "Jobs in the bin that were cancelled",
      "cancelled_percent": "Percent of the bin's jobs that were cancelled; NULL for an empty bin",
      "failed_gpu_time": "GPU time of failed jobs (TIMEOUT and NODE_FAIL included), GPU-seconds",
      "cancelled_gpu_time": "GPU time of cancelled jobs, GPU-seconds",
      "failed_share": "failed_gpu_time / gpu_time",
      "cancelled_share": "cancelled_gpu_time / gpu_time",
      "week": "Monday of the week the jobs ended, in the cluster's time zone",
      "category": "Failure category from acmetrace.failure_reasons; NULL for failed jobs nobody classified",
      "reason": "Failure reason from acmetrace.failure_reasons; NULL for failed jobs nobody classified",
      "avg_gpus": "Average gpu_num",
      "avg_minutes": "Average published duration, minutes",
      "p50_s": "Median queueing delay (start - submit), seconds, within 0.5%",
      "p90_s": "90th percentile of queueing delay, seconds, within 0.5%",
      "p99_s": "99th percentile of queueing delay, seconds, within 0.5%",
      "mean_s": "Mean queueing delay, seconds",
      "max_s": "Largest queueing delay, seconds",
      "bin_lo": "Lower edge of the bin (inclusive)",
      "bin_hi": "Upper edge of the bin (exclusive, except 100 in the last bin)",
      "series": "Number of GPUs (or servers) whose average falls in the bin",
      "cumulative_percent": "Percent of GPUs in this bin or below",
      "id": "Cluster name (the published file's id column)",
      "job_num": "All jobs",
      "cpu_job_num": "CPU jobs (gpu_num = 0)",
      "gpu_job_num": "GPU jobs (gpu_num > 0)",
      "avg_run_time_gpu": "Mean published duration of GPU jobs, seconds",
      "avg_que_time_gpu": "Mean published queue of GPU jobs, seconds",
      "avg_gpu_num": "Mean gpu_num of GPU jobs",
      "med_run_time_gpu": "Median duration of GPU jobs (mean of the two middle values), seconds",
      "med_que_time_gpu": "Median queue of GPU jobs, seconds",
      "med_gpu_num": "Median gpu_num of GPU jobs",
      "max_run_time_gpu": "Longest duration of a GPU job, seconds",
      "max_gpu": "Largest gpu_num",
      "complete_rate_gpu": "Share of GPU jobs with state COMPLETED",
      "cancel_rate_gpu": "Share of GPU jobs with state CANCELLED",
      "fail_rate_gpu": "1 - cancel_rate_gpu - complete_rate_gpu: FAILED, TIMEOUT and NODE_FAIL",
      "complete_gpu_time": "GPU time (duration x gpu_num) of completed GPU jobs, GPU-seconds",
      "cancel_gpu_time": "GPU time of cancelled GPU jobs, GPU-seconds",
      "fail_gpu_time": "GPU time of all GPU jobs minus completed minus cancelled, GPU-seconds",
      "complete_rate_gpu_time": "complete_gpu_time / GPU time of all GPU jobs",
      "cancel_rate_gpu_time": "cancel_gpu_time / GPU time of all GPU jobs",
      "fail_rate_gpu_time": "fail_gpu_time / GPU time of all GPU jobs",
      "avg_run_time_cpu": "Mean duration of CPU jobs, seconds; NULL without CPU jobs",
      "avg_que_time_cpu": "Mean queue of CPU jobs, seconds",
      "med_run_time_cpu": "Median duration of CPU jobs, seconds",
      "med_que_time_cpu": "Median queue of CPU jobs, seconds",
      "complete_rate_cpu": "Share of CPU jobs with state COMPLETED",
      "cancel_rate_cpu": "Share of CPU jobs with state CANCELLED",
      "fail_rate_cpu": "1 - cancel_rate_cpu - complete_rate_cpu"
    }$j$;
    specific jsonb := $j${
      "v_final_states_by_type.job_share": "Share of the type's GPU jobs in this state, 0..1",
      "v_final_states_by_type.gpu_time_share": "Share of the type's GPU time spent by jobs in this state, 0..1",
      "v_final_states.job_share": "Share of the cluster's GPU jobs in this state, 0..1",
      "v_final_states.gpu_time_share": "Share of the cluster's GPU time spent by jobs in this state, 0..1",
      "v_final_states.gpu_time": "GPU time in GPU-seconds: published gpu_time, else duration x gpu_num",
      "v_type_distribution.job_share": "Share of the cluster's GPU jobs of this type, 0..1",
      "v_type_distribution.gpu_time_share": "Share of the cluster's GPU time spent by this type, 0..1",
      "v_duration_cdf.percent": "Percent of GPU jobs whose published duration is at most x seconds",
      "v_queue_cdf.percent": "Percent of GPU jobs whose published queue is at most x seconds",
      "v_gpu_num_cdf.x": "GPU count",
      "v_queue_by_occupancy.jobs": "GPU jobs submitted while allocation was in this bin",
      "v_failure_taxonomy.jobs": "Jobs with this category and reason (or failed and unclassified)",
      "v_failure_taxonomy.gpu_time_percent": "Percent of the GPU time of all classified or failed jobs of the cluster",
      "v_queue_delay.type": "Job type as published; NULL when the trace has no types",
      "v_queue_delay.jobs": "Jobs that started (wait_s >= 0), CPU jobs included",
      "v_gpu_util_histogram.bin": "Bin number: 1..10 for 0-10% .. 90-100%; 0 below 0 and 11 above 100 when present",
      "v_gpu_util_histogram.percent": "Percent of GPUs whose average falls in the bin"
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
            USING ERRCODE = 'invalid_object_definition';
    END IF;
END
$do$;
