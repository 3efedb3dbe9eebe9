-- acmetrace.period_summary: a period against the one before it, checked
-- by hand on a small cluster and against plain computations on a
-- generated one; partial periods, NULL and unknown clusters, bad windows.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- ---- by hand: 10 GPUs, UTC; the week [07-08, 07-15) against [07-01, 07-08)
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone) VALUES ('hand', 'slurm', 10, 'UTC');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration) VALUES
    -- 4 GPUs through both weeks; ends at the last event, so in neither week
    ('hand', 'long', 'Pretrain', 'COMPLETED', 4, '2023-07-01 00:00+00', '2023-07-01 00:00+00', '2023-07-15 00:00+00', 1209600),
    ('hand', 'failed', 'SFT', 'FAILED', 2, '2023-07-09 00:00+00', '2023-07-09 01:00+00', '2023-07-09 03:00+00', 7200),
    ('hand', 'cancelled', 'Eval', 'CANCELLED', 1, '2023-07-03 00:00+00', '2023-07-03 00:00:10+00', '2023-07-03 01:00:10+00', 3600),
    ('hand', 'cpu', 'Other', 'COMPLETED', 0, '2023-07-10 00:00+00', '2023-07-10 00:00+00', '2023-07-10 01:00+00', 3600),
    -- still running: holds its 2 GPUs from 07-14 12:00 on
    ('hand', 'running', 'Eval', 'RUNNING', 2, '2023-07-14 11:00+00', '2023-07-14 12:00+00', NULL, NULL);
-- allocation: (4 x 7 d + 2 x 2 h + 2 x 12 h) / (10 x 7 d) = 41.67%, before (4 x 7 d + 1 h) / (10 x 7 d) = 40.06%;
-- ended: 'failed' (4 GPU-hours, lost) now, 'cancelled' (1) before; p90 wait: 3600 s now, 9 s before (0 and 10)
SELECT * FROM acmetrace.period_summary('hand', '2023-07-08 00:00+00', '2023-07-15 00:00+00');
-- NULL until is the last event (07-15, the end of 'long'), NULL since 7 days before it
SELECT (SELECT array_agg(p ORDER BY measure) FROM acmetrace.period_summary('hand') p)
     = (SELECT array_agg(p ORDER BY measure) FROM acmetrace.period_summary('hand', '2023-07-08 00:00+00', '2023-07-15 00:00+00') p)
       AS defaults_are_the_last_week,
       (SELECT array_agg(p ORDER BY measure) FROM acmetrace.period_summary('hand', NULL, '2023-07-15 00:00+00') p)
     = (SELECT array_agg(p ORDER BY measure) FROM acmetrace.period_summary('hand', '2023-07-08 00:00+00', '2023-07-15 00:00+00') p)
       AS null_since_is_7_days;

-- ---- GPU_UTIL samples of two GPUs, hourly from 07-06 00:00 to 07-11 23:00
CREATE TEMP TABLE gen_util AS
SELECT s.series, timestamptz '2023-07-06 00:00+00' + i * interval '1 hour' AS ts, ((i * 7 + s.k * 13) % 101)::float8 AS value
  FROM (VALUES ('g0', 1), ('g1', 2)) s(series, k), generate_series(0, 143) i;
INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples)
SELECT 'GPU_UTIL', 'hand', (ts AT TIME ZONE 'UTC')::date, series, count(*), min(value), max(value), sum(value::numeric),
       min(ts), max(ts), acmetrace.samples_agg(ts, value)
  FROM gen_util GROUP BY 3, 4;
-- a window cutting blocks at 12:00: the mean of the samples in it, plain;
-- the samples (07-06 to 07-11) cover [07-07, 07-10), so not partial
SELECT p.measure, p.value = round(avg(u.value) FILTER (WHERE u.ts >= '2023-07-08 12:00+00')::numeric, 2) AS value_is_plain_mean,
       p.previous = round(avg(u.value) FILTER (WHERE u.ts < '2023-07-08 12:00+00')::numeric, 2) AS previous_is_plain_mean,
       p.partial
  FROM acmetrace.period_summary('hand', '2023-07-08 12:00+00', '2023-07-10 00:00+00') p, gen_util u
 WHERE p.measure = 'util_mean_pct' AND u.ts >= '2023-07-07 00:00+00' AND u.ts < '2023-07-10 00:00+00'
 GROUP BY p.measure, p.value, p.previous, p.partial;
