-- acmetrace.job_utilization: how busy each job's GPUs were, its GPUs found
-- by job label, placement (acmetrace.job_gpus) or Slurm NodeList, checked
-- against a plain join over the decoded view acmetrace.utilization; the
-- NodeList expansion; NULL and hostile arguments.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- ---- Slurm host lists
SELECT acmetrace_internal.hostlist_expand('node[01-04,07]') AS range,
       acmetrace_internal.hostlist_expand('a,b') AS plain,
       acmetrace_internal.hostlist_expand('prefix[1-3]suffix') AS suffix,
       acmetrace_internal.hostlist_expand('n[8-10],m[008-010]') AS padding,
       acmetrace_internal.hostlist_expand('rack[1-2]n[1,3]') AS groups;
SELECT acmetrace_internal.hostlist_expand('') AS empty, acmetrace_internal.hostlist_expand(NULL) IS NULL AS null_is_null,
       cardinality(acmetrace_internal.hostlist_expand('n[1-100000]')) AS at_limit;
SELECT acmetrace_internal.hostlist_expand('n[1-3');
SELECT acmetrace_internal.hostlist_expand('n[3-1]');
SELECT acmetrace_internal.hostlist_expand('a,,b');
SELECT acmetrace_internal.hostlist_expand('n[1-2]x]');
SELECT acmetrace_internal.hostlist_expand('n[a-b]');
SELECT acmetrace_internal.hostlist_expand('a b');
SELECT acmetrace_internal.hostlist_expand('n[1-[2]]');
SELECT acmetrace_internal.hostlist_expand(repeat('n', 300));
SELECT acmetrace_internal.hostlist_expand('n[1-100000],m');
SELECT acmetrace_internal.hostlist_expand('n[1-999999999999999999][1-999999999999999999]');
SELECT acmetrace_internal.hostlist_expand(repeat('bad[', 100));

-- ---- a cluster: 9 GPUs on 5 hosts sampled every minute from 22:00 to
-- 02:00 UTC (two UTC days, so two blocks a series); values k/2, 0 to 50,
-- so 0, 0.5 and 1 occur (the idle boundary).  SM_ACTIVE for three of them.
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone) VALUES ('jobu', 'slurm', 9, 'UTC');
CREATE TEMP TABLE gen AS
SELECT m.metric, s.series, timestamptz '2023-07-01 22:00+00' + i * interval '1 minute' AS ts,
       ((i * 37 + s.k * 11 + m.shift) % 101) / 2.0::float8 AS value
  FROM (VALUES ('n01-gpu0', 1), ('n01-gpu1', 2), ('n02-gpu0', 3), ('n02-gpu1', 4), ('n03-gpu0', 5),
               ('n03-gpu1', 6), ('n04-gpu0', 7), ('n04-gpu1', 8), ('x-gpu0', 9)) s(series, k),
       (VALUES ('GPU_UTIL', 0), ('SM_ACTIVE', 13)) m(metric, shift),
       generate_series(0, 240) i
 WHERE m.metric = 'GPU_UTIL' OR s.series IN ('n01-gpu0', 'n01-gpu1', 'x-gpu0');
INSERT INTO acmetrace.utilization_blocks (metric, cluster, day, series, n, min, max, sum, first_ts, last_ts, samples)
SELECT metric, 'jobu', (ts AT TIME ZONE 'UTC')::date, series, count(*), min(value), max(value), sum(value::numeric),
       min(ts), max(ts), acmetrace.samples_agg(ts, value)
  FROM gen GROUP BY 1, 3, 4;
SELECT metric, day, count(*) AS blocks, sum(n) AS samples FROM acmetrace.utilization_blocks
 WHERE cluster = 'jobu' GROUP BY 1, 2 ORDER BY 1, 2;

