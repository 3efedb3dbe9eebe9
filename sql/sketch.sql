-- delay_sketch: relative-error percentiles, rollup, text and binary forms.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- A hand case: 0 has its own count; 12 and 20 are small integers and come
-- back exactly; q = 0 is the minimum and q = 1 the maximum.
SELECT acmetrace.delay_sketch_agg(x) AS s FROM unnest('{0,12,20}'::float8[]) x \gset
SELECT :'s'::acmetrace.delay_sketch AS sketch;
SELECT acmetrace.percentiles(:'s', '{0,0.34,0.5,0.67,1}') AS sketch,
       (SELECT percentile_disc('{0,0.34,0.5,0.67,1}'::float8[]) WITHIN GROUP (ORDER BY x)
          FROM unnest('{0,12,20}'::float8[]) x) AS percentile_disc;
SELECT acmetrace.count(:'s'), acmetrace.mean(:'s'), acmetrace.min(:'s'), acmetrace.max(:'s'),
       acmetrace.relative_error(:'s');
-- rank_pct is the CDF: the percent of values <= x.
SELECT x, acmetrace.rank_pct(:'s', x) FROM unnest('{-1,0,5,11.9,12,19,20,1e9}'::float8[]) x;
-- A big value: within 0.5%, and the maximum exactly.
SELECT acmetrace.percentiles(acmetrace.delay_sketch_agg(x), '{0.5,0.75,1}')
  FROM unnest('{1000,123456,123457,123458}'::float8[]) x;
-- NULL values are skipped; no values give NULL, as percentile_cont does.
SELECT acmetrace.delay_sketch_agg(x) FROM unnest('{NULL,7,NULL}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x) IS NULL AS no_rows FROM unnest('{}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x) IS NULL AS only_nulls FROM unnest('{NULL,NULL}'::float8[]) x;
-- Another relative error; the same text for the same values.
SELECT acmetrace.delay_sketch_agg(x, 0.05) FROM unnest('{1,10,100,1000}'::float8[]) x;
-- An empty sketch (only from text): count 0, everything else NULL.
SELECT acmetrace.count(e), acmetrace.mean(e), acmetrace.min(e), acmetrace.percentile(e, 0.5),
       acmetrace.percentiles(e, '{0.5}'), acmetrace.rank_pct(e, 1)
  FROM (SELECT 'v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='::acmetrace.delay_sketch e) q;
-- percentiles keeps the array's shape and its NULLs.
SELECT acmetrace.percentiles(:'s', '{{0,NULL},{0.5,1}}'), acmetrace.percentiles(:'s', '{}');

