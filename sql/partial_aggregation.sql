-- Partial aggregation: every aggregate can be computed in parts (parallel
-- workers, shards, months) and merged.  Parts merged with rollup (sketches,
-- occupancies) or summed (bins) equal the aggregate over all rows, and the
-- parallel plans equal the serial ones.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- Every aggregate has a combine function, and those with an internal state
-- serialize and deserialize it; all are parallel safe.
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state,
       a.aggcombinefn <> 0 AS combine, a.aggserialfn <> 0 AS serial, a.aggdeserialfn <> 0 AS deserial,
       p.proparallel AS parallel
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 WHERE p.pronamespace = 'acmetrace'::regnamespace
 ORDER BY a.aggfnoid::regprocedure::text;

SELECT acmetrace.load_generated('pa', 'seren', 6000, 3);
SELECT acmetrace.load_generated('pb', 'kalos', 3000, 4);

-- Parts: six per cluster, jobs spread by a hash of their id as hash-
-- distributed shards would hold them (so a part's jobs overlap in time with
-- every other part's).
CREATE TABLE parts AS
SELECT cluster, abs(hashtext(job_id)) % 6 AS shard,
       acmetrace.delay_sketch_agg(queue) AS sk,
       acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ,
       acmetrace.bins(duration, 0, 100000, 20) AS b,
       count(*) AS jobs
  FROM acmetrace.jobs GROUP BY 1, 2;
SELECT count(*) AS parts, count(DISTINCT cluster) AS clusters, sum(jobs) AS jobs FROM parts;

-- Merged per cluster against the aggregate over all of the cluster's rows.
CREATE TEMP TABLE whole AS
SELECT cluster, acmetrace.delay_sketch_agg(queue) AS sk,
       acmetrace.occupancy_agg(start_time, end_time, gpu_num) AS occ,
       acmetrace.bins(duration, 0, 100000, 20) AS b
  FROM acmetrace.jobs GROUP BY 1;
CREATE TEMP VIEW merged AS
SELECT p.cluster, acmetrace.rollup(p.sk) AS sk, acmetrace.rollup(p.occ) AS occ,
       (SELECT array_agg(s ORDER BY i)
          FROM (SELECT i, sum(c)::bigint AS s
                  FROM parts q, unnest(q.b) WITH ORDINALITY u(c, i)
                 WHERE q.cluster = p.cluster GROUP BY i) t) AS b
  FROM parts p GROUP BY p.cluster;
SELECT w.cluster,
       m.sk::text = w.sk::text AS sketch_equal,
       m.occ OPERATOR(acmetrace.=) w.occ AS occupancy_equal,
       acmetrace.peak(m.occ) = acmetrace.peak(w.occ) AS peak_equal,
       m.b = ARRAY(SELECT unnest(w.b)) AS bins_equal,  -- bins() counts from index 0
       acmetrace.count(m.sk) AS jobs_with_queue
  FROM whole w JOIN merged m USING (cluster) ORDER BY 1;

-- All clusters at once: the rollup of everything is occupancy_agg over all
-- jobs (the sum of the clusters' step functions).
SELECT acmetrace.rollup(occ) OPERATOR(acmetrace.=) (SELECT acmetrace.occupancy_agg(start_time, end_time, gpu_num) FROM acmetrace.jobs)
       AS all_parts_equal_all_jobs
  FROM parts;

-- The same merges in parallel plans.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- (not TEMP: parallel workers cannot read temporary tables)
CREATE TABLE parts_many AS SELECT p.* FROM parts p, generate_series(1, 200) g;
ANALYZE parts_many;
EXPLAIN (COSTS OFF) SELECT acmetrace.rollup(occ) FROM parts_many;
SELECT acmetrace.rollup(occ) OPERATOR(acmetrace.=) (SELECT acmetrace.rollup(occ) FROM parts, generate_series(1, 200)) AS parallel_rollup_equal,
       acmetrace.peak(acmetrace.rollup(occ)) = 200 * (SELECT acmetrace.peak(acmetrace.rollup(occ)) FROM parts) AS two_hundred_times_the_peak
  FROM parts_many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- rollup(occupancy) edge cases: NULLs skipped, empty values, no rows,
-- -infinity, levels shared at one instant, and a step too large for a job.
SELECT acmetrace.rollup(o) FROM (VALUES (NULL::acmetrace.occupancy)) v(o);
SELECT acmetrace.rollup(o) FROM (VALUES ('[]'::acmetrace.occupancy), (NULL)) v(o);
SELECT acmetrace.rollup(occ) FROM parts WHERE false;
SELECT acmetrace.rollup(o) FROM (VALUES
    ('[["2023-07-01 00:00+00",4],["2023-07-01 02:00+00",0]]'::acmetrace.occupancy),
    ('[["2023-07-01 01:00+00",2],["2023-07-01 02:00+00",0]]'),
    ('[["-infinity",1],["2023-07-01 01:00+00",3],["2023-07-01 03:00+00",1]]')) v(o);
-- Steps that cancel at the same instant leave no step there.
SELECT acmetrace.rollup(o) FROM (VALUES
    ('[["2023-07-01 00:00+00",4],["2023-07-01 01:00+00",0]]'::acmetrace.occupancy),
    ('[["2023-07-01 01:00+00",4],["2023-07-01 02:00+00",0]]')) v(o);
SELECT acmetrace.rollup(o) FROM (VALUES ('[["2023-07-01 00:00+00",3000000000],["2023-07-01 01:00+00",0]]'::acmetrace.occupancy)) v(o);
SELECT acmetrace.rollup(o) FROM (VALUES ('[["2023-07-01 00:00+00",2147483647],["2023-07-01 01:00+00",4294967294],["2023-07-01 02:00+00",0]]'::acmetrace.occupancy)) v(o);

DROP VIEW merged;
DROP TABLE parts, parts_many, whole;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
