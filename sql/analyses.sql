-- The standard analyses: each function against hand-computed values on the
-- fixtures and against a plain-SQL formulation of the same definition on
-- generated data.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)

-- cluster_summary on the fixtures, by hand:
--  seren: 8 GPUs each; durations 117 (FAILED), 2693 (COMPLETED); queues 32, 13;
--         GPU time 936 + 21544 = 22480: 21544/22480 = 0.95836 -> 0.958
--  kalos: 64 GPUs; 18 (FAILED), 82 (CANCELLED); queues 10, 12;
--         GPU time 1152 + 5248 = 6400: 0.82 cancelled, 0.18 failed
--  helios: 1/4/1 GPUs; 36848 COMPLETED, 249 FAILED, 675233 CANCELLED; queue 0;
--         mean 712330/3 = 237443.333; GPU time 36848 + 996 + 675233 = 713077:
--         0.05167 -> 0.052, 0.94693 -> 0.947, 0.00140 -> 0.001
\x on
SELECT * FROM acmetrace.cluster_summary() WHERE cluster = 'helios';
\x off
WITH want(cluster, job_num, cpu_job_num, gpu_job_num, avg_run_time_gpu, avg_que_time_gpu, avg_gpu_num,
          med_run_time_gpu, med_que_time_gpu, med_gpu_num, max_run_time_gpu, max_gpu,
          complete_rate_gpu, cancel_rate_gpu, fail_rate_gpu,
          complete_gpu_time, cancel_gpu_time, fail_gpu_time,
          complete_rate_gpu_time, cancel_rate_gpu_time, fail_rate_gpu_time) AS (VALUES
  ('seren', 2, 0, 2, 1405, 22.5, 8, 1405, 22.5, 8, 2693, 8, 0.5, 0, 0.5, 21544, 0, 936, 0.958, 0, 0.042),
  ('kalos', 2, 0, 2, 50, 11, 64, 50, 11, 64, 82, 64, 0, 0.5, 0.5, 0, 5248, 1152, 0, 0.82, 0.18),
  ('helios', 3, 0, 3, 237443.333, 0, 2, 36848, 0, 1, 675233, 4, 0.333, 0.333, 0.333, 36848, 675233, 996, 0.052, 0.947, 0.001))
SELECT w.cluster,
       (s.job_num, s.cpu_job_num, s.gpu_job_num, s.avg_run_time_gpu, s.avg_que_time_gpu, s.avg_gpu_num,
        s.med_run_time_gpu, s.med_que_time_gpu, s.med_gpu_num, s.max_run_time_gpu, s.max_gpu,
        s.complete_rate_gpu, s.cancel_rate_gpu, s.fail_rate_gpu,
        s.complete_gpu_time, s.cancel_gpu_time, s.fail_gpu_time,
        s.complete_rate_gpu_time, s.cancel_rate_gpu_time, s.fail_rate_gpu_time)
       = (w.job_num::bigint, w.cpu_job_num::bigint, w.gpu_job_num::bigint, w.avg_run_time_gpu::float8,
          w.avg_que_time_gpu::float8, w.avg_gpu_num::float8, w.med_run_time_gpu::float8, w.med_que_time_gpu::float8,
          w.med_gpu_num::float8, w.max_run_time_gpu::float8, w.max_gpu::float8,
          w.complete_rate_gpu::float8, w.cancel_rate_gpu::float8, w.fail_rate_gpu::float8,
          w.complete_gpu_time::float8, w.cancel_gpu_time::float8, w.fail_gpu_time::float8,
          w.complete_rate_gpu_time::float8, w.cancel_rate_gpu_time::float8, w.fail_rate_gpu_time::float8) AS as_by_hand,
       num_nulls(s.avg_run_time_cpu, s.avg_que_time_cpu, s.med_run_time_cpu, s.med_que_time_cpu,
                 s.complete_rate_cpu, s.cancel_rate_cpu, s.fail_rate_cpu) AS null_cpu_columns
  FROM want w LEFT JOIN acmetrace.cluster_summary() s ON s.cluster = w.cluster
 ORDER BY w.cluster;
