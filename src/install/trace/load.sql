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
    -- Plain aggregates, no LIMIT: with LIMIT 1 the planner rescanned the
    -- ids once per loaded job (quadratic on a reloaded file).
    SELECT min(i.id), count(*) INTO dup, ndup
      FROM unnest(ids) AS i(id)
     WHERE EXISTS (SELECT 1 FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id = i.id);
    RAISE EXCEPTION 'cluster "%" already holds % of the % jobs in this file (first: job id "%"); nothing was loaded',
                    cl, ndup, cardinality(ids), dup
        USING ERRCODE = 'unique_violation',
              HINT = format('To reload it run SELECT acmetrace.drop_cluster(%L) first; to load it beside the loaded one, SET acmetrace.cluster to another name.', cl);
END
$$;
COMMENT ON FUNCTION acmetrace._duplicate_error(text, text[]) IS
  'Raises the 23505 error of a load whose job ids (ids) repeat within the file or are already loaded in cluster cl.';

-- Only the owner of acmetrace.jobs or of the database may ANALYZE it
-- (PostgreSQL 15): a loader with plain INSERT rights leaves the statistics
-- to autovacuum rather than getting a WARNING on every load.
CREATE FUNCTION acmetrace._analyze_jobs(loaded bigint)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    -- ANALYZE locks out other ANALYZEs until commit, so concurrent loads
    -- would queue behind each other: refresh only when the load at least
    -- doubles the table since its last statistics (or there are none).
    IF loaded < (SELECT c.reltuples FROM pg_catalog.pg_class c
                   WHERE c.oid = 'acmetrace.jobs'::pg_catalog.regclass) THEN
        RETURN;
    END IF;
    IF pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                WHERE c.oid = 'acmetrace.jobs'::pg_catalog.regclass), 'USAGE')
       OR pg_catalog.pg_has_role((SELECT d.datdba FROM pg_catalog.pg_database d
                                   WHERE d.datname = pg_catalog.current_database()), 'USAGE') THEN
        ANALYZE acmetrace.jobs;
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace._analyze_jobs(bigint) IS
  'ANALYZE acmetrace.jobs after a load of loaded rows that at least doubles it, when the loading role may (table or database owner).';

CREATE FUNCTION acmetrace._load_staged()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    fmt    text := TG_ARGV[0];
    cl     text := acmetrace._load_target(TG_ARGV[1], fmt);
    tz     text;
    sel    text;
    loaded bigint;
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
        GET DIAGNOSTICS loaded = ROW_COUNT;
    EXCEPTION WHEN unique_violation THEN
        PERFORM acmetrace._duplicate_error(cl, ARRAY(SELECT n.job_id FROM new_rows n));
    END;
    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    -- Fresh statistics: without them the planner takes a just-loaded jobs
    -- table for a few rows and may re-run an aggregate per joined row.
    PERFORM acmetrace._analyze_jobs(loaded);
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