-- Errors.
\set VERBOSITY terse
SELECT acmetrace.delay_sketch_agg(x) FROM unnest('{1,-5}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.delay_sketch_agg(x) FROM unnest('{1,NaN}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x) FROM unnest('{1,Infinity}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x, 0.0001) FROM unnest('{1}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x, NULL) FROM unnest('{1}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.delay_sketch_agg(x, 0.01 * x) FROM unnest('{1,2}'::float8[]) x;
SELECT acmetrace.delay_sketch_agg(x, 0.001) FROM unnest('{1e-300,1e300}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.delay_sketch_agg(x) FROM unnest('{1e308,1e308}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.percentile(:'s', 1.5);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.percentile(:'s', 'NaN');
SELECT acmetrace.percentiles(:'s', '{0.5,-0.1}');
SELECT acmetrace.rollup(s) FROM (VALUES (:'s'::acmetrace.delay_sketch),
                                        ('v1 err=0.01 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1')) v(s);
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
-- The hint says what to do.
SELECT acmetrace.rollup(s) FROM (VALUES (:'s'::acmetrace.delay_sketch),
                                        ('v1 err=0.01 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1')) v(s);

-- Crafted text: each is refused with 22P02 (the DETAIL names the character).
\set VERBOSITY terse
SELECT 'v2 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='::acmetrace.delay_sketch;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v1 err=0.5 n=0 zeros=0 min=0 max=0 sum=0 int=1 b='::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:2'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+0:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=1 min=0 max=20 sum=32 int=1 b=249:0,+51:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=2000 sum=32 int=1 b=249:1,+51:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=NaN int=1 b=249:1,+51:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12.5 max=20 sum=32 int=1 b=249:1,+51:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,+51:1,'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,+99999999999:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=18446744073709551616 zeros=0 min=12 max=20 sum=32 int=1 b=249:1'::acmetrace.delay_sketch;
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,+51:1 trailing'::acmetrace.delay_sketch;
SELECT ''::acmetrace.delay_sketch;
\set VERBOSITY default
SELECT 'v1 err=0.005 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1;+51:1'::acmetrace.delay_sketch;
-- Surrounding white space is fine; the stored value is printed canonically.
SELECT '  v1 err=0.0050 n=2 zeros=0 min=12 max=20 sum=32 int=1 b=249:1,+51:1 '::acmetrace.delay_sketch;

-- Binary send/receive through COPY (FORMAT binary), and crafted binary input.
SELECT current_setting('data_directory') || '/acmetrace_sketch.bin' AS bin_path \gset
CREATE TEMP TABLE bin (s acmetrace.delay_sketch);
CREATE TEMP TABLE src AS
SELECT k, acmetrace.delay_sketch_agg(x * k) AS s FROM generate_series(1, 3) k, generate_series(0, 500) x GROUP BY k;
COPY (SELECT s FROM src ORDER BY k) TO :'bin_path' (FORMAT binary);
COPY bin FROM :'bin_path' (FORMAT binary);
SELECT count(*) AS copied, bool_and(a.s::text = b.s::text) AS identical
  FROM (SELECT s, row_number() OVER (ORDER BY k) n FROM src) a
  JOIN (SELECT s, row_number() OVER () n FROM bin) b USING (n);
\i :abs_srcdir/test/regress_binary_copy.sql
-- The header: version 1, flags (1 = integers), 2 zero bytes, relative error,
-- count, zeros, min, max, sum, bucket count; then varint buckets.
CREATE FUNCTION pg_temp.hdr(version int, flags int, err float8, n int8, zeros int8,
                            mn float8, mx float8, total float8, nb int) RETURNS bytea
LANGUAGE sql AS $$
SELECT set_byte(set_byte('\x0000'::bytea, 0, version), 1, flags) || '\x0000'::bytea
       || float8send(err) || int8send(n) || int8send(zeros)
       || float8send(mn) || float8send(mx) || float8send(total) || int4send(nb)
$$;
-- 12 and 20 at 0.005: buckets 249 (zigzag 498 = varint f2 03) and +51 (33).
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
\set VERBOSITY terse
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(2, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 3, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.3, 2, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 3, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 3) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 330100'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 0001'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xf20301 33ffffffffffffffffff7f'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 12, 20, 32, 2) || '\xffffffffff0f01 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 'NaN', 2, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, 2, 0, 'Infinity', 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', pg_temp.hdr(1, 1, 0.005, -1, 0, 12, 20, 32, 2) || '\xf20301 3301'::bytea);
SELECT pg_temp.copy_binary('bin', '\x01');
SELECT pg_temp.copy_binary('bin', '\x');
\set VERBOSITY default

-- Accuracy: for q = 0, 0.01, ..., 0.99, 0.999, 1 the sketch answers within
-- 0.5% of percentile_disc over the same rows, on adversarial and generated sets.
SELECT acmetrace.load_generated('g', 'seren', 100000, 7);
-- Regular tables: parallel workers cannot read temporary ones.
CREATE TABLE sets (name text, x float8);
INSERT INTO sets SELECT 'all equal', 3600 FROM generate_series(1, 1000);
INSERT INTO sets SELECT 'two far-apart clusters', CASE WHEN g % 2 = 0 THEN 1 + g % 3 ELSE 1e8 + g % 1000 END
  FROM generate_series(1, 2000) g;
INSERT INTO sets SELECT 'powers of ten', 10 ^ (g % 10) FROM generate_series(1, 1000) g;
INSERT INTO sets SELECT 'only zeros', 0 FROM generate_series(1, 500);
INSERT INTO sets SELECT 'zeros and 10^9', CASE WHEN g % 3 = 0 THEN 1e9 ELSE 0 END FROM generate_series(1, 900) g;
INSERT INTO sets SELECT 'fractions', ((g * 7919) % 10007) / 97.0 FROM generate_series(1, 3000) g;
INSERT INTO sets SELECT 'heavy tail', floor(exp(((g * 7919) % 10007) / 10007.0 * 18)) FROM generate_series(1, 5000) g;
INSERT INTO sets SELECT 'one value', 42;
INSERT INTO sets SELECT 'generated queue (s)', wait_s FROM acmetrace.jobs WHERE cluster = 'g' AND wait_s >= 0;
INSERT INTO sets SELECT 'generated duration (s)', run_s FROM acmetrace.jobs WHERE cluster = 'g' AND run_s >= 0;
INSERT INTO sets SELECT 'generated GPU time (s)', gpu_s FROM acmetrace.jobs WHERE cluster = 'g' AND gpu_s >= 0;
INSERT INTO sets SELECT 'generated GPU count', gpu_num FROM acmetrace.jobs WHERE cluster = 'g';
ANALYZE sets;
CREATE TEMP TABLE grid AS
SELECT array_agg(q ORDER BY q) AS qs
  FROM (SELECT k / 100.0::float8 AS q FROM generate_series(0, 99) k UNION ALL VALUES (0.999), (1)) g;
CREATE TEMP TABLE exact AS
SELECT name, count(*) AS n, percentile_disc((SELECT qs FROM grid)) WITHIN GROUP (ORDER BY x) AS v
  FROM sets GROUP BY name;
CREATE TEMP TABLE serial AS
SELECT name, acmetrace.delay_sketch_agg(x) AS s FROM sets GROUP BY name;
-- within: every answer within 0.5% of the exact one (0 exactly);
-- exact: how many of the 102 answers are exactly percentile_disc's.
CREATE FUNCTION pg_temp.compare(sketches regclass)
RETURNS TABLE (name text, n bigint, quantiles bigint, within boolean, exact bigint)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$
    SELECT e.name, e.n, count(*),
           bool_and(CASE WHEN t = 0 THEN a = 0 ELSE abs(a - t) <= 0.005 * t * (1 + 1e-12) END),
           count(*) FILTER (WHERE a = t)
      FROM exact e JOIN %s s USING (name),
           unnest(e.v, acmetrace.percentiles(s.s, (SELECT qs FROM grid))) u(t, a)
     GROUP BY e.name, e.n ORDER BY e.name $q$, sketches);
END
$$;
SELECT * FROM pg_temp.compare('serial');
-- The sketch stays small: bytes stored per set.
SELECT name, pg_column_size(s) < 4096 AS under_4kb, acmetrace.count(s) FROM serial ORDER BY name;

-- The same with forced parallel workers: a Partial Aggregate, the same buckets.
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT name, acmetrace.delay_sketch_agg(x) FROM sets GROUP BY name;
CREATE TEMP TABLE parallel AS
SELECT name, acmetrace.delay_sketch_agg(x) AS s FROM sets GROUP BY name;
SELECT * FROM pg_temp.compare('parallel');
-- Float sums may add up in another order; everything else is identical.
SELECT count(*) AS sets,
       bool_and(regexp_replace(p.s::text, ' sum=\S+', '') = regexp_replace(s.s::text, ' sum=\S+', '')) AS same_buckets,
       max(abs(acmetrace.mean(p.s) - acmetrace.mean(s.s)) / nullif(acmetrace.mean(s.s), 0)) < 1e-12 AS same_mean
  FROM parallel p JOIN serial s USING (name);
-- The queue function, through workers, against percentile_disc by hand
-- (its sketch unrounded; the percentiles column is it to 3 digits).
SELECT q.type, q.jobs = e.jobs AS same_jobs,
       bool_and(abs(u.a - u.t) <= 0.005 * u.t * (1 + 1e-12)) AS within,
       bool_and(u.p = acmetrace_internal.sig3(u.a)) AS rounded
  FROM acmetrace.queue_percentiles('g') q
  JOIN (SELECT type, count(*) AS jobs, percentile_disc('{0.5,0.9,0.99}'::float8[]) WITHIN GROUP (ORDER BY wait_s) v
          FROM acmetrace.jobs WHERE cluster = 'g' AND wait_s >= 0 AND gpu_num > 0 GROUP BY type) e USING (type),
       unnest(e.v, acmetrace.percentiles(acmetrace.queue_sketch('g', q.type), '{0.5,0.9,0.99}'), q.percentiles_s) u(t, a, p)
 GROUP BY q.type, q.jobs, e.jobs ORDER BY q.type;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- Rollup: a sketch per day and type, stored in a table, rolled up to the
-- month (and over types) equals the sketch of the month's rows.
CREATE TABLE month AS
SELECT '2023-07-01'::date + (g % 30) AS day,
       (ARRAY['Eval', 'Pretrain', 'SFT'])[1 + (g / 30) % 3] AS type,
       floor(exp(((g * 7919) % 10007) / 10007.0 * 16)) - 1 AS wait_s
  FROM generate_series(1, 60000) g;
CREATE TABLE daily AS
SELECT day, type, acmetrace.delay_sketch_agg(wait_s) AS s FROM month GROUP BY day, type;
SELECT count(DISTINCT day) AS days, count(*) AS sketches FROM daily;
SELECT d.type, acmetrace.count(d.s) AS jobs,
       d.s::text = (SELECT acmetrace.delay_sketch_agg(m.wait_s)::text FROM month m WHERE m.type = d.type) AS equals_raw
  FROM (SELECT type, acmetrace.rollup(s) AS s FROM daily GROUP BY type) d ORDER BY d.type;
SELECT acmetrace.rollup(s)::text = (SELECT acmetrace.delay_sketch_agg(wait_s)::text FROM month) AS all_types_equal_raw
  FROM daily;
-- Rolling up through workers too, and rollups of rollups.
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT acmetrace.rollup(s) FROM daily;
SELECT acmetrace.rollup(s)::text = (SELECT acmetrace.delay_sketch_agg(wait_s)::text FROM month) AS parallel_rollup_equal
  FROM daily;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT acmetrace.rollup(s)::text = (SELECT acmetrace.rollup(s)::text FROM daily) AS rollup_of_rollups
  FROM (SELECT type, acmetrace.rollup(s) AS s FROM daily GROUP BY type) t;
SELECT acmetrace.rollup(s) IS NULL AS nothing_to_roll_up FROM daily WHERE false;

-- The state is the type: delay_sketch_agg and rollup accumulate into a
-- delay_sketch and have no final function.
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state, a.aggtransfn,
       a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn
  FROM pg_aggregate a
 WHERE a.aggfnoid IN ('acmetrace.delay_sketch_agg(float8)'::regprocedure,
                      'acmetrace.delay_sketch_agg(float8, float8)'::regprocedure,
                      'acmetrace.rollup(acmetrace.delay_sketch)'::regprocedure)
 ORDER BY 1::text;
-- Partial states as a Citus worker computes them: a helper aggregate with
-- the same transition function and no final function, over 7 shards.
-- Values are whole or quarter numbers, so every float sum is exact in any
-- order and the texts must be identical.
CREATE AGGREGATE pg_temp.sk_part(float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch);
CREATE AGGREGATE pg_temp.sk_part(float8, float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch);
CREATE TEMP TABLE shard_vals AS
SELECT g % 7 AS shard,
       CASE WHEN g % 11 = 0 THEN 0 ELSE floor(exp(((g * 7919) % 10007) / 10007.0 * 14)) + (g % 4) / 4.0 END AS x
  FROM generate_series(1, 20000) g;
CREATE TEMP TABLE partials AS
SELECT shard, pg_temp.sk_part(x) AS s, pg_temp.sk_part(x, 0.02) AS s2 FROM shard_vals GROUP BY shard;
-- (Separate queries: in one, the two would share a transition state.)
SELECT (SELECT pg_temp.sk_part(x)::text FROM shard_vals)
           = (SELECT acmetrace.delay_sketch_agg(x)::text FROM shard_vals) AS helper_equals_aggregate,
       (SELECT pg_temp.sk_part(x, 0.02)::text FROM shard_vals)
           = (SELECT acmetrace.delay_sketch_agg(x, 0.02)::text FROM shard_vals) AS helper_equals_aggregate_2;
-- Through the text form (as Citus ships partials) and the binary form
-- (COPY ... (FORMAT binary)): the same values.
COPY (SELECT shard, s, s2 FROM partials ORDER BY shard) TO :'bin_path' (FORMAT binary);
CREATE TEMP TABLE partials_bin (shard int, s acmetrace.delay_sketch, s2 acmetrace.delay_sketch);
COPY partials_bin FROM :'bin_path' (FORMAT binary);
SELECT count(*) AS partials,
       bool_and(p.s::text::acmetrace.delay_sketch::text = p.s::text
                AND p.s2::text::acmetrace.delay_sketch::text = p.s2::text) AS text_round_trip,
       bool_and(b.s::text = p.s::text AND b.s2::text = p.s2::text) AS binary_round_trip,
       bool_and(acmetrace.delay_sketch_send(b.s) = acmetrace.delay_sketch_send(p.s)) AS same_bytes
  FROM partials p JOIN partials_bin b USING (shard);
-- Combined in any order, from the states or from their text, they are the
-- single-pass sketch.
SELECT o.name,
       (SELECT CASE o.name
                   WHEN 'ascending' THEN acmetrace.rollup(p.s ORDER BY p.shard)
                   WHEN 'descending' THEN acmetrace.rollup(p.s ORDER BY p.shard DESC)
                   ELSE acmetrace.rollup(p.s ORDER BY md5(p.shard::text)) END::text
          FROM partials p) = w.s AS from_states,
       (SELECT CASE o.name
                   WHEN 'ascending' THEN acmetrace.rollup(p.s::text::acmetrace.delay_sketch ORDER BY p.shard)
                   WHEN 'descending' THEN acmetrace.rollup(p.s::text::acmetrace.delay_sketch ORDER BY p.shard DESC)
                   ELSE acmetrace.rollup(p.s::text::acmetrace.delay_sketch ORDER BY md5(p.shard::text)) END::text
          FROM partials p) = w.s AS from_text,
       (SELECT CASE o.name
                   WHEN 'ascending' THEN acmetrace.rollup(b.s2 ORDER BY b.shard)
                   WHEN 'descending' THEN acmetrace.rollup(b.s2 ORDER BY b.shard DESC)
                   ELSE acmetrace.rollup(b.s2 ORDER BY md5(b.shard::text)) END::text
          FROM partials_bin b) = w.s2 AS from_binary_error_2
  FROM (VALUES ('ascending'), ('descending'), ('hashed')) o(name),
       (SELECT acmetrace.delay_sketch_agg(x)::text AS s, acmetrace.delay_sketch_agg(x, 0.02)::text AS s2
          FROM shard_vals) w
 ORDER BY 1;
-- The same partials combined by parallel workers (Finalize over Partial
-- Aggregate): the combine function reads flat states a worker wrote.
CREATE TABLE partials_many AS SELECT p.* FROM partials p, generate_series(1, 300) g;
ANALYZE partials_many;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT shard, acmetrace.rollup(s) FROM partials_many GROUP BY shard;
SELECT count(*) AS shards, bool_and(r.s::text = p.s::text) AS equal_to_300_times_the_partial
  FROM (SELECT shard, acmetrace.rollup(s) AS s FROM partials_many GROUP BY shard) r
  JOIN (SELECT shard, acmetrace.rollup(p.s) AS s FROM partials p, generate_series(1, 300) g GROUP BY shard) p USING (shard);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- A flat state (here an INITCOND) is read and carried on: the sketch of
-- {0,12,20} plus 5 and 7 is the sketch of all five; a state keeps its
-- relative error unless one is passed, which must then match.
CREATE AGGREGATE pg_temp.sk_more(float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch,
    INITCOND = 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1');
SELECT pg_temp.sk_more(x)::text = (SELECT acmetrace.delay_sketch_agg(y)::text FROM unnest('{0,12,20,5,7}'::float8[]) y)
       AS continued
  FROM unnest('{5,7}'::float8[]) x;
SELECT pg_temp.sk_more(x) AS nulls_only FROM unnest('{NULL}'::float8[]) x;
CREATE AGGREGATE pg_temp.sk_more_01(float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch,
    INITCOND = 'v1 err=0.01 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=');
CREATE AGGREGATE pg_temp.sk_more_01(float8, float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch,
    INITCOND = 'v1 err=0.01 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=');
SELECT pg_temp.sk_more_01(x) FROM unnest('{1,10}'::float8[]) x;
SELECT pg_temp.sk_more_01(x, 0.01) FROM unnest('{1,10}'::float8[]) x;
CREATE AGGREGATE pg_temp.sk_roll_more(acmetrace.delay_sketch) (SFUNC = acmetrace_internal.sketch_combine,
    STYPE = acmetrace.delay_sketch, INITCOND = 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1');
SELECT pg_temp.sk_roll_more(s)::text = (SELECT acmetrace.delay_sketch_agg(y)::text FROM unnest('{0,12,20,0,12,20}'::float8[]) y)
       AS rolled_onto
  FROM (VALUES (:'s'::acmetrace.delay_sketch), (NULL)) v(s);
\set VERBOSITY terse
SELECT pg_temp.sk_more_01(x, 0.005) FROM unnest('{1,10}'::float8[]) x;
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.sk_roll_more(s) FROM (VALUES ('v1 err=0.01 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1'::acmetrace.delay_sketch)) v(s);
\echo :LAST_ERROR_SQLSTATE
-- A crafted INITCOND is refused by the type's input.
CREATE AGGREGATE pg_temp.sk_bad(float8) (SFUNC = acmetrace_internal.sketch_trans, STYPE = acmetrace.delay_sketch,
    INITCOND = 'v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:2');
\echo :LAST_ERROR_SQLSTATE
-- The support functions outside an aggregate: NULL input passes the state
-- through; anything else needs an aggregate.
SELECT acmetrace_internal.sketch_trans(NULL, NULL) IS NULL AS null_null,
       acmetrace_internal.sketch_trans(:'s', NULL)::text = :'s' AS state_kept,
       acmetrace_internal.sketch_combine(NULL, NULL) IS NULL AS combine_null_null,
       acmetrace_internal.sketch_combine(:'s', NULL)::text = :'s' AS combine_state_kept;
SELECT acmetrace_internal.sketch_trans(NULL, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace_internal.sketch_trans(:'s', 1);
SELECT acmetrace_internal.sketch_trans(NULL, 1, 0.01);
SELECT acmetrace_internal.sketch_combine(NULL, :'s');
SELECT acmetrace_internal.sketch_combine(:'s', :'s');
\set VERBOSITY default
-- Window frames: a running sketch, and a moving frame that restarts the
-- aggregate on every row.
SELECT x, acmetrace.count(r) AS running, acmetrace.max(r) AS running_max,
       acmetrace.count(m) AS moving, acmetrace.min(m) AS moving_min
  FROM (SELECT x, acmetrace.delay_sketch_agg(x) OVER (ORDER BY x) AS r,
               acmetrace.delay_sketch_agg(x) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m
          FROM generate_series(1, 6) x) q
 ORDER BY x;
-- Hash aggregation past work_mem (the states stay in memory, new groups'
-- rows spill) equals sorted aggregation.
SET work_mem = '64kB';
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g % 2000, acmetrace.delay_sketch_agg(g) FROM generate_series(1, 40000) g GROUP BY 1;
CREATE FUNCTION pg_temp.hash_batches(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'HashAgg Batches')::int;
END
$$;
SELECT pg_temp.hash_batches('SELECT g % 2000, acmetrace.delay_sketch_agg(g) FROM generate_series(1, 40000) g GROUP BY 1') > 1
       AS spilled;
CREATE TEMP TABLE hashed AS
SELECT g % 2000 AS k, acmetrace.delay_sketch_agg(g) AS s FROM generate_series(1, 40000) g GROUP BY 1;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(*) AS groups, bool_and(h.s::text = o.s::text) AS hashed_equals_sorted
  FROM hashed h
  JOIN (SELECT g % 2000 AS k, acmetrace.delay_sketch_agg(g) AS s FROM generate_series(1, 40000) g GROUP BY 1) o USING (k);
RESET enable_hashagg;
RESET work_mem;

-- The fn_extra cache follows the value: rows alternate between sketches of
-- the same size and between in-memory and TOASTed sketches.  Medians are
-- far apart, so a stale cache would show.
CREATE TEMP TABLE vals_src AS
SELECT k AS id, 1000.0 * k + x AS x FROM generate_series(1, 3) k, generate_series(0, 10) x
UNION ALL
SELECT 3 + k, k * 1e6 + x::float8 ^ 3 FROM generate_series(1, 2) k, generate_series(0, 30000) x;
CREATE TEMP TABLE vals (id int, s acmetrace.delay_sketch);
ALTER TABLE vals ALTER s SET STORAGE external;
INSERT INTO vals SELECT id, acmetrace.delay_sketch_agg(x) FROM vals_src GROUP BY id;
SELECT v.id, pg_column_size(v.s) AS bytes FROM vals v ORDER BY v.id;
SELECT pg_relation_size(reltoastrelid) > 0 AS some_are_toasted FROM pg_class WHERE oid = 'vals'::regclass;
SELECT count(*) AS rows, count(DISTINCT q.id) AS sketches,
       count(*) FILTER (WHERE abs(q.median - e.median) <= 0.005 * e.median) AS right_median
  FROM (SELECT x.id, acmetrace.percentile((SELECT v.s FROM vals v WHERE v.id = x.id), 0.5) AS median
          FROM (SELECT 1 + (k * 7) % 5 AS id FROM generate_series(1, 60) k) x
        OFFSET 0) q
  JOIN (SELECT id, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS median FROM vals_src GROUP BY id) e
    ON e.id = q.id;
-- One sketch over 2,000 rows is read into the cache once (DEBUG1 says when).
CREATE TEMP TABLE one AS SELECT acmetrace.delay_sketch_agg(x) AS s FROM generate_series(1, 2000) x;
SET client_min_messages = debug1;
SELECT count(*) FILTER (WHERE acmetrace.rank_pct(o.s, x) = 100 * (x / 2000.0)::float8) AS exact_ranks FROM one o, generate_series(1, 2000) x;
RESET client_min_messages;

-- Unqualified count(s) with acmetrace on the search path is the sketch's
-- count, not the aggregate: the functions are meant to be schema-qualified.
SET search_path = acmetrace, public;
SELECT count(s) AS values_in_each FROM daily WHERE day = '2023-07-01' ORDER BY 1;
RESET search_path;

-- The BI view: p50/p90/p99 per cluster, for all types and per type.
SELECT cluster, type, jobs, p50_s, p90_s, p99_s, mean_s > 0 AS has_mean, max_s
  FROM acmetrace.v_queue_percentiles WHERE cluster = 'g' ORDER BY type = 'all' DESC, type;

-- queue_percentiles scans the table itself; it gives the sketches the SQL
-- GROUP BY gives, for GPU jobs and with all_jobs, with a NULL type, and
-- with a type long enough to be stored out of line.
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time)
SELECT 'g', 'long-type-' || k, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i),
       'COMPLETED', 8, '2023-03-01 00:00+00', '2023-03-01 00:00+00'::timestamptz + k * interval '1 minute',
       '2023-03-02 00:00+00'
  FROM generate_series(1, 3) k;
SELECT pg_relation_size(reltoastrelid) > 0 AS types_out_of_line FROM pg_class WHERE oid = 'acmetrace.jobs'::regclass;
SELECT c.cluster, g.gpu_only, count(*) AS types,
       bool_and(acmetrace.queue_sketch(c.cluster, q.type, NOT g.gpu_only)::text = s.sk::text) AS same_sketches,
       bool_and(q.jobs = acmetrace.count(s.sk)) AS same_jobs
  FROM (VALUES ('g'), ('helios')) c(cluster), (VALUES (false), (true)) g(gpu_only),
       LATERAL acmetrace.queue_percentiles(c.cluster, '{0.5}', NOT g.gpu_only) q
  JOIN LATERAL (SELECT CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type,
                       acmetrace.delay_sketch_agg(j.wait_s) AS sk FROM acmetrace.jobs j
                 WHERE j.cluster = c.cluster AND j.wait_s >= 0 AND (NOT g.gpu_only OR j.gpu_num > 0)
                 GROUP BY GROUPING SETS ((), (j.type))) s ON s.type IS NOT DISTINCT FROM q.type
 GROUP BY c.cluster, g.gpu_only ORDER BY 1, 2;
SELECT left(type, 8) AS type, jobs, percentiles_s FROM acmetrace.queue_percentiles('g', '{0,1}') WHERE length(type) > 100;
DELETE FROM acmetrace.jobs WHERE cluster = 'g' AND job_id LIKE 'long-type-%';
SELECT type, jobs, percentiles_s FROM acmetrace.queue_percentiles('helios', '{0,0.5,1}');
-- The whole cluster is the rollup of the per-type sketches, and its row
-- (type 'all'); queue_sketch gives the sketch behind each row.
SELECT acmetrace.rollup(acmetrace.queue_sketch('g', type)) FILTER (WHERE type <> 'all')::text
         = (SELECT acmetrace.delay_sketch_agg(wait_s)::text FROM acmetrace.jobs
             WHERE cluster = 'g' AND wait_s >= 0 AND gpu_num > 0) AS whole_cluster,
       acmetrace.queue_sketch('g')::text = acmetrace.rollup(acmetrace.queue_sketch('g', type)) FILTER (WHERE type <> 'all')::text AS all_types_row,
       acmetrace.queue_sketch(NULL)::text = (SELECT acmetrace.delay_sketch_agg(wait_s)::text FROM acmetrace.jobs
                                              WHERE wait_s >= 0 AND gpu_num > 0) AS every_cluster,
       acmetrace.queue_sketch('g', 'no such type') IS NULL AS no_jobs_no_sketch
  FROM acmetrace.queue_percentiles('g');

-- Privileges and row-level security: queue_percentiles is plain SQL, so it
-- needs SELECT on jobs and sees only the rows the policies let through.
CREATE ROLE regress_acmetrace_reader;
GRANT USAGE ON SCHEMA acmetrace TO regress_acmetrace_reader;
GRANT SELECT ON acmetrace.clusters TO regress_acmetrace_reader;
SELECT acmetrace.grant_cluster('*', 'regress_acmetrace_reader');
SET ROLE regress_acmetrace_reader;
\set VERBOSITY terse
SELECT * FROM acmetrace.queue_percentiles('g');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
RESET ROLE;
GRANT SELECT ON acmetrace.jobs TO regress_acmetrace_reader;
CREATE POLICY only_eval ON acmetrace.jobs AS RESTRICTIVE TO regress_acmetrace_reader USING (type = 'Eval');
SET ROLE regress_acmetrace_reader;
SELECT type, jobs, jobs = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'g' AND wait_s >= 0 AND gpu_num > 0) AS equals_visible_rows
  FROM acmetrace.queue_percentiles('g');
RESET ROLE;
DROP POLICY only_eval ON acmetrace.jobs;
SELECT acmetrace.revoke_cluster('*', 'regress_acmetrace_reader');
REVOKE ALL ON acmetrace.jobs, acmetrace.clusters FROM regress_acmetrace_reader;
REVOKE USAGE ON SCHEMA acmetrace FROM regress_acmetrace_reader;
DROP ROLE regress_acmetrace_reader;

\set VERBOSITY terse
SELECT * FROM acmetrace.queue_percentiles('nope');
SELECT * FROM acmetrace.queue_percentiles('g', NULL);
\set VERBOSITY default

DROP TABLE bin, src, sets, grid, exact, serial, parallel, month, daily, vals_src, vals, one,
           shard_vals, partials, partials_bin, partials_many, hashed;
DROP AGGREGATE pg_temp.sk_part(float8), pg_temp.sk_part(float8, float8), pg_temp.sk_more(float8),
               pg_temp.sk_more_01(float8), pg_temp.sk_more_01(float8, float8),
               pg_temp.sk_roll_more(acmetrace.delay_sketch);

-- The 0.1.0 SQL (STYPE internal, with serialize, deserialize and final
-- functions) on this library: the trans, rollup and combine symbols it
-- names are the new functions, and serialize, deserialize and final are
-- adapters over the same state.  Its sketches, serial and through parallel
-- workers, equal this version's; ALTER EXTENSION UPDATE then leaves the
-- sketch objects exactly as a fresh install has them.
CREATE FUNCTION pg_temp.sketch_catalog() RETURNS SETOF text LANGUAGE sql AS $$
SELECT pg_describe_object(d.classid, d.objid, 0) || ' | '
       || coalesce(pg_catalog.obj_description(d.objid, c.relname), '')
       || coalesce(' | ' || (SELECT format('%s %s %s %s %s %s %s', p.prosrc, p.proisstrict, p.provolatile, p.proparallel,
                                           p.prorettype::regtype, p.proargnames, p.proargdefaults IS NOT NULL)
                               FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid), '')
       || coalesce(' | ' || (SELECT format('%s %s %s %s %s %s %s %s', a.aggtransfn, a.aggtranstype::regtype, a.aggtransspace,
                                           a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.agginitval)
                               FROM pg_aggregate a WHERE d.classid = 'pg_proc'::regclass AND a.aggfnoid = d.objid), '')
       || coalesce(' | ' || (SELECT format('%s %s %s', r.reloptions, pg_get_viewdef(r.oid),
                                           (SELECT string_agg(t.attname || ': ' || coalesce(col_description(r.oid, t.attnum), '-'), '; ' ORDER BY t.attnum)
                                              FROM pg_attribute t WHERE t.attrelid = r.oid AND t.attnum > 0))
                               FROM pg_class r WHERE d.classid = 'pg_class'::regclass AND r.oid = d.objid), '')
  FROM pg_depend d JOIN pg_class c ON c.oid = d.classid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'acmetrace')
   AND pg_describe_object(d.classid, d.objid, 0) ~ 'sketch|queue_delay|percentile|rank_pct|relative_error|acmetrace\.(count|mean|min|max)\('
