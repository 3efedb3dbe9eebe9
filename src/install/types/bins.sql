-- Bins and CDFs: four parallel aggregates, the paper's axes, and a
-- companion that turns bin counts into rows.

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
COMMENT ON FUNCTION acmetrace.bins_state_in(cstring) IS
  'Text input function of acmetrace.bins_state: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.bins_state_out(acmetrace.bins_state) IS
  'Text output function of acmetrace.bins_state: writes the text form acmetrace.bins_state_in reads.';
COMMENT ON FUNCTION acmetrace.bins_state_recv(internal) IS
  'Binary input function of acmetrace.bins_state (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.bins_state_send(acmetrace.bins_state) IS
  'Binary output function of acmetrace.bins_state: writes the bytes acmetrace.bins_state_recv reads.';

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

-- Threshold helpers for the paper's axes.  PL/pgSQL, not SQL: an inlined
-- SQL body becomes a sub-select evaluated at run time, while an immutable
-- non-inlinable call with constant arguments is folded into a constant by
-- the planner, which the aggregates then check once instead of per row.
CREATE FUNCTION acmetrace.powers_of_two(from_exp integer, to_exp integer)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$ BEGIN RETURN ARRAY(SELECT 2.0::float8 ^ i FROM generate_series(from_exp, to_exp) i); END $$;
COMMENT ON FUNCTION acmetrace.powers_of_two(integer, integer) IS
  'ARRAY[2^from_exp, ..., 2^to_exp]: the paper''s duration axis is powers_of_two(0, 21).';

CREATE FUNCTION acmetrace.steps(from_value double precision, to_value double precision, step double precision)
RETURNS double precision[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$ BEGIN RETURN ARRAY(SELECT from_value + i * step FROM generate_series(0, floor((to_value - from_value) / step)::int) i); END $$;
COMMENT ON FUNCTION acmetrace.steps(double precision, double precision, double precision) IS
  'ARRAY[from_value, from_value + step, ..., <= to_value]: the GPU-count axis is steps(0, 1024, 1).';

