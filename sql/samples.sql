-- samples: the compressed per-series block type, samples_agg, unnest,
-- samples_between, samples_info, and the value aggregates over blocks.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql
\i :abs_srcdir/test/regress_binary_copy.sql

-- Samples of every shape: integers, 3 decimals, raw doubles, -0, gaps.
CREATE TEMP TABLE raw (series text, ts timestamptz, value float8);
INSERT INTO raw
SELECT 'int', '2023-07-01'::timestamptz + i * interval '15 s', (i * 37 % 101)::float8
  FROM generate_series(0, 999) i WHERE i % 97 <> 5;
INSERT INTO raw
SELECT 'dec3', '2023-07-01'::timestamptz + i * interval '15 s', round((i * 7.919 % 100)::numeric, 3)::float8
  FROM generate_series(0, 999) i;
INSERT INTO raw
SELECT 'raw', '2023-07-01'::timestamptz + i * interval '1.5 s', 1.0 / (i + 3)
  FROM generate_series(0, 299) i;
INSERT INTO raw VALUES ('neg', '2023-07-01', -0.0), ('neg', '2023-07-01 00:00:10', -12.5),
                       ('neg', '2023-07-01 00:07:00', 1e300), ('neg', '2023-07-01 00:07:01', 5e-324);
INSERT INTO raw VALUES ('const', '2023-07-01', 7), ('const', '2023-07-01 00:00:15', 7), ('const', '2023-07-01 00:00:30', 7);

CREATE TEMP TABLE blk AS
SELECT series, acmetrace.samples_agg(ts, value) AS s FROM raw GROUP BY series;
SELECT series, (acmetrace.samples_info(s)).* FROM blk ORDER BY series;

-- Lossless: every sample reads back as exactly the float8 it was (bits).
SELECT b.series, count(*) AS samples,
       count(*) FILTER (WHERE float8send(u.value) = float8send(r.value)) AS same_bits
  FROM blk b, acmetrace.unnest(b.s) u
  JOIN raw r ON r.ts = u.ts
 WHERE r.series = b.series
 GROUP BY b.series ORDER BY b.series;
SELECT (SELECT count(*) FROM raw) AS raw_rows,
       (SELECT count(*) FROM blk, acmetrace.unnest(s)) AS unnested;
-- Times come back in order.
SELECT bool_and(ok) AS ordered FROM (
  SELECT u.ts > lag(u.ts) OVER (PARTITION BY b.series ORDER BY u.ts) IS NOT FALSE AS ok
    FROM blk b, acmetrace.unnest(b.s) WITH ORDINALITY u(ts, value, o)) x;

-- Text and binary forms round trip; the text is versioned.
CREATE TEMP TABLE bin_copy (s acmetrace.samples);
SELECT series, pg_temp.copy_binary('bin_copy', acmetrace.samples_send(s)) = s::text AS binary_round_trip,
       s::text::acmetrace.samples::text = s::text AS text_round_trip
  FROM blk ORDER BY series;

-- samples_between: [from, to), only the samples inside; NULL when none.
SELECT series,
       (acmetrace.samples_info(acmetrace.samples_between(s, '2023-07-01 01:00', '2023-07-01 02:00'))).samples AS in_hour,
       (SELECT count(*) FROM raw r WHERE r.series = b.series AND r.ts >= '2023-07-01 01:00' AND r.ts < '2023-07-01 02:00') AS want
  FROM blk b ORDER BY series;
SELECT acmetrace.samples_between(s, '2024-01-01', '2024-01-02') IS NULL AS none_after,
       acmetrace.samples_between(s, '2023-07-01 00:00:15', '2023-07-01 00:00:15') IS NULL AS empty_window,
       acmetrace.samples_between(s, '-infinity', 'infinity')::text = s::text AS everything
  FROM blk WHERE series = 'const';
SELECT count(*) AS checked,
       bool_and(w.same) AS windows_equal_filters
  FROM blk b, generate_series(0, 250, 13) m,
       LATERAL (SELECT coalesce((SELECT array_agg(u.value ORDER BY u.ts)
                                   FROM acmetrace.unnest(acmetrace.samples_between(b.s,
                                          '2023-07-01'::timestamptz + m * interval '1 min',
                                          '2023-07-01'::timestamptz + (m + 7) * interval '1 min')) u), '{}')
                       = coalesce((SELECT array_agg(r.value ORDER BY r.ts) FROM raw r
                                    WHERE r.series = b.series
                                      AND r.ts >= '2023-07-01'::timestamptz + m * interval '1 min'
                                      AND r.ts < '2023-07-01'::timestamptz + (m + 7) * interval '1 min'), '{}') AS same) w;

