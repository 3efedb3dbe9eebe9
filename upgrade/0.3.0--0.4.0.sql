-- acmetrace 0.3.0 -> 0.4.0, hand-written part: types, tables and data.  The
-- Makefile appends the surface (src/install/surface/ and analyses/:
-- functions, views and triggers, which hold no data) as a fresh install
-- creates it, after this part has dropped 0.3.0's.  test/e2e/upgrade.sh
-- checks that 0.3.0 plus the assembled script gives the same catalog as a
-- fresh 0.4.0 install.
\echo Use "ALTER EXTENSION acmetrace UPDATE TO '0.4.0'" to load this file. \quit

-- Internal helpers move out of the public schema (header.sql).
CREATE SCHEMA acmetrace_internal;
COMMENT ON SCHEMA acmetrace_internal IS
  'Internal helpers of the acmetrace extension: not an API, may change in any release.';
GRANT USAGE ON SCHEMA acmetrace_internal TO PUBLIC;

-- 0.3.0's surface: views, loader triggers and the functions the surface
-- parts create again.  A user's own view over one of them stops the update
-- (PostgreSQL's dependency error) rather than being dropped with it.
DROP VIEW acmetrace.v_cluster_summary, acmetrace.v_final_states, acmetrace.v_final_states_by_type,
          acmetrace.v_type_distribution, acmetrace.v_gpu_num_boxplot, acmetrace.v_duration_cdf,
          acmetrace.v_queue_cdf, acmetrace.v_gpu_num_cdf, acmetrace.v_queue_by_occupancy,
          acmetrace.v_cancelled_eval_by_queue, acmetrace.v_gpu_time_lost, acmetrace.v_gpu_time_lost_weekly,
          acmetrace.v_failure_taxonomy, acmetrace.v_queue_delay, acmetrace.queue_delay_summary,
          acmetrace.v_gpu_util_histogram, acmetrace.v_trace_comparison;
DROP TRIGGER load_into_jobs ON acmetrace.trace_seren;
DROP TRIGGER load_into_jobs ON acmetrace.trace_kalos;
DROP TRIGGER load_into_jobs ON acmetrace.helios_cluster_log;
DROP TRIGGER load_into_jobs ON acmetrace.philly_job_log;
DROP TRIGGER load_into_utilization ON acmetrace.utilization_lines;
DROP FUNCTION acmetrace._analyze_jobs(bigint), acmetrace._audit(text, double precision, integer),
              acmetrace._cluster_zone(text), acmetrace._duplicate_error(text, text[]),
              acmetrace._job_cdf(text, text, double precision[]), acmetrace._known_capacity(text),
              acmetrace._load_philly(), acmetrace._load_staged(), acmetrace._load_target(text, text),
              acmetrace._load_utilization(), acmetrace._philly_invalid(text, text, text),
              acmetrace._philly_time(text, text, text, text),
              acmetrace._queue_bin_count(double precision, double precision),
              acmetrace._queue_sketches(text, boolean), acmetrace._round_to(double precision, integer),
              acmetrace._use_cluster_zone(text),
              acmetrace.audit(text, double precision, integer), acmetrace.audit_checks(),
              acmetrace.bin_rows(bigint[], double precision, double precision),
              acmetrace.bin_rows(bigint[], double precision[]),
              acmetrace.cancelled_by_queue(text, text, double precision, double precision),
              acmetrace.cluster_summary(integer), acmetrace.drop_cluster(text),
              acmetrace.duration_cdf(text, double precision[]), acmetrace.failure_taxonomy(text),
              acmetrace.generate_jobs(text, integer, integer),
              acmetrace.generate_util(integer, integer, integer, timestamptz, integer, double precision),
              acmetrace.gpu_num_boxplot(text), acmetrace.gpu_num_cdf(text, double precision[]),
              acmetrace.gpu_time_lost(text), acmetrace.gpu_time_lost_weekly(text),
              acmetrace.helios_cluster_log_csv(text), acmetrace.load_generated(text, text, integer, integer),
              acmetrace.occupancy_time_bins(acmetrace.occupancy, bigint, bigint, integer, timestamptz, timestamptz),
              acmetrace.queue_by_occupancy(text, integer, text, bigint),
              acmetrace.queue_cdf(text, double precision[]),
              acmetrace.queue_percentiles(text, double precision[], boolean),
              acmetrace.state_breakdown(text), acmetrace.state_by_type(text), acmetrace.trace_comparison(),
              acmetrace.trace_kalos_csv(text), acmetrace.trace_seren_csv(text),
              acmetrace.type_distribution(text), acmetrace.util_cdf(text, text, double precision[]),
              acmetrace.util_histogram(text, text, integer), acmetrace.util_polarization(text, text);

-- unpivot takes the key column (Philly's machineId) as an argument instead
-- of recognizing it by name.
DROP FUNCTION acmetrace.unpivot(text, text);
CREATE FUNCTION acmetrace.unpivot(header text, line text, key_column text DEFAULT NULL)
RETURNS TABLE (ts timestamptz, series text, value double precision)
AS 'MODULE_PATHNAME', 'acmetrace_unpivot'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.unpivot(text, text, text) IS
  'One line of a wide utilization CSV as (ts, series, value) rows, one per non-empty value cell; header is the file''s first line. key_column (e.g. Philly''s machineId) names the column that identifies the machine of a line: its cells are not values and series are named <key>/<column>. NULL header or line: no rows.';

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

CREATE FUNCTION acmetrace_internal.occupancy_trans(acmetrace.occupancy_state, timestamptz, timestamptz, integer)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace_internal.occupancy_combine(acmetrace.occupancy_state, acmetrace.occupancy_state)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace_internal.occupancy_final(acmetrace.occupancy_state)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.occupancy_agg(start_time timestamptz, end_time timestamptz, gpus integer) (
    SFUNC = acmetrace_internal.occupancy_trans,
    STYPE = acmetrace.occupancy_state,
    FINALFUNC = acmetrace_internal.occupancy_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = acmetrace_internal.occupancy_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.occupancy_agg(timestamptz, timestamptz, integer) IS
  'GPUs allocated over time by jobs holding gpus over [start_time, end_time); releases count before allocations at the same instant. Rows with NULL start_time or gpus, or 0 GPUs, are ignored; NULL end_time holds for ever; end_time < start_time is an error. No rows give the empty occupancy [].';

-- The sum of stored occupancies (shards, months, clusters): the same state,
-- each value entered as the jobs whose occupancy it is.
CREATE FUNCTION acmetrace_internal.occupancy_rollup_trans(acmetrace.occupancy_state, acmetrace.occupancy)
RETURNS acmetrace.occupancy_state
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_rollup_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.rollup(acmetrace.occupancy) (
    SFUNC = acmetrace_internal.occupancy_rollup_trans,
    STYPE = acmetrace.occupancy_state,
    FINALFUNC = acmetrace_internal.occupancy_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = acmetrace_internal.occupancy_combine,
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
CREATE FUNCTION acmetrace_internal.bins_trans(acmetrace.bins_state, double precision, double precision, double precision, integer)
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_at_trans(acmetrace.bins_state, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_at_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_cdf_trans(acmetrace.bins_state, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_cdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_wcdf_trans(acmetrace.bins_state, double precision, double precision, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_wcdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_combine(acmetrace.bins_state, acmetrace.bins_state)
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_final(acmetrace.bins_state)
RETURNS bigint[] AS 'MODULE_PATHNAME', 'acmetrace_bins_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.bins_cdf_final(acmetrace.bins_state)
RETURNS double precision[] AS 'MODULE_PATHNAME', 'acmetrace_cdf_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.bins(value double precision, lo double precision, hi double precision, nbins integer) (
    SFUNC = acmetrace_internal.bins_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins(double precision, double precision, double precision, integer) IS
  'Counts in nbins equal-width bins over [lo, hi], as bigint[] indexed 0..nbins+1: [0] below lo, [i] bin i (closed on the left, bin nbins also on the right), [nbins+1] above hi. Inside [lo, hi) the bin is width_bucket''s. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.bins_at(value double precision, edges double precision[]) (
    SFUNC = acmetrace_internal.bins_at_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins_at(double precision, double precision[]) IS
  'Counts between k+1 increasing edges, as bigint[] indexed 0..k+1: [0] below the first edge, [i] for [edge i, edge i+1) (the last bin closed), [k+1] above the last edge. NULL and NaN values are not counted; no rows give NULL.';

CREATE AGGREGATE acmetrace.cdf_at(value double precision, thresholds double precision[]) (
    SFUNC = acmetrace_internal.bins_cdf_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_cdf_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.cdf_at(double precision, double precision[]) IS
  'Percent of the non-NULL, non-NaN values <= each threshold, in the thresholds'' order (the AcmeTrace notebook''s len(v[v <= x]) / len(v) * 100). No values give NULL.';

CREATE AGGREGATE acmetrace.weighted_cdf_at(value double precision, weight double precision, thresholds double precision[]) (
    SFUNC = acmetrace_internal.bins_wcdf_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_cdf_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.weighted_cdf_at(double precision, double precision, double precision[]) IS
  'Percent of the total weight carried by rows with value <= each threshold (rows with a NULL or NaN value or weight are left out; negative or infinite weights are errors). Zero total weight gives NULL.';

-- delay_sketch_agg and rollup(delay_sketch) accumulate into the sketch type
-- itself, kept expanded, instead of internal: Citus splits only aggregates
-- whose state is a real type, shipping partial states through its text
-- form.  The 0.1.0 support functions' C symbols stay in the library for
-- older SQL.
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

CREATE FUNCTION acmetrace_internal.sketch_trans(acmetrace.delay_sketch, double precision)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace_internal.sketch_trans(acmetrace.delay_sketch, double precision, double precision)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION acmetrace_internal.sketch_combine(acmetrace.delay_sketch, acmetrace.delay_sketch)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision) (
    SFUNC = acmetrace_internal.sketch_trans,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace_internal.sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision) IS
  'Sketch of the non-NULL values with relative error 0.005: each percentile is within 0.5% of the value of that rank. Values must be >= 0 and finite; no values give NULL.';

CREATE AGGREGATE acmetrace.delay_sketch_agg(value double precision, relative_error double precision) (
    SFUNC = acmetrace_internal.sketch_trans,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace_internal.sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(double precision, double precision) IS
  'Sketch of the non-NULL values with the given relative error (0.001 to 0.25, constant within a group). Values must be >= 0 and finite; no values give NULL.';

-- Rolling up is combining: one function is both transition and combine.
CREATE AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) (
    SFUNC = acmetrace_internal.sketch_combine,
    STYPE = acmetrace.delay_sketch,
    SSPACE = 16384,
    COMBINEFUNC = acmetrace_internal.sketch_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.rollup(acmetrace.delay_sketch) IS
  'Merges stored sketches into one, exactly as if one sketch had seen all their values. The sketches must share a relative error; NULLs are skipped.';


-- ---- Utilization: compressed per-series blocks (issue 19) ----
CREATE TYPE acmetrace.samples;

CREATE FUNCTION acmetrace.samples_in(cstring)
RETURNS acmetrace.samples
AS 'MODULE_PATHNAME', 'acmetrace_samples_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.samples_out(acmetrace.samples)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_samples_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.samples_recv(internal)
RETURNS acmetrace.samples
AS 'MODULE_PATHNAME', 'acmetrace_samples_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.samples_send(acmetrace.samples)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_samples_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE external: blocks are compressed already; pglz would only spend time.
CREATE TYPE acmetrace.samples (
    INPUT = acmetrace.samples_in,
    OUTPUT = acmetrace.samples_out,
    RECEIVE = acmetrace.samples_recv,
    SEND = acmetrace.samples_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = external
);
COMMENT ON TYPE acmetrace.samples IS
  'A compressed run of one series'' samples (time, value), lossless: times delta-coded from their regular step, values as integers / 10^k bit-packed in chunks of 128 (raw float8 when a value is not a short decimal). Text form v1:<the versioned block in hexadecimal>, checked field by field on the way in.';

CREATE FUNCTION acmetrace.samples_info(s acmetrace.samples,
                                       OUT samples integer, OUT first_ts timestamptz, OUT last_ts timestamptz,
                                       OUT min double precision, OUT max double precision,
                                       OUT decimals integer, OUT bytes integer)
AS 'MODULE_PATHNAME', 'acmetrace_samples_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.samples_info(acmetrace.samples) IS
  'What a samples value holds, read from its header without decoding: the number of samples, the first and last time, the smallest and largest value, the decimals its values are stored with (NULL when stored as raw float8) and its size in bytes.';

CREATE FUNCTION acmetrace.unnest(s acmetrace.samples, OUT ts timestamptz, OUT value double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_samples_unnest'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 5760;
COMMENT ON FUNCTION acmetrace.unnest(acmetrace.samples) IS
  'The samples as (ts, value) rows in time order, each value exactly the float8 it was loaded as.';

CREATE FUNCTION acmetrace.samples_between(s acmetrace.samples, from_ts timestamptz, to_ts timestamptz)
RETURNS acmetrace.samples
AS 'MODULE_PATHNAME', 'acmetrace_samples_between'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.samples_between(acmetrace.samples, timestamptz, timestamptz) IS
  'The samples with from_ts <= ts < to_ts, or NULL when there are none; only the value chunks inside the window are decoded.';

-- samples_agg: the state is a samples value, kept expanded while the
-- aggregate runs; combining two is their union.
CREATE FUNCTION acmetrace_internal.samples_trans(acmetrace.samples, timestamptz, double precision)
RETURNS acmetrace.samples AS 'MODULE_PATHNAME', 'acmetrace_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.samples_combine(acmetrace.samples, acmetrace.samples)
RETURNS acmetrace.samples AS 'MODULE_PATHNAME', 'acmetrace_samples_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.samples_agg(ts timestamptz, value double precision) (
    SFUNC = acmetrace_internal.samples_trans, STYPE = acmetrace.samples,
    COMBINEFUNC = acmetrace_internal.samples_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.samples_agg(timestamptz, double precision) IS
  'The rows'' samples as one samples value, in time order. Rows with a NULL time or value, or a NaN value, are left out; a time given twice with the same value is kept once, with two different values it is an error; at most 16,777,216 samples (group by series and day). No rows give NULL.';

-- The value aggregates over blocks: the same states, the same answers as
-- over the block's values one by one.  COST: a call reads a whole block (a
-- day is 5,760 samples, or its value counts): enough for the planner to
-- use workers on a month of blocks, not on a day's 2,288.
CREATE FUNCTION acmetrace_internal.bins_samples_trans(acmetrace.bins_state, acmetrace.samples, double precision, double precision, integer)
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION acmetrace_internal.bins_at_samples_trans(acmetrace.bins_state, acmetrace.samples, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_bins_at_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION acmetrace_internal.bins_cdf_samples_trans(acmetrace.bins_state, acmetrace.samples, double precision[])
RETURNS acmetrace.bins_state AS 'MODULE_PATHNAME', 'acmetrace_cdf_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION acmetrace_internal.sketch_samples_trans(acmetrace.delay_sketch, acmetrace.samples)
RETURNS acmetrace.delay_sketch AS 'MODULE_PATHNAME', 'acmetrace_sketch_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION acmetrace_internal.sketch_samples_trans(acmetrace.delay_sketch, acmetrace.samples, double precision)
RETURNS acmetrace.delay_sketch AS 'MODULE_PATHNAME', 'acmetrace_sketch_samples_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;

CREATE AGGREGATE acmetrace.bins(s acmetrace.samples, lo double precision, hi double precision, nbins integer) (
    SFUNC = acmetrace_internal.bins_samples_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins(acmetrace.samples, double precision, double precision, integer) IS
  'bins(value, lo, hi, nbins) over every value of the blocks: the same bigint[] as over the values one by one.';

CREATE AGGREGATE acmetrace.bins_at(s acmetrace.samples, edges double precision[]) (
    SFUNC = acmetrace_internal.bins_at_samples_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.bins_at(acmetrace.samples, double precision[]) IS
  'bins_at(value, edges) over every value of the blocks.';

CREATE AGGREGATE acmetrace.cdf_at(s acmetrace.samples, thresholds double precision[]) (
    SFUNC = acmetrace_internal.bins_cdf_samples_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_cdf_final,
    COMBINEFUNC = acmetrace_internal.bins_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.cdf_at(acmetrace.samples, double precision[]) IS
  'cdf_at(value, thresholds) over every value of the blocks.';

CREATE AGGREGATE acmetrace.delay_sketch_agg(s acmetrace.samples) (
    SFUNC = acmetrace_internal.sketch_samples_trans, STYPE = acmetrace.delay_sketch,
    COMBINEFUNC = acmetrace_internal.sketch_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(acmetrace.samples) IS
  'delay_sketch_agg(value) over every value of the blocks: percentiles of utilization within 0.5% (small integers exact). Negative values are refused.';

CREATE AGGREGATE acmetrace.delay_sketch_agg(s acmetrace.samples, relative_error double precision) (
    SFUNC = acmetrace_internal.sketch_samples_trans, STYPE = acmetrace.delay_sketch,
    COMBINEFUNC = acmetrace_internal.sketch_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.delay_sketch_agg(acmetrace.samples, double precision) IS
  'delay_sketch_agg(value, relative_error) over every value of the blocks.';

-- The exact sum the loader stores beside each block (numeric).
CREATE FUNCTION acmetrace_internal.samples_sum(acmetrace.samples)
RETURNS numeric
AS 'MODULE_PATHNAME', 'acmetrace_samples_sum'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The hour summaries stored beside each block (acmetrace.v_hourly_utilization).
CREATE FUNCTION acmetrace_internal.samples_hours(s acmetrace.samples, day date,
    OUT n integer[], OUT sum numeric[], OUT min double precision[], OUT max double precision[])
AS 'MODULE_PATHNAME', 'acmetrace_samples_hours'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.samples_hours(acmetrace.samples, date) IS
  'Per UTC hour of the day block (hours 0..23 as elements 1..24): samples, exact sum, min and max (NULL for an hour without samples); a sample outside the day is an error.';

-- The long rows move into blocks: one per metric, cluster, UTC day and
-- series.  A sample stored twice with the same value is kept once; two
-- different values at one time stop the update (samples_agg's error).
ALTER TABLE acmetrace.utilization RENAME TO _utilization_0_3_rows;

CREATE TABLE acmetrace.utilization_blocks (
    metric   text NOT NULL CONSTRAINT metric_is_upper_case CHECK (metric ~ '^[A-Z][A-Z0-9_]*$'),
    cluster  text NOT NULL,
    day      date NOT NULL,
    series   text NOT NULL,
    n        integer NOT NULL CHECK (n > 0),
    min      double precision NOT NULL,
    max      double precision NOT NULL,
    sum      numeric NOT NULL,
    first_ts timestamptz NOT NULL,
    last_ts  timestamptz NOT NULL,
    samples  acmetrace.samples NOT NULL,
    hour_n   integer[] NOT NULL,
    hour_sum numeric[] NOT NULL,
    hour_min double precision[] NOT NULL,
    hour_max double precision[] NOT NULL,
    PRIMARY KEY (metric, cluster, day, series)
) WITH (toast_tuple_target = 8160);
COMMENT ON TABLE acmetrace.utilization_blocks IS
  'Utilization samples, one row per metric, cluster, UTC day and series (server, GPU, or Philly machine/GPU): the day''s samples compressed (acmetrace.samples) and their count, min, max, exact sum and first and last time. The key stores each sample once.';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_n IS
  'Samples in each UTC hour of the day, hours 0..23 as elements 1..24 (written by the trigger from samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_sum IS
  'Exact sum of the values of each UTC hour (NULL for an hour without samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_min IS
  'Smallest value of each UTC hour (NULL for an hour without samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_max IS
  'Largest value of each UTC hour (NULL for an hour without samples).';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization_blocks', '');

INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples,
                                         hour_n, hour_sum, hour_min, hour_max)
SELECT b.metric, b.cluster, b.day, b.series, (b.i).samples, (b.i).min, (b.i).max,
       acmetrace_internal.samples_sum(b.s), (b.i).first_ts, (b.i).last_ts, b.s,
       (b.h).n, (b.h).sum, (b.h).min, (b.h).max
  FROM (SELECT a.*, acmetrace.samples_info(a.s) AS i, acmetrace_internal.samples_hours(a.s, a.day) AS h
          FROM (SELECT upper(r.metric) AS metric, r.cluster, (r.ts AT TIME ZONE 'UTC')::date AS day, r.series,
                       acmetrace.samples_agg(r.ts, r.value) AS s
                  FROM acmetrace._utilization_0_3_rows r
                 GROUP BY 1, 2, 3, 4) a
         OFFSET 0) b  -- (each block's info and hours computed once, not per field)
 WHERE b.s IS NOT NULL;

-- The hours across all series of each metric and cluster, from the blocks'
-- hour summaries (acmetrace.v_hourly_utilization reads them; the surface's
-- statement triggers keep them from now on).
CREATE TABLE acmetrace.utilization_hours (
    metric   text NOT NULL,
    cluster  text NOT NULL,
    bucket   timestamptz NOT NULL,
    series   integer NOT NULL,
    samples  bigint NOT NULL,
    sum      numeric NOT NULL,
    min      double precision NOT NULL,
    max      double precision NOT NULL,
    PRIMARY KEY (metric, cluster, bucket)
);
CREATE INDEX utilization_hours_cluster ON acmetrace.utilization_hours (cluster, bucket);
COMMENT ON TABLE acmetrace.utilization_hours IS
  'Per metric, cluster and UTC hour with samples (bucket, its start): series with samples, samples, exact sum, min and max across all series, kept from the hour_* columns of acmetrace.utilization_blocks by statement triggers.';
INSERT INTO acmetrace.utilization_hours (metric, cluster, bucket, series, samples, sum, min, max)
SELECT b.metric, b.cluster, (b.day + (u.i - 1) * interval '1 hour') AT TIME ZONE 'UTC',
       count(*), sum(u.n), sum(u.s), min(u.mn), max(u.mx)
  FROM acmetrace.utilization_blocks b
 CROSS JOIN LATERAL unnest(b.hour_n, b.hour_sum, b.hour_min, b.hour_max) WITH ORDINALITY u(n, s, mn, mx, i)
 WHERE u.n > 0
 GROUP BY b.metric, b.cluster, b.day, u.i;

DO $$
DECLARE
    rows_before bigint;
    kept bigint;
BEGIN
    SELECT count(*) INTO rows_before FROM acmetrace._utilization_0_3_rows WHERE NOT value = 'NaN';
    SELECT coalesce(sum(n), 0) INTO kept FROM acmetrace.utilization_blocks;
    IF kept <> rows_before THEN
        RAISE NOTICE 'acmetrace.utilization held % samples twice; each is kept once', rows_before - kept;
    END IF;
END
$$;

-- (leaving the extension first takes the table out of its pg_extension_config_dump list)
ALTER EXTENSION acmetrace DROP TABLE acmetrace._utilization_0_3_rows;
DROP TABLE acmetrace._utilization_0_3_rows;

COMMENT ON TABLE acmetrace.utilization_lines IS
  'COPY target for wide utilization files, one line per row: each line is streamed into acmetrace.utilization_blocks as it arrives (always empty).';

-- The type I/O and operator functions of the types that 0.3.0 has, documented
-- as in a fresh install (src/install/types/).
COMMENT ON FUNCTION acmetrace.delay_sketch_in(cstring) IS
  'Text input function of acmetrace.delay_sketch: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.delay_sketch_out(acmetrace.delay_sketch) IS
  'Text output function of acmetrace.delay_sketch: writes the text form acmetrace.delay_sketch_in reads.';
COMMENT ON FUNCTION acmetrace.delay_sketch_recv(internal) IS
  'Binary input function of acmetrace.delay_sketch (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.delay_sketch_send(acmetrace.delay_sketch) IS
  'Binary output function of acmetrace.delay_sketch: writes the bytes acmetrace.delay_sketch_recv reads.';
COMMENT ON FUNCTION acmetrace.occupancy_in(cstring) IS
  'Text input function of acmetrace.occupancy: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_out(acmetrace.occupancy) IS
  'Text output function of acmetrace.occupancy: writes the text form acmetrace.occupancy_in reads.';
COMMENT ON FUNCTION acmetrace.occupancy_recv(internal) IS
  'Binary input function of acmetrace.occupancy (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_send(acmetrace.occupancy) IS
  'Binary output function of acmetrace.occupancy: writes the bytes acmetrace.occupancy_recv reads.';
COMMENT ON FUNCTION acmetrace.occupancy_state_in(cstring) IS
  'Text input function of acmetrace.occupancy_state: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_state_out(acmetrace.occupancy_state) IS
  'Text output function of acmetrace.occupancy_state: writes the text form acmetrace.occupancy_state_in reads.';
COMMENT ON FUNCTION acmetrace.occupancy_state_recv(internal) IS
  'Binary input function of acmetrace.occupancy_state (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_state_send(acmetrace.occupancy_state) IS
  'Binary output function of acmetrace.occupancy_state: writes the bytes acmetrace.occupancy_state_recv reads.';
COMMENT ON FUNCTION acmetrace.occupancy_eq(acmetrace.occupancy, acmetrace.occupancy) IS
  'Function of the operator = on acmetrace.occupancy: the two occupancies are the same step function.';
COMMENT ON FUNCTION acmetrace.occupancy_ne(acmetrace.occupancy, acmetrace.occupancy) IS
  'Function of the operator <> on acmetrace.occupancy: the two occupancies are different step functions.';
COMMENT ON OPERATOR acmetrace.<> (acmetrace.occupancy, acmetrace.occupancy) IS
  'The two occupancies are different step functions.';
COMMENT ON FUNCTION acmetrace.bins_state_in(cstring) IS
  'Text input function of acmetrace.bins_state: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.bins_state_out(acmetrace.bins_state) IS
  'Text output function of acmetrace.bins_state: writes the text form acmetrace.bins_state_in reads.';
COMMENT ON FUNCTION acmetrace.bins_state_recv(internal) IS
  'Binary input function of acmetrace.bins_state (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.bins_state_send(acmetrace.bins_state) IS
  'Binary output function of acmetrace.bins_state: writes the bytes acmetrace.bins_state_recv reads.';
COMMENT ON FUNCTION acmetrace.samples_in(cstring) IS
  'Text input function of acmetrace.samples: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.samples_out(acmetrace.samples) IS
  'Text output function of acmetrace.samples: writes the text form acmetrace.samples_in reads.';
COMMENT ON FUNCTION acmetrace.samples_recv(internal) IS
  'Binary input function of acmetrace.samples (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.samples_send(acmetrace.samples) IS
  'Binary output function of acmetrace.samples: writes the bytes acmetrace.samples_recv reads.';

-- Slurm accounting loads register their clusters as source format slurm.
ALTER TABLE acmetrace.clusters DROP CONSTRAINT clusters_source_format_check,
    ADD CONSTRAINT clusters_source_format_check
        CHECK (source_format IN ('acme_seren', 'acme_kalos', 'helios', 'generated', 'philly', 'slurm'));

-- summarize_delta's indexes (src/install/trace/tables.sql).
CREATE INDEX jobs_cluster_submit ON acmetrace.jobs USING brin (cluster, submit_time) WITH (pages_per_range = 16);
CREATE INDEX jobs_cluster_end ON acmetrace.jobs USING brin (cluster, end_time) WITH (pages_per_range = 16);

-- Issue 35: the occupancy's and the sketch's shares in percent, renamed
-- (allocation_rate -> allocation_pct, rank_of -> rank_pct).
DROP FUNCTION acmetrace.allocation_rate(acmetrace.occupancy, bigint, timestamptz, timestamptz);
DROP FUNCTION acmetrace.rank_of(acmetrace.delay_sketch, double precision);
CREATE FUNCTION acmetrace.allocation_pct(occ acmetrace.occupancy, capacity bigint,
                                         from_time timestamptz, to_time timestamptz)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_allocation_pct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.allocation_pct(acmetrace.occupancy, bigint, timestamptz, timestamptz) IS
  '100 * mean_gpus over [from_time, to_time) / capacity: the percent (0..100) of the cluster''s GPUs allocated on average, unrounded.';
CREATE FUNCTION acmetrace.rank_pct(sketch acmetrace.delay_sketch, value double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_rank_pct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.rank_pct(acmetrace.delay_sketch, double precision) IS
  'Percent (0..100) of the values <= value (the CDF), unrounded: at least the true percent and at most the true percent at value * (1 + e) / (1 - e); exact below the minimum, from the maximum up, and for small integers.';

-- ---- The tables new in 0.4.0 (src/install/trace/sacct.sql, summaries.sql), then the surface
-- of 0.4.0 (src/install/surface/, src/install/analyses/), follow. ----
