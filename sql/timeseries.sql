-- The jobs' time series (acmetrace.v_hourly_allocation, v_daily_jobs,
-- v_daily_queue): each view equals a plain computation over acmetrace.jobs,
-- row for row, after loads, appends through summarize_delta, UPDATEs,
-- DELETEs, time zone and capacity changes and drop_cluster; and a windowed
-- query reads no job.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- ---- The definitions, over the jobs ----
-- A job's finite times (others count as missing).
CREATE FUNCTION pg_temp.j() RETURNS TABLE (cluster text, gpu_num integer, s timestamptz, b timestamptz, e timestamptz,
                                           final_state text, gpu_s numeric, wait_s float8)
LANGUAGE sql AS $$
SELECT j.cluster, j.gpu_num,
       CASE WHEN isfinite(j.submit_time) THEN j.submit_time END, CASE WHEN isfinite(j.start_time) THEN j.start_time END,
       CASE WHEN isfinite(j.end_time) THEN j.end_time END, j.final_state, coalesce(j.gpu_time, j.duration * j.gpu_num),
       j.wait_s
  FROM acmetrace.jobs j
$$;
CREATE FUNCTION pg_temp.ext() RETURNS TABLE (cluster text, fe timestamptz, le timestamptz, fs timestamptz, cap bigint)
LANGUAGE sql AS $$
SELECT x.cluster, x.fe, x.le, x.fs,
       coalesce(c.gpu_capacity, CASE WHEN NOT x.odd THEN greatest(x.peak, 1) END)
  FROM (SELECT j.cluster, min(least(j.s, j.b, j.e)) AS fe, max(greatest(j.s, j.b, j.e)) AS le,
               min(j.b) FILTER (WHERE j.gpu_num > 0 AND (j.e IS NULL OR j.e > j.b)) AS fs,
               coalesce(bool_or(j.e < j.b OR j.gpu_num < 0), false) AS odd,
               acmetrace.peak(acmetrace.occupancy_agg(j.b, j.e, j.gpu_num)
                              FILTER (WHERE j.gpu_num > 0 AND (j.e IS NULL OR j.e > j.b))) AS peak
          FROM pg_temp.j() j GROUP BY j.cluster) x
  JOIN acmetrace.clusters c ON c.cluster = x.cluster
$$;
-- GPU-seconds held in each hour: the overlap of [start, end (running: the
-- last event)) with the hour, times gpu_num
CREATE FUNCTION pg_temp.ref_hourly() RETURNS TABLE (cluster text, bucket timestamptz, allocated_gpus numeric,
                                                    capacity_gpus bigint, allocation_pct numeric, partial boolean)