-- Jobs.  Times are UTC; every GPU job but the CPU one has 1 to 4 GPUs.
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time) VALUES
    ('jobu', 'label', 'Pretrain', 'COMPLETED', 2, '2023-07-01 22:00+00', '2023-07-01 22:30+00', '2023-07-02 01:00+00'),
    ('jobu', 'place', 'Eval', 'COMPLETED', 1, '2023-07-01 23:00+00', '2023-07-01 23:00:30+00', '2023-07-01 23:30+00'),
    ('jobu', 'nodes', 'SFT', 'FAILED', 4, '2023-07-01 23:00+00', '2023-07-01 23:50+00', '2023-07-02 00:10+00'),
    ('jobu', 'part_nodes', 'SFT', 'COMPLETED', 2, '2023-07-01 23:00+00', '2023-07-01 23:50+00', '2023-07-02 00:10+00'),
    ('jobu', 'running', 'Eval', 'RUNNING', 1, '2023-07-02 01:00+00', '2023-07-02 01:30+00', NULL),
    ('jobu', 'outside', 'Debug', 'COMPLETED', 2, '2023-07-01 20:00+00', '2023-07-01 21:00+00', '2023-07-01 22:05+00'),
    ('jobu', 'cpu', 'Other', 'COMPLETED', 0, '2023-07-01 22:00+00', '2023-07-01 22:10+00', '2023-07-01 23:00+00'),
    ('jobu', 'pending', 'Eval', 'PENDING', 1, '2023-07-02 01:00+00', NULL, NULL),
    ('jobu', 'unstarted_label', 'Eval', 'RUNNING', 1, '2023-07-02 01:00+00', NULL, NULL),
    ('jobu', 'nosamples', 'Eval', 'COMPLETED', 1, '2023-07-01 22:00+00', '2023-07-01 22:10+00', '2023-07-01 23:00+00'),
    ('jobu', 'before', 'Eval', 'COMPLETED', 1, '2023-06-30 22:00+00', '2023-06-30 22:10+00', '2023-06-30 23:00+00'),
    ('jobu', 'nodes_running', 'MLLM', 'RUNNING', 2, '2023-07-02 01:00+00', '2023-07-02 01:55+00', NULL);
-- The label spans (the loader writes them; inserted here): 'label' on both
-- GPUs of n01, each span cut by the job's start or end; 'unstarted_label'
-- has no start_time, so its span alone bounds it.
INSERT INTO acmetrace.utilization_jobs (metric, cluster, series, job_id, first_ts, last_ts) VALUES
    ('GPU_UTIL', 'jobu', 'n01-gpu0', 'label', '2023-07-01 22:20+00', '2023-07-02 00:40+00'),
    ('GPU_UTIL', 'jobu', 'n01-gpu1', 'label', '2023-07-01 22:40+00', '2023-07-02 01:30+00'),
    ('GPU_UTIL', 'jobu', 'x-gpu0', 'unstarted_label', '2023-07-02 01:00+00', '2023-07-02 01:10+00');
-- Placements: 'label' has one too (the label wins), 'cpu' is no GPU job.
INSERT INTO acmetrace.job_gpus (cluster, job_id, series) VALUES
    ('jobu', 'label', '{x-gpu0}'),
    ('jobu', 'place', '{x-gpu0,x-gpu0}'),
    ('jobu', 'running', '{x-gpu0}'),
    ('jobu', 'outside', '{n04-gpu0,n04-gpu1}'),
    ('jobu', 'cpu', '{n01-gpu0}'),
    ('jobu', 'pending', '{x-gpu0}'),
    ('jobu', 'nosamples', '{nosuch-gpu0}'),
    ('jobu', 'before', '{x-gpu0}');
-- NodeLists: 'nodes' holds all 4 GPUs of n02 and n03; 'part_nodes' 2 of the
-- 4 of n04 and n02 (not used); 'place' and 'label' are matched before.
INSERT INTO acmetrace.slurm_jobs (cluster, job_id, slurm_cluster, slurm_job_id, nodelist) VALUES
    ('jobu', 'nodes', 'jobu', '1', 'n[02-03]'),
    ('jobu', 'part_nodes', 'jobu', '2', 'n04,n02'),
    ('jobu', 'place', 'jobu', '3', 'n03'),
    ('jobu', 'label', 'jobu', '4', 'n[01-04]'),
    ('jobu', 'nodes_running', 'jobu', '5', 'n03,n03');