-- The aggregates over blocks answer as over the values one by one.
SELECT (SELECT acmetrace.bins(s, 0, 100, 10) FROM blk) = (SELECT acmetrace.bins(value, 0, 100, 10) FROM raw) AS bins_same,
       (SELECT acmetrace.bins_at(s, '{0,1,2,50,99,100}') FROM blk) = (SELECT acmetrace.bins_at(value, '{0,1,2,50,99,100}') FROM raw) AS bins_at_same,
       (SELECT acmetrace.cdf_at(s, '{-1,0,1,7,50,99,100}') FROM blk) = (SELECT acmetrace.cdf_at(value, '{-1,0,1,7,50,99,100}') FROM raw) AS cdf_same,
       (SELECT ARRAY[acmetrace.count(k), acmetrace.min(k), acmetrace.max(k)] || acmetrace.percentiles(k, '{0.01,0.1,0.25,0.5,0.75,0.9,0.99}')
          FROM (SELECT acmetrace.delay_sketch_agg(s) AS k FROM blk WHERE series <> 'neg') x)
         = (SELECT ARRAY[acmetrace.count(k), acmetrace.min(k), acmetrace.max(k)] || acmetrace.percentiles(k, '{0.01,0.1,0.25,0.5,0.75,0.9,0.99}')
              FROM (SELECT acmetrace.delay_sketch_agg(value) AS k FROM raw WHERE series <> 'neg') x) AS sketch_same;
SELECT acmetrace.bins(s, 0, 100, 10) FROM blk;
SELECT acmetrace.percentiles(acmetrace.delay_sketch_agg(s), '{0.1,0.5,0.9}') FROM blk WHERE series IN ('int', 'const');
-- NULL blocks are skipped; no rows give NULL.
SELECT acmetrace.bins(s, 0, 10, 2) FROM (VALUES (NULL::acmetrace.samples)) v(s);
SELECT acmetrace.bins(s, 0, 10, 2) FROM blk WHERE false;
-- Negative values in a sketch are refused, as delay_sketch_agg(value) does.
SELECT acmetrace.delay_sketch_agg(s) FROM blk WHERE series = 'neg';
\echo :LAST_ERROR_SQLSTATE
-- Arguments are checked as for the value aggregates.
SELECT acmetrace.bins(s, 10, 0, 2) FROM blk;
\echo :LAST_ERROR_SQLSTATE

-- Parallel plans give the same answers (partials combined).
-- (a plain table: parallel workers cannot read temporary ones)
CREATE TABLE many AS
SELECT g, acmetrace.samples_agg(ts, value) AS s
  FROM (SELECT i % 50 AS g, '2023-07-01'::timestamptz + (i / 50) * interval '15 s' AS ts,
               ((i * 7919) % 1000 / 10.0)::float8 AS value
          FROM generate_series(0, 49999) i) x
 GROUP BY g;
CREATE TEMP TABLE many_serial AS
SELECT acmetrace.bins(s, 0, 100, 7) AS b, acmetrace.cdf_at(s, '{0,10,50,99.9}') AS c,
       acmetrace.delay_sketch_agg(s)::text AS k FROM many;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT acmetrace.bins(s, 0, 100, 7) FROM many;
SELECT (SELECT acmetrace.bins(s, 0, 100, 7) FROM many) = b AS bins_parallel_same,
       (SELECT acmetrace.cdf_at(s, '{0,10,50,99.9}') FROM many) = c AS cdf_parallel_same,
       (SELECT acmetrace.delay_sketch_agg(s)::text FROM many) = k AS sketch_parallel_same
  FROM many_serial;
-- samples_agg itself splits: per-worker partials merged by its combine.
SELECT (SELECT acmetrace.samples_agg(ts, value)::text FROM raw WHERE series = 'dec3')
     = (SELECT s::text FROM blk WHERE series = 'dec3') AS samples_agg_parallel_same;
