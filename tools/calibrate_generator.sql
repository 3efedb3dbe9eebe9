-- Run by tools/calibrate_generator.sh (psql variables: seed, fixture):
-- cluster_summary() of generated Seren and Kalos traces at the published
-- job counts against the fixture's rows, one line per column:
-- cluster|column|published|generated|kind|within tolerance
SET client_min_messages = warning;
CREATE EXTENSION acmetrace;
SELECT acmetrace.load_generated('seren', 'seren', 1031550, :seed) \g /dev/null
SELECT acmetrace.load_generated('kalos', 'kalos', 62413, :seed) \g /dev/null
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
WITH gen AS (
    SELECT s.cluster, e.key AS col, e.value::text::float8 AS generated
      FROM acmetrace.cluster_summary(NULL, NULL) s, jsonb_each(to_jsonb(s) - 'cluster') e
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
