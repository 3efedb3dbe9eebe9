-- One predictable surface: every function that takes a cluster takes it
-- first; a cluster that is not loaded is 42704 with a hint naming the
-- loaded ones and no context lines; NULL means every cluster or is 22004,
-- as documented per function; internals are out of the public schema;
-- numbers people read are rounded; settings are registered and checked.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SELECT acmetrace.load_generated('alpha', 'seren', 3000, 11) AS alpha,
       acmetrace.load_generated('beta', 'kalos', 1000, 12) AS beta;
SET acmetrace.cluster = 'alpha';
SET acmetrace.metric = 'gpu_util';
INSERT INTO acmetrace.utilization_lines SELECT * FROM acmetrace.generate_util(4, 100, 3);
RESET acmetrace.metric;
RESET acmetrace.cluster;
-- a job on one of those GPUs while they were sampled (job_utilization)
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time)
VALUES ('alpha', 'sampled', 'Eval', 'COMPLETED', 1, '2023-07-01 00:00+00', '2023-07-01 00:00+00', '2023-07-01 00:10+00');
INSERT INTO acmetrace.job_gpus
SELECT 'alpha', 'sampled', ARRAY[min(series)] FROM acmetrace.utilization_blocks WHERE cluster = 'alpha';

-- 1. The public schema holds no internal helper, and every function with a
-- cluster parameter has it first.
SELECT count(*) AS underscore_functions FROM pg_proc
 WHERE pronamespace = 'acmetrace'::regnamespace AND proname LIKE '\_%';
SELECT count(*) AS internal_functions FROM pg_proc WHERE pronamespace = 'acmetrace_internal'::regnamespace;
SELECT p.oid::regprocedure AS cluster_not_first
  FROM pg_proc p
 WHERE p.pronamespace = 'acmetrace'::regnamespace
   AND 'cluster' = ANY (p.proargnames[1:p.pronargs]) AND p.proargnames[1] <> 'cluster';

-- 2. Every public function with a cluster argument, called with a cluster
-- that is not loaded, with NULL and with a loaded one.  The table says what
-- NULL does for each (the reference says the same); the loop finds them in
-- the catalog, so a new function cannot be left out.
CREATE TEMP TABLE null_means (fn text PRIMARY KEY, null_means text, call text);
INSERT INTO null_means VALUES
  ('apply_job_type_rules', 'every cluster', 'apply_job_type_rules(%L)'),
  ('audit', 'every cluster', 'audit(%L)'),
  ('cancelled_by_queue', 'every cluster', 'cancelled_by_queue(%L)'),
  ('cluster_summary', 'every cluster', 'cluster_summary(%L)'),
  ('drop_cluster', '22004', 'drop_cluster(%L)'),
  ('duration_cdf', 'every cluster', 'duration_cdf(%L)'),
  ('failure_taxonomy', 'every cluster', 'failure_taxonomy(%L)'),
  ('gpu_num_boxplot', 'every cluster', 'gpu_num_boxplot(%L)'),
  ('gpu_num_cdf', 'every cluster', 'gpu_num_cdf(%L)'),
  ('gpu_time_lost', 'every cluster', 'gpu_time_lost(%L)'),
  ('gpu_time_lost_weekly', 'every cluster', 'gpu_time_lost_weekly(%L)'),
  ('helios_cluster_log_csv', '22004', 'helios_cluster_log_csv(%L)'),
  ('job_features', '22004', 'job_features(%L)'),
  ('job_utilization', 'every cluster', 'job_utilization(%L)'),
  ('load_generated', 'not an analysis: it creates the cluster', NULL),
  ('predict_gbdt', '22004', 'predict_gbdt(%L, ''2000-01-01'')'),
  ('predict_history', '22004', 'predict_history(%L)'),
  ('prediction_error', '22004', 'prediction_error(%L, ''2000-01-01'')'),
  ('queue_by_occupancy', 'every cluster', 'queue_by_occupancy(%L)'),
  ('refresh_summaries', 'not an analysis: it rebuilds every cluster''s summaries (sql/summaries.sql)', NULL),
  ('queue_cdf', 'every cluster', 'queue_cdf(%L)'),
  ('queue_percentiles', 'every cluster', 'queue_percentiles(%L)'),
  ('queue_sketch', 'every cluster, merged', 'queue_sketch(%L)'),
  ('replay', '22004', 'replay(%L)'),
  ('replay_summary', '22004', 'replay_summary(%L)'),
  ('state_breakdown', 'every cluster', 'state_breakdown(%L)'),
  ('state_by_type', 'every cluster', 'state_by_type(%L)'),
  ('trace_comparison', 'every cluster', 'trace_comparison(%L)'),
  ('trace_kalos_csv', '22004', 'trace_kalos_csv(%L)'),
  ('trace_seren_csv', '22004', 'trace_seren_csv(%L)'),
  ('type_distribution', 'every cluster', 'type_distribution(%L)'),
  ('usage_by_group', 'every cluster', 'usage_by_group(%L)'),
  ('usage_by_user', 'every cluster', 'usage_by_user(%L)'),
  ('util_cdf', 'every cluster', 'util_cdf(%L)'),
  ('util_histogram', 'every cluster', 'util_histogram(%L)'),
  ('util_polarization', 'every cluster', 'util_polarization(%L)');