-- Unrounded, the same file gives the exact ratios.
SELECT cluster, complete_rate_gpu_time = 21544.0 / 22480 AS exact_ratio
  FROM acmetrace.cluster_summary(NULL, NULL) WHERE cluster = 'seren';
-- Rounding is numpy's: ties go to the even digit.
SELECT acmetrace_internal.round_to(0.0625, 3) AS tie_down, acmetrace_internal.round_to(0.1875, 3) AS tie_up,
       acmetrace_internal.round_to(2.5, 0) AS two, acmetrace_internal.round_to(-2.5, 0) AS minus_two,
       acmetrace_internal.round_to(1.23456, NULL) AS unrounded;
SELECT * FROM acmetrace.cluster_summary(NULL, -1);
SELECT * FROM acmetrace.cluster_summary(NULL, 16);

-- Generated Seren-like jobs, plus crafted rows the generator never writes:
-- TIMEOUT and NODE_FAIL, CPU jobs, a NULL gpu_num (neither GPU nor CPU), a
-- job that never started (NULL duration and queue).
SELECT acmetrace.load_generated('gen', 'seren', 20000, 7) AS generated;
SET acmetrace.cluster = 'gen';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, type, state, submit_time, start_time, end_time, duration, queue) VALUES
  ('x1', 16, 'Pretrain', 'TIMEOUT',   '2023-03-02 10:00+08', '2023-03-02 10:05+08', '2023-03-03 10:05+08', 86400, 300),
  ('x2', 8,  'Eval',     'NODE_FAIL', '2023-03-02 11:00+08', '2023-03-02 11:00+08', '2023-03-02 11:10+08', 600, 0),
  ('x3', 0,  'Other',    'TIMEOUT',   '2023-03-02 12:00+08', '2023-03-02 12:00+08', '2023-03-02 12:01+08', 60, 0),
  ('x4', NULL, 'Debug',  'COMPLETED', '2023-03-02 12:00+08', '2023-03-02 12:00+08', '2023-03-02 12:01+08', 60, 0),
  ('x5', 4,  'Eval',     'CANCELLED', '2023-03-02 13:00+08', NULL, NULL, NULL, NULL);
RESET acmetrace.cluster;

-- An independent plain-SQL summary: medians from sorted arrays, averages as
-- exact sum / count, rates from separate counts.
CREATE TEMP TABLE plain_summary AS
WITH g AS (SELECT * FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0),
     c AS (SELECT * FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num = 0),
     med AS (
        SELECT (SELECT (a[(n + 1) / 2] + a[n / 2 + 1]) / 2.0 FROM (SELECT array_agg(duration ORDER BY duration) a, count(duration) n FROM g) s) AS med_run_g,
               (SELECT (a[(n + 1) / 2] + a[n / 2 + 1]) / 2.0 FROM (SELECT array_agg(queue ORDER BY queue) a, count(queue) n FROM g WHERE queue IS NOT NULL) s) AS med_que_g,
               (SELECT (a[(n + 1) / 2] + a[n / 2 + 1]) / 2.0 FROM (SELECT array_agg(gpu_num ORDER BY gpu_num) a, count(*) n FROM g) s) AS med_gpu,
               (SELECT (a[(n + 1) / 2] + a[n / 2 + 1]) / 2.0 FROM (SELECT array_agg(duration ORDER BY duration) a, count(duration) n FROM c WHERE duration IS NOT NULL) s) AS med_run_c,
               (SELECT (a[(n + 1) / 2] + a[n / 2 + 1]) / 2.0 FROM (SELECT array_agg(queue ORDER BY queue) a, count(queue) n FROM c WHERE queue IS NOT NULL) s) AS med_que_c),
     t AS (
        SELECT (SELECT sum(duration * gpu_num) FROM g) AS all_t,
               (SELECT sum(duration * gpu_num) FROM g WHERE state = 'COMPLETED') AS ok_t,
               (SELECT sum(duration * gpu_num) FROM g WHERE state = 'CANCELLED') AS cancel_t)
