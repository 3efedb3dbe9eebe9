-- GPU occupancy: the step function of allocated GPUs over time, as a type,
-- an aggregate that sweeps job start/end events, and accessors.

CREATE TYPE acmetrace.occupancy;

CREATE FUNCTION acmetrace.occupancy_in(cstring)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_in'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_out(acmetrace.occupancy)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_out'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_recv(internal)
RETURNS acmetrace.occupancy
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_send(acmetrace.occupancy)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.occupancy (
    INPUT = acmetrace.occupancy_in,
    OUTPUT = acmetrace.occupancy_out,
    RECEIVE = acmetrace.occupancy_recv,
    SEND = acmetrace.occupancy_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.occupancy IS
  'GPUs allocated over time, a step function. Text form [["<timestamptz>",<gpus>],...]: each step gives the allocation from its time until the next step; 0 before the first.';
COMMENT ON FUNCTION acmetrace.occupancy_in(cstring) IS
  'Text input function of acmetrace.occupancy: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_out(acmetrace.occupancy) IS
  'Text output function of acmetrace.occupancy: writes the text form acmetrace.occupancy_in reads.';
COMMENT ON FUNCTION acmetrace.occupancy_recv(internal) IS
  'Binary input function of acmetrace.occupancy (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_send(acmetrace.occupancy) IS
  'Binary output function of acmetrace.occupancy: writes the bytes acmetrace.occupancy_recv reads.';

CREATE FUNCTION acmetrace.occupancy_eq(acmetrace.occupancy, acmetrace.occupancy)
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.occupancy_ne(acmetrace.occupancy, acmetrace.occupancy)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN NOT acmetrace.occupancy_eq($1, $2);

CREATE OPERATOR acmetrace.= (
    LEFTARG = acmetrace.occupancy, RIGHTARG = acmetrace.occupancy,
    FUNCTION = acmetrace.occupancy_eq, COMMUTATOR = OPERATOR(acmetrace.=),
    NEGATOR = OPERATOR(acmetrace.<>)
);
CREATE OPERATOR acmetrace.<> (
    LEFTARG = acmetrace.occupancy, RIGHTARG = acmetrace.occupancy,
    FUNCTION = acmetrace.occupancy_ne, COMMUTATOR = OPERATOR(acmetrace.<>),
    NEGATOR = OPERATOR(acmetrace.=)
);
COMMENT ON OPERATOR acmetrace.= (acmetrace.occupancy, acmetrace.occupancy) IS
  'The two occupancies are the same step function.';
COMMENT ON FUNCTION acmetrace.occupancy_eq(acmetrace.occupancy, acmetrace.occupancy) IS
  'Function of the operator = on acmetrace.occupancy: the two occupancies are the same step function.';
COMMENT ON FUNCTION acmetrace.occupancy_ne(acmetrace.occupancy, acmetrace.occupancy) IS
  'Function of the operator <> on acmetrace.occupancy: the two occupancies are different step functions.';
COMMENT ON OPERATOR acmetrace.<> (acmetrace.occupancy, acmetrace.occupancy) IS
  'The two occupancies are different step functions.';

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
COMMENT ON FUNCTION acmetrace.occupancy_state_in(cstring) IS
  'Text input function of acmetrace.occupancy_state: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_state_out(acmetrace.occupancy_state) IS
  'Text output function of acmetrace.occupancy_state: writes the text form acmetrace.occupancy_state_in reads.';
COMMENT ON FUNCTION acmetrace.occupancy_state_recv(internal) IS
  'Binary input function of acmetrace.occupancy_state (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.occupancy_state_send(acmetrace.occupancy_state) IS
  'Binary output function of acmetrace.occupancy_state: writes the bytes acmetrace.occupancy_state_recv reads.';

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

-- Accessors.
CREATE FUNCTION acmetrace.gpus_at(occ acmetrace.occupancy, at timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_gpus_at'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.gpus_at(acmetrace.occupancy, timestamptz) IS
  'GPUs allocated at an instant: jobs with start_time <= at < end_time.';

CREATE FUNCTION acmetrace.peak(occ acmetrace.occupancy)
RETURNS bigint
AS 'MODULE_PATHNAME', 'acmetrace_peak'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.peak(acmetrace.occupancy) IS
  'Highest number of GPUs allocated at any instant (0 for the empty occupancy).';

CREATE FUNCTION acmetrace.occupancy_steps(occ acmetrace.occupancy, OUT at timestamptz, OUT gpus bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_steps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.occupancy_steps(acmetrace.occupancy) IS
  'The steps of an occupancy in time order: from "at" until the next row, "gpus" GPUs are allocated.';

CREATE FUNCTION acmetrace.occupancy_levels(occ acmetrace.occupancy, from_time timestamptz, to_time timestamptz,
                                           OUT gpus bigint, OUT seconds double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_levels'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.occupancy_levels(acmetrace.occupancy, timestamptz, timestamptz) IS
  'Seconds spent at each allocation level within [from_time, to_time), by level.';

CREATE FUNCTION acmetrace.mean_gpus(occ acmetrace.occupancy, from_time timestamptz, to_time timestamptz)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_mean_gpus'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.mean_gpus(acmetrace.occupancy, timestamptz, timestamptz) IS
  'Time-weighted mean of GPUs allocated over [from_time, to_time).';

CREATE FUNCTION acmetrace.allocation_pct(occ acmetrace.occupancy, capacity bigint,
                                         from_time timestamptz, to_time timestamptz)
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_allocation_pct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.allocation_pct(acmetrace.occupancy, bigint, timestamptz, timestamptz) IS
  '100 * mean_gpus over [from_time, to_time) / capacity: the percent (0..100) of the cluster''s GPUs allocated on average, unrounded.';