-- the whole week: samples from 07-06 only, so util_mean_pct is partial, the job measures are not
SELECT measure, value, previous, partial FROM acmetrace.period_summary('hand', '2023-07-08 00:00+00', '2023-07-15 00:00+00')
 WHERE measure IN ('util_mean_pct', 'allocation_pct');

-- ---- partial periods: the trace starts 07-01 00:00 and ends 07-15 00:00
SELECT 'before the trace' AS period, bool_and(partial) AS all_partial FROM acmetrace.period_summary('hand', '2023-07-03', '2023-07-10')
UNION ALL
SELECT 'after the trace', bool_and(partial) FROM acmetrace.period_summary('hand', '2023-07-09', '2023-07-16')
UNION ALL
SELECT 'inside', bool_or(partial) FROM acmetrace.period_summary('hand', '2023-07-04 12:00', '2023-07-08') WHERE measure <> 'util_mean_pct';

-- ---- a generated cluster against plain computations over acmetrace.jobs
-- (allocation from occupancy_agg, an independent path), a window inside
-- its submissions: [45%, 80%) of their span against [10%, 45%)
SELECT acmetrace.load_generated('gen', 'seren', 6000, 11);
CREATE TEMP TABLE w AS
SELECT date_trunc('second', f + 0.45 * s) AS a, date_trunc('second', f + 0.45 * s) - 0.35 * s AS pa,
       date_trunc('second', f + 0.45 * s) + 0.35 * s AS b
  FROM (SELECT min(submit_time) AS f, max(submit_time) - min(submit_time) AS s
          FROM acmetrace.jobs WHERE cluster = 'gen') z;
CREATE TEMP TABLE plain AS
SELECT k.cur, k.lo, k.hi,
       (SELECT round(100 * (SELECT sum(l.gpus * l.seconds) FROM acmetrace.occupancy_levels(o.occ, k.lo, k.hi) l)::numeric
                     / (c.gpu_capacity * extract(epoch FROM k.hi - k.lo)), 2)
          FROM (SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) AS occ
                  FROM acmetrace.jobs j WHERE j.cluster = 'gen' AND j.gpu_num > 0) o,
               acmetrace.clusters c WHERE c.cluster = 'gen') AS allocation_pct,
       (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = 'gen' AND j.submit_time >= k.lo AND j.submit_time < k.hi)::numeric AS submitted,
       (SELECT round(coalesce(sum(j.duration * j.gpu_num), 0) / 3600, 2) FROM acmetrace.jobs j
         WHERE j.cluster = 'gen' AND j.gpu_num > 0 AND j.end_time >= k.lo AND j.end_time < k.hi) AS gpu_h,
       (SELECT round(coalesce(sum(j.duration * j.gpu_num), 0) / 3600, 2) FROM acmetrace.jobs j
         WHERE j.cluster = 'gen' AND j.gpu_num > 0 AND j.end_time >= k.lo AND j.end_time < k.hi
           AND j.final_state IN ('FAILED', 'CANCELLED')) AS lost_gpu_h,
       (SELECT round(100.0 * count(*) FILTER (WHERE j.final_state = 'FAILED') / nullif(count(*), 0), 2) FROM acmetrace.jobs j
         WHERE j.cluster = 'gen' AND j.gpu_num > 0 AND j.end_time >= k.lo AND j.end_time < k.hi) AS failed_job_pct,
       (SELECT round(100.0 * count(*) FILTER (WHERE j.final_state = 'CANCELLED') / nullif(count(*), 0), 2) FROM acmetrace.jobs j
         WHERE j.cluster = 'gen' AND j.gpu_num > 0 AND j.end_time >= k.lo AND j.end_time < k.hi) AS cancelled_job_pct,
       (SELECT acmetrace_internal.sig3(percentile_cont(0.9) WITHIN GROUP (ORDER BY j.wait_s)) FROM acmetrace.jobs j
         WHERE j.cluster = 'gen' AND j.gpu_num > 0 AND j.start_time >= k.lo AND j.start_time < k.hi AND j.wait_s >= 0) AS p90_queue_s
  FROM w, LATERAL (VALUES (true, w.a, w.b), (false, w.pa, w.a)) k(cur, lo, hi);