SELECT (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'gen') AS job_num,
       (SELECT count(*) FROM c) AS cpu_job_num,
       (SELECT count(*) FROM g) AS gpu_job_num,
       (SELECT sum(duration) / count(duration) FROM g)::float8 AS avg_run_time_gpu,
       (SELECT sum(queue) / count(queue) FROM g)::float8 AS avg_que_time_gpu,
       (SELECT sum(gpu_num)::numeric / count(*) FROM g)::float8 AS avg_gpu_num,
       med.med_run_g::float8 AS med_run_time_gpu, med.med_que_g::float8 AS med_que_time_gpu,
       med.med_gpu::float8 AS med_gpu_num,
       (SELECT duration FROM g WHERE duration IS NOT NULL ORDER BY duration DESC LIMIT 1)::float8 AS max_run_time_gpu,
       (SELECT gpu_num FROM g ORDER BY gpu_num DESC LIMIT 1)::float8 AS max_gpu,
       (SELECT count(*) FROM g WHERE state = 'COMPLETED')::float8 / (SELECT count(*) FROM g) AS complete_rate_gpu,
       (SELECT count(*) FROM g WHERE state = 'CANCELLED')::float8 / (SELECT count(*) FROM g) AS cancel_rate_gpu,
       t.all_t::float8 AS all_t, t.ok_t::float8 AS complete_gpu_time, t.cancel_t::float8 AS cancel_gpu_time,
       (SELECT sum(duration) / count(duration) FROM c)::float8 AS avg_run_time_cpu,
       (SELECT sum(queue) / count(queue) FROM c)::float8 AS avg_que_time_cpu,
       med.med_run_c::float8 AS med_run_time_cpu, med.med_que_c::float8 AS med_que_time_cpu,
       (SELECT count(*) FROM c WHERE state = 'COMPLETED')::float8 / (SELECT count(*) FROM c) AS complete_rate_cpu,
       (SELECT count(*) FROM c WHERE state = 'CANCELLED')::float8 / (SELECT count(*) FROM c) AS cancel_rate_cpu
  FROM med, t;
ALTER TABLE plain_summary
  ADD COLUMN fail_rate_gpu float8, ADD COLUMN fail_gpu_time float8, ADD COLUMN fail_rate_cpu float8;
UPDATE plain_summary SET fail_rate_gpu = 1 - cancel_rate_gpu - complete_rate_gpu,
                         fail_gpu_time = all_t - complete_gpu_time - cancel_gpu_time,
                         fail_rate_cpu = 1 - cancel_rate_cpu - complete_rate_cpu;
