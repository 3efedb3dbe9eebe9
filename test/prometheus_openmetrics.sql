-- The GPU metrics of test/e2e/prometheus.sh, as dcgm-exporter would have
-- exported them, in OpenMetrics text for promtool's backfill: 8 nodes (64
-- GPUs) of the cluster running acmetrace.generate_jobs('seren', 20000, 1),
-- two days of it moved in time so that its last sample is at :end_s (Unix
-- seconds, with milliseconds), one sample a minute (every 4th line of
-- acmetrace.generate_util).
--   psql -v cluster=NAME -v end_s=SECONDS -f test/prometheus_openmetrics.sql -o FILE
-- Also, in the current database: the trace's jobs moved by the same amount
-- and loaded as cluster :cluster (through acmetrace.trace_seren, as
-- load_generated does), the moved placement of the jobs on the 8 nodes in
-- public.prom_placement, the chosen GPUs in public.prom_gpus and the
-- samples left out or written as NaN in public.prom_holes.
-- The nodes are the 8 with the most jobs in the window, by name; the first
-- 4 carry dcgm-exporter's hpc_job label (its --hpc-job-mapping-dir) while a
-- job runs on the GPU, the others none.  Values are the generator's text
-- (GPU_UTIL percent, FB_USED MiB), SM_ACTIVE's percent divided by 100
-- exactly, as DCGM's ratio 0..1 (acmetrace-sync stores it times 100 again).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only on
SET TimeZone = 'UTC';
SELECT timestamptz '2023-03-03 00:00+00' AS gen_start \gset
CREATE TABLE public.prom_shift AS
SELECT to_timestamp(:end_s) - (timestamptz :'gen_start' + interval '2 days' - interval '60 s') AS shift;

CREATE TABLE public.prom_placement AS
SELECT job_id, start_time + shift AS start_time, end_time + shift AS end_time, series
  FROM acmetrace.generate_placement('seren', 20000, 1), public.prom_shift
 WHERE start_time < timestamptz :'gen_start' + interval '2 days' AND end_time > :'gen_start';

-- 8 consecutive nodes (their 64 columns adjacent in the generator's lines):
-- those with the most jobs in the window
CREATE TABLE public.prom_gpus AS
WITH per_node AS (
    SELECT i, count(DISTINCT p.job_id) AS jobs
      FROM generate_series(0, 285) i
      LEFT JOIN (SELECT job_id, split_part(s, '-gpu', 1) AS h FROM public.prom_placement, unnest(series) s) p
        ON p.h = '10.140.' || i / 256 || '.' || i % 256
     GROUP BY i),
first AS (
    SELECT i FROM (SELECT i, sum(jobs) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND 7 FOLLOWING) AS jobs
                     FROM per_node) t
     WHERE i <= 278 ORDER BY jobs DESC, i LIMIT 1)
SELECT h AS host, node, g AS gpu, h || '-gpu' || g AS series, node < 4 AS labelled,
       'GPU-' || overlay(overlay(overlay(overlay(left(md5(h || g), 32) placing '-' from 9 for 0)
                 placing '-' from 14 for 0) placing '-' from 19 for 0) placing '-' from 24 for 0) AS uuid
  FROM first, generate_series(0, 7) node,
       LATERAL (SELECT '10.140.' || (first.i + node) / 256 || '.' || (first.i + node) % 256 AS h) n,
       generate_series(0, 7) g;

-- gaps: an hour of one GPU, 20 minutes of another, single samples of a few;
-- three GPU_UTIL samples NaN (dcgm-exporter has none, Prometheus may)
CREATE TABLE public.prom_holes AS
SELECT g.series, t.ts, t.kind
  FROM public.prom_gpus g, public.prom_shift,
       LATERAL (SELECT timestamptz :'gen_start' + interval '1 min' * i + shift AS ts,
                       CASE WHEN g.node = 5 AND g.gpu = 3 AND i BETWEEN 600 AND 659 THEN 'gap'
                            WHEN g.node = 1 AND g.gpu = 2 AND i BETWEEN 1500 AND 1519 THEN 'gap'
                            WHEN (i * 7 + g.node * 8 + g.gpu) % 997 = 0 THEN 'gap'
                            WHEN g.node = 6 AND g.gpu = 0 AND i IN (100, 101, 2000) THEN 'nan' END AS kind
                  FROM generate_series(0, 2879) i) t
 WHERE t.kind IS NOT NULL;

