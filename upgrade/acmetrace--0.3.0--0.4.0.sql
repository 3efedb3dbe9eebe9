-- acmetrace 0.3.0 -> 0.4.0.  test/e2e/upgrade.sh checks that 0.3.0 plus
-- this script gives the same catalog as a fresh 0.4.0 install.
\echo Use "ALTER EXTENSION acmetrace UPDATE TO '0.4.0'" to load this file. \quit

-- queue_percentiles is plain SQL over delay_sketch_agg: the one-scan C
-- function it called is gone (its library entry point now only errors).
CREATE OR REPLACE FUNCTION acmetrace.queue_percentiles(cluster text,
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
    RETURN QUERY
    SELECT s.type, acmetrace.count(s.sk), acmetrace.percentiles(s.sk, fractions), s.sk
      FROM (SELECT j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
              FROM acmetrace.jobs j
             WHERE j.cluster = queue_percentiles.cluster
               AND j.wait_s >= 0
               AND (NOT gpu_jobs_only OR j.gpu_num > 0)
             GROUP BY j.type) s
     ORDER BY s.type;
END
$$;
COMMENT ON FUNCTION acmetrace.queue_percentiles(text, double precision[], boolean) IS
  'Queueing delay (start_time - submit_time, seconds) percentiles per job type, within 0.5%; jobs that never started or started before their submit time are left out. The sketch column rolls up: acmetrace.rollup(sketch) is the whole cluster.';

DROP FUNCTION acmetrace._queue_sketches(text, boolean);

-- unpivot takes the key column (Philly's machineId) as an argument instead
-- of recognizing it by name.
DROP FUNCTION acmetrace.unpivot(text, text);
CREATE FUNCTION acmetrace.unpivot(header text, line text, key_column text DEFAULT NULL)
RETURNS TABLE (ts timestamptz, series text, value double precision)
AS 'MODULE_PATHNAME', 'acmetrace_unpivot'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.unpivot(text, text, text) IS
  'One line of a wide utilization CSV as (ts, series, value) rows, one per non-empty value cell; header is the file''s first line. key_column (e.g. Philly''s machineId) names the column that identifies the machine of a line: its cells are not values and series are named <key>/<column>. NULL header or line: no rows.';

CREATE OR REPLACE FUNCTION acmetrace._load_utilization()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    metric text := nullif(current_setting('acmetrace.metric', true), '');
    cl     text := nullif(current_setting('acmetrace.cluster', true), '');
    hdr    text;
    key    text;
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
    -- Philly's cluster_gpu_util has a row per machine and time: its second
    -- column, machineId, is the key of the series (m29/gpu0_util, ...).
    IF split_part(hdr, ',', 2) = 'machineId' THEN
        key := 'machineId';
    END IF;
    INSERT INTO acmetrace.utilization (metric, cluster, ts, series, value)
    SELECT metric, cl, u.ts, u.series, u.value
      FROM new_rows n, acmetrace.unpivot(hdr, n.line, key) u
     WHERE n.line IS DISTINCT FROM hdr AND n.line <> '';
    DELETE FROM acmetrace.utilization_lines;
    RETURN NULL;
END
$$;

-- occupancy_agg and rollup(occupancy) accumulate into a real type,
-- acmetrace.occupancy_state, instead of internal (so Citus can split them):
-- the aggregates and their internal-state support functions are replaced.
DROP AGGREGATE acmetrace.occupancy_agg(timestamptz, timestamptz, integer);
DROP AGGREGATE acmetrace.rollup(acmetrace.occupancy);
DROP FUNCTION acmetrace._occupancy_trans(internal, timestamptz, timestamptz, integer);
DROP FUNCTION acmetrace._occupancy_rollup_trans(internal, acmetrace.occupancy);
DROP FUNCTION acmetrace._occupancy_combine(internal, internal);
DROP FUNCTION acmetrace._occupancy_serialize(internal);
DROP FUNCTION acmetrace._occupancy_deserialize(bytea, internal);
DROP FUNCTION acmetrace._occupancy_final(internal);

-- occupancy_agg's and rollup's state, a real type so that parallel workers,
-- postgres_fdw and Citus can ship partial states through its I/O: jobs
-- waiting unsorted (24 bytes each) and sorted runs from partial states,
-- updated in place as an expanded object and written flat (one sorted start
-- and one end list) only when it leaves the aggregate.
CREATE TYPE acmetrace.occupancy_state;

CREATE FUNCTION acmetrace.occupancy_state_in(cstring)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_state_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_state_out(acmetrace.occupancy_state)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_state_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_state_recv(internal)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_state_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_state_send(acmetrace.occupancy_state)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_state_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.occupancy_state (
    INPUT = acmetrace.occupancy_state_in,
    OUTPUT = acmetrace.occupancy_state_out,
    RECEIVE = acmetrace.occupancy_state_recv,
    SEND = acmetrace.occupancy_state_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.occupancy_state IS
  'Partial state of occupancy_agg and rollup(occupancy): the jobs seen so far. Text form v1:<hex>, the serialized state (version, start and end counts, then sorted (time, gpus) start and end events) in lower-case hexadecimal; binary form the same bytes. Checked on input: a state releases no GPUs before allocating them.';

CREATE FUNCTION acmetrace._occupancy_trans(acmetrace.occupancy_state, timestamptz, timestamptz, integer)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_combine(acmetrace.occupancy_state, acmetrace.occupancy_state)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._occupancy_final(acmetrace.occupancy_state)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.occupancy_agg(start_time timestamptz, end_time timestamptz, gpus integer) (
    SFUNC = acmetrace._occupancy_trans,
    STYPE = acmetrace.occupancy_state,
    FINALFUNC = acmetrace._occupancy_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = acmetrace._occupancy_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.occupancy_agg(timestamptz, timestamptz, integer) IS
  'GPUs allocated over time by jobs holding gpus over [start_time, end_time); releases count before allocations at the same instant. Rows with NULL start_time or gpus, or 0 GPUs, are ignored; NULL end_time holds for ever; end_time < start_time is an error. No rows give the empty occupancy [].';

-- The sum of stored occupancies (shards, months, clusters): the same state,
-- each value entered as the jobs whose occupancy it is.
CREATE FUNCTION acmetrace._occupancy_rollup_trans(acmetrace.occupancy_state, acmetrace.occupancy)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_rollup_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.rollup(acmetrace.occupancy) (
    SFUNC = acmetrace._occupancy_rollup_trans,
    STYPE = acmetrace.occupancy_state,
    FINALFUNC = acmetrace._occupancy_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = acmetrace._occupancy_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.rollup(acmetrace.occupancy) IS
  'Sum of occupancies: GPUs allocated at each instant by all of them, exactly occupancy_agg over the union of their jobs. NULLs are skipped; no rows give the empty occupancy [].';

-- bins, bins_at, cdf_at and weighted_cdf_at accumulate into the new type
-- acmetrace.bins_state instead of internal (no serial functions), and their
-- support functions take the bins stem.  Nothing stored depends on them
-- (the functions that call them are SQL and PL/pgSQL bodies), so they are
-- dropped and created again as a fresh install makes them.
DROP AGGREGATE acmetrace.bins(double precision, double precision, double precision, integer);
DROP AGGREGATE acmetrace.bins_at(double precision, double precision[]);
DROP AGGREGATE acmetrace.cdf_at(double precision, double precision[]);
DROP AGGREGATE acmetrace.weighted_cdf_at(double precision, double precision, double precision[]);
DROP FUNCTION acmetrace._bins_trans(internal, double precision, double precision, double precision, integer);
DROP FUNCTION acmetrace._bins_at_trans(internal, double precision, double precision[]);
DROP FUNCTION acmetrace._cdf_trans(internal, double precision, double precision[]);
DROP FUNCTION acmetrace._wcdf_trans(internal, double precision, double precision, double precision[]);
DROP FUNCTION acmetrace._hist_combine(internal, internal);
DROP FUNCTION acmetrace._hist_serialize(internal);
DROP FUNCTION acmetrace._hist_deserialize(bytea, internal);
DROP FUNCTION acmetrace._bins_final(internal);
DROP FUNCTION acmetrace._cdf_final(internal);

-- bins_state: the four aggregates' transition state, a real type so that
-- parallel workers and Citus can ship partial states through its own I/O.
CREATE TYPE acmetrace.bins_state;

CREATE FUNCTION acmetrace.bins_state_in(cstring)
RETURNS acmetrace.bins_state
AS 'MODULE_PATHNAME', 'acmetrace_bins_state_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.bins_state_out(acmetrace.bins_state)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_bins_state_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.bins_state_recv(internal)
RETURNS acmetrace.bins_state
AS 'MODULE_PATHNAME', 'acmetrace_bins_state_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.bins_state_send(acmetrace.bins_state)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_bins_state_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.bins_state (
    INPUT = acmetrace.bins_state_in,
    OUTPUT = acmetrace.bins_state_out,
    RECEIVE = acmetrace.bins_state_recv,
    SEND = acmetrace.bins_state_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.bins_state IS
  'Transition state of acmetrace.bins, bins_at, cdf_at and weighted_cdf_at: the aggregate''s arguments and its counts (and weights). Text form v1:<the versioned binary state in hexadecimal>, checked field by field on the way in.';

-- Aggregate support.
CREATE FUNCTION acmetrace._bins_trans(acmetrace.bins_state, double precision, double precision, double precision, integer)
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_at_trans(acmetrace.bins_state, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_at_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_cdf_trans(acmetrace.bins_state, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_cdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_wcdf_trans(acmetrace.bins_state, double precision, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_wcdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_combine(acmetrace.bins_state, acmetrace.bins_state)
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_final(acmetrace.bins_state)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'acmetrace_bins_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace._bins_cdf_final(acmetrace.bins_state)
RETURNS double precision[] AS 'MODULE_PATHNAME', 'acmetrace_cdf_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.bins(value double precision, lo double precision, hi double precision, nbins integer) (
    SFUNC = acmetrace._bins_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace._bins_final,
    COMBINEFUNC = acmetrace._bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins(double precision, double precision, double precision, integer) IS
  'Counts in nbins equal-width bins over [lo, hi], as bigint[] indexed 0..nbins+1: [0] below lo, [i] bin i (closed on the left, bin nbins also on the right), [nbins+1] above hi. Inside [lo, hi) the bin is width_bucket''s. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.bins_at(value double precision, edges double precision[]) (
    SFUNC = acmetrace._bins_at_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace._bins_final,
    COMBINEFUNC = acmetrace._bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins_at(double precision, double precision[]) IS
  'Counts between k+1 increasing edges, as bigint[] indexed 0..k+1: [0] below the first edge, [i] for [edge i, edge i+1) (the last bin closed), [k+1] above the last edge. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.cdf_at(value double precision, thresholds double precision[]) (
    SFUNC = acmetrace._bins_cdf_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace._bins_cdf_final,
    COMBINEFUNC = acmetrace._bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.cdf_at(double precision, double precision[]) IS
  'Percent of the non-NULL, non-NaN values <= each threshold, in the thresholds'' order (the AcmeTrace notebook''s len(v[v <= x]) / len(v) * 100). No values give NULL.';

CREATE AGGREGATE acmetrace.weighted_cdf_at(value double precision, weight double precision, thresholds double precision[]) (
    SFUNC = acmetrace._bins_wcdf_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace._bins_cdf_final,
    COMBINEFUNC = acmetrace._bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.weighted_cdf_at(double precision, double precision, double precision[]) IS
  'Percent of the total weight carried by rows with value <= each threshold (rows with a NULL or NaN value or weight are left out; negative or infinite weights are errors). Zero total weight gives NULL.';

-- delay_sketch_agg and rollup(delay_sketch) accumulate into the sketch type
-- itself, kept expanded, instead of internal: Citus splits only aggregates
-- whose state is a real type, shipping partial states through its text
-- form.  The views over delay_sketch_agg are dropped first and recreated
-- below as a fresh install defines them.  The 0.1.0 support functions' C
-- symbols stay in the library for older SQL.
DROP VIEW acmetrace.v_queue_delay;
DROP VIEW acmetrace.queue_delay_summary;
DROP AGGREGATE acmetrace.delay_sketch_agg(double precision);
DROP AGGREGATE acmetrace.delay_sketch_agg(double precision, double precision);
DROP AGGREGATE acmetrace.rollup(acmetrace.delay_sketch);
DROP FUNCTION acmetrace._sketch_trans(internal, double precision);
DROP FUNCTION acmetrace._sketch_trans(internal, double precision, double precision);
DROP FUNCTION acmetrace._sketch_rollup_trans(internal, acmetrace.delay_sketch);
DROP FUNCTION acmetrace._sketch_combine(internal, internal);
DROP FUNCTION acmetrace._sketch_serialize(internal);
DROP FUNCTION acmetrace._sketch_deserialize(bytea, internal);
DROP FUNCTION acmetrace._sketch_final(internal);

CREATE FUNCTION acmetrace._sketch_trans(acmetrace.delay_sketch, double precision)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_trans(acmetrace.delay_sketch, double precision, double precision)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace._sketch_combine(acmetrace.delay_sketch, acmetrace.delay_sketch)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision) (
    SFUNC = acmetrace._sketch_trans,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace._sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision) IS
  'Sketch of the non-NULL values with relative error 0.005: each percentile is within 0.5% of the value of that rank. Values must be >= 0 and finite; no values give NULL.';

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision, relative_error double precision) (
    SFUNC = acmetrace._sketch_trans,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace._sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision, double precision) IS
  'Sketch of the non-NULL values with the given relative error (0.001 to 0.25, constant within a group). Values must be >= 0 and finite; no values give NULL.';

-- Rolling up is combining: one function is both transition and combine.
CREATE AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) (
    SFUNC = acmetrace._sketch_combine,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace._sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) IS
  'Merges stored sketches into one, exactly as if one sketch had seen all their values. The sketches must share a relative error; NULLs are skipped.';

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
-- views.sql sets security_invoker on every view of the extension.
ALTER VIEW acmetrace.queue_delay_summary SET (security_invoker = true);

CREATE VIEW acmetrace.v_queue_delay WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.queue_delay_summary;
COMMENT ON VIEW acmetrace.v_queue_delay IS
  'Queueing delay percentiles per cluster and job type, within 0.5% (acmetrace.queue_delay_summary).';
-- The column comments views.sql gives v_queue_delay.
COMMENT ON COLUMN acmetrace.v_queue_delay.cluster IS 'Cluster name (acmetrace.clusters.cluster)';
COMMENT ON COLUMN acmetrace.v_queue_delay.type IS 'Job type as published; NULL when the trace has no types';
COMMENT ON COLUMN acmetrace.v_queue_delay.jobs IS 'Jobs that started (wait_s >= 0), CPU jobs included';
COMMENT ON COLUMN acmetrace.v_queue_delay.p50_s IS 'Median queueing delay (start - submit), seconds, within 0.5%';
COMMENT ON COLUMN acmetrace.v_queue_delay.p90_s IS '90th percentile of queueing delay, seconds, within 0.5%';
COMMENT ON COLUMN acmetrace.v_queue_delay.p99_s IS '99th percentile of queueing delay, seconds, within 0.5%';
COMMENT ON COLUMN acmetrace.v_queue_delay.mean_s IS 'Mean queueing delay, seconds';
COMMENT ON COLUMN acmetrace.v_queue_delay.max_s IS 'Largest queueing delay, seconds';
