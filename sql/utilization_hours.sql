-- acmetrace.v_hourly_utilization: hourly statistics per metric and cluster
-- from the hour summaries stored with each day block, checked against the
-- plain aggregate over the decoded samples after every kind of write.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- The same answer by decoding every sample: hours in UTC, the mean exact
-- (numeric), partial for the hours of each metric and cluster's first and
-- last sample.
CREATE TEMP VIEW plain AS
WITH ends AS (
    SELECT metric, cluster, date_trunc('hour', min(ts), 'UTC') AS first_hour,
           date_trunc('hour', max(ts), 'UTC') AS last_hour
      FROM acmetrace.utilization GROUP BY 1, 2)
SELECT u.metric, u.cluster, date_trunc('hour', u.ts, 'UTC') AS bucket, count(DISTINCT u.series) AS series,
       count(*) AS samples, round(avg(u.value::numeric), 2) AS mean, min(u.value) AS min, max(u.value) AS max,
       date_trunc('hour', u.ts, 'UTC') IN (e.first_hour, e.last_hour) AS partial
  FROM acmetrace.utilization u JOIN ends e USING (metric, cluster)
 GROUP BY 1, 2, 3, e.first_hour, e.last_hour;
-- Rows of one side missing from the other, both ways (0: the same rows).
CREATE TEMP VIEW differ AS
SELECT (SELECT count(*) FROM (SELECT * FROM acmetrace.v_hourly_utilization EXCEPT ALL SELECT * FROM plain) a) +
       (SELECT count(*) FROM (SELECT * FROM plain EXCEPT ALL SELECT * FROM acmetrace.v_hourly_utilization) b) AS differ,
       (SELECT count(*) FROM acmetrace.v_hourly_utilization) AS hours,
       (SELECT count(*) FILTER (WHERE partial) FROM acmetrace.v_hourly_utilization) AS partial_hours,
       (SELECT sum(samples) FROM acmetrace.v_hourly_utilization) AS samples,
       -- the rollup the statement triggers keep against a rebuild from the blocks
       (SELECT count(*) FROM ((SELECT metric, cluster, bucket, series, samples, sum, min, max
                                 FROM acmetrace.utilization_hours
                               EXCEPT ALL
                               SELECT metric, cluster, bucket, series, samples, sum, min, max
                                 FROM acmetrace_internal.utilization_hours_of_blocks)
                              UNION ALL
                              (SELECT metric, cluster, bucket, series, samples, sum, min, max
                                 FROM acmetrace_internal.utilization_hours_of_blocks
                               EXCEPT ALL
                               SELECT metric, cluster, bucket, series, samples, sum, min, max
                                 FROM acmetrace.utilization_hours)) r) AS rollup_differ;

-- Nothing loaded: no hours.
SELECT * FROM differ;

-- Two metrics on cluster ha, generated wide files that cross midnight:
-- GPU_UTIL every 15 s from 22:17 for about two hours, a tenth of the cells
-- empty; SM_ACTIVE every 60 s from 21:00 to past 01:00.
SET acmetrace.cluster = 'ha';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(6, 500, 3, '2023-07-01 22:17:00+00', 15, 0.1);
SET acmetrace.metric = 'SM_ACTIVE';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(4, 260, 4, '2023-07-01 21:00:00+00', 60, 0);
SELECT * FROM differ;
SELECT metric, day, count(*) AS blocks, sum(n) AS n,
       bool_and(n = (SELECT sum(x) FROM unnest(hour_n) x)) AS hours_add_up,
       bool_and(cardinality(hour_n) = 24 AND cardinality(hour_sum) = 24 AND cardinality(hour_min) = 24
                AND cardinality(hour_max) = 24) AS day_of_hours,
       bool_and(sum = (SELECT sum(x) FROM unnest(hour_sum) x)) AS sums_add_up
  FROM acmetrace.utilization_blocks GROUP BY 1, 2 ORDER BY 1, 2;