SELECT * FROM acmetrace.job_utilization('jobu');

-- The same from the decoded samples, one plain join: windows from the
-- tables (the NodeLists' hosts written out by hand), samples from
-- acmetrace.utilization.
CREATE FUNCTION pg_temp.reference(metric text, idle double precision)
RETURNS TABLE (cluster text, job_id text, type text, gpu_num integer, matched_by text, series integer,
               samples bigint, mean double precision, median double precision, idle_pct numeric)
LANGUAGE sql AS $$
WITH hosts (nodelist, host) AS (
    VALUES ('n[02-03]', 'n02'), ('n[02-03]', 'n03'), ('n04,n02', 'n04'), ('n04,n02', 'n02'), ('n03', 'n03'),
           ('n[01-04]', 'n01'), ('n[01-04]', 'n02'), ('n[01-04]', 'n03'), ('n[01-04]', 'n04'), ('n03,n03', 'n03')
),
labelled AS (SELECT DISTINCT u.cluster, u.job_id FROM acmetrace.utilization_jobs u WHERE u.metric = upper(reference.metric)),
node_series AS (
    SELECT j.cluster, j.job_id, j.gpu_num, s.series
      FROM acmetrace.jobs j JOIN acmetrace.slurm_jobs sj USING (cluster, job_id) JOIN hosts h ON h.nodelist = sj.nodelist
      JOIN (SELECT DISTINCT u.cluster, u.series FROM acmetrace.utilization u WHERE u.metric = upper(reference.metric)) s
        ON s.cluster = j.cluster AND s.series ~ ('^' || h.host || '-gpu[0-9]+$')
     WHERE j.gpu_num > 0 AND j.start_time IS NOT NULL
       AND (j.cluster, j.job_id) NOT IN (SELECT * FROM labelled)
       AND (j.cluster, j.job_id) NOT IN (SELECT g.cluster, g.job_id FROM acmetrace.job_gpus g)
),
w AS (
    SELECT j.cluster, j.job_id, 'label' AS matched_by, u.series, greatest(u.first_ts, j.start_time) AS lo,
           least(u.last_ts, j.end_time) AS hi, true AS hi_in
      FROM acmetrace.utilization_jobs u JOIN acmetrace.jobs j USING (cluster, job_id)
     WHERE u.metric = upper(reference.metric) AND j.gpu_num > 0
    UNION ALL
    SELECT j.cluster, j.job_id, 'placement', s, j.start_time, j.end_time, false
      FROM acmetrace.job_gpus g JOIN acmetrace.jobs j USING (cluster, job_id), unnest(g.series) s
     WHERE j.gpu_num > 0 AND j.start_time IS NOT NULL AND (j.cluster, j.job_id) NOT IN (SELECT * FROM labelled)
    UNION ALL
    SELECT n.cluster, n.job_id, 'nodes', n.series, j.start_time, j.end_time, false
      FROM (SELECT DISTINCT * FROM node_series) n JOIN acmetrace.jobs j USING (cluster, job_id)
     WHERE n.gpu_num = (SELECT count(DISTINCT m.series) FROM node_series m WHERE m.cluster = n.cluster AND m.job_id = n.job_id)
),
v AS (
    SELECT DISTINCT w.cluster, w.job_id, w.matched_by, u.series, u.ts, u.value
      FROM w JOIN acmetrace.utilization u
        ON u.metric = upper(reference.metric) AND u.cluster = w.cluster AND u.series = w.series
     WHERE u.ts >= w.lo AND (w.hi IS NULL OR u.ts < w.hi OR (w.hi_in AND u.ts = w.hi))
)
SELECT v.cluster, v.job_id, j.type, j.gpu_num, v.matched_by, count(DISTINCT v.series)::int, count(*),
       (sum(v.value::numeric) / count(*))::float8, percentile_cont(0.5) WITHIN GROUP (ORDER BY v.value),
       round(100.0 * count(*) FILTER (WHERE v.value <= idle) / count(*), 2)
  FROM v JOIN acmetrace.jobs j USING (cluster, job_id)
 GROUP BY 1, 2, 3, 4, 5
$$;
-- EXCEPT both ways: 0 rows, for each idle threshold (1 is a stored value)
-- and both metrics (SM_ACTIVE has no labels: 'label' falls back to its
-- placement).
SELECT m AS metric, idle,
       (SELECT count(*) FROM (SELECT * FROM acmetrace.job_utilization('jobu', m, idle)
                              EXCEPT ALL SELECT * FROM pg_temp.reference(m, idle)) d) AS only_function,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.reference(m, idle)
                              EXCEPT ALL SELECT * FROM acmetrace.job_utilization('jobu', m, idle)) d) AS only_reference,
       (SELECT string_agg(DISTINCT r.matched_by, ',') FROM pg_temp.reference(m, idle) r) AS kinds
  FROM unnest(ARRAY['GPU_UTIL', 'SM_ACTIVE']) m, unnest(ARRAY[0, 0.5, 1, 1.25, 50]::float8[]) idle
 ORDER BY 1, 2;