-- numpy rounding written out: rint(x * 1000) / 1000, rint being round(float8)
CREATE FUNCTION pg_temp.r3(x float8) RETURNS float8 LANGUAGE sql AS $$ SELECT round(x * 1000) / 1000 $$;
-- Every column, to the last digit, as published (3 decimals) ...
SELECT s.job_num = p.job_num AS job_num, s.cpu_job_num = p.cpu_job_num AS cpu_job_num,
       s.gpu_job_num = p.gpu_job_num AS gpu_job_num,
       s.avg_run_time_gpu = pg_temp.r3(p.avg_run_time_gpu) AS avg_run_time_gpu,
       s.avg_que_time_gpu = pg_temp.r3(p.avg_que_time_gpu) AS avg_que_time_gpu,
       s.avg_gpu_num = pg_temp.r3(p.avg_gpu_num) AS avg_gpu_num,
       s.med_run_time_gpu = pg_temp.r3(p.med_run_time_gpu) AS med_run_time_gpu,
       s.med_que_time_gpu = pg_temp.r3(p.med_que_time_gpu) AS med_que_time_gpu,
       s.med_gpu_num = pg_temp.r3(p.med_gpu_num) AS med_gpu_num,
       s.max_run_time_gpu = pg_temp.r3(p.max_run_time_gpu) AS max_run_time_gpu, s.max_gpu = p.max_gpu AS max_gpu,
       s.complete_rate_gpu = pg_temp.r3(p.complete_rate_gpu) AS complete_rate_gpu,
       s.cancel_rate_gpu = pg_temp.r3(p.cancel_rate_gpu) AS cancel_rate_gpu,
       s.fail_rate_gpu = pg_temp.r3(p.fail_rate_gpu) AS fail_rate_gpu,
       s.complete_gpu_time = pg_temp.r3(p.complete_gpu_time) AS complete_gpu_time,
       s.cancel_gpu_time = pg_temp.r3(p.cancel_gpu_time) AS cancel_gpu_time,
       s.fail_gpu_time = pg_temp.r3(p.fail_gpu_time) AS fail_gpu_time,
       s.complete_rate_gpu_time = pg_temp.r3(p.complete_gpu_time / p.all_t) AS complete_rate_gpu_time,
       s.cancel_rate_gpu_time = pg_temp.r3(p.cancel_gpu_time / p.all_t) AS cancel_rate_gpu_time,
       s.fail_rate_gpu_time = pg_temp.r3(p.fail_gpu_time / p.all_t) AS fail_rate_gpu_time,
       s.avg_run_time_cpu = pg_temp.r3(p.avg_run_time_cpu) AS avg_run_time_cpu,
       s.avg_que_time_cpu = pg_temp.r3(p.avg_que_time_cpu) AS avg_que_time_cpu,
       s.med_run_time_cpu = pg_temp.r3(p.med_run_time_cpu) AS med_run_time_cpu,
       s.med_que_time_cpu = pg_temp.r3(p.med_que_time_cpu) AS med_que_time_cpu,
       s.complete_rate_cpu = pg_temp.r3(p.complete_rate_cpu) AS complete_rate_cpu,
       s.cancel_rate_cpu = pg_temp.r3(p.cancel_rate_cpu) AS cancel_rate_cpu,
       s.fail_rate_cpu = pg_temp.r3(p.fail_rate_cpu) AS fail_rate_cpu
  FROM acmetrace.cluster_summary(digits => 3) s, plain_summary p WHERE s.cluster = 'gen' \gx
-- ... and unrounded, every float column equal to the plain one.
SELECT count(*) AS float_columns, count(*) FILTER (WHERE s.v = p.v) AS equal
  FROM (SELECT (jsonb_each(to_jsonb(x) - 'cluster' - 'job_num' - 'cpu_job_num' - 'gpu_job_num')).* FROM acmetrace.cluster_summary(NULL, NULL) x WHERE x.cluster = 'gen') s(k, v)
  JOIN (SELECT (jsonb_each(to_jsonb(y) - 'all_t' - 'job_num' - 'cpu_job_num' - 'gpu_job_num'
                || jsonb_build_object('complete_rate_gpu_time', y.complete_gpu_time / y.all_t,
                                      'cancel_rate_gpu_time', y.cancel_gpu_time / y.all_t,
                                      'fail_rate_gpu_time', y.fail_gpu_time / y.all_t))).* FROM plain_summary y) p(k, v)
    ON p.k = s.k;
-- The crafted rows are where they belong: TIMEOUT and NODE_FAIL fail,
-- x4 is in job_num only.
SELECT job_num - cpu_job_num - gpu_job_num AS neither, cpu_job_num, gpu_job_num FROM acmetrace.cluster_summary() WHERE cluster = 'gen';

-- Final states per type (and of every type: 'all'), against a plain GROUP
-- BY with window shares; GPU time in GPU-hours, 2 decimals.
SELECT count(*) AS rows, count(*) FILTER (WHERE a.jobs = b.n AND a.gpu_h = round(b.t / 3600, 2)
                                          AND a.job_pct = round(100.0 * b.n / b.type_n, 2)
                                          AND a.gpu_h_pct = round(100 * b.t / b.type_t, 2)) AS equal
  FROM acmetrace.state_by_type('gen') a
  FULL JOIN (SELECT CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, st,
                    count(*) AS n, sum(duration * gpu_num) AS t,
                    sum(count(*)) OVER (PARTITION BY grouping(type), type) AS type_n,
                    sum(sum(duration * gpu_num)) OVER (PARTITION BY grouping(type), type) AS type_t
               FROM (SELECT *, CASE WHEN state IN ('TIMEOUT', 'NODE_FAIL') THEN 'FAILED' ELSE state END AS st
                       FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0) j
              GROUP BY GROUPING SETS ((st), (type, st))) b ON a.type = b.type AND a.final_state = b.st;
