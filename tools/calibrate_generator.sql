-- Run by tools/calibrate_generator.sh (psql variables: seed, fixture):
-- cluster_summary() of generated Seren and Kalos traces at the published
-- job counts against the fixture's rows, one line per column:
-- cluster|column|published|generated|kind|within tolerance
-- Seren: one trace (seed).  Kalos: the median of five traces (seeds seed to
-- seed + 4): at 62,413 jobs its GPU-time totals and mean GPU count hang on
-- a few of the largest jobs and swing by a third from one seed to the next,
-- so one trace says more about the seed than about the generator.
SET client_min_messages = warning;
CREATE EXTENSION acmetrace;
SELECT acmetrace.load_generated('seren', 'seren', 1031550, :seed) \g /dev/null
SELECT acmetrace.load_generated('kalos_' || k, 'kalos', 62413, :seed + k) FROM generate_series(0, 4) k \g /dev/null
CREATE TEMP TABLE published (id text, job_num float8, cpu_job_num float8, gpu_job_num float8,
  avg_run_time_gpu float8, avg_que_time_gpu float8, avg_gpu_num float8, med_run_time_gpu float8,
  med_que_time_gpu float8, med_gpu_num float8, max_run_time_gpu float8, max_gpu float8,
  complete_rate_gpu float8, cancel_rate_gpu float8, fail_rate_gpu float8, complete_gpu_time float8,
  cancel_gpu_time float8, fail_gpu_time float8, complete_rate_gpu_time float8, cancel_rate_gpu_time float8,
  fail_rate_gpu_time float8, avg_run_time_cpu float8, avg_que_time_cpu float8, med_run_time_cpu float8,
  med_que_time_cpu float8, complete_rate_cpu float8, cancel_rate_cpu float8, fail_rate_cpu float8);
\set copy '\\copy published FROM ' :'fixture' ' (FORMAT csv, HEADER match)'
:copy
-- unrounded (digits NULL), in the columns' order
WITH runs AS (
    SELECT regexp_replace(s.cluster, '_[0-9]+$', '') AS cluster, e.key AS col, e.value::text::float8 AS generated
      FROM acmetrace.cluster_summary(NULL, NULL) s, jsonb_each(to_jsonb(s) - 'cluster') e
), gen AS (
    SELECT cluster, col, percentile_cont(0.5) WITHIN GROUP (ORDER BY generated) AS generated
      FROM runs GROUP BY cluster, col
), pub AS (
    SELECT lower(p.id) AS cluster, e.key AS col, e.value::text::float8 AS published
      FROM published p, jsonb_each(to_jsonb(p) - 'id') e
     WHERE lower(p.id) IN ('seren', 'kalos')
), cols AS (
    SELECT a.attname AS col, a.attnum AS pos FROM pg_attribute a
     WHERE a.attrelid = 'pg_temp.published'::regclass AND a.attnum > 1
), cmp AS (
    SELECT g.cluster, g.col, c.pos, p.published, g.generated,
           CASE WHEN g.col IN ('job_num', 'cpu_job_num', 'gpu_job_num') THEN 'count'
                WHEN g.col LIKE '%rate%' THEN 'rate' ELSE 'value' END AS kind
      FROM gen g JOIN pub p USING (cluster, col) JOIN cols c USING (col)
)
SELECT cluster, col, published, generated, kind,
       CASE kind WHEN 'rate' THEN abs(generated - published) <= 0.03 + 1e-9
                 WHEN 'count' THEN abs(generated - published) <= 0.01 * published
                 ELSE abs(generated - published) <= 0.15 * abs(published) END AS ok
  FROM cmp ORDER BY cluster DESC, pos;
