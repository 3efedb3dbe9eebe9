-- Citus's protocol for splitting an aggregate, replayed without Citus.
-- Citus splits agg(args) into worker_partial_agg on every shard (the
-- aggregate's transition function, no final function) and coord_combine_agg
-- on the coordinator (the combine function, then the final function), and
-- ships each partial state between nodes as text, through the state type's
-- output and input functions.  It does so only for an aggregate with a
-- combine function whose state type is not a pseudo-type (internal).  Here,
-- for every aggregate of the extension: the rows split into k = 1, 2, 7
-- parts, each part's partial state through text (as Citus ships it) and
-- through binary COPY (send/receive), combined in three orders, must equal
-- the single-pass aggregate exactly.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SELECT acmetrace.load_generated('pa', 'seren', 5000, 11);
SELECT acmetrace.load_generated('pb', 'kalos', 2000, 12);
CREATE TABLE rows AS
SELECT row_number() OVER (ORDER BY cluster, job_id) AS id, wait_s, run_s, gpu_s, gpu_num, start_time, end_time
  FROM acmetrace.jobs;
-- Stored values for the rollups: one sketch and one occupancy per user.
CREATE TABLE stored AS
SELECT row_number() OVER (ORDER BY cluster, user_id) AS id,
       acmetrace.delay_sketch_agg(wait_s) AS sk, acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ
  FROM acmetrace.jobs GROUP BY cluster, user_id;

-- Utilization samples: rows with a time each, and blocks built from them
-- (integer values, so the sketches' float sums do not depend on the order).
CREATE TABLE util_rows AS
SELECT i::bigint AS id, '2023-07-01'::timestamptz + i * interval '15 s' AS ts,
       CASE WHEN i % 400 < 150 THEN 0 ELSE round(50 + 50 * sin(i / 7.0)) END::float8 AS value
  FROM generate_series(1, 20000) i;
CREATE TABLE blocks AS
SELECT id % 37 AS id, acmetrace.samples_agg(ts, value) AS s FROM util_rows GROUP BY 1;

-- How each aggregate is called, on which table.
CREATE TABLE cases (label text PRIMARY KEY, agg regprocedure UNIQUE, src regclass, args text);
INSERT INTO cases VALUES
  ('sketch', 'acmetrace.delay_sketch_agg(float8)', 'rows', 'wait_s'),
  ('sketch_err', 'acmetrace.delay_sketch_agg(float8, float8)', 'rows', 'wait_s, 0.02'),
  ('sketch_rollup', 'acmetrace.rollup(acmetrace.delay_sketch)', 'stored', 'sk'),
  ('occupancy', 'acmetrace.occupancy_agg(timestamptz, timestamptz, integer)', 'rows', 'start_time, end_time, gpu_num'),
  ('occupancy_rollup', 'acmetrace.rollup(acmetrace.occupancy)', 'stored', 'occ'),
  ('bins', 'acmetrace.bins(float8, float8, float8, integer)', 'rows', 'run_s, 0, 200000, 20'),
  ('bins_at', 'acmetrace.bins_at(float8, float8[])', 'rows', $$run_s, '{1,10,100,1000,10000,100000}'$$),
  ('cdf_at', 'acmetrace.cdf_at(float8, float8[])', 'rows', $$wait_s, '{0,1,10,100,1000,10000}'$$),
  ('weighted_cdf_at', 'acmetrace.weighted_cdf_at(float8, float8, float8[])', 'rows', $$gpu_num, gpu_s, '{0,1,2,8,64,512}'$$),
  ('samples_agg', 'acmetrace.samples_agg(timestamptz, float8)', 'util_rows', 'ts, value'),
  ('samples_bins', 'acmetrace.bins(acmetrace.samples, float8, float8, integer)', 'blocks', 's, 0, 100, 10'),
  ('samples_bins_at', 'acmetrace.bins_at(acmetrace.samples, float8[])', 'blocks', $$s, '{0,1,50,99,100}'$$),
  ('samples_cdf_at', 'acmetrace.cdf_at(acmetrace.samples, float8[])', 'blocks', $$s, '{0,1,50,99}'$$),
  ('samples_sketch', 'acmetrace.delay_sketch_agg(acmetrace.samples)', 'blocks', 's'),
  ('samples_sketch_err', 'acmetrace.delay_sketch_agg(acmetrace.samples, float8)', 'blocks', 's, 0.02'),
  ('gbdt_train', 'acmetrace.gbdt_train(float8[], float8)', 'rows', 'ARRAY[gpu_num, wait_s], ln(greatest(run_s, 1))'),
  ('gbdt_train_params', 'acmetrace.gbdt_train(float8[], float8, integer, integer, float8)', 'rows',
   'ARRAY[gpu_num, wait_s, extract(hour FROM start_time)], ln(greatest(run_s, 1)), 20, 3, 0.3');

-- Every aggregate of the extension is a case here (no rows: none missing).
SELECT a.aggfnoid::regprocedure AS not_covered
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE p.pronamespace = 'acmetrace'::regnamespace
   AND a.aggfnoid NOT IN (SELECT agg FROM cases);

-- What Citus checks (AggregateEnabledCustom): a combine function, a state
-- type that is not a pseudo-type; and the state type's text and binary I/O.
SELECT c.agg, a.aggtranstype::regtype AS state, t.typtype <> 'p' AS real_type,
       a.aggcombinefn <> 0 AS combine, t.typreceive <> 0 AND t.typsend <> 0 AS binary_io,
       p.proparallel AS parallel
  FROM cases c JOIN pg_aggregate a ON a.aggfnoid = c.agg JOIN pg_proc p ON p.oid = c.agg
  JOIN pg_type t ON t.oid = a.aggtranstype
 ORDER BY c.agg::text;

-- worker_partial_agg and coord_combine_agg of each case, as Citus builds
-- them: the transition function without the final function, and the
-- combine function followed by the final function.
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT cs.label, a.aggtransfn, a.aggcombinefn, a.aggfinalfn, a.aggtranstype::regtype AS stype,
                    (SELECT string_agg(format_type(t, NULL), ', ' ORDER BY i)
                       FROM unnest(p.proargtypes) WITH ORDINALITY u(t, i)) AS argtypes
               FROM cases cs JOIN pg_aggregate a ON a.aggfnoid = cs.agg JOIN pg_proc p ON p.oid = cs.agg
    LOOP
        EXECUTE format('CREATE AGGREGATE pg_temp.partial_%s(%s) (SFUNC = %s, STYPE = %s)',
                       c.label, c.argtypes, c.aggtransfn::regproc, c.stype);
        EXECUTE format('CREATE AGGREGATE pg_temp.combine_%s(%s) (SFUNC = %s, STYPE = %s%s)',
                       c.label, c.stype, c.aggcombinefn::regproc, c.stype,
                       CASE WHEN c.aggfinalfn <> 0 THEN ', FINALFUNC = ' || c.aggfinalfn::regproc END);
    END LOOP;
END
$$;

-- One row per case, part count, shipping path and combine order: whether
-- the combined result equals the single-pass result, as text.
CREATE FUNCTION pg_temp.replay(k int) RETURNS TABLE (agg text, path text, ord text, equal boolean, parts bigint)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    whole text;
    got text;
    o text;
    p text;
    file text := current_setting('data_directory') || '/acmetrace_citus_protocol.bin';
BEGIN
    FOR c IN SELECT cs.*, a.aggtranstype::regtype AS stype
               FROM cases cs JOIN pg_aggregate a ON a.aggfnoid = cs.agg ORDER BY cs.agg::text
    LOOP
        EXECUTE format('SELECT %s(%s)::text FROM %s', c.agg::regproc, c.args, c.src) INTO whole;
        -- the partial state of each part, as a shard would compute it
        EXECUTE format('CREATE TEMP TABLE shipped AS SELECT id %% %s AS part, pg_temp.partial_%s(%s) AS st FROM %s GROUP BY 1',
                       k, c.label, c.args, c.src);
        -- text: what Citus sends; binary: send, then receive
        EXECUTE format('CREATE TEMP TABLE via_text AS SELECT part, st::text::%s AS st FROM shipped', c.stype);
        EXECUTE format('COPY shipped TO %L (FORMAT binary)', file);
        EXECUTE format('CREATE TEMP TABLE via_binary (part bigint, st %s)', c.stype);
        EXECUTE format('COPY via_binary FROM %L (FORMAT binary)', file);
        FOREACH p IN ARRAY ARRAY['via_text', 'via_binary'] LOOP
            FOREACH o IN ARRAY ARRAY['part', 'part DESC', 'md5(part::text)'] LOOP
                EXECUTE format('SELECT pg_temp.combine_%s(st ORDER BY %s)::text FROM %s', c.label, o, p) INTO got;
                agg := c.agg::text; path := p; ord := o;
                equal := got IS NOT DISTINCT FROM whole AND whole IS NOT NULL;
                EXECUTE format('SELECT count(*) FROM %s', p) INTO parts;
                RETURN NEXT;
            END LOOP;
        END LOOP;
        DROP TABLE shipped, via_text, via_binary;
    END LOOP;
END
$$;

SELECT k, agg, count(*) AS replays, bool_and(equal) AS all_equal, min(parts) AS parts
  FROM (VALUES (1), (2), (7)) v(k), pg_temp.replay(v.k) r
 GROUP BY k, agg ORDER BY agg, k;

-- A part with no rows has a NULL partial state, which the combine skips.
SELECT acmetrace.delay_sketch_agg(wait_s)::text =
       (SELECT pg_temp.combine_sketch(st)::text
          FROM (SELECT pg_temp.partial_sketch(wait_s) AS st FROM rows
                UNION ALL SELECT pg_temp.partial_sketch(wait_s) FROM rows WHERE false) s) AS null_part_skipped
  FROM rows;

DISCARD TEMP;
DROP TABLE rows, stored, cases, util_rows, blocks;
DROP EXTENSION acmetrace;
