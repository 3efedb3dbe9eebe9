-- Bins and CDFs: bins, bins_at, cdf_at, weighted_cdf_at, bin_rows and the
-- paper's figures.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
\i :abs_srcdir/test/regress_binary_copy.sql

-- Hand cases.  bins: [0] below lo, [1..n] bins closed on the left (the last
-- also on the right, so hi is in bin n), [n+1] above hi; NULL and NaN are
-- not counted; infinities are below or above.
SELECT acmetrace.bins(x, 0, 10, 5)
  FROM unnest('{-1,0,1.99,2,9.99,10,10.5,NaN,NULL,Infinity,-Infinity}'::float8[]) x;
SELECT * FROM acmetrace.bin_rows((SELECT acmetrace.bins(x, 0, 10, 5)
                                    FROM unnest('{-1,0,1.99,2,9.99,10,10.5}'::float8[]) x), 0, 10);
-- bins_at: edges 0, 1, 2, 4, 8 make bins [0,1) [1,2) [2,4) [4,8].
SELECT acmetrace.bins_at(x, '{0,1,2,4,8}') FROM unnest('{-1,0,0.5,1,3,4,8,9,NaN,NULL}'::float8[]) x;
SELECT * FROM acmetrace.bin_rows((SELECT acmetrace.bins_at(x, '{0,1,2,4,8}')
                                    FROM unnest('{-1,0,0.5,1,3,4,8,9}'::float8[]) x), '{0,1,2,4,8}');
