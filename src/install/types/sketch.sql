-- delay_sketch: a mergeable quantile sketch with a guaranteed relative
-- error, its aggregates and accessors.

CREATE TYPE acmetrace.delay_sketch;

CREATE FUNCTION acmetrace.delay_sketch_in(cstring)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_out(acmetrace.delay_sketch)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_sketch_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_recv(internal)
RETURNS acmetrace.delay_sketch
AS 'MODULE_PATHNAME', 'acmetrace_sketch_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.delay_sketch_send(acmetrace.delay_sketch)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_sketch_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.delay_sketch (
    INPUT = acmetrace.delay_sketch_in,
    OUTPUT = acmetrace.delay_sketch_out,
    RECEIVE = acmetrace.delay_sketch_recv,
    SEND = acmetrace.delay_sketch_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.delay_sketch IS
  'Quantile sketch of non-negative values: every percentile is within the relative error (default 0.5%) of the value of that rank; mergeable with acmetrace.rollup. Text form v1 err=<e> n=<count> zeros=<count> min=<x> max=<x> sum=<x> int=<0|1> b=<bucket>:<count>,+<step>:<count>...';
COMMENT ON FUNCTION acmetrace.delay_sketch_in(cstring) IS
  'Text input function of acmetrace.delay_sketch: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.delay_sketch_out(acmetrace.delay_sketch) IS
  'Text output function of acmetrace.delay_sketch: writes the text form acmetrace.delay_sketch_in reads.';
COMMENT ON FUNCTION acmetrace.delay_sketch_recv(internal) IS
  'Binary input function of acmetrace.delay_sketch (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.delay_sketch_send(acmetrace.delay_sketch) IS
  'Binary output function of acmetrace.delay_sketch: writes the bytes acmetrace.delay_sketch_recv reads.';

-- Aggregate support: the state is the sketch itself, kept expanded (its
-- bucket array updated in place) while the aggregate runs, so partial
-- states travel through the type's own text and binary forms.  No final
-- function: the state is the result.
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

-- Accessors.
CREATE FUNCTION acmetrace.percentile(sketch acmetrace.delay_sketch, fraction double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_percentile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.percentile(acmetrace.delay_sketch, double precision) IS
  'Value at the rank percentile_disc(fraction) would pick, within the sketch''s relative error; exact for 0, for the minimum and maximum, and for small integers. NULL for an empty sketch.';

CREATE FUNCTION acmetrace.percentiles(sketch acmetrace.delay_sketch, fractions double precision[])
RETURNS double precision[]
AS 'MODULE_PATHNAME', 'acmetrace_sketch_percentiles'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.percentiles(acmetrace.delay_sketch, double precision[]) IS
  'acmetrace.percentile for each fraction, in an array of the same shape (NULL fractions give NULL).';

CREATE FUNCTION acmetrace.rank_pct(sketch acmetrace.delay_sketch, value double precision)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_rank_pct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.rank_pct(acmetrace.delay_sketch, double precision) IS
  'Percent (0..100) of the values <= value (the CDF), unrounded: at least the true percent and at most the true percent at value * (1 + e) / (1 - e); exact below the minimum, from the maximum up, and for small integers.';

CREATE FUNCTION acmetrace.count(sketch acmetrace.delay_sketch)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_sketch_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.count(acmetrace.delay_sketch) IS
  'Number of values in the sketch. Call it schema-qualified: count(x) is also the SQL aggregate.';

CREATE FUNCTION acmetrace.mean(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_mean'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.mean(acmetrace.delay_sketch) IS
  'Mean of the values (their float8 sum over the count); NULL for an empty sketch.';

CREATE FUNCTION acmetrace.min(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_min'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.min(acmetrace.delay_sketch) IS
  'Smallest value, exactly; NULL for an empty sketch. Call it schema-qualified.';

CREATE FUNCTION acmetrace.max(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_max'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.max(acmetrace.delay_sketch) IS
  'Largest value, exactly; NULL for an empty sketch. Call it schema-qualified.';

CREATE FUNCTION acmetrace.relative_error(sketch acmetrace.delay_sketch)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_sketch_relative_error'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.relative_error(acmetrace.delay_sketch) IS
  'The relative error the sketch was built with.';
