-- Run by tools/calibrate_generator.sh (psql variables: first, last, fixture):
-- cluster_summary() of a generated Seren and a generated Kalos trace at the
-- published job counts for every seed from first to last, against the
-- fixture's rows, one line per cluster, seed and column:
-- cluster|seed|column|published|generated|kind|within tolerance
-- Each seed's traces are loaded, summarized and dropped before the next, so
-- the disk holds one seed's traces at a time.
SET client_min_messages = warning;
CREATE EXTENSION acmetrace;
CREATE TEMP TABLE published (id text, job_num float8, cpu_job_num float8, gpu_job_num float8,
  avg_run_time_gpu float8, avg_que_time_gpu float8, avg_gpu_num float8, med_run_time_gpu float8,
  med_que_time_gpu float8, med_gpu_num float8, max_run_time_gpu float8, max_gpu float8,
  complete_rate_gpu float8, cancel_rate_gpu float8, fail_rate_gpu float8, complete_gpu_time float8,
  cancel_gpu_time float8, fail_gpu_time float8, complete_rate_gpu_time float8, cancel_rate_gpu_time float8,
  fail_rate_gpu_time float8, avg_run_time_cpu float8, avg_que_time_cpu float8, med_run_time_cpu float8,
  med_que_time_cpu float8, complete_rate_cpu float8, cancel_rate_cpu float8, fail_rate_cpu float8);
\set copy '\\copy published FROM ' :'fixture' ' (FORMAT csv, HEADER match)'
:copy
-- unrounded (digits NULL)
CREATE TEMP TABLE generated (cluster text, seed integer, col text, generated float8);
SELECT format('SELECT acmetrace.load_generated(%L, ''seren'', 1031550, %s)', 'seren_' || s, s),
       format('SELECT acmetrace.load_generated(%L, ''kalos'', 62413, %s)', 'kalos_' || s, s),
       format($q$INSERT INTO generated
                 SELECT split_part(c.cluster, '_', 1), %s, e.key, e.value::text::float8
                   FROM acmetrace.cluster_summary(NULL, NULL) c, jsonb_each(to_jsonb(c) - 'cluster') e$q$, s),
       format('SELECT acmetrace.drop_cluster(%L), acmetrace.drop_cluster(%L)', 'seren_' || s, 'kalos_' || s),
       'VACUUM acmetrace.jobs'
  FROM generate_series(:first, :last) s \gexec
WITH pub AS (
    SELECT lower(p.id) AS cluster, e.key AS col, e.value::text::float8 AS published
      FROM published p, jsonb_each(to_jsonb(p) - 'id') e
     WHERE lower(p.id) IN ('seren', 'kalos')
), cols AS (
    SELECT a.attname AS col, a.attnum AS pos FROM pg_attribute a
     WHERE a.attrelid = 'pg_temp.published'::regclass AND a.attnum > 1
), cmp AS (
    SELECT g.cluster, g.seed, g.col, c.pos, p.published, g.generated,
           CASE WHEN g.col IN ('job_num', 'cpu_job_num', 'gpu_job_num') THEN 'count'
                WHEN g.col LIKE '%rate%' THEN 'rate' ELSE 'value' END AS kind
      FROM generated g JOIN pub p USING (cluster, col) JOIN cols c USING (col)
)
SELECT cluster, seed, col, published, generated, kind,
       CASE kind WHEN 'rate' THEN abs(generated - published) <= 0.03 + 1e-9
                 WHEN 'count' THEN abs(generated - published) <= 0.01 * published
                 ELSE abs(generated - published) <= 0.15 * abs(published) END AS ok
  FROM cmp ORDER BY cluster DESC, pos, seed;