SELECT type, final_state, jobs, gpu_h, job_pct
  FROM acmetrace.state_by_type('kalos');
-- percents add up to 100 within each type, up to their rounding
SELECT type, abs(sum(job_pct) - 100) <= 0.005 * count(*) AS jobs, abs(sum(gpu_h_pct) - 100) <= 0.005 * count(*) AS gpu_h
  FROM acmetrace.state_by_type('gen') GROUP BY type ORDER BY type;

-- Type distribution, against plain shares of the cluster.
SELECT count(*) AS rows, count(*) FILTER (WHERE a.jobs = b.n AND a.gpu_h = round(b.t / 3600, 2)
                                          AND a.job_pct = round(100.0 * b.n / (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0), 2)
                                          AND a.gpu_h_pct = round(100 * b.t / (SELECT sum(duration * gpu_num) FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0), 2)) AS equal
  FROM acmetrace.type_distribution('gen') a
  FULL JOIN (SELECT CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, count(*) AS n, sum(duration * gpu_num) AS t
               FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0 GROUP BY GROUPING SETS ((), (type))) b ON a.type = b.type;
SELECT cluster, type, jobs, job_pct, gpu_h, gpu_h_pct
  FROM acmetrace.type_distribution() WHERE cluster <> 'gen';

-- Box plot: quartiles by numpy's linear rule over a sorted array
-- (h = (n-1) p; a[floor h] + frac(h) (a[floor h + 1] - a[floor h])), whiskers by filtering it.
CREATE FUNCTION pg_temp.q(a int[], p float8) RETURNS float8 LANGUAGE sql AS $$
    SELECT a[floor(h)::int + 1] + (h - floor(h)) * (coalesce(a[floor(h)::int + 2], a[floor(h)::int + 1]) - a[floor(h)::int + 1])
      FROM (SELECT (cardinality(a) - 1) * p AS h) s $$;
WITH s AS (SELECT CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, array_agg(gpu_num ORDER BY gpu_num) AS a
             FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0 GROUP BY GROUPING SETS ((), (type))),
     p AS (SELECT type, a, pg_temp.q(a, 0.25) AS q1, pg_temp.q(a, 0.5) AS q2, pg_temp.q(a, 0.75) AS q3 FROM s),
     w AS (SELECT type, a, q1, q2, q3,
                  (SELECT min(v) FROM unnest(a) v WHERE v >= q1 - 1.5 * (q3 - q1)) AS lw,
                  (SELECT max(v) FROM unnest(a) v WHERE v <= q3 + 1.5 * (q3 - q1)) AS uw FROM p)
SELECT count(*) AS types,
       count(*) FILTER (WHERE b.jobs = cardinality(w.a) AND b.min = w.a[1] AND b.max = w.a[cardinality(w.a)]
                          AND b.q1 = round(w.q1::numeric, 2) AND b.median = round(w.q2::numeric, 2) AND b.q3 = round(w.q3::numeric, 2)
                          AND b.lower_whisker = w.lw AND b.upper_whisker = w.uw
                          AND b.outliers = (SELECT count(*) FROM unnest(w.a) v WHERE v < w.lw OR v > w.uw)) AS equal
  FROM w FULL JOIN acmetrace.gpu_num_boxplot('gen') b ON b.type = w.type;
-- A small case by hand: 1, 2, 3, 4, 100 -> q1 2, median 3, q3 4, fences -1 and 7.
SET acmetrace.cluster = 'box';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, type, state, duration) VALUES
  ('a', 1, 'T', 'COMPLETED', 1), ('b', 2, 'T', 'COMPLETED', 1), ('c', 3, 'T', 'COMPLETED', 1),
  ('d', 4, 'T', 'COMPLETED', 1), ('e', 100, 'T', 'COMPLETED', 1), ('f', 0, 'T', 'COMPLETED', 1);
RESET acmetrace.cluster;
SELECT * FROM acmetrace.gpu_num_boxplot('box');
SELECT cluster, type, jobs, q1, median, q3 FROM acmetrace.gpu_num_boxplot('helios');

