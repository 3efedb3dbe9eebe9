-- Boosted regression trees: the model type, the training aggregate and its
-- state type, prediction (src/gbdt.c, src/core/gbdt.c).

CREATE TYPE acmetrace.gbdt;

CREATE FUNCTION acmetrace.gbdt_in(cstring)
RETURNS acmetrace.gbdt
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_out(acmetrace.gbdt)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_recv(internal)
RETURNS acmetrace.gbdt
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_send(acmetrace.gbdt)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.gbdt (
    INPUT = acmetrace.gbdt_in,
    OUTPUT = acmetrace.gbdt_out,
    RECEIVE = acmetrace.gbdt_recv,
    SEND = acmetrace.gbdt_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.gbdt IS
  'A gradient-boosted regression tree model made by acmetrace.gbdt_train. Text form v1:<the versioned binary model in hexadecimal>, checked field by field on the way in (a crafted value is an error, never trusted).';
COMMENT ON FUNCTION acmetrace.gbdt_in(cstring) IS
  'Text input function of acmetrace.gbdt: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.gbdt_out(acmetrace.gbdt) IS
  'Text output function of acmetrace.gbdt: writes the text form acmetrace.gbdt_in reads.';
COMMENT ON FUNCTION acmetrace.gbdt_recv(internal) IS
  'Binary input function of acmetrace.gbdt (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.gbdt_send(acmetrace.gbdt) IS
  'Binary output function of acmetrace.gbdt: writes the bytes acmetrace.gbdt_recv reads.';

-- gbdt_state: gbdt_train's transition state (the rows gathered so far and
-- the parameters), a real type so that parallel workers and Citus can ship
-- partial states through its own I/O.
CREATE TYPE acmetrace.gbdt_state;

CREATE FUNCTION acmetrace.gbdt_state_in(cstring)
RETURNS acmetrace.gbdt_state
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_state_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_state_out(acmetrace.gbdt_state)
RETURNS cstring
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_state_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_state_recv(internal)
RETURNS acmetrace.gbdt_state
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_state_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION acmetrace.gbdt_state_send(acmetrace.gbdt_state)
RETURNS bytea
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_state_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE acmetrace.gbdt_state (
    INPUT = acmetrace.gbdt_state_in,
    OUTPUT = acmetrace.gbdt_state_out,
    RECEIVE = acmetrace.gbdt_state_recv,
    SEND = acmetrace.gbdt_state_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE acmetrace.gbdt_state IS
  'Transition state of acmetrace.gbdt_train: its parameters and the training rows gathered so far. Text form v1:<the versioned binary state in hexadecimal>, checked field by field on the way in.';
COMMENT ON FUNCTION acmetrace.gbdt_state_in(cstring) IS
  'Text input function of acmetrace.gbdt_state: reads the text form given in the type''s comment; a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.gbdt_state_out(acmetrace.gbdt_state) IS
  'Text output function of acmetrace.gbdt_state: writes the text form acmetrace.gbdt_state_in reads.';
COMMENT ON FUNCTION acmetrace.gbdt_state_recv(internal) IS
  'Binary input function of acmetrace.gbdt_state (COPY BINARY, binary protocol): a malformed value is an error.';
COMMENT ON FUNCTION acmetrace.gbdt_state_send(acmetrace.gbdt_state) IS
  'Binary output function of acmetrace.gbdt_state: writes the bytes acmetrace.gbdt_state_recv reads.';

CREATE FUNCTION acmetrace_internal.gbdt_trans(acmetrace.gbdt_state, double precision[], double precision)
RETURNS acmetrace.gbdt_state AS 'MODULE_PATHNAME', 'acmetrace_gbdt_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.gbdt_trans(acmetrace.gbdt_state, double precision[], double precision,
                                              integer, integer, double precision)
RETURNS acmetrace.gbdt_state AS 'MODULE_PATHNAME', 'acmetrace_gbdt_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.gbdt_combine(acmetrace.gbdt_state, acmetrace.gbdt_state)
RETURNS acmetrace.gbdt_state AS 'MODULE_PATHNAME', 'acmetrace_gbdt_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION acmetrace_internal.gbdt_final(acmetrace.gbdt_state)
RETURNS acmetrace.gbdt AS 'MODULE_PATHNAME', 'acmetrace_gbdt_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.gbdt_train(features double precision[], target double precision) (
    SFUNC = acmetrace_internal.gbdt_trans, STYPE = acmetrace.gbdt_state, FINALFUNC = acmetrace_internal.gbdt_final,
    FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = acmetrace_internal.gbdt_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.gbdt_train(double precision[], double precision) IS
  'Gradient-boosted regression trees (squared loss) fitted to target from the features arrays: 100 rounds of depth 6 at learning rate 0.1 (see the five-argument form). Rows with NULL features or a NULL or NaN target are skipped; a NULL or NaN feature is missing. No rows give NULL; the same rows in any order give the same model.';

CREATE AGGREGATE acmetrace.gbdt_train(features double precision[], target double precision,
                                      rounds integer, depth integer, learning_rate double precision) (
    SFUNC = acmetrace_internal.gbdt_trans, STYPE = acmetrace.gbdt_state, FINALFUNC = acmetrace_internal.gbdt_final,
    FINALFUNC_MODIFY = READ_WRITE, COMBINEFUNC = acmetrace_internal.gbdt_combine, PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.gbdt_train(double precision[], double precision, integer, integer, double precision) IS
  'Gradient-boosted regression trees with rounds trees (1..10000) of at most depth splits (1..10), each scaled by learning_rate (0..1]; splits on 64 histogram bins per feature, leaves of at least 20 rows. Otherwise as the two-argument form.';

CREATE FUNCTION acmetrace.gbdt_predict(model acmetrace.gbdt, features double precision[])
RETURNS double precision
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_predict'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.gbdt_predict(acmetrace.gbdt, double precision[]) IS
  'The model''s prediction for one row of features (as many as it was trained on; NULL or NaN is missing). The model is decoded once per query while it stays the same.';

CREATE FUNCTION acmetrace.gbdt_info(model acmetrace.gbdt,
    OUT features integer, OUT trees integer, OUT depth integer, OUT learning_rate double precision,
    OUT min_leaf integer, OUT bins integer, OUT leaves bigint, OUT rows bigint,
    OUT base double precision, OUT train_rmse double precision)
AS 'MODULE_PATHNAME', 'acmetrace_gbdt_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.gbdt_info(acmetrace.gbdt) IS
  'What a model is: its features, trees and their parameters, leaves in all, the rows it was trained on, the mean target it starts from and its root mean squared error on those rows.';