SELECT p.measure, p.unit, p.value = v.v AS value_is_plain, p.previous = pr.v AS previous_is_plain,
       p.value > 0 AS nonzero, p.partial,
       p.change_pct IS NOT DISTINCT FROM round(100 * (p.value - p.previous) / nullif(abs(p.previous), 0), 2) AS change_is_relative
  FROM w, acmetrace.period_summary('gen', w.a, w.b) p
  JOIN LATERAL (SELECT (to_jsonb(x) ->> p.measure)::numeric AS v FROM plain x WHERE x.cur) v ON true
  JOIN LATERAL (SELECT (to_jsonb(x) ->> p.measure)::numeric AS v FROM plain x WHERE NOT x.cur) pr ON true
 ORDER BY p.measure;

-- ---- NULL is every cluster (each its own last week); unknown and bad windows
SELECT (SELECT array_agg(p ORDER BY cluster, measure) FROM acmetrace.period_summary(NULL) p)
     = (SELECT array_agg(p ORDER BY cluster, measure)
          FROM (SELECT * FROM acmetrace.period_summary('gen') UNION ALL SELECT * FROM acmetrace.period_summary('hand')) p)
       AS null_is_every_cluster;
SELECT * FROM acmetrace.period_summary('nope');
SELECT * FROM acmetrace.period_summary('hand', '2023-07-10', '2023-07-10');
SELECT * FROM acmetrace.period_summary('hand', '2023-07-11', '2023-07-10');
SELECT * FROM acmetrace.period_summary('hand', '2023-07-20');
-- a loaded cluster with no jobs: no period to end at, no rows; with until, zeros
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity) VALUES ('empty', 'slurm', 8);
SELECT count(*) AS no_until_no_rows FROM acmetrace.period_summary('empty');
SELECT measure, value, previous, partial FROM acmetrace.period_summary('empty', '2023-07-01', '2023-07-02');

-- ---- the first and last event read from summary_extents (summaries on)
-- and from the jobs (off): the same rows for every cluster, also after a
-- job moves the last event (summarize_delta keeps the extents)
CREATE FUNCTION pg_temp.both_paths() RETURNS TABLE (extents_read boolean, rows integer, same_rows boolean)
LANGUAGE plpgsql AS $$
DECLARE
    on_rows text[];
    used boolean := acmetrace_internal.summarized(NULL);
    was text := current_setting('acmetrace.summaries');
BEGIN
    SELECT array_agg(p::text ORDER BY p.cluster, p.measure) INTO on_rows FROM acmetrace.period_summary(NULL) p;
    PERFORM set_config('acmetrace.summaries', 'off', true);
    RETURN QUERY SELECT used, cardinality(on_rows),
                        on_rows = (SELECT array_agg(p::text ORDER BY p.cluster, p.measure) FROM acmetrace.period_summary(NULL) p);
    PERFORM set_config('acmetrace.summaries', was, true);
END
$$;
SELECT * FROM pg_temp.both_paths();
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration) VALUES
    ('hand', 'later', 'SFT', 'COMPLETED', 1, '2023-07-16 00:00+00', '2023-07-16 01:00+00', '2023-07-16 02:00+00', 3600);
SELECT e.last_event AS kept_last_event, b.*
  FROM acmetrace.summary_extents e, pg_temp.both_paths() b WHERE e.cluster = 'hand';
-- the extents are what is read: moved by hand, they move the default period
BEGIN;
UPDATE acmetrace.summary_extents SET last_event = last_event + interval '1 day' WHERE cluster = 'hand';
SELECT (SELECT array_agg(p::text ORDER BY p.measure) FROM acmetrace.period_summary('hand') p)
       IS DISTINCT FROM (SELECT array_agg(p::text ORDER BY p.measure)
                           FROM acmetrace.period_summary('hand', NULL, '2023-07-16 02:00+00') p) AS extents_move_the_period;
ROLLBACK;