LANGUAGE sql AS $$
SELECT x.cluster, g.h, round(coalesce(sum(j.gpu_num * extract(epoch FROM least(coalesce(j.e, x.le), g.h + interval '1 hour')
                                                                     - greatest(j.b, g.h))), 0) / 3600, 2),
       x.cap,
       round(100 * coalesce(sum(j.gpu_num * extract(epoch FROM least(coalesce(j.e, x.le), g.h + interval '1 hour')
                                                              - greatest(j.b, g.h))), 0) / 3600 / x.cap, 2),
       coalesce(g.h < x.fs, true) OR g.h + interval '1 hour' > x.le
  FROM pg_temp.ext() x
 CROSS JOIN LATERAL generate_series(date_trunc('hour', x.fe AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', x.le, interval '1 hour') g(h)
  LEFT JOIN pg_temp.j() j
    ON j.cluster = x.cluster AND j.gpu_num > 0 AND j.b IS NOT NULL AND (j.e IS NULL OR j.e > j.b)
   AND j.b < g.h + interval '1 hour' AND coalesce(j.e, x.le) > g.h
 GROUP BY x.cluster, g.h, x.cap, x.fs, x.le
$$;
-- the cluster's local days, as [bucket, next)
CREATE FUNCTION pg_temp.days() RETURNS TABLE (cluster text, bucket timestamptz, next timestamptz, partial boolean)
LANGUAGE sql AS $$
SELECT x.cluster, g.d AT TIME ZONE c.time_zone, (g.d + interval '1 day') AT TIME ZONE c.time_zone,
       g.d AT TIME ZONE c.time_zone < x.fe OR (g.d + interval '1 day') AT TIME ZONE c.time_zone > x.le
  FROM pg_temp.ext() x JOIN acmetrace.clusters c ON c.cluster = x.cluster,
       generate_series(date_trunc('day', x.fe AT TIME ZONE c.time_zone), x.le AT TIME ZONE c.time_zone, interval '1 day') g(d)
$$;
CREATE FUNCTION pg_temp.ref_daily_jobs() RETURNS TABLE (cluster text, bucket timestamptz, submitted bigint, completed bigint,
                                                        failed bigint, cancelled bigint, gpu_h numeric, failed_gpu_h numeric,
                                                        cancelled_gpu_h numeric, lost_gpu_h numeric, partial boolean)
LANGUAGE sql AS $$
SELECT d.cluster, d.bucket,
       (SELECT count(*) FROM pg_temp.j() j WHERE j.cluster = d.cluster AND j.s >= d.bucket AND j.s < d.next),
       e.completed, e.failed, e.cancelled,
       round(coalesce(e.g, 0) / 3600, 2), round(coalesce(e.fg, 0) / 3600, 2), round(coalesce(e.cg, 0) / 3600, 2),
       round((coalesce(e.fg, 0) + coalesce(e.cg, 0)) / 3600, 2), d.partial
  FROM pg_temp.days() d,
       LATERAL (SELECT count(*) FILTER (WHERE j.final_state = 'COMPLETED') AS completed,
                       count(*) FILTER (WHERE j.final_state = 'FAILED') AS failed,
                       count(*) FILTER (WHERE j.final_state = 'CANCELLED') AS cancelled,
                       sum(j.gpu_s) FILTER (WHERE j.gpu_num > 0) AS g,
                       sum(j.gpu_s) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'FAILED') AS fg,
                       sum(j.gpu_s) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'CANCELLED') AS cg
                  FROM pg_temp.j() j WHERE j.cluster = d.cluster AND j.e >= d.bucket AND j.e < d.next) e
$$;
CREATE FUNCTION pg_temp.ref_daily_queue() RETURNS TABLE (cluster text, bucket timestamptz, jobs bigint, p50_s numeric,
                                                         p90_s numeric, p99_s numeric, mean_s numeric, partial boolean)
LANGUAGE sql AS $$
SELECT d.cluster, d.bucket, q.n, acmetrace_internal.sig3(q.p[1]), acmetrace_internal.sig3(q.p[2]),
       acmetrace_internal.sig3(q.p[3]), acmetrace_internal.sig3(q.m::float8), d.partial
  FROM pg_temp.days() d,
       LATERAL (SELECT count(*) AS n, percentile_cont('{0.5,0.9,0.99}'::float8[]) WITHIN GROUP (ORDER BY j.wait_s) AS p,
                       avg(j.wait_s::numeric) AS m
                  FROM pg_temp.j() j
                 WHERE j.cluster = d.cluster AND j.b >= d.bucket AND j.b < d.next AND j.gpu_num > 0
                   AND j.s IS NOT NULL AND j.wait_s >= 0) q
$$;
-- rows of each view not in its definition, and the reverse
CREATE FUNCTION pg_temp.differing() RETURNS TABLE (view text, rows bigint, differing bigint) LANGUAGE sql AS $$
SELECT 'v_hourly_allocation', (SELECT count(*) FROM acmetrace.v_hourly_allocation),
       (SELECT count(*) FROM (SELECT * FROM acmetrace.v_hourly_allocation EXCEPT ALL SELECT * FROM pg_temp.ref_hourly()) a)
     + (SELECT count(*) FROM (SELECT * FROM pg_temp.ref_hourly() EXCEPT ALL SELECT * FROM acmetrace.v_hourly_allocation) b)