SELECT * FROM acmetrace.job_utilization('jobu', 'sm_active');

-- By hand: 'place' reads 23:01 .. 23:29 (its start is mid-minute, its end
-- excluded); 'running' 01:30 .. 02:00, the last sample; 'outside' 22:00 ..
-- 22:04 of both GPUs; 'label' n01-gpu0 22:30 .. 00:40 and n01-gpu1 22:40
-- .. 01:00, ends included; 'nodes' 23:50 .. 00:09 on 4 GPUs.
SELECT job_id, samples, samples = expected AS ok
  FROM acmetrace.job_utilization('jobu') JOIN (VALUES ('place', 29), ('running', 31), ('outside', 10),
                                                       ('label', 131 + 141), ('nodes', 4 * 20),
                                                       ('unstarted_label', 11), ('nodes_running', 12)) e(job_id, expected)
 USING (job_id) ORDER BY job_id;
-- idle_pct at the boundary: a sample equal to idle_at_most is idle.  The
-- 'label' job's window holds samples of 0, 0.5 and 1.
SELECT (SELECT idle_pct FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 1) WHERE job_id = 'label') AS at_1,
       (SELECT idle_pct FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 0.9999999) WHERE job_id = 'label') AS below_1,
       (SELECT idle_pct FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 0.5) WHERE job_id = 'label') AS at_half,
       (SELECT idle_pct FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 0) WHERE job_id = 'label') AS at_0,
       (SELECT string_agg(value || ' x' || n, ', ' ORDER BY value)
          FROM (SELECT value, count(*) AS n FROM gen
                 WHERE metric = 'GPU_UTIL' AND value <= 1
                   AND ((series = 'n01-gpu0' AND ts BETWEEN '2023-07-01 22:30+00' AND '2023-07-02 00:40+00')
                     OR (series = 'n01-gpu1' AND ts BETWEEN '2023-07-01 22:40+00' AND '2023-07-02 01:00+00'))
                 GROUP BY value) c) AS idle_samples;
-- The view is the function over every cluster with the defaults.
SELECT (SELECT count(*) FROM (SELECT * FROM acmetrace.v_job_utilization EXCEPT ALL
                              SELECT * FROM acmetrace.job_utilization(NULL)) d) +
       (SELECT count(*) FROM (SELECT * FROM acmetrace.job_utilization(NULL) EXCEPT ALL
                              SELECT * FROM acmetrace.v_job_utilization) d) AS view_differs,
       (SELECT count(*) FROM acmetrace.v_job_utilization) AS view_rows;