$$;
CREATE TEMP TABLE fresh_catalog AS SELECT * FROM pg_temp.sketch_catalog() c;
SELECT count(*) AS fresh_sketch_objects FROM fresh_catalog;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
CREATE EXTENSION acmetrace VERSION '0.1.0';
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state, a.aggfinalfn, a.aggserialfn
  FROM pg_aggregate a
 WHERE a.aggfnoid IN ('acmetrace.delay_sketch_agg(float8)'::regprocedure, 'acmetrace.rollup(acmetrace.delay_sketch)'::regprocedure)
 ORDER BY 1::text;
-- Quarter values: float sums are exact in any order.
CREATE TABLE old_vals AS
SELECT g % 5 AS k, g % 3 AS part, (g % 1000) + (g % 4) / 4.0::float8 AS x FROM generate_series(1, 30000) g;
ANALYZE old_vals;
CREATE TEMP TABLE old_serial AS
SELECT k, acmetrace.delay_sketch_agg(x)::text AS s, acmetrace.delay_sketch_agg(x, 0.01)::text AS s1
  FROM old_vals GROUP BY k;
CREATE TABLE old_parts AS
SELECT k, part, acmetrace.delay_sketch_agg(x) AS s FROM old_vals GROUP BY k, part;
CREATE TABLE old_parts_many AS SELECT p.* FROM old_parts p, generate_series(1, 200) g;
ANALYZE old_parts_many;
CREATE TEMP TABLE old_rollup AS
SELECT k, acmetrace.rollup(s)::text AS s FROM old_parts GROUP BY k;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT k, acmetrace.delay_sketch_agg(x) FROM old_vals GROUP BY k;
SELECT count(*) AS groups, bool_and(p.s = o.s AND p.s1 = o.s1) AS old_parallel_equals_old_serial
  FROM (SELECT k, acmetrace.delay_sketch_agg(x)::text AS s, acmetrace.delay_sketch_agg(x, 0.01)::text AS s1
          FROM old_vals GROUP BY k) p JOIN old_serial o USING (k);
