-- Boosted regression trees: acmetrace.gbdt_train, gbdt_predict, gbdt_info, the
-- model type acmetrace.gbdt and the state type acmetrace.gbdt_state.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
\i :abs_srcdir/test/regress_binary_copy.sql

-- A rule to learn: y = 2 x1 + 3 [x3 = 'b'], and 5 more when x2 is missing.
CREATE TABLE t AS
SELECT i, ARRAY[(i % 10)::float8, CASE WHEN i % 4 = 0 THEN NULL ELSE (i % 7)::float8 END,
                CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END::float8] AS x,
       2 * (i % 10) + 3 * (i % 3 = 0)::int + CASE WHEN i % 4 = 0 THEN 5 ELSE 0 END AS y
  FROM generate_series(1, 4000) i;
ALTER TABLE t SET (parallel_workers = 2);
CREATE TABLE models AS SELECT 'default' AS name, acmetrace.gbdt_train(x, y) AS m FROM t;
INSERT INTO models SELECT 'small', acmetrace.gbdt_train(x, y, 5, 2, 0.5) FROM t;
SELECT name, (acmetrace.gbdt_info(m)).* FROM models ORDER BY name;
-- learned: every row within 0.5 of its target (default model)
SELECT count(*) AS rows, max(abs(acmetrace.gbdt_predict(m, x) - y)) < 0.5 AS within_05
  FROM t, models WHERE name = 'default';
-- a row with x2 missing, and the same row with x2 present
SELECT round(acmetrace.gbdt_predict(m, '{4,NULL,1}')::numeric, 1) AS missing_x2,
       round(acmetrace.gbdt_predict(m, '{4,3,1}')::numeric, 1) AS present_x2,
       round(acmetrace.gbdt_predict(m, '{4,NaN,1}')::numeric, 1) AS nan_is_missing
  FROM models WHERE name = 'default';
-- one model per row through a join: each row gets its own model's answer
SELECT count(*) FILTER (WHERE p <> q) AS differing
  FROM (SELECT acmetrace.gbdt_predict(mm.m, t.x) AS p,
               (SELECT acmetrace.gbdt_predict(m2.m, t.x) FROM models m2 WHERE m2.name = mm.name) AS q
          FROM t CROSS JOIN models mm ORDER BY t.i, mm.name) z;

-- The same rows in any order, or through parallel workers, give the same model.
SELECT (SELECT acmetrace.gbdt_train(x, y ORDER BY i DESC)::text FROM t) = (SELECT m::text FROM models WHERE name = 'default')
       AS order_free;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT acmetrace.gbdt_train(x, y) FROM t;
SELECT (SELECT acmetrace.gbdt_train(x, y)::text FROM t) = (SELECT m::text FROM models WHERE name = 'default')
       AS parallel_same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- Text and binary forms give the model back.
SELECT count(*) FILTER (WHERE m::text::acmetrace.gbdt::text = m::text) AS text_round_trips,
       count(*) FILTER (WHERE m::text LIKE 'v1:01%') AS versioned
  FROM models;
CREATE TABLE one_model (m acmetrace.gbdt);
SELECT pg_temp.copy_binary('one_model', acmetrace.gbdt_send(m)) = m::text AS binary_round_trip
  FROM models WHERE name = 'small';