-- ---- NULL and hostile arguments
SELECT count(*) AS null_metric_rows FROM acmetrace.job_utilization('jobu', NULL);
SELECT count(*) AS null_idle_rows, count(idle_pct) AS idle_pcts FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', NULL);
SELECT min(idle_pct) AS all_idle_min, max(idle_pct) AS all_idle_max FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 'Infinity');
SELECT max(idle_pct) AS none_idle FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', '-Infinity');
SELECT * FROM acmetrace.job_utilization('jobu', 'GPU_UTIL', 'NaN');
SELECT * FROM acmetrace.job_utilization('nosuch');
SELECT * FROM acmetrace.job_utilization('jobu', 'FB_USED');
SELECT * FROM acmetrace.job_utilization('Jobu');
SELECT count(*) AS no_metric_anywhere FROM acmetrace.job_utilization(NULL, 'FB_USED');
SELECT count(*) AS quoted_metric FROM acmetrace.job_utilization('jobu', 'GPU_UTIL''; DROP TABLE acmetrace.jobs; --');
-- Infinite times (jobs cannot hold them; label spans can): a span from
-- -infinity to infinity of a job without start or end reads every sample
-- of its series, one at infinity none.
CREATE TEMP TABLE before_inf AS SELECT * FROM acmetrace.job_utilization('jobu');
UPDATE acmetrace.utilization_jobs SET first_ts = '-infinity', last_ts = 'infinity' WHERE job_id = 'unstarted_label';
SELECT job_id, samples FROM acmetrace.job_utilization('jobu') WHERE job_id = 'unstarted_label';
UPDATE acmetrace.utilization_jobs SET first_ts = 'infinity', last_ts = 'infinity' WHERE job_id = 'unstarted_label';
SELECT count(*) AS at_infinity FROM acmetrace.job_utilization('jobu') WHERE job_id = 'unstarted_label';
UPDATE acmetrace.utilization_jobs SET first_ts = '2023-07-02 01:00+00', last_ts = '2023-07-02 01:10+00'
 WHERE job_id = 'unstarted_label';
-- The same answer whatever join the planner picks.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) AS differs_under_nested_loops
  FROM ((SELECT * FROM before_inf EXCEPT ALL SELECT * FROM acmetrace.job_utilization('jobu'))
        UNION ALL (SELECT * FROM acmetrace.job_utilization('jobu') EXCEPT ALL SELECT * FROM before_inf)) d;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- A NodeList that is not a host list is an error naming it (sacct never
-- writes one); fixed, the job is matched again.
UPDATE acmetrace.slurm_jobs SET nodelist = 'n[02-' WHERE job_id = 'nodes';
SELECT * FROM acmetrace.job_utilization('jobu');
UPDATE acmetrace.slurm_jobs SET nodelist = 'n[02-03]' WHERE job_id = 'nodes';
SELECT count(*) AS rows_again FROM acmetrace.job_utilization('jobu');

-- ---- acmetrace.job_gpus: its constraints, and rows go with their job
INSERT INTO acmetrace.job_gpus VALUES ('jobu', 'nodes', '{}');
INSERT INTO acmetrace.job_gpus VALUES ('jobu', 'nodes', '{n02-gpu0,NULL}');
INSERT INTO acmetrace.job_gpus VALUES ('jobu', 'nosuch', '{n02-gpu0}');
INSERT INTO acmetrace.job_gpus VALUES ('jobu', 'label', '{n02-gpu0}');
DELETE FROM acmetrace.jobs WHERE cluster = 'jobu' AND job_id = 'place';
SELECT count(*) AS place_rows FROM acmetrace.job_gpus WHERE job_id = 'place';
SELECT acmetrace.drop_cluster('jobu') AS jobs_dropped;
SELECT count(*) AS job_gpus_left FROM acmetrace.job_gpus WHERE cluster = 'jobu';