UNION ALL
SELECT 'v_daily_jobs', (SELECT count(*) FROM acmetrace.v_daily_jobs),
       (SELECT count(*) FROM (SELECT * FROM acmetrace.v_daily_jobs EXCEPT ALL SELECT * FROM pg_temp.ref_daily_jobs()) a)
     + (SELECT count(*) FROM (SELECT * FROM pg_temp.ref_daily_jobs() EXCEPT ALL SELECT * FROM acmetrace.v_daily_jobs) b)
UNION ALL
SELECT 'v_daily_queue', (SELECT count(*) FROM acmetrace.v_daily_queue),
       (SELECT count(*) FROM (SELECT * FROM acmetrace.v_daily_queue EXCEPT ALL SELECT * FROM pg_temp.ref_daily_queue()) a)
     + (SELECT count(*) FROM (SELECT * FROM pg_temp.ref_daily_queue() EXCEPT ALL SELECT * FROM acmetrace.v_daily_queue) b)
$$;
-- the summaries equal a rebuild (the delta path left nothing behind)
CREATE FUNCTION pg_temp.rebuild_differs() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before text[] := ARRAY(SELECT 'h' || s::text FROM acmetrace.summary_hours s UNION ALL SELECT 'd' || s::text FROM acmetrace.summary_days s
                           UNION ALL SELECT 'e' || s::text FROM acmetrace.summary_extents s);
    after text[];
BEGIN
    PERFORM acmetrace.refresh_summaries();
    after := ARRAY(SELECT 'h' || s::text FROM acmetrace.summary_hours s UNION ALL SELECT 'd' || s::text FROM acmetrace.summary_days s
                   UNION ALL SELECT 'e' || s::text FROM acmetrace.summary_extents s);
    RETURN (SELECT count(*) FROM (SELECT unnest(before) EXCEPT SELECT unnest(after)) a)
         + (SELECT count(*) FROM (SELECT unnest(after) EXCEPT SELECT unnest(before)) b);
END
$$;

-- ---- 1. Loads: zones with daylight saving time, a half-hour offset, a
-- fixed abbreviation; the observed peak as capacity and a set capacity ----
SELECT acmetrace.load_generated('ny', 'seren', 3000, 11);
SELECT acmetrace.load_generated('ber', 'kalos', 2000, 12);
SELECT acmetrace.load_generated('ind', 'seren', 1500, 13);
UPDATE acmetrace.clusters SET gpu_capacity = NULL, time_zone = 'America/New_York' WHERE cluster = 'ny';
UPDATE acmetrace.clusters SET time_zone = 'Europe/Berlin' WHERE cluster = 'ber';
UPDATE acmetrace.clusters SET time_zone = 'Asia/Kolkata' WHERE cluster = 'ind';
SELECT * FROM pg_temp.differing();
-- buckets at local midnight; hours at UTC hours
SELECT cluster, count(*) AS days, bool_and(date_trunc('day', bucket AT TIME ZONE c.time_zone) = bucket AT TIME ZONE c.time_zone) AS local_midnight,
       count(*) FILTER (WHERE partial) AS partial_days
  FROM acmetrace.v_daily_jobs JOIN acmetrace.clusters c USING (cluster) GROUP BY 1 ORDER BY 1;
SELECT cluster, bool_and(extract(minute FROM bucket AT TIME ZONE 'UTC') = 0) AS utc_hours,
       sum(allocated_gpus) > 0 AS allocates, bool_and(capacity_gpus > 0) AS capacity
  FROM acmetrace.v_hourly_allocation GROUP BY 1 ORDER BY 1;
-- the views keep their answer whatever the session's zone
SET TimeZone = 'Pacific/Chatham';
SELECT * FROM pg_temp.differing();
SET TimeZone = 'UTC';
-- every job of ind counted once (submitted), every GPU job that waited once (queue)
SELECT (SELECT sum(submitted) FROM acmetrace.v_daily_jobs WHERE cluster = 'ind') = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'ind') AS submitted_all,
       (SELECT sum(jobs) FROM acmetrace.v_daily_queue WHERE cluster = 'ind')
       = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'ind' AND gpu_num > 0 AND wait_s >= 0) AS waits_all;