-- Cancelled Eval jobs by queueing delay (start - submit): 15 bins of 20 s,
-- then >= 300 s; against width_bucket.
SELECT count(*) AS bins,
       count(*) FILTER (WHERE a.jobs = coalesce(b.n, 0) AND a.cancelled = coalesce(b.c, 0)) AS equal,
       sum(a.jobs) = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'gen' AND type = 'Eval' AND gpu_num > 0 AND wait_s >= 0) AS all_jobs_binned
  FROM acmetrace.cancelled_by_queue('gen') a
  LEFT JOIN (SELECT width_bucket(wait_s, 0, 300, 15) AS bin, count(*) AS n,
                    count(*) FILTER (WHERE state = 'CANCELLED') AS c
               FROM acmetrace.jobs WHERE cluster = 'gen' AND type = 'Eval' AND gpu_num > 0 AND wait_s >= 0
              GROUP BY 1) b ON b.bin = a.bin;
SET acmetrace.cluster = 'q';
-- (waits in seconds; i never started; j started before its submission)
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, type, state, submit_time, start_time)
SELECT id, g, t, st, '2023-03-01 00:00+08', '2023-03-01 00:00+08'::timestamptz + w * interval '1 second'
  FROM (VALUES ('a', 1, 'Eval', 'CANCELLED', 0), ('b', 1, 'Eval', 'COMPLETED', 19.5), ('c', 1, 'Eval', 'CANCELLED', 20),
               ('d', 1, 'Eval', 'CANCELLED', 299), ('e', 1, 'Eval', 'COMPLETED', 300), ('f', 1, 'Eval', 'CANCELLED', 1e6),
               ('g', 1, 'Pretrain', 'CANCELLED', 5), ('h', 0, 'Eval', 'CANCELLED', 5), ('i', 1, 'Eval', 'CANCELLED', NULL),
               ('j', 1, 'Eval', 'CANCELLED', -5)) v(id, g, t, st, w);
RESET acmetrace.cluster;
SELECT * FROM acmetrace.cancelled_by_queue('q') WHERE jobs > 0 OR bin IN (3, 16);
SELECT bin, queue_from_s, queue_to_s, jobs, cancelled FROM acmetrace.cancelled_by_queue('q', NULL, 100, 250);
-- all_jobs adds the CPU job h
SELECT bin, jobs, cancelled FROM acmetrace.cancelled_by_queue('q', 'Eval', 20, 300, all_jobs => true) WHERE bin = 1;
SELECT * FROM acmetrace.cancelled_by_queue('q', 'Eval', 0, 300);
SELECT * FROM acmetrace.cancelled_by_queue('q', 'Eval', 20, 10);
SELECT * FROM acmetrace.cancelled_by_queue('q', 'Eval', 'NaN', 300);
SELECT * FROM acmetrace.cancelled_by_queue('q', 'Eval', 0.001, 300);
-- a cluster that is not loaded is an error, as in every analysis
SELECT count(*) FROM acmetrace.cancelled_by_queue('nope');

-- GPU time lost per type (and of every type: 'all') and per week, against
-- plain sums; GPU-hours with 2 decimals, percents of the exact GPU time.
SELECT count(*) AS types,
       count(*) FILTER (WHERE a.gpu_h = round(b.t / 3600, 2) AND a.failed_gpu_h = round(b.f / 3600, 2)
                          AND a.cancelled_gpu_h = round(b.c / 3600, 2)
                          AND a.failed_gpu_h_pct = round(100 * b.f / b.t, 2) AND a.cancelled_gpu_h_pct = round(100 * b.c / b.t, 2)) AS equal
  FROM acmetrace.gpu_time_lost('gen') a
  FULL JOIN (SELECT CASE WHEN grouping(type) = 0 THEN type ELSE 'all' END AS type, sum(duration * gpu_num) AS t,
                    coalesce(sum(duration * gpu_num) FILTER (WHERE state IN ('FAILED', 'TIMEOUT', 'NODE_FAIL')), 0) AS f,
                    coalesce(sum(duration * gpu_num) FILTER (WHERE state = 'CANCELLED'), 0) AS c
               FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0 GROUP BY GROUPING SETS ((), (type))) b ON a.type = b.type;
