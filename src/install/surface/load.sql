-- The job loaders: the statement trigger on every staging table and its
-- helpers (triggers.sql attaches it).

-- Resolves and registers the cluster a load writes to; returns its name.
CREATE FUNCTION acmetrace_internal.load_target(default_cluster text, fmt text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    cl       text := coalesce(acmetrace_internal.setting('acmetrace.cluster'), default_cluster);
    tz       text;
    have_fmt text;
    have_tz  text;
BEGIN
    IF cl !~ '^[a-z][a-z0-9_]*$' THEN
        PERFORM acmetrace_internal.raise('42602', format('invalid cluster name "%s"', cl),
              'Cluster names are lower case letters, digits and _, starting with a letter, e.g. SET acmetrace.cluster = ''' ||
                         coalesce(nullif(regexp_replace(lower(cl), '[^a-z0-9_]', '_', 'g'), ''), 'mycluster') || '''.');
    END IF;
    tz := CASE fmt
              WHEN 'acme_seren' THEN 'Asia/Shanghai'   -- published as +08:00
              WHEN 'acme_kalos' THEN 'UTC'             -- published as +00:00
              ELSE coalesce(acmetrace_internal.setting('acmetrace.time_zone'), 'UTC')
          END;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names WHERE name = tz)
       AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_abbrevs WHERE abbrev = tz) THEN
        PERFORM acmetrace_internal.raise('22023', format('unknown time zone "%s" in acmetrace.time_zone', tz),
              'Use a name from pg_timezone_names, e.g. SET acmetrace.time_zone = ''Asia/Shanghai''.');
    END IF;

    INSERT INTO acmetrace.clusters AS c (cluster, source_format, gpu_capacity, time_zone)
    VALUES (cl, fmt,
            acmetrace_internal.known_capacity(cl),
            tz)
    ON CONFLICT ON CONSTRAINT clusters_pkey DO NOTHING;

    SELECT c.source_format, c.time_zone INTO have_fmt, have_tz
      FROM acmetrace.clusters c WHERE c.cluster = cl;
    -- load_generated registers its clusters as generated, then loads them
    -- through trace_seren.
    IF have_fmt <> fmt AND NOT (have_fmt = 'generated' AND fmt = 'acme_seren') THEN
        PERFORM acmetrace_internal.raise('42809', format('cluster "%s" holds %s jobs; this file is in %s format', cl, have_fmt, fmt),
              'SET acmetrace.cluster to another name to load this file beside it.');
    END IF;
    IF have_tz <> tz THEN
        PERFORM acmetrace_internal.raise('22023', format('cluster "%s" was loaded with time zone %s, this load uses %s', cl, have_tz, tz),
              format('SET acmetrace.time_zone = %L to append to it.', have_tz));
    END IF;
    RETURN cl;
END
$$;

-- Statement trigger on every staging table.  TG_ARGV: format, default cluster.
-- Explains a unique violation of a load: a job id twice in the file, or
-- already loaded in the cluster.  Shared by every loader; always raises.
CREATE FUNCTION acmetrace_internal.duplicate_error(cl text, ids text[])
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
        PERFORM acmetrace_internal.raise('23505', format('job id "%s" appears more than once in this file (%s duplicated ids); nothing was loaded', dup, ndup),
              'Each job id must be unique within a cluster; check that the file was not concatenated twice.');
    END IF;
    -- Plain aggregates, no LIMIT: with LIMIT 1 the planner rescanned the
    -- ids once per loaded job (quadratic on a reloaded file).
    SELECT min(i.id), count(*) INTO dup, ndup
      FROM unnest(ids) AS i(id)
     WHERE EXISTS (SELECT 1 FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id = i.id);
    PERFORM acmetrace_internal.raise('23505', format('cluster "%s" already holds %s of the %s jobs in this file (first: job id "%s"); nothing was loaded', cl, ndup, cardinality(ids), dup),
              format('To reload it run SELECT acmetrace.drop_cluster(%L) first; to load it beside the loaded one, SET acmetrace.cluster to another name.', cl));
END
$$;
COMMENT ON FUNCTION acmetrace_internal.duplicate_error(text, text[]) IS
  'Raises the 23505 error of a load whose job ids (ids) repeat within the file or are already loaded in cluster cl.';

-- Only the owner of acmetrace.jobs or of the database may ANALYZE it
-- (PostgreSQL 15): a loader with plain INSERT rights leaves the statistics
-- to autovacuum rather than getting a WARNING on every load.
CREATE FUNCTION acmetrace_internal.analyze_jobs(loaded bigint)
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
COMMENT ON FUNCTION acmetrace_internal.analyze_jobs(bigint) IS
  'ANALYZE acmetrace.jobs after a load of loaded rows that at least doubles it, when the loading role may (table or database owner).';

CREATE FUNCTION acmetrace_internal.load_staged()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    fmt    text := TG_ARGV[0];
    cl     text := acmetrace_internal.load_target(TG_ARGV[1], fmt);
    tz     text;
    sel    text;
    src    text := 'new_rows';
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
    -- Citus cannot read a transition table in an INSERT into a distributed
    -- table: there the rows go through a temporary table.
    IF acmetrace_internal.distributed() THEN
        IF pg_catalog.to_regclass('pg_temp.acmetrace_staged') IS NOT NULL THEN
            DROP TABLE pg_temp.acmetrace_staged;   -- an earlier load of this transaction
        END IF;
        EXECUTE format('CREATE TEMP TABLE acmetrace_staged ON COMMIT DROP AS SELECT * FROM %s', 'new_rows');
        src := 'pg_temp.acmetrace_staged';
    END IF;
    PERFORM acmetrace_internal.changing(cl);   -- the summaries trigger rebuilds cl only
    BEGIN
        EXECUTE 'INSERT INTO acmetrace.jobs
                   (cluster, job_id, user_id, type, state, node_num, gpu_num, cpu_num,
                    submit_time, start_time, end_time, duration, queue, gpu_time,
                    vc, mem_per_pod_gb, shared_mem_per_pod, fail_time, stop_time)
                 SELECT $1, ' || sel || ' FROM ' || src
        USING cl, tz;
        GET DIAGNOSTICS loaded = ROW_COUNT;
    EXCEPTION WHEN unique_violation THEN
        PERFORM acmetrace_internal.duplicate_error(cl, ARRAY(SELECT n.job_id FROM new_rows n));
    END;
    PERFORM acmetrace_internal.jobs_written(cl);
    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    -- Fresh statistics: without them the planner takes a just-loaded jobs
    -- table for a few rows and may re-run an aggregate per joined row.
    PERFORM acmetrace_internal.analyze_jobs(loaded);
    RETURN NULL;
END
$$;