-- ---- 2. A day appended through summarize_delta (as acmetrace-sync's
-- Slurm loader does): jobs of the next day, some running, some pending ----
BEGIN;
SELECT acmetrace_internal.summaries_by_caller('ny');
INSERT INTO acmetrace.jobs (cluster, type, gpu_num, node_num, cpu_num, submit_time, start_time, end_time, state, job_id,
                            user_id, duration, queue, gpu_time)
SELECT 'ny', j.type, j.gpu_num, j.node_num, j.cpu_num, m.last + interval '1 day' + interval '37 seconds' * i,
       CASE WHEN i % 9 <> 0 THEN m.last + interval '1 day' + interval '37 seconds' * i + interval '1 second' * (i % 400) END,
       CASE WHEN i % 9 <> 0 AND i % 7 <> 0 THEN m.last + interval '1 day' + interval '37 seconds' * i + interval '1 second' * (i % 400)
                                              + interval '1 second' * (60 + i * 13 % 20000) END,
       CASE WHEN i % 9 = 0 THEN 'PENDING' WHEN i % 7 = 0 THEN 'RUNNING' ELSE (ARRAY['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT'])[1 + i % 4] END,
       'append_' || i, j.user_id,
       CASE WHEN i % 9 <> 0 AND i % 7 <> 0 THEN 60 + i * 13 % 20000 END, CASE WHEN i % 9 <> 0 THEN i % 400 END,
       CASE WHEN i % 9 <> 0 AND i % 7 <> 0 AND i % 5 = 0 THEN (60 + i * 13 % 20000) * j.gpu_num END
  FROM generate_series(1, 200) i
  JOIN (SELECT row_number() OVER (ORDER BY job_id) AS k, * FROM acmetrace.jobs WHERE cluster = 'ny') j ON j.k = i,
       (SELECT max(submit_time) AS last FROM acmetrace.jobs WHERE cluster = 'ny') m;
SELECT count(*) AS appended, count(*) FILTER (WHERE end_time IS NULL AND start_time IS NOT NULL) AS running,
       count(*) FILTER (WHERE start_time IS NULL) AS pending
  FROM acmetrace.jobs WHERE cluster = 'ny' AND job_id LIKE 'append\_%';
SELECT acmetrace_internal.summarize_delta('ny', '{}', ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = 'ny' AND j.job_id LIKE 'append\_%'));
SELECT current_setting('acmetrace_internal.last_delta') AS how;
COMMIT;
SELECT * FROM pg_temp.differing();
SELECT pg_temp.rebuild_differs() AS rebuild_differs;

-- ---- 3. UPDATEs and DELETEs through the statement triggers (delta) ----
UPDATE acmetrace.jobs SET state = 'FAILED'
 WHERE cluster = 'ny' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'ny' AND state = 'COMPLETED' AND gpu_num > 0 ORDER BY job_id LIMIT 5);
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT * FROM pg_temp.differing();
-- running jobs end, pending ones start
UPDATE acmetrace.jobs SET end_time = start_time + interval '5 hours', state = 'COMPLETED', duration = 18000
 WHERE cluster = 'ny' AND job_id IN ('append_7', 'append_14', 'append_28');
SELECT current_setting('acmetrace_internal.last_delta') AS how;
UPDATE acmetrace.jobs SET start_time = submit_time + interval '10 minutes', state = 'RUNNING', queue = 600
 WHERE cluster = 'ny' AND job_id IN ('append_9', 'append_18');
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT * FROM pg_temp.differing();
DELETE FROM acmetrace.jobs WHERE cluster = 'ber' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'ber' ORDER BY job_id LIMIT 6);
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT * FROM pg_temp.differing();
-- a CPU job after every other event, then deleted: the extent grows and
-- shrinks again (reread from the jobs), the delta path both times
BEGIN;
SELECT acmetrace_internal.summaries_by_caller('ber');
INSERT INTO acmetrace.jobs (cluster, job_id, state, gpu_num, submit_time, start_time, end_time)
SELECT 'ber', 'late', 'COMPLETED', 0, max(greatest(submit_time, start_time, end_time)) + interval '2 days',
       max(greatest(submit_time, start_time, end_time)) + interval '2 days 1 hour',
       max(greatest(submit_time, start_time, end_time)) + interval '2 days 3 hours'
  FROM acmetrace.jobs WHERE cluster = 'ber';