SELECT type, jobs, gpu_h, failed_gpu_h, cancelled_gpu_h, failed_gpu_h_pct, cancelled_gpu_h_pct
  FROM acmetrace.gpu_time_lost('seren');
-- Weeks: the local date minus its ISO weekday, in the cluster's zone.
SELECT count(*) AS weeks,
       count(*) FILTER (WHERE a.gpu_h = round(b.t / 3600, 2) AND a.failed_gpu_h = round(b.f / 3600, 2)
                          AND a.cancelled_gpu_h = round(b.c / 3600, 2)) AS equal,
       abs(sum(a.gpu_h) - (SELECT sum(duration * gpu_num) FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0 AND end_time IS NOT NULL) / 3600)
         <= 0.005 * count(*) AS all_time
  FROM acmetrace.gpu_time_lost_weekly('gen') a
  FULL JOIN (SELECT d - (extract(isodow FROM d)::int - 1) AS wk, sum(duration * gpu_num) AS t,
                    coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'FAILED'), 0) AS f,
                    coalesce(sum(duration * gpu_num) FILTER (WHERE final_state = 'CANCELLED'), 0) AS c
               FROM (SELECT (end_time AT TIME ZONE (SELECT time_zone FROM acmetrace.clusters WHERE cluster = 'gen'))::date AS d, *
                       FROM acmetrace.jobs WHERE cluster = 'gen' AND gpu_num > 0 AND end_time IS NOT NULL) j
              GROUP BY 1) b ON a.week = b.wk;
-- A Seren job ending Monday 2023-03-06 00:30 +08:00 is Sunday in UTC: it
-- belongs to the week of 03-06 in Seren's zone.
SET acmetrace.cluster = 'seren';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, type, state, start_time, end_time, duration) VALUES
  ('w1', 2, 'Eval', 'FAILED', '2023-03-06 00:00+08', '2023-03-06 00:30+08', 1800);
RESET acmetrace.cluster;
SELECT week, gpu_h, failed_gpu_h, cancelled_gpu_h, partial FROM acmetrace.gpu_time_lost_weekly('seren');
-- partial: the weeks the trace (first to last submission) does not cover whole
SELECT count(*) AS weeks, count(*) FILTER (WHERE partial) AS partial_weeks,
       bool_and(partial = ((week::timestamp AT TIME ZONE (SELECT time_zone FROM acmetrace.clusters WHERE cluster = 'gen')) < (SELECT min(submit_time) FROM acmetrace.jobs WHERE cluster = 'gen')
                           OR ((week + 7)::timestamp AT TIME ZONE (SELECT time_zone FROM acmetrace.clusters WHERE cluster = 'gen')) > (SELECT max(submit_time) FROM acmetrace.jobs WHERE cluster = 'gen'))) AS as_defined,
       (array_agg(partial ORDER BY week))[1] AS first_partial, (array_agg(partial ORDER BY week DESC))[1] AS last_partial
  FROM acmetrace.gpu_time_lost_weekly('gen');

-- Failure taxonomy on crafted classifications, by hand:
--  f1 16 GPUs 600 s, f2 8 GPUs 1200 s: NVLink, 2 jobs, 12 GPUs, 900 s, 9600 + 9600 = 19200 (5.33 GPU-hours)
--  f3 1 GPU 60 s: Script/FileNotFoundError, 60
--  f4 2 GPUs 300 s FAILED unclassified: 600; c1 CANCELLED unclassified: not counted
--  share of 19200 + 60 + 600 = 19860
SET acmetrace.cluster = 'fail';
INSERT INTO acmetrace.trace_seren (job_id, gpu_num, type, state, duration) VALUES
  ('f1', 16, 'Pretrain', 'FAILED', 600), ('f2', 8, 'Pretrain', 'NODE_FAIL', 1200),
  ('f3', 1, 'Debug', 'FAILED', 60), ('f4', 2, 'Eval', 'TIMEOUT', 300), ('c1', 8, 'Eval', 'CANCELLED', 999);
