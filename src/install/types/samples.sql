-- samples: a compressed run of one series' samples (src/core/samples.h),
-- the aggregate that builds one, and the aggregates that read them without
-- a row per sample.

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
COMMENT ON FUNCTION acmetrace.samples_in(cstring) IS
  'Text input function of acmetrace.samples: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.samples_out(acmetrace.samples) IS
  'Text output function of acmetrace.samples: writes the text form acmetrace.samples_in reads.';
COMMENT ON FUNCTION acmetrace.samples_recv(internal) IS
  'Binary input function of acmetrace.samples (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.samples_send(acmetrace.samples) IS
  'Binary output function of acmetrace.samples: writes the bytes acmetrace.samples_recv reads.';

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