-- cdf_at: percent of values <= each threshold, in the thresholds' order;
-- NULL and NaN are dropped (as the notebook's dropna); repeats are fine.
SELECT acmetrace.cdf_at(x, '{4,1,2,2,-Infinity,Infinity}') FROM unnest('{1,2,3,4,5,NULL,NaN}'::float8[]) x;
-- weighted_cdf_at: percent of the weight; rows missing a value or weight drop out.
SELECT acmetrace.weighted_cdf_at(x, w, '{1,2,4}')
  FROM (VALUES (1::float8, 10::float8), (2, 30), (4, 60), (8, NULL), (NULL, 5), ('NaN', 7)) v(x, w);
-- No rows: NULL; rows but no values: zero counts for bins, NULL for CDFs.
SELECT acmetrace.bins(x, 0, 1, 2) IS NULL AS no_rows FROM unnest('{}'::float8[]) x;
SELECT acmetrace.bins(x, 0, 1, 2) AS only_nulls, acmetrace.cdf_at(x, '{1}') AS cdf_only_nulls
  FROM unnest('{NULL,NaN}'::float8[]) x;
SELECT acmetrace.weighted_cdf_at(x, 0, '{1}') AS zero_total_weight FROM unnest('{1,2}'::float8[]) x;

-- Errors, each with its SQLSTATE.
\set VERBOSITY terse
SELECT acmetrace.bins(x, 1, 1, 5) FROM unnest('{1}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.bins(x, 0, 1, 0) FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins(x, 0, 'Infinity', 5) FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins(x, NULL, 1, 5) FROM unnest('{1}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.bins(x, 0, x, 5) FROM unnest('{1,2}'::float8[]) x;
SELECT acmetrace.bins_at(x, '{1,1}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins_at(x, '{1}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins_at(x, '{0,NaN}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins_at(x, '{0,NULL,2}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.bins_at(x, ARRAY[0, x + 1]) FROM unnest('{1,2}'::float8[]) x;
SELECT acmetrace.cdf_at(x, '{}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.cdf_at(x, '{1,NaN}') FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.cdf_at(x, NULL) FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.weighted_cdf_at(x, -1, '{1}') FROM unnest('{1}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.weighted_cdf_at(x, 'Infinity', '{1}') FROM unnest('{1}'::float8[]) x;
SELECT * FROM acmetrace.bin_rows('{1,2,3}', 0, 1);
SELECT * FROM acmetrace.bin_rows('[0:2]={1,2,3}', '{0,1,2}');
\set VERBOSITY default
-- The hint says what to pass.
SELECT acmetrace.bins_at(x, '{2,1}') FROM unnest('{1}'::float8[]) x;

-- Against plain SQL on generated values: many exactly on edges, random
-- fractions, out of range, infinities, NaN and NULL.  A regular table, so
-- parallel workers can read it.
CREATE TABLE bin_vals AS
SELECT g, CASE WHEN g % 11 = 0 THEN NULL
               WHEN g % 13 = 0 THEN 'NaN'::float8
               WHEN g % 17 = 0 THEN (g % 121) - 10.0
               WHEN g % 19 = 0 THEN (CASE WHEN g % 2 = 0 THEN 'Infinity' ELSE '-Infinity' END)::float8
               ELSE ((g::bigint * 7919) % 100003) / 1000.03 END AS v,
          (g % 97)::float8 AS w
  FROM generate_series(1, 200000) g;
ANALYZE bin_vals;
CREATE FUNCTION pg_temp.check_all() RETURNS TABLE (what text, same boolean) LANGUAGE sql AS $$
-- bins against width_bucket (with hi moved into the last bin)
SELECT 'bins(v, 0, 100, 10)', acmetrace.bins(v, 0, 100, 10)::text =
       (SELECT '[0:11]=' || array_agg(coalesce(c, 0) ORDER BY b)::text
          FROM generate_series(0, 11) b
          LEFT JOIN (SELECT CASE WHEN v = 100 THEN 10 ELSE width_bucket(v, 0, 100, 10) END AS b, count(*) AS c
                       FROM bin_vals WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY 1) q USING (b))
  FROM bin_vals
UNION ALL
SELECT 'bins(v, 0.1, 0.7, 7)', acmetrace.bins(v, 0.1, 0.7, 7)::text =
       (SELECT '[0:8]=' || array_agg(coalesce(c, 0) ORDER BY b)::text
          FROM generate_series(0, 8) b
          LEFT JOIN (SELECT CASE WHEN v = 0.7 THEN 7 ELSE width_bucket(v, 0.1, 0.7, 7) END AS b, count(*) AS c
                       FROM bin_vals WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY 1) q USING (b))
  FROM bin_vals
UNION ALL
SELECT 'bins_at(v, powers of two)', acmetrace.bins_at(v, acmetrace.powers_of_two(-3, 7))::text =
       (SELECT '[0:11]=' || array_agg(coalesce(c, 0) ORDER BY b)::text
          FROM generate_series(0, 11) b
          LEFT JOIN (SELECT CASE WHEN v = 128 THEN 10 ELSE width_bucket(v, acmetrace.powers_of_two(-3, 7)) END AS b,
                            count(*) AS c
                       FROM bin_vals WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY 1) q USING (b))
  FROM bin_vals
UNION ALL
SELECT 'cdf_at(v, steps(-5, 105, 0.5))', acmetrace.cdf_at(v, acmetrace.steps(-5, 105, 0.5)) =
       (SELECT array_agg(p ORDER BY i)
          FROM (SELECT i, (count(*) FILTER (WHERE v <= t))::float8 / count(*) * 100 AS p
                  FROM bin_vals, unnest(acmetrace.steps(-5, 105, 0.5)) WITH ORDINALITY u(t, i)
                 WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY i) q)
  FROM bin_vals
UNION ALL
SELECT 'weighted_cdf_at(v, w, thresholds)', acmetrace.weighted_cdf_at(v, w, '{100,0,50,25,-1,Infinity}') =
       (SELECT array_agg(p ORDER BY i)
          FROM (SELECT i, (sum(w) FILTER (WHERE v <= t)) / sum(w) * 100 AS p
                  FROM bin_vals, unnest('{100,0,50,25,-1,Infinity}'::float8[]) WITH ORDINALITY u(t, i)
                 WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY i) q)
  FROM bin_vals
$$;
SELECT * FROM pg_temp.check_all();
-- Per group, through GROUP BY.
SELECT count(*) AS groups,
       bool_and(b::text = (SELECT acmetrace.bins(v, 0, 100, 10)::text FROM bin_vals i WHERE i.g % 5 = o.k)) AS same
  FROM (SELECT g % 5 AS k, acmetrace.bins(v, 0, 100, 10) AS b FROM bin_vals GROUP BY 1) o;

-- The same with forced parallel workers: Partial Aggregate, same answers.
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT acmetrace.bins(v, 0, 100, 10), acmetrace.cdf_at(v, '{1,2}') FROM bin_vals;
SELECT * FROM pg_temp.check_all();
SELECT count(*) AS groups,
       bool_and(b::text = (SELECT acmetrace.bins(v, 0, 100, 10)::text FROM bin_vals i WHERE i.g % 5 = o.k)) AS same
  FROM (SELECT g % 5 AS k, acmetrace.bins(v, 0, 100, 10) AS b FROM bin_vals GROUP BY 1) o;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- bins_state: the aggregates' transition state is a type of its own, so
-- partial states can be stored and shipped (parallel workers, Citus) as
-- text or binary.  Helper aggregates over the transition functions with no
-- final function give the states themselves; one over the combine function
-- merges them.
CREATE AGGREGATE pg_temp.bins_part(float8, float8, float8, int) (
    SFUNC = acmetrace_internal.bins_trans, STYPE = acmetrace.bins_state);
CREATE AGGREGATE pg_temp.bins_at_part(float8, float8[]) (
    SFUNC = acmetrace_internal.bins_at_trans, STYPE = acmetrace.bins_state);
CREATE AGGREGATE pg_temp.cdf_part(float8, float8[]) (
    SFUNC = acmetrace_internal.bins_cdf_trans, STYPE = acmetrace.bins_state);
CREATE AGGREGATE pg_temp.wcdf_part(float8, float8, float8[]) (
    SFUNC = acmetrace_internal.bins_wcdf_trans, STYPE = acmetrace.bins_state);
CREATE AGGREGATE pg_temp.bins_merge(acmetrace.bins_state) (
    SFUNC = acmetrace_internal.bins_combine, STYPE = acmetrace.bins_state);
-- The text form: v1: and the binary form in hexadecimal (version 1, kind
-- 1..4, two zero bytes, slots, parameters, thresholds as given, n, total
-- weight, then the parameters, counts and weights; big-endian).
SELECT pg_temp.bins_part(x, 0, 10, 2) AS bins_state FROM unnest('{1,11,NULL,NaN}'::float8[]) x;
SELECT pg_temp.bins_at_part(x, '{0,1,2}') AS bins_at_state FROM unnest('{1,2,3}'::float8[]) x;
SELECT pg_temp.cdf_part(x, '{2,1,2}') AS cdf_state FROM unnest('{1,2,3}'::float8[]) x;
SELECT pg_temp.wcdf_part(x, 0.5, '{1}') AS wcdf_state FROM unnest('{1,2}'::float8[]) x;
SELECT pg_temp.bins_part(x, 0, 10, 2) IS NULL AS no_rows_no_state FROM unnest('{}'::float8[]) x;
SELECT decode(substr(s::text, 4), 'hex') = acmetrace.bins_state_send(s) AS text_is_the_binary_in_hex
  FROM (SELECT pg_temp.wcdf_part(x, 0.5, '{1}') AS s FROM unnest('{1,2}'::float8[]) x) q;
-- Partial states: four parts of each aggregate over bin_vals, stored.
CREATE TEMP TABLE states AS
SELECT 'bins' AS agg, g % 4 AS part, pg_temp.bins_part(v, 0, 100, 10) AS s FROM bin_vals GROUP BY 2
UNION ALL
SELECT 'bins_at', g % 4, pg_temp.bins_at_part(v, acmetrace.powers_of_two(-3, 7)) FROM bin_vals GROUP BY 2
UNION ALL
SELECT 'cdf_at', g % 4, pg_temp.cdf_part(v, acmetrace.steps(-5, 105, 0.5)) FROM bin_vals GROUP BY 2
UNION ALL
SELECT 'weighted_cdf_at', g % 4, pg_temp.wcdf_part(v, w, '{100,0,50,25,-1,Infinity}') FROM bin_vals GROUP BY 2;
CREATE TEMP TABLE whole_states AS
SELECT 'bins' AS agg, pg_temp.bins_part(v, 0, 100, 10) AS s FROM bin_vals
UNION ALL
SELECT 'bins_at', pg_temp.bins_at_part(v, acmetrace.powers_of_two(-3, 7)) FROM bin_vals
UNION ALL
SELECT 'cdf_at', pg_temp.cdf_part(v, acmetrace.steps(-5, 105, 0.5)) FROM bin_vals
UNION ALL
SELECT 'weighted_cdf_at', pg_temp.wcdf_part(v, w, '{100,0,50,25,-1,Infinity}') FROM bin_vals;
-- Each state through text out / in and through binary send / receive (a
-- binary COPY) comes back the same.
CREATE TEMP TABLE state_bin (s acmetrace.bins_state);
SELECT agg, count(*) AS states,
       bool_and(s::text::acmetrace.bins_state::text = s::text) AS text_round_trip,
       bool_and(pg_temp.copy_binary('state_bin', acmetrace.bins_state_send(s)) = s::text) AS binary_round_trip,
       bool_and(acmetrace.bins_state_send(s::text::acmetrace.bins_state) = acmetrace.bins_state_send(s)) AS same_bytes
  FROM states GROUP BY agg ORDER BY agg;
-- Merged in any order, the parts are the single-pass state, byte for byte
-- (the weights are integers, so their sums are exact in any order), and
-- give the aggregate's answer through the final functions.
SELECT w.agg,
       (SELECT pg_temp.bins_merge(s ORDER BY part) FROM states p WHERE p.agg = w.agg)::text = w.s::text AS in_order,
       (SELECT pg_temp.bins_merge(s ORDER BY part DESC) FROM states p WHERE p.agg = w.agg)::text = w.s::text AS reversed,
       (SELECT pg_temp.bins_merge(s ORDER BY md5(part::text)) FROM states p WHERE p.agg = w.agg)::text = w.s::text AS shuffled,
       (SELECT pg_temp.bins_merge(m ORDER BY k DESC)
          FROM (SELECT part % 2 AS k, pg_temp.bins_merge(s ORDER BY part DESC) AS m
                  FROM states p WHERE p.agg = w.agg GROUP BY 1) t)::text = w.s::text AS in_two_steps
  FROM whole_states w ORDER BY w.agg;
SELECT acmetrace_internal.bins_final((SELECT pg_temp.bins_merge(s ORDER BY part DESC) FROM states WHERE agg = 'bins'))
         = (SELECT acmetrace.bins(v, 0, 100, 10) FROM bin_vals) AS bins_final,
       acmetrace_internal.bins_final((SELECT pg_temp.bins_merge(s ORDER BY part DESC) FROM states WHERE agg = 'bins_at'))
         = (SELECT acmetrace.bins_at(v, acmetrace.powers_of_two(-3, 7)) FROM bin_vals) AS bins_at_final,
       acmetrace_internal.bins_cdf_final((SELECT pg_temp.bins_merge(s ORDER BY part DESC) FROM states WHERE agg = 'cdf_at'))
         = (SELECT acmetrace.cdf_at(v, acmetrace.steps(-5, 105, 0.5)) FROM bin_vals) AS cdf_final,
       acmetrace_internal.bins_cdf_final((SELECT pg_temp.bins_merge(s ORDER BY part DESC) FROM states WHERE agg = 'weighted_cdf_at'))
         = (SELECT acmetrace.weighted_cdf_at(v, w, '{100,0,50,25,-1,Infinity}') FROM bin_vals) AS wcdf_final;
-- NULL states are skipped; no states give NULL.
SELECT pg_temp.bins_merge(s)::text = (SELECT s::text FROM states WHERE agg = 'bins' AND part = 1) AS nulls_skipped
  FROM (SELECT s FROM states WHERE agg = 'bins' AND part = 1 UNION ALL SELECT NULL) q;
SELECT pg_temp.bins_merge(s) IS NULL AS only_nulls FROM (VALUES (NULL::acmetrace.bins_state)) v(s);
-- A transition function goes on from a stored state (here an INITCOND),
-- if the arguments are the state's.
SELECT pg_temp.bins_part(x, 0, 10, 2) AS s FROM unnest('{1,11}'::float8[]) x \gset
CREATE AGGREGATE pg_temp.bins_more(float8, float8, float8, int) (
    SFUNC = acmetrace_internal.bins_trans, STYPE = acmetrace.bins_state, FINALFUNC = acmetrace_internal.bins_final,
    INITCOND = :'s');
SELECT pg_temp.bins_more(x, 0, 10, 2) AS two_more FROM unnest('{2,7}'::float8[]) x;
SELECT acmetrace_internal.bins_final(:'s') AS stored_state_final;
-- Errors: other arguments, another aggregate's state, functions called
-- outside an aggregate, and values that are not states.
\set VERBOSITY terse
SELECT pg_temp.bins_more(x, 0, 10, 3) FROM unnest('{2}'::float8[]) x;
SELECT pg_temp.bins_merge(s) FROM states WHERE agg IN ('bins', 'cdf_at');
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.bins_merge(s) FROM (SELECT pg_temp.bins_part(v, 0, 100, 10 + g % 2) AS s FROM bin_vals GROUP BY g % 2) q;
SELECT pg_temp.bins_merge(s) FROM (SELECT pg_temp.bins_at_part(v, ARRAY[0, 1 + g % 2]) AS s FROM bin_vals GROUP BY g % 2) q;
SELECT pg_temp.bins_merge(s) FROM (SELECT pg_temp.cdf_part(v, ARRAY[1, g % 2]) AS s FROM bin_vals GROUP BY g % 2) q;
SELECT acmetrace_internal.bins_cdf_final(:'s');
SELECT acmetrace_internal.bins_combine(:'s', :'s');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace_internal.bins_trans(:'s', 1, 0, 10, 2);
SELECT 'v1:0101'::acmetrace.bins_state;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v2:0101'::acmetrace.bins_state;
SELECT 'v1:01x1'::acmetrace.bins_state;
SELECT (left(:'s', -1) || '2')::acmetrace.bins_state;
SELECT pg_temp.copy_binary('state_bin', substr(acmetrace.bins_state_send(:'s'), 1, 40));
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('state_bin', '\x02'::bytea || substr(acmetrace.bins_state_send(:'s'), 2));
\set VERBOSITY default
SELECT ('v1:' || upper(substr(:'s', 4)))::acmetrace.bins_state::text = :'s' AS upper_case_digits_read;
-- The hint says what a bins_state looks like.
SELECT 'bins'::acmetrace.bins_state;

-- The aggregates in parallel again, their states now crossing from the
-- workers as bins_state values.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT acmetrace.weighted_cdf_at(v, w, '{1,2}'), acmetrace.bins_at(v, '{0,1}') FROM bin_vals;
SELECT * FROM pg_temp.check_all();
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- The released SQL (0.1.0 to 0.3.0, before ALTER EXTENSION UPDATE) declares
-- the aggregates over the same library with STYPE internal and the old C
-- symbols, serialize and deserialize included: they must still give the
-- same answers, serially and in parallel.
CREATE SCHEMA bins_old;
CREATE FUNCTION bins_old._bins_trans(internal, double precision, double precision, double precision, integer)
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_bins_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._bins_at_trans(internal, double precision, double precision[])
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_bins_at_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._cdf_trans(internal, double precision, double precision[])
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_cdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._wcdf_trans(internal, double precision, double precision, double precision[])
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_wcdf_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._hist_combine(internal, internal)
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_hist_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._hist_serialize(internal)
RETURNS bytea AS '$libdir/acmetrace', 'acmetrace_hist_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bins_old._hist_deserialize(bytea, internal)
RETURNS internal AS '$libdir/acmetrace', 'acmetrace_hist_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bins_old._bins_final(internal)
RETURNS bigint[] AS '$libdir/acmetrace', 'acmetrace_bins_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bins_old._cdf_final(internal)
RETURNS double precision[] AS '$libdir/acmetrace', 'acmetrace_cdf_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE bins_old.bins(double precision, double precision, double precision, integer) (
    SFUNC = bins_old._bins_trans, STYPE = internal, FINALFUNC = bins_old._bins_final,
    COMBINEFUNC = bins_old._hist_combine, SERIALFUNC = bins_old._hist_serialize,
    DESERIALFUNC = bins_old._hist_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE bins_old.bins_at(double precision, double precision[]) (
    SFUNC = bins_old._bins_at_trans, STYPE = internal, FINALFUNC = bins_old._bins_final,
    COMBINEFUNC = bins_old._hist_combine, SERIALFUNC = bins_old._hist_serialize,
    DESERIALFUNC = bins_old._hist_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE bins_old.cdf_at(double precision, double precision[]) (
    SFUNC = bins_old._cdf_trans, STYPE = internal, FINALFUNC = bins_old._cdf_final,
    COMBINEFUNC = bins_old._hist_combine, SERIALFUNC = bins_old._hist_serialize,
    DESERIALFUNC = bins_old._hist_deserialize, PARALLEL = SAFE);
CREATE AGGREGATE bins_old.weighted_cdf_at(double precision, double precision, double precision[]) (
    SFUNC = bins_old._wcdf_trans, STYPE = internal, FINALFUNC = bins_old._cdf_final,
    COMBINEFUNC = bins_old._hist_combine, SERIALFUNC = bins_old._hist_serialize,
    DESERIALFUNC = bins_old._hist_deserialize, PARALLEL = SAFE);
CREATE FUNCTION pg_temp.old_equals_new() RETURNS TABLE (what text, same boolean) LANGUAGE sql AS $$
SELECT 'bins', bins_old.bins(v, 0, 100, 10) = acmetrace.bins(v, 0, 100, 10) FROM bin_vals
UNION ALL
SELECT 'bins_at', bins_old.bins_at(v, acmetrace.powers_of_two(-3, 7)) = acmetrace.bins_at(v, acmetrace.powers_of_two(-3, 7))
  FROM bin_vals
UNION ALL
SELECT 'cdf_at', bins_old.cdf_at(v, acmetrace.steps(-5, 105, 0.5)) = acmetrace.cdf_at(v, acmetrace.steps(-5, 105, 0.5))
  FROM bin_vals
UNION ALL
SELECT 'weighted_cdf_at', bins_old.weighted_cdf_at(v, w, '{100,0,50,25,-1,Infinity}')
                          = acmetrace.weighted_cdf_at(v, w, '{100,0,50,25,-1,Infinity}') FROM bin_vals
UNION ALL
SELECT 'per group', bool_and(o IS NOT DISTINCT FROM n)
  FROM (SELECT g % 7 AS k, bins_old.cdf_at(v, '{0,50,100}') AS o, acmetrace.cdf_at(v, '{0,50,100}') AS n
          FROM bin_vals GROUP BY 1) q
$$;
SELECT * FROM pg_temp.old_equals_new() ORDER BY 1;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT bins_old.bins(v, 0, 100, 10) FROM bin_vals;
SELECT * FROM pg_temp.old_equals_new() ORDER BY 1;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SET client_min_messages = warning;
DROP SCHEMA bins_old CASCADE;
RESET client_min_messages;

-- Thresholds from a column are compared row by row, not trusted.
\set VERBOSITY terse
SELECT acmetrace.cdf_at(v, ARRAY[g::float8]) FROM bin_vals WHERE g < 5;
\set VERBOSITY default
SELECT acmetrace.cdf_at(v, ARRAY[1.0, 2.0]::float8[] || (g * 0)::float8) AS same_values_from_a_column
  FROM bin_vals WHERE g < 5;

-- The paper's figures on a generated cluster, against hand-written SQL.
SELECT acmetrace.load_generated('g', 'seren', 20000, 3);
SELECT count(*) AS rows, count(DISTINCT type) AS types,
       bool_and(d.cdf_pct = (SELECT round(((count(*) FILTER (WHERE j.duration <= d.duration_s))::float8 / count(*) * 100)::numeric, 2)
                               FROM acmetrace.jobs j
                              WHERE j.cluster = 'g' AND j.gpu_num > 0 AND j.duration IS NOT NULL
                                AND (d.type = 'all' OR j.type = d.type))) AS same
  FROM acmetrace.duration_cdf('g') d;
SELECT count(*) AS rows,
       bool_and(q.cdf_pct = (SELECT round(((count(*) FILTER (WHERE j.wait_s <= q.queue_s))::float8 / count(*) * 100)::numeric, 2)
                               FROM acmetrace.jobs j
                              WHERE j.cluster = 'g' AND j.gpu_num > 0 AND j.wait_s >= 0
                                AND (q.type = 'all' OR j.type = q.type))) AS same
  FROM acmetrace.queue_cdf('g') q;
SELECT count(*) AS rows,
       bool_and(c.job_pct = (SELECT round(((count(*) FILTER (WHERE j.gpu_num <= c.gpu_num))::float8 / count(*) * 100)::numeric, 2)
                                   FROM acmetrace.jobs j WHERE j.cluster = 'g' AND j.gpu_num > 0)) AS same_jobs,
       bool_and(c.gpu_h_pct = (SELECT round((sum(j.gpu_num * j.duration::float8) FILTER (WHERE j.gpu_num <= c.gpu_num)
                                             / sum(j.gpu_num * j.duration::float8) * 100)::numeric, 2)
                                        FROM acmetrace.jobs j
                                       WHERE j.cluster = 'g' AND j.gpu_num > 0 AND j.duration IS NOT NULL)) AS same_gpu_h
  FROM acmetrace.gpu_num_cdf('g') c WHERE c.gpu_num IN (0, 1, 2, 4, 8, 16, 64, 256, 1024);
SELECT * FROM acmetrace.gpu_num_cdf('g') WHERE gpu_num IN (1, 8, 1024);

-- Utilization: a generated file through the normal load path.
SET acmetrace.metric = 'GPU_UTIL';
SET acmetrace.cluster = 'g';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util(40, 500, 9, '2023-07-01 00:00+00', 15, 0.02);
RESET acmetrace.metric;
RESET acmetrace.cluster;
SELECT count(*) AS samples, count(DISTINCT series) AS series FROM acmetrace.utilization WHERE metric = 'GPU_UTIL';
SELECT bool_and(h.series = (SELECT count(*) FROM (SELECT avg(value) AS m FROM acmetrace.utilization
                                                    WHERE metric = 'GPU_UTIL' GROUP BY series) a
                             WHERE CASE WHEN a.m = 100 THEN 10 ELSE width_bucket(a.m, 0, 100, 10) END = h.bin)) AS same,
       sum(h.series) AS series, max(h.cumulative_pct) AS cumulative
  FROM acmetrace.util_histogram('g', 'GPU_UTIL') h;
SELECT count(*) AS thresholds,
       bool_and(c.cdf_pct = (SELECT round(((count(*) FILTER (WHERE value <= c.value))::float8 / count(*) * 100)::numeric, 2)
                               FROM acmetrace.utilization WHERE metric = 'GPU_UTIL')) AS same
  FROM acmetrace.util_cdf('g', 'gpu_util') c;
SELECT p.cluster, p.samples,
       p.at_most_1_pct = (SELECT round(100.0 * count(*) FILTER (WHERE value <= 1) / count(*), 2)
                            FROM acmetrace.utilization WHERE metric = 'GPU_UTIL') AS same_low,
       p.at_least_99_pct = (SELECT round(100.0 * count(*) FILTER (WHERE value >= 99) / count(*), 2)
                              FROM acmetrace.utilization WHERE metric = 'GPU_UTIL') AS same_high,
       p.at_most_1_pct, p.at_least_99_pct
  FROM acmetrace.util_polarization() p;

DISCARD TEMP;
DROP TABLE bin_vals;
DROP EXTENSION acmetrace;
