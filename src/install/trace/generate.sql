-- Synthetic traces with the published shape and marginals (src/core/generate_jobs.c).

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
COMMENT ON FUNCTION acmetrace.load_generated(text, text, integer, integer) IS
  'Generates n jobs with a profile (seren, kalos) and loads them as a cluster, with the profile''s GPU capacity; returns the jobs loaded.';