SELECT acmetrace_internal.summarize_delta('ber', '{}', ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = 'ber' AND j.job_id = 'late'));
SELECT current_setting('acmetrace_internal.last_delta') AS how;
COMMIT;
SELECT * FROM pg_temp.differing();
DELETE FROM acmetrace.jobs WHERE cluster = 'ber' AND job_id = 'late';
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT * FROM pg_temp.differing();
-- a GPU job with the last event deleted (a rebuild: the peak may fall)
DELETE FROM acmetrace.jobs WHERE cluster = 'ber' AND job_id = (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'ber' ORDER BY greatest(submit_time, start_time, end_time) DESC LIMIT 1);
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT * FROM pg_temp.differing();
SELECT pg_temp.rebuild_differs() AS rebuild_differs;

-- ---- 4. Time zone and capacity changes; drop_cluster ----
UPDATE acmetrace.clusters SET time_zone = 'Australia/Adelaide', gpu_capacity = 5000 WHERE cluster = 'ind';
SELECT * FROM pg_temp.differing();
SELECT DISTINCT capacity_gpus FROM acmetrace.v_hourly_allocation WHERE cluster = 'ind';
-- a fixed offset given as an abbreviation (the loaders accept them)
UPDATE acmetrace.clusters SET time_zone = 'EST' WHERE cluster = 'ind';
SELECT * FROM pg_temp.differing();
SELECT DISTINCT extract(hour FROM bucket AT TIME ZONE 'UTC') AS utc_hour_of_local_midnight FROM acmetrace.v_daily_jobs WHERE cluster = 'ind';
SELECT acmetrace.drop_cluster('ber');
SELECT * FROM pg_temp.differing();
SELECT (SELECT count(*) FROM acmetrace.summary_hours WHERE cluster = 'ber') + (SELECT count(*) FROM acmetrace.summary_days WHERE cluster = 'ber')
       + (SELECT count(*) FROM acmetrace.summary_extents WHERE cluster = 'ber') AS ber_rows;
-- rows a user left behind go with summarize_all
INSERT INTO acmetrace.summary_days (cluster, day, submitted, completed, failed, cancelled, gpu_s, failed_gpu_s, cancelled_gpu_s,
                                    waits, wait_sum, wait_vals, wait_counts)
VALUES ('gone', '2024-01-01', 1, 0, 0, 0, 0, 0, 0, 0, 0, '{}', '{}');
SELECT acmetrace_internal.summarize_all();
SELECT count(*) AS gone_rows FROM acmetrace.summary_days WHERE cluster = 'gone';

-- ---- 5. Odd jobs, by hand: no start, end before start, running, CPU,
-- NULL times, a job ending exactly on the hour ----
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone) VALUES ('odd', 'generated', NULL, 'America/Los_Angeles');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration, queue, gpu_time)
VALUES ('odd', 'c1', 'Eval', 'COMPLETED', 4, '2024-03-09 23:50-08', '2024-03-10 00:10-08', '2024-03-10 05:00-07', 13200, 1200, NULL),
       ('odd', 'c2', 'Eval', 'COMPLETED', 2, '2024-03-10 00:20-08', '2024-03-10 00:30-08', '2024-03-10 01:30-08', 3600, 600, 7300),
       ('odd', 'f1', 'Eval', 'TIMEOUT', 1, '2024-03-10 01:00-08', '2024-03-10 01:05-08', '2024-03-10 01:35-08', 1800, 300, 1800),
       ('odd', 'x1', 'Eval', 'CANCELLED', 3, '2024-03-10 01:00-08', '2024-03-10 04:00-07', '2024-03-10 03:30-07', NULL, NULL, NULL),
       ('odd', 'r1', 'Eval', 'RUNNING', 8, '2024-03-10 01:00-08', '2024-03-10 01:20-08', NULL, NULL, 1200, NULL),
       ('odd', 'p1', 'Eval', 'PENDING', 2, '2024-03-10 01:40-08', NULL, NULL, NULL, NULL, NULL),
       ('odd', 'cpu', 'Eval', 'FAILED', 0, '2024-03-10 02:00-08', '2024-03-10 03:00-07', '2024-03-11 03:00-07', 86400, 0, 0),
       ('odd', 'nos', 'Eval', 'CANCELLED', 5, NULL, NULL, '2024-03-11 00:00-07', NULL, NULL, 99),
       ('odd', 'hr', 'Eval', 'FAILED', 2, '2024-03-10 03:00-07', '2024-03-10 03:00-07', '2024-03-10 04:00-07', 3600, 0, NULL);