SELECT DISTINCT p.proname AS missing_from_the_table
  FROM pg_proc p
 WHERE p.pronamespace = 'acmetrace'::regnamespace AND p.proargnames[1] = 'cluster'
   AND p.proname NOT IN (SELECT fn FROM null_means);

-- try(call): 'rows N', or the SQLSTATE, the hint and whether any context
-- line came with the error.
CREATE FUNCTION pg_temp.try(q text) RETURNS TABLE (outcome text, hint text, context text)
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    st text; h text; c text;
BEGIN
    EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
    RETURN QUERY SELECT 'rows ' || n, NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, h = PG_EXCEPTION_HINT, c = PG_EXCEPTION_CONTEXT;
    RETURN QUERY SELECT st, h, nullif(c, '');
END
$$;
SELECT m.fn,
       u.outcome AS unknown, u.hint ~ '^(Loaded clusters: alpha, beta|Clusters with GPU_UTIL samples: alpha)\.$' AS hint_lists_loaded,
       u.context IS NULL AS no_context,
       v.outcome ~ '^rows [1-9]' AS loaded_gives_rows,
       m.null_means, n.outcome AS with_null, n.context IS NULL AS null_no_context,
       CASE WHEN m.null_means = 'every cluster, merged' THEN n.outcome = 'rows 1'
            WHEN m.null_means <> 'every cluster' THEN n.outcome = m.null_means
            WHEN m.fn LIKE 'util\_%' OR m.fn = 'job_utilization' THEN n.outcome = v.outcome  -- only alpha holds samples
            ELSE n.outcome = a.outcome END AS null_as_documented
  FROM null_means m,
       LATERAL pg_temp.try('SELECT * FROM acmetrace.' || format(m.call, 'nope')) u,
       LATERAL pg_temp.try('SELECT * FROM acmetrace.' || format(m.call, NULL)) n,
       LATERAL pg_temp.try('SELECT * FROM acmetrace.' || format(m.call, 'alpha')) v,
       LATERAL pg_temp.try('SELECT * FROM acmetrace.' || format(m.call, 'alpha') || ' UNION ALL SELECT * FROM acmetrace.' || format(m.call, 'beta')) a
 WHERE m.call IS NOT NULL AND m.fn NOT IN ('drop_cluster')
 ORDER BY m.fn;
-- (drop_cluster last: it drops what it is given.)
SELECT * FROM pg_temp.try('SELECT acmetrace.drop_cluster(''nope'')');
SELECT * FROM pg_temp.try('SELECT acmetrace.drop_cluster(NULL)');
-- The utilization analyses: a loaded cluster without the metric, and any
-- spelling of the metric (stored upper case).
SELECT * FROM pg_temp.try($$SELECT * FROM acmetrace.util_cdf('beta')$$);
SELECT * FROM pg_temp.try($$SELECT * FROM acmetrace.util_cdf('alpha', 'SM_ACTIVE')$$);
SELECT DISTINCT metric FROM acmetrace.utilization_blocks;
SELECT (SELECT count(*) FROM acmetrace.util_cdf('alpha', 'gpu_util')) = (SELECT count(*) FROM acmetrace.util_cdf('alpha', 'GPU_UTIL')) AS any_case,
       (SELECT count(*) FROM acmetrace.util_histogram(NULL, 'NO_SUCH_METRIC')) AS unknown_metric_for_every_cluster;
-- The message itself, as psql shows it: no CONTEXT line.
SELECT * FROM acmetrace.state_breakdown('Alpha');
SELECT * FROM acmetrace.queue_by_occupancy('alpha', nbins => 0);

