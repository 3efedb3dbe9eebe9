-- acmetrace 0.1.0 -> 0.2.0.  test/e2e/upgrade.sh checks that 0.1.0 plus
-- this script gives the same catalog as a fresh 0.2.0 install.
\echo Use "ALTER EXTENSION acmetrace UPDATE TO '0.2.0'" to load this file. \quit

-- Loads by a role that does not own acmetrace.jobs no longer WARN, and
-- concurrent loads no longer queue behind each other's ANALYZE.
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

CREATE OR REPLACE FUNCTION acmetrace._load_staged()
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

CREATE OR REPLACE FUNCTION acmetrace._load_philly()
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
    v_loaded bigint;
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
        GET DIAGNOSTICS v_loaded = ROW_COUNT;
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
    PERFORM acmetrace._analyze_jobs(v_loaded);
    RETURN NULL;
END
$$;

-- Explaining a reloaded file took time quadratic in its size.
CREATE OR REPLACE FUNCTION acmetrace._duplicate_error(cl text, ids text[])
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

-- load_generated('') loaded into the default cluster, seren.
CREATE OR REPLACE FUNCTION acmetrace.load_generated(cluster text, profile text, n integer, seed integer DEFAULT 1)
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
    -- An empty name would fall back to the loader's default cluster (seren).
    IF cluster = '' THEN
        RAISE EXCEPTION 'invalid cluster name ""'
            USING ERRCODE = 'invalid_name',
                  HINT = 'Cluster names are lower case letters, digits and _, starting with a letter, e.g. ''synth''.';
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

-- share over a window wider than an interval can hold overflowed.
CREATE OR REPLACE FUNCTION acmetrace.occupancy_time_bins(occ acmetrace.occupancy, lo bigint, hi bigint, nbins integer,
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
           coalesce(sum(lv.seconds), 0)
               -- numeric epochs: the interval of a very wide window overflows
               / (extract(epoch FROM to_time) - extract(epoch FROM from_time))::double precision
      FROM bins LEFT JOIN lv ON lv.b = bins.b
     GROUP BY bins.b
     ORDER BY bins.b
$$;