RESET acmetrace.cluster;
INSERT INTO acmetrace.failure_reasons VALUES
  ('fail', 'f1', 'Infrastructure', 'NVLink error'), ('fail', 'f2', 'Infrastructure', 'NVLink error'),
  ('fail', 'f3', 'Script', 'FileNotFoundError');
SELECT category, reason, jobs, mean_gpus, mean_run_s, gpu_h, gpu_h_pct
  FROM acmetrace.failure_taxonomy('fail');
SELECT sum(gpu_h_pct) AS total_percent FROM acmetrace.failure_taxonomy('fail');
-- a classification for a job that is not loaded is refused
\set VERBOSITY sqlstate
INSERT INTO acmetrace.failure_reasons VALUES ('fail', 'nope', 'Script', 'typo');
\set VERBOSITY default
-- dropping the cluster drops its classifications
SELECT acmetrace.drop_cluster('fail') AS dropped;
SELECT count(*) AS reasons_left FROM acmetrace.failure_reasons;

-- The dashboard views: each is its function over every cluster, and every
-- view and column carries a comment.
SELECT (SELECT count(*) FROM acmetrace.v_cluster_summary) = (SELECT count(*) FROM acmetrace.clusters) AS summary,
       (SELECT count(*) FROM acmetrace.v_state_by_type) = (SELECT count(*) FROM acmetrace.state_by_type()) AS by_type,
       (SELECT count(*) FROM acmetrace.v_cancelled_by_queue_eval) = 16 * (SELECT count(DISTINCT cluster) FROM acmetrace.jobs WHERE type = 'Eval' AND gpu_num > 0 AND wait_s >= 0) AS eval_bins,
       (SELECT count(DISTINCT cluster) FROM acmetrace.v_queue_by_occupancy)
         = (SELECT count(DISTINCT cluster) FROM acmetrace.jobs WHERE gpu_num > 0 AND wait_s >= 0 AND submit_time IS NOT NULL) AS occupancy,
       (SELECT count(*) FROM acmetrace.v_queue_by_occupancy WHERE cluster = 'gen')
         = (SELECT count(*) FROM acmetrace.queue_by_occupancy('gen')) AS occupancy_gen;
SELECT c.relname AS view, obj_description(c.oid, 'pg_class') IS NOT NULL AS commented,
       count(*) AS columns, count(col_description(c.oid, a.attnum)) AS columns_commented
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v' AND c.relname LIKE 'v\_%'
 GROUP BY c.oid, c.relname ORDER BY 1;
SELECT col_description('acmetrace.v_cluster_summary'::regclass, 15) AS fail_rate_gpu;
-- Views read the tables with the reader's privileges, not the owner's.
SELECT count(*) AS views_not_security_invoker
  FROM pg_class c
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v'
   AND NOT coalesce(c.reloptions @> '{security_invoker=true}', false);
CREATE ROLE acmetrace_dashboard;
GRANT USAGE ON SCHEMA acmetrace TO acmetrace_dashboard;
GRANT SELECT ON acmetrace.v_state_breakdown, acmetrace.v_queue_by_occupancy TO acmetrace_dashboard;
SET ROLE acmetrace_dashboard;
\set VERBOSITY sqlstate
SELECT count(*) FROM acmetrace.v_state_breakdown;
SELECT count(*) FROM acmetrace.v_queue_by_occupancy;
\set VERBOSITY default
RESET ROLE;
GRANT SELECT ON acmetrace.jobs, acmetrace.clusters TO acmetrace_dashboard;
SELECT acmetrace.grant_cluster('*', 'acmetrace_dashboard');
SET ROLE acmetrace_dashboard;
SELECT count(*) > 0 AS readable_with_grants FROM acmetrace.v_state_breakdown;
RESET ROLE;
REVOKE ALL ON acmetrace.jobs, acmetrace.clusters, acmetrace.v_state_breakdown, acmetrace.v_queue_by_occupancy FROM acmetrace_dashboard;
REVOKE ALL ON SCHEMA acmetrace FROM acmetrace_dashboard;
SELECT acmetrace.revoke_cluster('*', 'acmetrace_dashboard');
DROP ROLE acmetrace_dashboard;

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