-- the jobs, moved
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone)
VALUES (:'cluster', 'generated', 2288, 'Asia/Shanghai');
SELECT set_config('acmetrace.cluster', :'cluster', false) \g /dev/null
INSERT INTO acmetrace.trace_seren
SELECT job_id, "user", node_num, gpu_num, cpu_num, type, state,
       submit_time + shift, start_time + shift, end_time + shift, duration, queue, gpu_time
  FROM acmetrace.generate_jobs('seren', 20000, 1), public.prom_shift;
RESET acmetrace.cluster;

-- the generator's columns of the chosen GPUs, and each GPU's jobs
CREATE TEMP TABLE cols AS
SELECT g.*, array_position(string_to_array(h.l, ','), g.series) AS pos
  FROM public.prom_gpus g, acmetrace.generate_util('seren', 20000, 1, 'GPU_UTIL', :'gen_start', 0) h(l);
SELECT min(pos) AS p0, max(pos) AS p1, count(*) = max(pos) - min(pos) + 1 AS adjacent FROM cols \gset
\if :adjacent
\else
\warn 'the 64 columns are not adjacent'
\q
\endif
CREATE TEMP TABLE gpu_jobs AS
SELECT g AS series, p.job_id, p.start_time, p.end_time FROM public.prom_placement p, unnest(p.series) g
 WHERE g IN (SELECT series FROM public.prom_gpus WHERE labelled);
CREATE TEMP TABLE raw (dcgm text, ts timestamptz, k bigint, value text);
INSERT INTO raw
SELECT 'DCGM_FI_DEV_GPU_UTIL', u.ts, v.k, v.value
  FROM (SELECT split_part(l, ',', 1)::timestamptz AS ts, (string_to_array(l, ','))[:p0 : :p1] AS vals
          FROM acmetrace.generate_util('seren', 20000, 1, 'GPU_UTIL', :'gen_start', 11520) WITH ORDINALITY u(l, i)
         WHERE (i - 2) % 4 = 0) u,
       unnest(u.vals) WITH ORDINALITY v(value, k);
INSERT INTO raw
SELECT 'DCGM_FI_PROF_SM_ACTIVE', u.ts, v.k, v.value
  FROM (SELECT split_part(l, ',', 1)::timestamptz AS ts, (string_to_array(l, ','))[:p0 : :p1] AS vals
          FROM acmetrace.generate_util('seren', 20000, 1, 'SM_ACTIVE', :'gen_start', 11520) WITH ORDINALITY u(l, i)
         WHERE (i - 2) % 4 = 0) u,
       unnest(u.vals) WITH ORDINALITY v(value, k);
INSERT INTO raw
SELECT 'DCGM_FI_DEV_FB_USED', u.ts, v.k, v.value
  FROM (SELECT split_part(l, ',', 1)::timestamptz AS ts, (string_to_array(l, ','))[:p0 : :p1] AS vals
          FROM acmetrace.generate_util('seren', 20000, 1, 'FB_USED', :'gen_start', 11520) WITH ORDINALITY u(l, i)
         WHERE (i - 2) % 4 = 0) u,
       unnest(u.vals) WITH ORDINALITY v(value, k);
CREATE TEMP TABLE samples AS
SELECT r.dcgm, c.series, c.host, c.gpu, c.uuid, c.labelled, r.ts + s.shift AS ts, r.value
  FROM raw r JOIN cols c ON c.pos = :p0 + r.k - 1, public.prom_shift s;

SELECT '# TYPE ' || dcgm || E' gauge\n' ||
       string_agg(format('%s{Hostname="%s",UUID="%s",device="nvidia%s",gpu="%s",modelName="NVIDIA A100-SXM4-80GB"%s} %s %s',
                         dcgm, host, uuid, gpu, gpu,
                         CASE WHEN j.job_id IS NOT NULL THEN format(',hpc_job="%s"', j.job_id) ELSE '' END,
                         CASE WHEN h.kind = 'nan' AND dcgm = 'DCGM_FI_DEV_GPU_UTIL' THEN 'NaN'
                              WHEN dcgm = 'DCGM_FI_PROF_SM_ACTIVE' THEN trim_scale(value::numeric / 100)::text
                              ELSE value END,
                         round(extract(epoch FROM s.ts), 3)), E'\n' ORDER BY s.series, s.ts)
  FROM samples s
  LEFT JOIN public.prom_holes h USING (series, ts)
  LEFT JOIN gpu_jobs j ON j.series = s.series AND s.ts >= j.start_time AND s.ts < j.end_time
 WHERE h.kind IS DISTINCT FROM 'gap'
 GROUP BY dcgm ORDER BY dcgm;
SELECT '# EOF';