-- 3. One definition of queueing delay: the table's p90 lies where the CDF
-- of the same jobs crosses 90%, for every cluster and type.
SELECT count(*) AS lines,
       count(*) FILTER (WHERE below.cdf_pct < 90 AND above.cdf_pct >= 90
                          AND q.percentiles_s[2] >= below.queue_s AND q.percentiles_s[2] <= above.queue_s * 1.005) AS p90_where_cdf_crosses_90,
       bool_and(q.jobs = below.jobs) AS same_jobs
  FROM acmetrace.queue_percentiles(NULL) q
  JOIN LATERAL (SELECT max(c.queue_s) AS x FROM acmetrace.queue_cdf(q.cluster) c
                 WHERE c.type IS NOT DISTINCT FROM q.type AND c.cdf_pct < 90) b ON true
  JOIN acmetrace.queue_cdf(NULL) below ON below.cluster = q.cluster AND below.type IS NOT DISTINCT FROM q.type AND below.queue_s = b.x
  JOIN acmetrace.queue_cdf(NULL) above ON above.cluster = q.cluster AND above.type IS NOT DISTINCT FROM q.type
                                      AND above.queue_s = (SELECT min(c.queue_s) FROM acmetrace.queue_cdf(q.cluster) c
                                                            WHERE c.type IS NOT DISTINCT FROM q.type AND c.queue_s > b.x);
-- The same jobs as a plain count: GPU jobs that started at or after their
-- submission; all_jobs adds the CPU jobs.
SELECT q.cluster, q.jobs = (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = q.cluster AND j.gpu_num > 0 AND j.wait_s >= 0) AS gpu_jobs,
       (SELECT jobs FROM acmetrace.queue_percentiles(q.cluster, all_jobs => true) WHERE type = 'all')
         = (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = q.cluster AND j.wait_s >= 0) AS all_jobs
  FROM acmetrace.queue_percentiles(NULL) q WHERE q.type = 'all';

-- 4. Readable numbers: the float8 columns public analyses still return are
-- the thresholds, edges and bounds people pass in, and job_utilization's
-- per-job mean and median (what its CDFs are drawn from); every share is *_pct.
SELECT p.proname, a.name, a.type
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e',
       LATERAL unnest(p.proargnames, p.proallargtypes::regtype[], p.proargmodes) a(name, type, mode)
 WHERE p.pronamespace = 'acmetrace'::regnamespace AND p.proargnames[1] = 'cluster'
   AND a.mode = 't' AND a.type = 'double precision'::regtype AND p.proname <> 'cluster_summary'
 ORDER BY 1, 2;
SELECT c.relname, a.attname
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v' AND a.attnum > 0
   AND (a.attname ~ '(share|percent)' OR (a.attname ~ 'pct' AND a.attname !~ '_pct$'))
 ORDER BY 1, 2;
SELECT acmetrace_internal.sig3(171.57669631759728) AS p90_s, acmetrace_internal.sig3(5.234) AS small,
       acmetrace_internal.sig3(12345.6) AS large, acmetrace_internal.sig3(0.012345) AS tiny,
       acmetrace_internal.sig3(13) AS whole, acmetrace_internal.sig3(-2.555) AS negative, acmetrace_internal.sig3(0) AS zero,
       acmetrace_internal.pct(2, 7) AS two_of_seven, acmetrace_internal.pct(1, 0) AS of_nothing;

-- 5. Settings are registered when the library loads (a session that has
-- session_preload_libraries = 'acmetrace' has them from the start); a
-- misspelt acmetrace.* setting is an error; values are checked when set.
SHOW acmetrace.cluster;
SHOW acmetrace.time_zone;
SET acmetrace.clsuter = 'venus';
SET acmetrace.cluster = 'Venus';
SET acmetrace.metric = 'gpu util';
SET acmetrace.time_zone = 'Mars/Olympus';
SET acmetrace.metric = 'sm_active';
SHOW acmetrace.metric;
SELECT name, setting, context FROM pg_settings WHERE name LIKE 'acmetrace.%' ORDER BY name;
RESET acmetrace.metric;
-- A new session that preloads the library: SHOW works before any call.
-- (\c keeps the previous connection's options unless given new ones)
SELECT format('dbname=%s options=%L', current_database(), '-c session_preload_libraries=acmetrace') AS preloading,
       format('dbname=%s options=%L', current_database(), '-c session_preload_libraries=') AS plain \gset
\c :preloading
SHOW acmetrace.cluster;
SET acmetrace.clsuter = 'venus';
-- A new session without it: a misspelling set before the library loads is
-- reported by the next load instead of being dropped silently.
\c :plain
SET acmetrace.clsuter = 'venus';
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\cd :abs_srcdir/test/fixtures
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SELECT count(*) AS seren_jobs FROM acmetrace.jobs WHERE cluster = 'seren';
-- reported once: the next load goes ahead
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
SELECT count(*) AS seren_jobs FROM acmetrace.jobs WHERE cluster = 'seren';
SHOW acmetrace.cluster;
-- A value the check refuses, set before the library loads: PostgreSQL
-- drops it with a WARNING, and the next load stops instead of going to the
-- format's default cluster.
\c :plain
SET acmetrace.cluster = 'Venus';
SET TimeZone = 'UTC';
\cd :abs_srcdir/test/fixtures
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
SELECT count(*) AS kalos_jobs FROM acmetrace.jobs WHERE cluster = 'kalos';

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