-- a partial state (the transition function alone, as Citus's worker_partial_agg)
CREATE AGGREGATE pg_temp.gbdt_rows(float8[], float8) (SFUNC = acmetrace_internal.gbdt_trans, STYPE = acmetrace.gbdt_state);
CREATE TABLE one_state (s acmetrace.gbdt_state);
SELECT pg_temp.copy_binary('one_state', acmetrace.gbdt_state_send(pg_temp.gbdt_rows(x, y))) = pg_temp.gbdt_rows(x, y)::text
       AS state_binary_round_trip,
       pg_temp.gbdt_rows(x, y)::text::acmetrace.gbdt_state::text = pg_temp.gbdt_rows(x, y)::text AS state_text_round_trip,
       length(pg_temp.gbdt_rows(x, y)::text) AS state_text_length
  FROM t WHERE i <= 3;

-- NULLs, empty input, constants.
SELECT acmetrace.gbdt_train(x, y) IS NULL AS no_rows FROM t WHERE false;
SELECT acmetrace.gbdt_train(x, NULL) IS NULL AS null_targets FROM t;
SELECT acmetrace.gbdt_train(NULL, y) IS NULL AS null_features FROM t;
SELECT acmetrace.gbdt_train(x, 'NaN') IS NULL AS nan_targets FROM t;
SELECT (acmetrace.gbdt_info(acmetrace.gbdt_train(x, 7))).leaves AS constant_leaves,
       acmetrace.gbdt_predict(acmetrace.gbdt_train(x, 7), '{1,2,3}') AS constant_prediction FROM t;
SELECT acmetrace.gbdt_predict(NULL, '{1,2,3}') IS NULL AS null_model,
       acmetrace.gbdt_predict(m, NULL) IS NULL AS null_features FROM models WHERE name = 'small';

-- Bad arguments.
\set VERBOSITY default
SELECT acmetrace.gbdt_train(x[1:(i % 2) + 1], y) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, 'Infinity') FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(ARRAY[1, 'Infinity'::float8], 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train('{}'::float8[], 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train('{{1,2},{3,4}}'::float8[], 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, y, 0, 3, 0.1) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, y, 10, 11, 0.1) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, y, 10, 3, 0) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, y, 10, 3, NULL) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_train(x, y, 10, 3 + (i % 2), 0.1) FROM t;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_predict(m, '{1,2}') FROM models WHERE name = 'small';
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.gbdt_predict(m, '{1,2,Infinity}') FROM models WHERE name = 'small';
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse

-- Crafted values: errors, never a crash.
SELECT 'v1:00'::acmetrace.gbdt;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v2:0100'::acmetrace.gbdt;
\echo :LAST_ERROR_SQLSTATE
SELECT 'nonsense'::acmetrace.gbdt;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v1:0g'::acmetrace.gbdt;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v1:01'::acmetrace.gbdt_state;
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('one_model', '\x01000001'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('one_state', '\x0100'::bytea);
\echo :LAST_ERROR_SQLSTATE
-- every one-digit change of a model's text: refused, or a valid model that predicts
CREATE FUNCTION pg_temp.mutants(txt text) RETURNS TABLE (refused bigint, accepted bigint, predicted bigint)
LANGUAGE plpgsql AS $$
DECLARE
    r bigint := 0; a bigint := 0; p bigint := 0; m acmetrace.gbdt; d text;
BEGIN
    FOR pos IN 4 .. length(txt) LOOP
        FOREACH d IN ARRAY '{0,1,7,f}'::text[] LOOP
            CONTINUE WHEN substr(txt, pos, 1) = d;
            BEGIN
                m := (overlay(txt PLACING d FROM pos FOR 1))::acmetrace.gbdt;
                a := a + 1;
                IF acmetrace.gbdt_predict(m, array_fill(1::float8, ARRAY[(acmetrace.gbdt_info(m)).features])) IS NOT NULL THEN
                    p := p + 1;
                END IF;
            EXCEPTION WHEN invalid_text_representation THEN r := r + 1;
            END;
        END LOOP;
    END LOOP;
    RETURN QUERY SELECT r, a, p;
END $$;
SELECT refused > 0 AS some_refused, accepted > 0 AS some_accepted, predicted = accepted AS all_accepted_predict
  FROM models, pg_temp.mutants(m::text) WHERE name = 'small';
-- every proper prefix of its bytes is refused by binary receive
CREATE FUNCTION pg_temp.prefixes_accepted(b bytea) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer := 0;
BEGIN
    FOR k IN 1 .. length(b) - 1 LOOP
        BEGIN
            PERFORM pg_temp.copy_binary('one_model', substr(b, 1, k));
            n := n + 1;
        EXCEPTION WHEN invalid_binary_representation THEN NULL;
        END;
    END LOOP;
    RETURN n;
END $$;
SELECT length(acmetrace.gbdt_send(m)) AS bytes, pg_temp.prefixes_accepted(acmetrace.gbdt_send(m)) AS prefixes_accepted
  FROM models WHERE name = 'small';

DROP TABLE models, one_model, one_state;
DROP AGGREGATE pg_temp.gbdt_rows(float8[], float8);
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