SELECT * FROM pg_temp.differing();
SELECT bucket AT TIME ZONE 'America/Los_Angeles' AS local_hour, allocated_gpus, capacity_gpus, allocation_pct, partial
  FROM acmetrace.v_hourly_allocation WHERE cluster = 'odd' ORDER BY bucket LIMIT 8;
SELECT bucket, submitted, completed, failed, cancelled, gpu_h, failed_gpu_h, cancelled_gpu_h, lost_gpu_h, partial
  FROM acmetrace.v_daily_jobs WHERE cluster = 'odd' ORDER BY bucket;
SELECT bucket, jobs, p50_s, p90_s, p99_s, mean_s, partial FROM acmetrace.v_daily_queue WHERE cluster = 'odd' ORDER BY bucket;
-- the running job ends (the trigger: a rebuild here, one of ten jobs is many)
UPDATE acmetrace.jobs SET end_time = '2024-03-11 12:00-07', state = 'COMPLETED' WHERE cluster = 'odd' AND job_id = 'r1';
SELECT * FROM pg_temp.differing();

-- ---- 5b. The one C pass (timeseries_scan) against the SQL it stands in
-- for: ny copied with one more job, whose NaN gpu_time the pass cannot sum
-- exactly (so it gives no rows and the SQL builds the copy), agrees on
-- every day, hour and extent the extra job does not touch, scales included ----
SELECT count(*) > 0 AS c_rows FROM acmetrace_internal.timeseries_scan('ny', 'America/New_York', NULL);
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone)
SELECT 'ny_sql', c.source_format, c.gpu_capacity, c.time_zone FROM acmetrace.clusters c WHERE c.cluster = 'ny';
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, node_num, cpu_num, submit_time, start_time, end_time,
                            user_id, duration, queue, gpu_time, vc)
SELECT 'ny_sql', j.job_id, j.type, j.state, j.gpu_num, j.node_num, j.cpu_num, j.submit_time, j.start_time, j.end_time,
       j.user_id, j.duration, j.queue, j.gpu_time, j.vc
  FROM acmetrace.jobs j WHERE j.cluster = 'ny'
UNION ALL
SELECT 'ny_sql', 'nan', 'Eval', 'COMPLETED', 1, 1, 1, '2040-01-01 00:00+00', '2040-01-01 00:00+00', '2040-01-02 00:00+00',
       NULL, 86400, 0, 'NaN', NULL;
SELECT count(*) AS c_rows FROM acmetrace_internal.timeseries_scan('ny_sql', 'America/New_York', NULL);
SELECT (SELECT count(*) FROM acmetrace.summary_days s WHERE s.cluster = 'ny') AS days,
       (SELECT count(*) FROM (SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_days s WHERE s.cluster = 'ny'
                              EXCEPT ALL
                              SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_days s
                               WHERE s.cluster = 'ny_sql' AND s.day < '2039-12-31') x)
     + (SELECT count(*) FROM (SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_days s
                               WHERE s.cluster = 'ny_sql' AND s.day < '2039-12-31'
                              EXCEPT ALL
                              SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_days s WHERE s.cluster = 'ny') x) AS days_differing,
       (SELECT count(*) FROM acmetrace.summary_hours s WHERE s.cluster = 'ny') AS hours,
       (SELECT count(*) FROM (SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_hours s WHERE s.cluster = 'ny'
                              EXCEPT ALL
                              SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_hours s
                               WHERE s.cluster = 'ny_sql' AND s.hour < '2039-12-31') x)
     + (SELECT count(*) FROM (SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_hours s
                               WHERE s.cluster = 'ny_sql' AND s.hour < '2039-12-31'
                              EXCEPT ALL
                              SELECT (to_jsonb(s) - 'cluster')::text FROM acmetrace.summary_hours s WHERE s.cluster = 'ny') x) AS hours_differing,
       (SELECT (a.first_event, a.first_start) = (b.first_event, b.first_start) AND b.last_event = '2040-01-02 00:00+00'
          FROM acmetrace.summary_extents a, acmetrace.summary_extents b WHERE a.cluster = 'ny' AND b.cluster = 'ny_sql') AS extents_agree;