SELECT * FROM acmetrace.v_hourly_utilization WHERE metric = 'SM_ACTIVE' ORDER BY bucket;

-- More samples of the open day (the stored blocks merged and rewritten):
-- GPU_UTIL goes on from where it stopped to 03:30.
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(6, 400, 5, '2023-07-02 01:47:00+00', 15, 0.1);
SELECT * FROM differ;
SELECT bucket, series, samples, partial FROM acmetrace.v_hourly_utilization
 WHERE metric = 'GPU_UTIL' AND cluster = 'ha' AND bucket >= '2023-07-02 00:00+00' ORDER BY bucket;

-- A second cluster with gaps: hours and a whole day without samples.
SET acmetrace.cluster = 'hb';
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(3, 100, 6, '2023-07-03 05:00:00+00', 15, 0);
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(3, 100, 7, '2023-07-03 09:30:00+00', 15, 0);
INSERT INTO acmetrace.utilization_lines
SELECT * FROM acmetrace.generate_util(2, 50, 8, '2023-07-05 12:10:00+00', 30, 0);
SELECT * FROM differ;
SELECT bucket, series, samples, partial FROM acmetrace.v_hourly_utilization
 WHERE cluster = 'hb' ORDER BY bucket;

-- Samples from Prometheus: a new block of the day, then a sync that
-- rewrites it (merged); values that are no short decimals are kept as raw
-- doubles, their hours summed exactly too.
SET acmetrace.cluster = 'hb';
SET acmetrace.metric = 'GPU_UTIL';
COPY acmetrace.prometheus_samples FROM STDIN;
node01-gpu0	\N	1688370000000:0.1 1688370015000:0.2
!end	\N	1 2 0
\.
SELECT * FROM differ;
COPY acmetrace.prometheus_samples FROM STDIN;
node01-gpu0	\N	1688370030000:33.3333333333333 1688378700000:7
!end	\N	1 2 0
\.
SELECT * FROM differ;
SELECT bucket, series, samples, mean, min, max, partial FROM acmetrace.v_hourly_utilization
 WHERE cluster = 'hb' AND bucket BETWEEN '2023-07-03 07:00+00' AND '2023-07-03 10:00+00' ORDER BY bucket;
SELECT hour_n[8:11] AS n, hour_sum[8:11] AS sum FROM acmetrace.utilization_blocks WHERE series = 'node01-gpu0';

-- A block written by hand (without the hour columns) and one rewritten by
-- hand: the trigger writes their hours.  Values thirds: raw doubles.
RESET acmetrace.cluster;
RESET acmetrace.metric;
INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples)
SELECT 'FB_USED', 'hc', '2023-07-04', 's' || k, count(*), min(v), max(v), sum(v::numeric), min(ts), max(ts),
       acmetrace.samples_agg(ts, v)
  FROM (SELECT k, timestamptz '2023-07-04 00:00+00' + i * interval '7 minutes' AS ts, (i * k)::float8 / 3 AS v
          FROM generate_series(1, 2) k, generate_series(0, 205) i) g
 GROUP BY k;
SELECT * FROM differ;
UPDATE acmetrace.utilization_blocks b
   SET samples = (SELECT acmetrace.samples_agg(u.ts, u.value) FROM acmetrace.unnest(b.samples) u
                   WHERE u.ts < '2023-07-04 10:00+00')
 WHERE cluster = 'hc' AND series = 's2';
SELECT * FROM differ;
SELECT bucket, series, samples FROM acmetrace.v_hourly_utilization
 WHERE cluster = 'hc' AND bucket BETWEEN '2023-07-04 09:00+00' AND '2023-07-04 11:00+00' ORDER BY bucket;

-- Grafana's filter: a window of one cluster.
SELECT metric, bucket, series, samples, mean, min, max, partial FROM acmetrace.v_hourly_utilization
 WHERE cluster = 'ha' AND bucket BETWEEN '2023-07-01 23:00+00' AND '2023-07-02 00:00+00' ORDER BY 1, 2;

