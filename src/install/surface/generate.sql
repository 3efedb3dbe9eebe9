-- Synthetic traces with the published shape and marginals (src/core/generate_jobs.c).

CREATE FUNCTION acmetrace.generate_jobs(profile text, n integer, seed integer DEFAULT 1)
RETURNS SETOF acmetrace.trace_seren
AS 'MODULE_PATHNAME', 'acmetrace_generate_jobs'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.generate_jobs(text, integer, integer) IS
  'n synthetic jobs in the trace_seren.csv shape calibrated to the published seren or kalos summary over many seeds, from users whose jobs of a type come in campaigns of similar run times and sizes, each job type with its own behaviour, placed by a priority scheduler with gang allocation and backfill; the same seed gives the same rows.';

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
    saved  text := coalesce(acmetrace_internal.setting('acmetrace.cluster'), '');
BEGIN
    IF cluster IS NULL OR profile IS NULL OR n IS NULL OR seed IS NULL THEN
        PERFORM acmetrace_internal.raise('22004', 'load_generated arguments must not be NULL',
              'For example SELECT acmetrace.load_generated(''synth'', ''seren'', 10000, 1).');
    END IF;
    -- Checked here so the error is the caller's (set_config would check it
    -- too); an empty name would fall back to the loader's default cluster.
    IF cluster !~ '^[a-z][a-z0-9_]*$' THEN
        PERFORM acmetrace_internal.raise('42602', format('invalid cluster name "%s"', cluster),
              format('Cluster names are lower case letters, digits and _, starting with a letter, e.g. %L.',
                     coalesce(substring(regexp_replace(lower(cluster), '[^a-z0-9_]', '_', 'g') FROM '^[a-z][a-z0-9_]*$'), 'synth')));
    END IF;
    PERFORM pg_catalog.set_config('acmetrace.cluster', cluster, true);
    -- A new cluster is recorded as generated (the trace_seren shape, in
    -- its zone); generating more jobs into a loaded cluster keeps its format.
    INSERT INTO acmetrace.clusters AS c (cluster, source_format, gpu_capacity, time_zone)
    VALUES (cluster, 'generated', acmetrace_internal.known_capacity(profile), 'Asia/Shanghai')
    ON CONFLICT ON CONSTRAINT clusters_pkey DO NOTHING;
    INSERT INTO acmetrace.trace_seren SELECT * FROM acmetrace.generate_jobs(profile, n, seed);
    GET DIAGNOSTICS loaded = ROW_COUNT;
    UPDATE acmetrace.clusters c
       SET gpu_capacity = acmetrace_internal.known_capacity(profile)
     WHERE c.cluster = load_generated.cluster AND c.gpu_capacity IS NULL;
    -- on one server the trigger on acmetrace.clusters rebuilt the summaries
    -- with the capacity; on Citus no trigger runs on the coordinator
    IF FOUND AND acmetrace_internal.distributed() THEN
        PERFORM acmetrace_internal.summarize(cluster);
    END IF;
    PERFORM pg_catalog.set_config('acmetrace.cluster', saved, true);
    RETURN loaded;
END
$$;
COMMENT ON FUNCTION acmetrace.load_generated(text, text, integer, integer) IS
  'Generates n jobs with a profile (seren, kalos) and loads them as a cluster, with the profile''s GPU capacity; returns the jobs loaded.';

-- Utilization that follows a generated trace's placement (src/core/placement.c).
CREATE FUNCTION acmetrace.generate_util(profile text, n integer, seed integer, metric text,
                                        start timestamptz, samples integer,
                                        offline_share double precision DEFAULT 0)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'acmetrace_generate_trace_util'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.generate_util(text, integer, integer, text, timestamptz, integer, double precision) IS
  'The lines of a per-GPU utilization CSV (GPU_UTIL, SM_ACTIVE, SM_OCCUPANCY or FB_USED) of the cluster running generate_jobs(profile, n, seed): a column per GPU, a line per 15 s from start; a GPU is busy only while one of the jobs runs on it, and the samples follow the published distribution.';

CREATE FUNCTION acmetrace.generate_placement(profile text, n integer, seed integer DEFAULT 1)
RETURNS TABLE (job_id text, start_time timestamptz, end_time timestamptz, series text[])
AS 'MODULE_PATHNAME', 'acmetrace_generate_placement'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.generate_placement(text, integer, integer) IS
  'Every GPU job of generate_jobs(profile, n, seed) that ran, in start order, with the utilization series (GPUs) it ran on.';
