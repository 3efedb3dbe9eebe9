-- The warehouse on Citus: acmetrace.distribute and what the loaders do
-- differently once the tables are distributed (doc/scaling.md, "Citus").

-- Whether acmetrace.jobs is a Citus table (Citus may not be installed: its
-- catalog is read only when it exists).
CREATE FUNCTION acmetrace_internal.distributed()
RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    d boolean := false;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition
                                 WHERE logicalrelid = ''acmetrace.jobs''::pg_catalog.regclass)' INTO d;
    END IF;
    RETURN d;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.distributed() IS
  'Whether acmetrace.distribute has made acmetrace.jobs a Citus distributed table.';

-- A loader's jobs are in: on one server the statement trigger on
-- acmetrace.jobs has rebuilt the cluster's summaries already (and cleared
-- acmetrace_internal.changing); on Citus no trigger runs on the
-- coordinator, so the loader does what the trigger would.
CREATE FUNCTION acmetrace_internal.jobs_written(cl text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF nullif(pg_catalog.current_setting('acmetrace_internal.changing', true), '') IS NOT DISTINCT FROM cl THEN
        PERFORM acmetrace_internal.changing(NULL);
        IF NOT coalesce(acmetrace_internal.by_caller(cl), false) THEN
            PERFORM acmetrace_internal.summarize(cl);
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.jobs_written(text) IS
  'Called by a loader after it wrote cluster cl''s jobs: rebuilds cl''s summaries when no trigger did (the distributed warehouse).';

-- The hours of acmetrace.utilization_hours for days [lo, hi] of a metric
-- and cluster, rebuilt from the blocks: the loaders' upkeep on Citus, where
-- the blocks' statement triggers are gone (src/utilization_store.c).
CREATE FUNCTION acmetrace_internal.utilization_hours_rebuild(m text, cl text, lo date, hi date)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock((pg_catalog.hashtext(m)::bigint << 32)
                                             | (pg_catalog.hashtext(cl)::bigint & 4294967295));
    DELETE FROM acmetrace.utilization_hours h
     WHERE h.metric = m AND h.cluster = cl
       AND h.bucket >= lo::timestamp AT TIME ZONE 'UTC' AND h.bucket < (hi + 1)::timestamp AT TIME ZONE 'UTC';
    INSERT INTO acmetrace.utilization_hours (metric, cluster, bucket, series, samples, sum, min, max)
    SELECT m, cl, (x.day + (x.i - 1) * interval '1 hour') AT TIME ZONE 'UTC', x.series, x.samples, x.sum, x.min, x.max
      FROM (SELECT b.day, u.i, count(*)::integer AS series, sum(u.n)::bigint AS samples, sum(u.s) AS sum,
                   min(u.mn) AS min, max(u.mx) AS max
              FROM acmetrace.utilization_blocks b
             CROSS JOIN LATERAL unnest(b.hour_n, b.hour_sum, b.hour_min, b.hour_max) WITH ORDINALITY u(n, s, mn, mx, i)
             WHERE b.metric = m AND b.cluster = cl AND b.day BETWEEN lo AND hi AND u.n > 0
             GROUP BY b.day, u.i) x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_hours_rebuild(text, text, date, date) IS
  'Rebuilds the rows of acmetrace.utilization_hours of metric m, cluster cl and UTC days lo to hi from the blocks (the loaders call it when the blocks have no statement triggers: the distributed warehouse).';

CREATE FUNCTION acmetrace.distribute(shard_count integer DEFAULT NULL)
RETURNS TABLE (table_name regclass, kind text, distribution_column text, colocated_with regclass)
LANGUAGE plpgsql
AS $$
DECLARE
    t  record;
    sc integer := shard_count;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension e WHERE e.extname = 'citus') THEN
        PERFORM acmetrace_internal.raise('55000', 'acmetrace.distribute needs the citus extension in this database',
              'On the coordinator: CREATE EXTENSION citus; SELECT citus_add_node(''worker-host'', 5432) for each worker; then SELECT * FROM acmetrace.distribute().');
    END IF;
    IF sc IS NOT NULL AND (sc < 1 OR sc > 64000) THEN
        PERFORM acmetrace_internal.raise('22023', format('shard_count %s is out of range', sc),
              'Give 1 to 64000 shards (NULL: citus.shard_count), e.g. twice the workers'' cores.');
    END IF;
    IF acmetrace_internal.distributed() THEN
        PERFORM acmetrace_internal.raise('55000', 'the acmetrace warehouse is distributed already',
              'SELECT * FROM citus_tables shows its tables; nothing was changed.');
    END IF;
    IF sc IS NULL THEN
        sc := pg_catalog.current_setting('citus.shard_count')::integer;
    END IF;
    -- The statement triggers that keep the summaries and the hour rollup
    -- would run on the shards, where they cannot reach the other tables:
    -- the loaders keep both through the coordinator instead
    -- (acmetrace_internal.jobs_written, utilization_hours_rebuild).
    DROP TRIGGER summaries_insert ON acmetrace.jobs;
    DROP TRIGGER summaries_update ON acmetrace.jobs;
    DROP TRIGGER summaries_delete ON acmetrace.jobs;
    DROP TRIGGER summaries_truncate ON acmetrace.jobs;
    DROP TRIGGER summaries_insert ON acmetrace.clusters;
    DROP TRIGGER summaries_update ON acmetrace.clusters;
    DROP TRIGGER summaries_delete ON acmetrace.clusters;
    DROP TRIGGER summaries_truncate ON acmetrace.clusters;
    DROP TRIGGER hours_insert ON acmetrace.utilization_blocks;
    DROP TRIGGER hours_update ON acmetrace.utilization_blocks;
    DROP TRIGGER hours_delete ON acmetrace.utilization_blocks;
    DROP TRIGGER hours_truncate ON acmetrace.utilization_blocks;
    -- The row triggers left (a block's hour columns, a rule's check) read
    -- only their row: safe on the shards.
    PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    -- Citus 13 creates a table's policies on its shards without AS
    -- RESTRICTIVE, which would make the grants' policy widen every_row's
    -- rather than narrow it: each table gets one permissive policy instead.
    FOR t IN SELECT p.polrelid::pg_catalog.regclass AS rel
               FROM pg_catalog.pg_policy p
              WHERE p.polname = 'every_row' AND p.polrelid <> 'acmetrace.job_type_rules'::pg_catalog.regclass LOOP
        EXECUTE format('DROP POLICY every_row ON %s', t.rel);
        EXECUTE format('DROP POLICY cluster_access ON %s', t.rel);
        EXECUTE format('CREATE POLICY cluster_access ON %s USING (acmetrace_internal.cluster_visible(cluster))', t.rel);
    END LOOP;
    DROP POLICY every_row ON acmetrace.job_type_rules;
    DROP POLICY cluster_access ON acmetrace.job_type_rules;
    DROP POLICY every_cluster_update ON acmetrace.job_type_rules;
    DROP POLICY every_cluster_delete ON acmetrace.job_type_rules;
    CREATE POLICY cluster_access ON acmetrace.job_type_rules FOR SELECT
        USING (cluster IS NULL OR acmetrace_internal.cluster_visible(cluster));
    CREATE POLICY cluster_insert ON acmetrace.job_type_rules FOR INSERT
        WITH CHECK (acmetrace_internal.cluster_visible(cluster));
    CREATE POLICY cluster_update ON acmetrace.job_type_rules FOR UPDATE
        USING (acmetrace_internal.cluster_visible(cluster)) WITH CHECK (acmetrace_internal.cluster_visible(cluster));
    CREATE POLICY cluster_delete ON acmetrace.job_type_rules FOR DELETE
        USING (acmetrace_internal.cluster_visible(cluster));

    -- A cluster's registration, jobs and everything derived from them live
    -- together, on one worker: a per-cluster analysis is one router query,
    -- and a query over the registry reaches each cluster's rows on its
    -- worker (a reference table could not be joined that way).
    EXECUTE 'SELECT pg_catalog.create_distributed_table(''acmetrace.jobs'', ''cluster'', shard_count => $1)' USING sc;
    FOR t IN SELECT x.rel FROM unnest(ARRAY['acmetrace.clusters', 'acmetrace.slurm_jobs', 'acmetrace.failure_reasons', 'acmetrace.job_gpus',
                  'acmetrace.philly_gpus', 'acmetrace.summary_clusters', 'acmetrace.summary_jobs',
                  'acmetrace.summary_groups', 'acmetrace.summary_weeks', 'acmetrace.summary_values',
                  'acmetrace.summary_extents', 'acmetrace.summary_hours', 'acmetrace.summary_days',
                  'acmetrace.summary_usage', 'acmetrace.utilization_hours', 'acmetrace.utilization_jobs']) x(rel) LOOP
        EXECUTE 'SELECT pg_catalog.create_distributed_table($1, ''cluster'', colocate_with => ''acmetrace.jobs'')'
            USING t.rel::pg_catalog.regclass;
    END LOOP;
    -- The samples, the bulk (0.1 to 0.6 billion a metric a day on a large
    -- fleet), spread by series over every worker.
    EXECUTE 'SELECT pg_catalog.create_distributed_table(''acmetrace.utilization_blocks'', ''series'', shard_count => $1, colocate_with => ''none'')'
        USING sc;
    -- The job type rules: small, read by every node.
    EXECUTE 'SELECT pg_catalog.create_reference_table(''acmetrace.job_type_rules'')';
    -- The cluster grants: read on every node by the tables' row-level security.
    EXECUTE 'SELECT pg_catalog.create_reference_table(''acmetrace.cluster_access'')';

    RETURN QUERY EXECUTE
        'SELECT p.logicalrelid::pg_catalog.regclass,
                CASE p.partmethod WHEN ''h'' THEN ''distributed'' ELSE ''reference'' END,
                CASE WHEN p.partmethod = ''h'' THEN pg_catalog.column_to_column_name(p.logicalrelid, p.partkey) END,
                CASE WHEN p.partmethod = ''h'' AND p.logicalrelid <> ''acmetrace.jobs''::pg_catalog.regclass
                      AND p.colocationid = (SELECT q.colocationid FROM pg_catalog.pg_dist_partition q
                                             WHERE q.logicalrelid = ''acmetrace.jobs''::pg_catalog.regclass)
                     THEN ''acmetrace.jobs''::pg_catalog.regclass END
           FROM pg_catalog.pg_dist_partition p
          WHERE p.logicalrelid::pg_catalog.regclass::text LIKE ''acmetrace.%''
          ORDER BY p.partmethod, p.logicalrelid::pg_catalog.regclass::text COLLATE "C"';
END
$$;
COMMENT ON FUNCTION acmetrace.distribute(integer) IS
  'Distributes the warehouse over the Citus cluster of this coordinator: the cluster registry, jobs, their Slurm rows, failure reasons, GPU placements, Philly GPUs, the summaries, the hour rollup and job label spans by cluster (co-located); utilization blocks by series; job type rules as a reference table. The data already loaded moves to the workers; loads, syncs and analyses then run through the coordinator. Returns the tables, how they are distributed and on which column.';
