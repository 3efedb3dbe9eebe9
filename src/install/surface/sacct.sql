-- Slurm accounting: one line of `sacct --parsable2` output, parsed in C
-- (src/sacct_fns.c, src/core/sacct.c).

CREATE TYPE acmetrace_internal.sacct_row AS (
    job_id        text,
    slurm_job_id  text,
    slurm_cluster text,
    partition     text,
    qos           text,
    account       text,
    user_name     text,
    job_name      text,
    submit_time   timestamp,
    eligible_time timestamp,
    start_time    timestamp,
    end_time      timestamp,
    state         text,
    cancelled_by  text,
    exit_code     integer,
    exit_signal   integer,
    node_num      integer,
    cpu_num       integer,
    gpu_num       integer,
    req_gpus      integer,
    alloc_gpus    integer,
    gpu_type      text,
    mem_mb        bigint,
    timelimit_s   bigint,
    nodelist      text
);
COMMENT ON TYPE acmetrace_internal.sacct_row IS
  'One sacct line, parsed by acmetrace_internal.sacct_parse: job_id is JobIDRaw; slurm_job_id JobID as printed; times without zone (Unknown, None, empty: NULL); state the base word and cancelled_by the uid of CANCELLED by <uid>; exit_code:exit_signal from ExitCode; gpu_num the gres/gpu count of AllocTRES when non-empty, else of ReqTRES, 0 when none; req_gpus/alloc_gpus NULL when that list is empty; gpu_type from gres/gpu:<type>; mem_mb the mem of AllocTRES, else of ReqTRES, in MiB (rounded up); timelimit_s NULL for UNLIMITED and Partition_Limit; nodelist NULL for None assigned. Other empty fields are NULL.';

-- Not STRICT: a NULL line or fields is an error, a NULL element an empty field.
CREATE FUNCTION acmetrace_internal.sacct_parse(line bigint, fields text[])
RETURNS acmetrace_internal.sacct_row
AS 'MODULE_PATHNAME', 'acmetrace_sacct_parse'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.sacct_parse(bigint, text[]) IS
  'One line of sacct --parsable2 output: fields are its 20 fields in the order JobIDRaw, JobID, Cluster, Partition, QOS, Account, User, JobName, Submit, Eligible, Start, End, State, ExitCode, NNodes, NCPUS, ReqTRES, AllocTRES, Timelimit, NodeList (NULL element: empty field). Errors name the line and field, e.g. sacct line 7, field Submit: invalid time "2023-13-01T00:00:00"; SQLSTATE 22007 for times, 0A000 for a job step (run sacct with --allocations), 22P02 for any other malformed field, 22023 for an array that is not 20 fields, 22004 for a NULL line or fields.';