DELETE FROM acmetrace.jobs WHERE cluster = 'ny_sql';
DELETE FROM acmetrace.clusters WHERE cluster = 'ny_sql';

-- ---- 6. A windowed query reads the summaries, never the jobs ----
CREATE FUNCTION pg_temp.plan_reads_jobs(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
    hit boolean := false;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        hit := hit OR line ~ ' on jobs\M';
    END LOOP;
    RETURN hit;
END
$$;
SELECT v, pg_temp.plan_reads_jobs(format('SELECT * FROM acmetrace.%I WHERE cluster = %L AND bucket BETWEEN %L AND %L',
                                         v, 'ny', '2023-03-01', '2023-03-08')) AS reads_jobs
  FROM unnest(ARRAY['v_hourly_allocation', 'v_daily_jobs', 'v_daily_queue']) v;
-- the check itself catches a plan over the jobs
SELECT pg_temp.plan_reads_jobs('SELECT count(*) FROM acmetrace.jobs WHERE cluster = ''ny''') AS reads_jobs;
-- the cluster filter reaches the summaries' index (not a filter after the series)
CREATE FUNCTION pg_temp.plan_has(q text, pattern text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
    hit boolean := false;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        hit := hit OR line ~ pattern;
    END LOOP;
    RETURN hit;
END
$$;
SELECT v, pg_temp.plan_has(format('SELECT * FROM acmetrace.%I WHERE cluster = %L AND bucket BETWEEN %L AND %L',
                                  v, 'ny', '2023-03-01', '2023-03-08'), 'Index Cond: .*cluster = ''ny''') AS cluster_in_index
  FROM unnest(ARRAY['v_hourly_allocation', 'v_daily_jobs', 'v_daily_queue']) v;

-- ---- 7. Readers: one with SELECT reads the views; under row-level
-- security on acmetrace.jobs (the summaries hold every job) no rows ----
CREATE ROLE regress_ts_reader;
GRANT USAGE ON SCHEMA acmetrace, acmetrace_internal TO regress_ts_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA acmetrace TO regress_ts_reader;
SELECT acmetrace.grant_cluster('*', 'regress_ts_reader');
SET ROLE regress_ts_reader;
SELECT (SELECT count(*) FROM acmetrace.v_hourly_allocation) > 0 AS hours, (SELECT count(*) FROM acmetrace.v_daily_jobs) > 0 AS days,
       (SELECT count(*) FROM acmetrace.v_daily_queue) > 0 AS queue_days;
RESET ROLE;
CREATE POLICY regress_ts_ny ON acmetrace.jobs AS RESTRICTIVE FOR SELECT TO regress_ts_reader USING (cluster = 'ny');
SET ROLE regress_ts_reader;
SELECT (SELECT count(*) FROM acmetrace.v_hourly_allocation) AS hours, (SELECT count(*) FROM acmetrace.v_daily_jobs) AS days,
       (SELECT count(*) FROM acmetrace.v_daily_queue) AS queue_days;
RESET ROLE;
DROP POLICY regress_ts_ny ON acmetrace.jobs;
SELECT acmetrace.revoke_cluster('*', 'regress_ts_reader');
REVOKE ALL ON ALL TABLES IN SCHEMA acmetrace FROM regress_ts_reader;
REVOKE ALL ON SCHEMA acmetrace, acmetrace_internal FROM regress_ts_reader;
DROP ROLE regress_ts_reader;