-- The view reads the rollup only: no block, no sample decoded; a day's
-- window is an index scan of acmetrace.utilization_hours.
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
        RETURN NEXT line;
    END LOOP;
END
$$;
SELECT count(*) FILTER (WHERE p ~ 'Index (Only )?Scan using \w+ on acmetrace\.utilization_hours') > 0 AS index_scan,
       count(*) FILTER (WHERE p ~ 'Seq Scan') AS seq_scans,
       count(*) FILTER (WHERE p ~ 'utilization_blocks|samples_hours|acmetrace\.unnest') AS blocks_read
  FROM pg_temp.plan($$SELECT * FROM acmetrace.v_hourly_utilization
                      WHERE cluster = 'ha' AND bucket BETWEEN '2023-07-01 23:00+00' AND '2023-07-02 00:00+00'$$) p;
SELECT p FROM pg_temp.plan($$SELECT * FROM acmetrace.v_hourly_utilization
                             WHERE cluster = 'ha' AND bucket BETWEEN '2023-07-01 23:00+00' AND '2023-07-02 00:00+00'$$) p
 WHERE p ~ 'Scan';

-- A deleted block (its hours' min or max may go: the day is rebuilt), then
-- a hand-written update that only adds samples (counted in).
DELETE FROM acmetrace.utilization_blocks WHERE cluster = 'hb' AND series = 'node01-gpu0';
SELECT * FROM differ;
UPDATE acmetrace.utilization_blocks b
   SET samples = (SELECT acmetrace.samples_agg(x.ts, x.value)
                    FROM (SELECT u.ts, u.value FROM acmetrace.unnest(b.samples) u
                          UNION ALL
                          VALUES (timestamptz '2023-07-04 09:30:00.5+00', -1::float8),
                                 ('2023-07-04 12:00:00.5+00', -1)) x)
 WHERE cluster = 'hc' AND series = 's2';
SELECT * FROM differ;

-- Hostile: a block of no samples, a block whose samples are not of its
-- day, a day that is no day, and NULLs.
INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples)
SELECT 'FB_USED', 'hc', '2023-07-06', 'empty', 1, 0, 0, 0, '2023-07-06', '2023-07-06', acmetrace.samples_agg(ts, v)
  FROM (SELECT timestamptz '2023-07-06 00:00+00' AS ts, 1::float8 AS v WHERE false) e;
INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples)
SELECT 'FB_USED', 'hc', '2023-07-06', 'elsewhere', 1, 1, 1, 1, '2023-07-07 00:00+00', '2023-07-07 00:00+00',
       acmetrace.samples_agg('2023-07-07 00:00+00'::timestamptz, 1);
UPDATE acmetrace.utilization_blocks SET day = day + 1 WHERE cluster = 'hc' AND series = 's1';
SELECT n FROM acmetrace_internal.samples_hours((SELECT acmetrace.samples_agg('2023-07-07 00:00+00'::timestamptz, 1)), 'infinity');
SELECT n IS NULL AS null_hours FROM acmetrace_internal.samples_hours(NULL, '2023-07-07');
SELECT n[23:24], sum[23:24], min[23:24], max[23:24]
  FROM acmetrace_internal.samples_hours((SELECT acmetrace.samples_agg('2023-07-07 23:59:59.999999+00'::timestamptz, -1.5)),
                                        '2023-07-07');
SELECT * FROM differ;

-- Dropping a cluster takes its hours with its blocks.
SELECT acmetrace.drop_cluster('hc');
SELECT count(*) AS hc_hours FROM acmetrace.v_hourly_utilization WHERE cluster = 'hc';
SELECT count(*) AS hc_rollup FROM acmetrace.utilization_hours WHERE cluster = 'hc';
SELECT * FROM differ;

-- TRUNCATE of the blocks empties the rollup too.
TRUNCATE acmetrace.utilization_blocks;
SELECT count(*) AS rollup_rows FROM acmetrace.utilization_hours;