RESET force_parallel_mode;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- Citus's split of these aggregates is replayed in citus_protocol.sql.

-- samples_agg: repeats with the same value are kept once; different values
-- at one time, infinities and infinite times are errors; NULL and NaN skipped.
SELECT (acmetrace.samples_info(acmetrace.samples_agg(ts, v))).samples
  FROM (VALUES ('2023-07-01 00:00'::timestamptz, 1::float8), ('2023-07-01 00:00', 1), ('2023-07-01 00:01', NULL),
               (NULL, 3), ('2023-07-01 00:02', 'NaN'), ('2023-07-01 00:03', -0.0), ('2023-07-01 00:03', 0)) x(ts, v);
SELECT acmetrace.samples_agg(ts, v) FROM (VALUES ('2023-07-01 00:00'::timestamptz, 1::float8), ('2023-07-01 00:00', 2)) x(ts, v);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.samples_agg('2023-07-01', 'Infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.samples_agg('infinity', 1);
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.samples_agg(ts, v) IS NULL AS no_rows_null FROM (VALUES (NULL::timestamptz, 1::float8)) x(ts, v);

-- Hostile text and binary input: errors with a code, never a crash.
SELECT 'v1:'::acmetrace.samples;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v2:01'::acmetrace.samples;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v1:0g'::acmetrace.samples;
\echo :LAST_ERROR_SQLSTATE
SELECT 'v1:012'::acmetrace.samples;
\echo :LAST_ERROR_SQLSTATE
SELECT ('v1:' || repeat('00', 48))::acmetrace.samples;
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT never
SELECT pg_temp.copy_binary('bin_copy', '\x01'::bytea);
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT errors
-- Every truncation and every single-byte change of a real block is either
-- refused with 22P02 / 22P03 or still a valid block: never a crash, never XX000.
CREATE TEMP TABLE mutants AS
SELECT s::text AS t FROM blk WHERE series IN ('int', 'neg');
DO $$
DECLARE
    src text;
    bad int := 0;
    ok int := 0;
    other text := '';
    m text;
BEGIN
    FOR src IN SELECT t FROM mutants LOOP
        FOR i IN 4 .. length(src) - 1 BY 3 LOOP
            FOREACH m IN ARRAY ARRAY[left(src, i), left(src, i) || (CASE substr(src, i + 1, 1) WHEN 'f' THEN '0' ELSE 'f' END) || substr(src, i + 2)] LOOP
                BEGIN
                    PERFORM m::acmetrace.samples;
                    ok := ok + 1;
                EXCEPTION WHEN invalid_text_representation THEN
                    bad := bad + 1;
                WHEN OTHERS THEN
                    other := other || ' ' || SQLSTATE;
                END;
            END LOOP;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'mutants refused: %, other errors: "%"', bad > 0, other;
END
$$;

-- Values without temporal structure (a day of polarized integers, and 3
-- decimals with idle zeros) are stored entropy-coded: version 2, well under
-- the 7 (17) bits a sample bit-packing takes; lossless, and every reader agrees.
CREATE TEMP TABLE iid (series text, ts timestamptz, value float8);
INSERT INTO iid
SELECT 'int', '2023-07-01'::timestamptz + i * interval '15 s',
       CASE WHEN x < 40 THEN 0 WHEN x < 70 THEN 100 ELSE (i * 7919) % 99 END
  FROM generate_series(0, 5759) i, LATERAL (SELECT (i::bigint * 2654435761 % 4294967291) % 100 AS x) h;
INSERT INTO iid
SELECT 'dec3', '2023-07-01'::timestamptz + i * interval '15 s',
       CASE WHEN x < 33 THEN 0 ELSE ((i::bigint * 48271) % 100001) / 1000.0 END
  FROM generate_series(0, 5759) i, LATERAL (SELECT (i::bigint * 2654435761 % 4294967291) % 100 AS x) h;
CREATE TEMP TABLE iid_blk AS
SELECT series, acmetrace.samples_agg(ts, value) AS s FROM iid GROUP BY series;
SELECT series, get_byte(acmetrace.samples_send(s)::bytea, 0) AS version, (acmetrace.samples_info(s)).samples,
       round((acmetrace.samples_info(s)).bytes::numeric / (acmetrace.samples_info(s)).samples, 1) AS bytes_per_sample
  FROM iid_blk ORDER BY series;
SELECT b.series, count(*) AS samples,
       count(*) FILTER (WHERE float8send(u.value) = float8send(r.value)) AS same_bits
  FROM iid_blk b, acmetrace.unnest(b.s) u JOIN iid r ON r.ts = u.ts
 WHERE r.series = b.series GROUP BY b.series ORDER BY b.series;
-- (bins of the whole block against bins of windows under 1,024 samples, stored as raw float8)
SELECT b.series, (SELECT acmetrace.bins(x.s, 0, 100, 10)::text FROM (SELECT b.s) x)
                   = (SELECT acmetrace.bins(acmetrace.samples_between(b.s, t, t + interval '4 h'), 0, 100, 10)::text
                        FROM generate_series('2023-07-01'::timestamptz, '2023-07-01 20:00', interval '4 h') t) AS bins_agree,
       acmetrace_internal.samples_sum(b.s) = (SELECT sum(value::numeric) FROM iid r WHERE r.series = b.series) AS sum_exact,
       acmetrace.samples_info(b.s) = acmetrace.samples_info(b.s::text::acmetrace.samples) AS text_round_trip
  FROM iid_blk b ORDER BY series;
SELECT b.series, count(*) AS windows, bool_and(w.same) AS windows_equal_filters
  FROM iid_blk b, generate_series(0, 1400, 97) m,
       LATERAL (SELECT (SELECT array_agg(u.value ORDER BY u.ts)
                          FROM acmetrace.unnest(acmetrace.samples_between(b.s,
                                 '2023-07-01'::timestamptz + m * interval '1 min',
                                 '2023-07-01'::timestamptz + (m + 37) * interval '1 min')) u)
                       = (SELECT array_agg(r.value ORDER BY r.ts) FROM iid r
                           WHERE r.series = b.series AND r.ts >= '2023-07-01'::timestamptz + m * interval '1 min'
                             AND r.ts < '2023-07-01'::timestamptz + (m + 37) * interval '1 min') AS same) w
 GROUP BY b.series ORDER BY b.series;
-- Its value code is validated like the rest: a changed code length or a
-- cut chunk is an error (22P02), never a crash.
DO $$
DECLARE
    src text := (SELECT s::text FROM iid_blk WHERE series = 'int');
    bad int := 0;
    ok int := 0;
    other text := '';
    m text;
BEGIN
    FOR i IN 4 .. 1200 BY 5 LOOP
        m := left(src, i) || (CASE substr(src, i + 1, 1) WHEN 'f' THEN '0' ELSE 'f' END) || substr(src, i + 2);
        BEGIN
            PERFORM m::acmetrace.samples;
            ok := ok + 1;
        EXCEPTION WHEN invalid_text_representation THEN
            bad := bad + 1;
        WHEN OTHERS THEN
            other := other || ' ' || SQLSTATE;
        END;
    END LOOP;
    RAISE NOTICE 'coded mutants refused: %, other errors: "%"', bad > 100, other;
END
$$;

-- samples_combine as a user's own aggregate's SFUNC: a window of a block
-- (integers only, no doubles yet) reaching it as an expanded object is
-- merged by its values, as samples_agg's own combine does (0.4.0's first
-- builds copied them from NULL and the server crashed).  No ORDER BY in the
-- aggregate: a sort would flatten the windows.
CREATE AGGREGATE pg_temp.merge_samples(acmetrace.samples) (
    SFUNC = acmetrace_internal.samples_combine, STYPE = acmetrace.samples);
SELECT (acmetrace.samples_info(m)).samples AS merged_samples,
       (SELECT count(*) FROM acmetrace.unnest(m) u JOIN iid r ON r.series = 'int' AND r.ts = u.ts AND r.value = u.value) AS matching
  FROM (SELECT pg_temp.merge_samples(acmetrace.samples_between(b.s, v.lo, v.hi)) AS m
          FROM iid_blk b, (VALUES ('-infinity'::timestamptz, '2023-07-01 12:00+00'::timestamptz),
                                  ('2023-07-01 12:00+00', 'infinity')) v(lo, hi)
         WHERE b.series = 'int') x;

DISCARD TEMP;
DROP TABLE many;
DROP EXTENSION acmetrace;