EXPLAIN (COSTS OFF) SELECT k, acmetrace.rollup(s) FROM old_parts_many GROUP BY k;
CREATE TEMP TABLE old_parallel_rollup AS
SELECT k, acmetrace.rollup(s)::text AS s FROM old_parts_many GROUP BY k;
RESET parallel_leader_participation;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT count(*) AS groups, bool_and(r.s = o.s) AS rollup_equals_whole
  FROM old_rollup r JOIN old_serial o USING (k);
-- The update: the new aggregates give the same texts as the old ones.
ALTER EXTENSION acmetrace UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'acmetrace';
SELECT count(*) AS groups,
       bool_and(n.s = o.s AND n.s1 = o.s1) AS same_sketches,
       bool_and(n.r = o.s) AS same_rollups,
       bool_and(n.r200 = op.s) AS same_parallel_rollups
  FROM (SELECT v.k, acmetrace.delay_sketch_agg(v.x)::text AS s, acmetrace.delay_sketch_agg(v.x, 0.01)::text AS s1,
               (SELECT acmetrace.rollup(p.s)::text FROM old_parts p WHERE p.k = v.k) AS r,
               (SELECT acmetrace.rollup(p.s)::text FROM old_parts_many p WHERE p.k = v.k) AS r200
          FROM old_vals v GROUP BY v.k) n
  JOIN old_serial o USING (k) JOIN old_parallel_rollup op USING (k);
-- The sketch objects (support functions, aggregates, accessors, the two
-- views with their options and column comments) as a fresh install has them.
SELECT 'fresh only' AS side, f FROM (SELECT * FROM fresh_catalog EXCEPT SELECT * FROM pg_temp.sketch_catalog() c) x(f)
UNION ALL
SELECT 'updated only', u FROM (SELECT * FROM pg_temp.sketch_catalog() c EXCEPT SELECT * FROM fresh_catalog) y(u)
ORDER BY 1, 2;
DROP TABLE old_vals, old_parts, old_parts_many, old_serial, old_rollup, old_parallel_rollup, fresh_catalog;
DROP EXTENSION acmetrace;