-- A NodeList as its hosts (acmetrace.job_utilization's 'nodes' match).
CREATE FUNCTION acmetrace_internal.hostlist_expand(nodelist text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'acmetrace_hostlist_expand'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.hostlist_expand(text) IS
  'The hosts of a Slurm host list (NodeList), in order: node[01-04,07] is node01 .. node04, node07 (zero-padded to the width of each range''s first number); several bracket groups give every combination, the last varying fastest. Empty text: no hosts; NULL: NULL. Malformed: ERROR 22P02 naming the list and the byte; more than 100,000 hosts: 54000.';


-- The type the rules give a job; Other when none matches.
CREATE FUNCTION acmetrace_internal.job_type(cl text, job_name text, part text, qos text, account text, usr text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
    t text;
BEGIN
    -- called per job: SELECT INTO and a plain expression cost less per call than RETURN (subquery)
    SELECT r.type INTO t FROM acmetrace.job_type_rules r
     WHERE (r.cluster IS NULL OR r.cluster = cl)
       AND CASE r.field WHEN 'job_name' THEN job_name WHEN 'partition' THEN part
                        WHEN 'qos' THEN qos WHEN 'account' THEN account ELSE usr END ~* r.pattern
     ORDER BY r.position LIMIT 1;
    RETURN coalesce(t, 'Other');
END
$$;
COMMENT ON FUNCTION acmetrace_internal.job_type(text, text, text, text, text, text) IS
  'The type of a Slurm job of cluster cl from acmetrace.job_type_rules: the first matching rule''s, else Other.';

-- A rule whose pattern is not a regular expression would fail every load.
CREATE FUNCTION acmetrace_internal.job_type_rule_check()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    BEGIN
        PERFORM '' ~* NEW.pattern;
    EXCEPTION WHEN invalid_regular_expression THEN
        PERFORM acmetrace_internal.raise('2201B',
            format('job type rule %s: pattern "%s" is not a regular expression (%s)', NEW.position, NEW.pattern, SQLERRM),
            'Patterns are POSIX regular expressions matched case-insensitively, e.g. ''^(sft|finetune)'' or ''eval''.');
    END;
    IF NEW.cluster IS NOT NULL AND NEW.cluster !~ '^[a-z][a-z0-9_]*$' THEN
        PERFORM acmetrace_internal.raise('42602', format('job type rule %s: invalid cluster name "%s"', NEW.position, NEW.cluster),
            'cluster is an acmetrace cluster name (lower case letters, digits and _), or NULL for every cluster.');
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.job_type_rule_check() IS
  'Row trigger on acmetrace.job_type_rules: rejects a pattern that is not a regular expression and an invalid cluster name.';

CREATE FUNCTION acmetrace.apply_job_type_rules(cluster text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    n bigint;
BEGIN
    IF cluster IS NOT NULL THEN
        PERFORM acmetrace_internal.known_cluster(cluster);
    END IF;
    IF acmetrace_internal.distributed() THEN
        RETURN acmetrace_internal.apply_job_type_rules_distributed(cluster);
    END IF;
    UPDATE acmetrace.jobs j
       SET type = t.type
      FROM (SELECT s.cluster, s.job_id,
                   acmetrace_internal.job_type(s.cluster, s.job_name, s.partition, s.qos, s.account, jj.user_id) AS type
              FROM acmetrace.slurm_jobs s
              JOIN acmetrace.jobs jj ON jj.cluster = s.cluster AND jj.job_id = s.job_id
             WHERE apply_job_type_rules.cluster IS NULL OR s.cluster = apply_job_type_rules.cluster) t
     WHERE j.cluster = t.cluster AND j.job_id = t.job_id AND j.type IS DISTINCT FROM t.type;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
-- On Citus a STABLE function of a distributed table's columns cannot run in
-- an UPDATE, and no trigger keeps the summaries: the jobs' fields are read
-- to the coordinator, typed there, the changed ones updated per cluster and
-- those clusters summarized again.
CREATE FUNCTION acmetrace_internal.apply_job_type_rules_distributed(cl text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    c     text;
    ids   text[];
    types text[];
    n     bigint := 0;
    k     bigint;
BEGIN
    FOR c, ids, types IN
        SELECT r.cluster, array_agg(r.job_id), array_agg(r.new_type)
          FROM (SELECT f.cluster, f.job_id, f.type,
                       acmetrace_internal.job_type(f.cluster, f.job_name, f.partition, f.qos, f.account, f.user_id) AS new_type
                  FROM (SELECT s.cluster, s.job_id, s.job_name, s.partition, s.qos, s.account, jj.user_id, jj.type
                          FROM acmetrace.slurm_jobs s
                          JOIN acmetrace.jobs jj ON jj.cluster = s.cluster AND jj.job_id = s.job_id
                         WHERE cl IS NULL OR s.cluster = cl
                        OFFSET 0) f) r
         WHERE r.type IS DISTINCT FROM r.new_type
         GROUP BY r.cluster
    LOOP
        UPDATE acmetrace.jobs j SET type = u.type
          FROM unnest(ids, types) AS u(job_id, type)
         WHERE j.cluster = c AND j.job_id = u.job_id;
        GET DIAGNOSTICS k = ROW_COUNT;
        n := n + k;
        PERFORM acmetrace_internal.summarize(c);
    END LOOP;
    RETURN n;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.apply_job_type_rules_distributed(text) IS
  'acmetrace.apply_job_type_rules on the distributed warehouse: types computed on the coordinator, the changed jobs updated per cluster, their summaries rebuilt.';

COMMENT ON FUNCTION acmetrace.apply_job_type_rules(text) IS
  'Gives every loaded Slurm job of cluster (NULL: of every cluster) the type acmetrace.job_type_rules gives it now; returns how many jobs changed type. Loads apply the rules by themselves.';

-- Counts of the session's last sacct load, for acmetrace-sync and psql
-- users (COPY reports only the lines).  A load that fails or is rolled
-- back leaves the previous counts.
CREATE FUNCTION acmetrace_internal.sacct_last_load()
RETURNS TABLE (cluster text, lines bigint, inserted bigint, updated bigint, unchanged bigint)
LANGUAGE sql STABLE
AS $$
    SELECT a[1], a[2]::bigint, a[3]::bigint, a[4]::bigint, a[5]::bigint
      FROM (SELECT pg_catalog.string_to_array(
                     nullif(pg_catalog.current_setting('acmetrace_internal.sacct_last_load', true), ''), ',') AS a) s
     WHERE a IS NOT NULL
$$;
COMMENT ON FUNCTION acmetrace_internal.sacct_last_load() IS
  'Cluster, lines, jobs inserted, updated and unchanged of the session''s last committed or current sacct load; no row if there was none.';

-- Raises the error of line `line`, field `field`.
CREATE FUNCTION acmetrace_internal.sacct_invalid(line bigint, field text, msg text, hint text, code text DEFAULT '22P02')
RETURNS void
LANGUAGE sql
AS $$ SELECT acmetrace_internal.raise(code, format('sacct line %s, field %s: %s', line, field, msg), hint) $$;
COMMENT ON FUNCTION acmetrace_internal.sacct_invalid(bigint, text, text, text, text) IS
  'Raises a sacct load error naming the line and the field; nothing of the file is loaded.';

-- Checks across lines: one Slurm cluster per file and per acmetrace
-- cluster, each job once.  Returns the Slurm cluster.
CREATE FUNCTION acmetrace_internal.sacct_check(cl text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    l1   bigint;
    l2   bigint;
    v1   text;
    v2   text;
BEGIN
    SELECT p.line, p.slurm_cluster INTO l1, v1 FROM pg_temp.acmetrace_sacct p ORDER BY p.line LIMIT 1;
    SELECT p.line, p.slurm_cluster INTO l2, v2 FROM pg_temp.acmetrace_sacct p
     WHERE p.slurm_cluster IS DISTINCT FROM v1 ORDER BY p.line LIMIT 1;
    IF FOUND THEN
        PERFORM acmetrace_internal.sacct_invalid(l2, 'Cluster',
            format('Slurm cluster "%s" differs from "%s" on line %s', v2, v1, l1),
            'Export one Slurm cluster per file (sacct --clusters=NAME) and load each into its own acmetrace cluster.');
    END IF;
    SELECT s.slurm_cluster INTO v2 FROM acmetrace.slurm_jobs s WHERE s.cluster = cl LIMIT 1;
    IF FOUND AND v2 IS DISTINCT FROM v1 THEN
        PERFORM acmetrace_internal.sacct_invalid(l1, 'Cluster',
            format('cluster "%s" holds jobs of Slurm cluster "%s"; this file is from "%s"', cl, v2, v1),
            'Job ids of two Slurm clusters are different jobs: SET acmetrace.cluster to another name to load this file beside it.', '42809');
    END IF;
    SELECT min(p.line), max(p.line), p.job_id INTO l1, l2, v1
      FROM pg_temp.acmetrace_sacct p GROUP BY p.job_id HAVING count(*) > 1
     ORDER BY min(p.line) LIMIT 1;
    IF FOUND THEN
        PERFORM acmetrace_internal.sacct_invalid(l2, 'JobIDRaw',
            format('job %s also appears on line %s', v1, l1),
            'Each job once: run sacct without --duplicates (it then prints the last record of a requeued job).', '23505');
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.sacct_check(text) IS
  'The sacct loader''s checks across lines: one Slurm cluster per file and per acmetrace cluster cl, each job once.';

-- Statement trigger on acmetrace.sacct_jobs.
--
-- Mapping: JobIDRaw -> job_id (the key: a pending array range 10_[0-2] has
-- JobIDRaw 10, which later names one of its tasks, so keying on JobID would
-- keep a phantom row); User -> user_id; State's first word -> state; NNodes,
-- NCPUS -> node_num, cpu_num; GPUs of AllocTRES, else ReqTRES -> gpu_num;
-- times read in acmetrace.time_zone (default UTC; export with TZ=UTC);
-- duration = End - Start, queue = Start - Submit (seconds), gpu_time =
-- duration x gpu_num, NULL while a time is unknown (a pending or running
-- job); the type from acmetrace.job_type_rules; the rest in
-- acmetrace.slurm_jobs.  A job already loaded is updated when anything
-- differs and left alone otherwise, so reloading a window changes nothing.
CREATE FUNCTION acmetrace_internal.load_sacct()
RETURNS trigger
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    cl      text;
    tz      text;
    n       bigint;
    ins     bigint := 0;
    upd     bigint := 0;
    old_j   acmetrace.jobs[];
    new_j   acmetrace.jobs[];
    changed text[];
    e_code  text;
    e_msg   text;
    e_hint  text;
    upd_ids text[];
    -- above this many lines the summaries are rebuilt whole
    max_delta constant bigint := 100000;
BEGIN
    -- a second load in this transaction
    IF pg_catalog.to_regclass('pg_temp.acmetrace_sacct') IS NOT NULL THEN
        DROP TABLE pg_temp.acmetrace_sacct;
    END IF;
    -- the parser's error, without the statement as its context
    BEGIN
        CREATE TEMP TABLE acmetrace_sacct ON COMMIT DROP AS
        SELECT r.line, p.*
          FROM (SELECT s.*, pg_catalog.row_number() OVER () + 1 AS line FROM new_rows s) r,
               LATERAL acmetrace_internal.sacct_parse(r.line, ARRAY[
                   r."JobIDRaw", r."JobID", r."Cluster", r."Partition", r."QOS", r."Account", r."User",
                   r."JobName", r."Submit", r."Eligible", r."Start", r."End", r."State", r."ExitCode",
                   r."NNodes", r."NCPUS", r."ReqTRES", r."AllocTRES", r."Timelimit", r."NodeList"]) p;
        GET DIAGNOSTICS n = ROW_COUNT;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS e_code = RETURNED_SQLSTATE, e_msg = MESSAGE_TEXT, e_hint = PG_EXCEPTION_HINT;
        IF e_hint = '' THEN
            RAISE EXCEPTION USING ERRCODE = e_code, MESSAGE = e_msg;
        END IF;
        RAISE EXCEPTION USING ERRCODE = e_code, MESSAGE = e_msg, HINT = e_hint;
    END;
    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    IF n = 0 THEN
        PERFORM pg_catalog.set_config('acmetrace_internal.sacct_last_load', '', false);
        RETURN NULL;
    END IF;

    cl := acmetrace_internal.load_target(
              (SELECT lower(p.slurm_cluster) FROM pg_temp.acmetrace_sacct p ORDER BY p.line LIMIT 1), 'slurm');
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cl;
    PERFORM acmetrace_internal.sacct_check(cl);

    -- the jobs as they were, for the summaries' delta
    IF n <= max_delta THEN
        old_j := ARRAY(SELECT j FROM acmetrace.jobs j JOIN pg_temp.acmetrace_sacct p
                         ON j.cluster = cl AND j.job_id = p.job_id);
    END IF;
    PERFORM acmetrace_internal.summaries_by_caller(cl);

    WITH src AS (
        SELECT p.job_id, p.user_name AS user_id,
               acmetrace_internal.job_type(cl, p.job_name, p.partition, p.qos, p.account, p.user_name) AS type,
               p.state, p.node_num, p.gpu_num, p.cpu_num,
               p.submit_time AT TIME ZONE tz AS submit_time,
               p.start_time AT TIME ZONE tz AS start_time,
               p.end_time AT TIME ZONE tz AS end_time
          FROM pg_temp.acmetrace_sacct p),
    up AS (
        INSERT INTO acmetrace.jobs AS j
               (cluster, job_id, user_id, type, state, node_num, gpu_num, cpu_num,
                submit_time, start_time, end_time, duration, queue, gpu_time)
        SELECT cl, s.job_id, s.user_id, s.type, s.state, s.node_num, s.gpu_num, s.cpu_num,
               s.submit_time, s.start_time, s.end_time,
               pg_catalog.date_part('epoch', s.end_time - s.start_time)::numeric,
               pg_catalog.date_part('epoch', s.start_time - s.submit_time)::numeric,
               pg_catalog.date_part('epoch', s.end_time - s.start_time)::numeric * s.gpu_num
          FROM src s
        ON CONFLICT ON CONSTRAINT jobs_pkey DO UPDATE
           SET user_id = EXCLUDED.user_id, type = EXCLUDED.type, state = EXCLUDED.state,
               node_num = EXCLUDED.node_num, gpu_num = EXCLUDED.gpu_num, cpu_num = EXCLUDED.cpu_num,
               submit_time = EXCLUDED.submit_time, start_time = EXCLUDED.start_time,
               end_time = EXCLUDED.end_time, duration = EXCLUDED.duration,
               queue = EXCLUDED.queue, gpu_time = EXCLUDED.gpu_time
         WHERE (j.user_id, j.type, j.state, j.node_num, j.gpu_num, j.cpu_num, j.submit_time,
                j.start_time, j.end_time, j.duration, j.queue, j.gpu_time)
               IS DISTINCT FROM
               (EXCLUDED.user_id, EXCLUDED.type, EXCLUDED.state, EXCLUDED.node_num, EXCLUDED.gpu_num,
                EXCLUDED.cpu_num, EXCLUDED.submit_time, EXCLUDED.start_time, EXCLUDED.end_time,
                EXCLUDED.duration, EXCLUDED.queue, EXCLUDED.gpu_time)
        RETURNING j.job_id, (j.xmax = 0) AS inserted)
    SELECT count(*) FILTER (WHERE up.inserted),
           coalesce(array_agg(up.job_id), '{}'),
           coalesce(array_agg(up.job_id) FILTER (WHERE NOT up.inserted), '{}')
      INTO ins, changed, upd_ids FROM up;

    WITH up AS (
        INSERT INTO acmetrace.slurm_jobs AS s
               (cluster, job_id, slurm_cluster, slurm_job_id, partition, qos, account, job_name,
                eligible_time, cancelled_by, exit_code, exit_signal, req_gpus, alloc_gpus, gpu_type,
                mem_mb, timelimit_s, nodelist)
        SELECT cl, p.job_id, p.slurm_cluster, p.slurm_job_id, p.partition, p.qos, p.account, p.job_name,
               p.eligible_time AT TIME ZONE tz, p.cancelled_by, p.exit_code, p.exit_signal,
               p.req_gpus, p.alloc_gpus, p.gpu_type, p.mem_mb, p.timelimit_s, p.nodelist
          FROM pg_temp.acmetrace_sacct p
        ON CONFLICT ON CONSTRAINT slurm_jobs_pkey DO UPDATE
           SET slurm_job_id = EXCLUDED.slurm_job_id, partition = EXCLUDED.partition, qos = EXCLUDED.qos,
               account = EXCLUDED.account, job_name = EXCLUDED.job_name,
               eligible_time = EXCLUDED.eligible_time, cancelled_by = EXCLUDED.cancelled_by,
               exit_code = EXCLUDED.exit_code, exit_signal = EXCLUDED.exit_signal,
               req_gpus = EXCLUDED.req_gpus, alloc_gpus = EXCLUDED.alloc_gpus, gpu_type = EXCLUDED.gpu_type,
               mem_mb = EXCLUDED.mem_mb, timelimit_s = EXCLUDED.timelimit_s, nodelist = EXCLUDED.nodelist
         WHERE (s.slurm_job_id, s.partition, s.qos, s.account, s.job_name, s.eligible_time, s.cancelled_by,
                s.exit_code, s.exit_signal, s.req_gpus, s.alloc_gpus, s.gpu_type, s.mem_mb, s.timelimit_s,
                s.nodelist)
               IS DISTINCT FROM
               (EXCLUDED.slurm_job_id, EXCLUDED.partition, EXCLUDED.qos, EXCLUDED.account, EXCLUDED.job_name,
                EXCLUDED.eligible_time, EXCLUDED.cancelled_by, EXCLUDED.exit_code, EXCLUDED.exit_signal,
                EXCLUDED.req_gpus, EXCLUDED.alloc_gpus, EXCLUDED.gpu_type, EXCLUDED.mem_mb,
                EXCLUDED.timelimit_s, EXCLUDED.nodelist)
        RETURNING s.job_id, (s.xmax = 0) AS inserted)
    -- updated: changed in either table
    SELECT count(*) INTO upd
      FROM (SELECT up.job_id FROM up WHERE NOT up.inserted
             UNION SELECT u.id FROM unnest(upd_ids) u(id)) c;

    -- the summaries: only what the changed jobs touch
    IF n <= max_delta THEN
        -- (the changed rows read first, with only the parameters the query
        -- uses: on Citus a query holding both the call and the jobs' rows
        -- runs on a worker, and PL/pgSQL's unused parameters break it)
        EXECUTE 'SELECT ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = $1 AND j.job_id = ANY ($2))'
           INTO new_j USING cl, changed;
        PERFORM acmetrace_internal.summarize_delta(cl,
            ARRAY(SELECT o FROM unnest(old_j) o JOIN unnest(upd_ids) u(id) ON u.id = o.job_id), new_j);
    ELSE
        PERFORM acmetrace_internal.summarize(cl);
    END IF;
    -- later changes in this transaction (a direct UPDATE) are the triggers' again
    PERFORM pg_catalog.set_config('acmetrace_internal.by_caller',
        coalesce(pg_catalog.array_to_string(pg_catalog.array_remove(pg_catalog.string_to_array(
            pg_catalog.current_setting('acmetrace_internal.by_caller', true), ','), cl), ','), ''), true);
    PERFORM pg_catalog.set_config('acmetrace_internal.sacct_last_load',
                                  format('%s,%s,%s,%s,%s', cl, n, ins, upd, n - ins - upd), false);
    PERFORM acmetrace_internal.analyze_jobs(ins);
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.load_sacct() IS
  'Trigger of acmetrace.sacct_jobs: parses and checks every line (errors name the line and field), then inserts new jobs and updates changed ones in acmetrace.jobs and acmetrace.slurm_jobs, all or nothing, and updates the summaries the changed jobs touch.';
