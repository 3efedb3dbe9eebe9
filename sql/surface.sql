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
  ('grant_cluster', 'not an analysis: a cluster is granted before it is loaded (sql/access.sql)', NULL),
  ('helios_cluster_log_csv', '22004', 'helios_cluster_log_csv(%L)'),
  ('job_features', '22004', 'job_features(%L)'),
  ('job_utilization', 'every cluster', 'job_utilization(%L)'),
  ('load_generated', 'not an analysis: it creates the cluster', NULL),
  ('predict_gbdt', '22004', 'predict_gbdt(%L, ''2000-01-01'')'),
  ('predict_history', '22004', 'predict_history(%L)'),
  ('period_summary', 'every cluster', 'period_summary(%L)'),
  ('prediction_error', '22004', 'prediction_error(%L, ''2000-01-01'')'),
  ('queue_by_occupancy', 'every cluster', 'queue_by_occupancy(%L)'),
  ('refresh_summaries', 'not an analysis: it rebuilds every cluster''s summaries (sql/summaries.sql)', NULL),
  ('queue_cdf', 'every cluster', 'queue_cdf(%L)'),
  ('queue_percentiles', 'every cluster', 'queue_percentiles(%L)'),
  ('queue_sketch', 'every cluster, merged', 'queue_sketch(%L)'),
  ('replay', '22004', 'replay(%L)'),
  ('revoke_cluster', 'not an analysis: it takes back a grant (sql/access.sql)', NULL),
  ('replay_summary', '22004', 'replay_summary(%L)'),
  ('state_breakdown', 'every cluster', 'state_breakdown(%L)'),
  ('state_by_type', 'every cluster', 'state_by_type(%L)'),
  ('trace_comparison', 'every cluster', 'trace_comparison(%L)'),
  ('trace_kalos_csv', '22004', 'trace_kalos_csv(%L)'),
  ('trace_seren_csv', '22004', 'trace_seren_csv(%L)'),
  ('type_distribution', 'every cluster', 'type_distribution(%L)'),
  -- usage: alpha's busiest day (over the whole trace, which the sampled job
  -- of July stretches, capacity_pct stays under 1: 5e would take it for a fraction)
  ('usage_by_group', 'every cluster', 'usage_by_group(%L, ''2023-03-01 00:00+08'', ''2023-03-02 00:00+08'')'),
  ('usage_by_user', 'every cluster', 'usage_by_user(%L, ''2023-03-01 00:00+08'', ''2023-03-02 00:00+08'')'),
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
SELECT * FROM pg_temp.try($$SELECT * FROM acmetrace.util_polarization('beta')$$);
SELECT * FROM pg_temp.try($$SELECT * FROM acmetrace.util_histogram('beta')$$);
SELECT * FROM pg_temp.try($$SELECT * FROM acmetrace.util_cdf('alpha', 'SM_ACTIVE')$$);
SELECT DISTINCT metric FROM acmetrace.utilization_blocks;
SELECT (SELECT count(*) FROM acmetrace.util_cdf('alpha', 'gpu_util')) = (SELECT count(*) FROM acmetrace.util_cdf('alpha', 'GPU_UTIL')) AS any_case,
       (SELECT count(*) FROM acmetrace.util_histogram(NULL, 'NO_SUCH_METRIC')) AS unknown_metric_for_every_cluster;
-- The message itself, as psql shows it: no CONTEXT line.
SELECT * FROM acmetrace.state_breakdown('Alpha');
SELECT * FROM acmetrace.state_breakdown('Nope');
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

-- 5. One surface rule per thing (issue 35), checked over the catalog, so a
-- new public function or view that breaks a rule fails here and each query
-- names the offenders.  The public outputs: every result column of a
-- public function (RETURNS TABLE or OUT) and every column of a view.
CREATE TEMP VIEW public_outputs AS
SELECT 'function' AS kind, p.proname::text AS obj, a.name AS col, a.type
  FROM pg_proc p,
       LATERAL unnest(p.proargnames, p.proallargtypes::regtype[], p.proargmodes) a(name, type, mode)
 WHERE p.pronamespace = 'acmetrace'::regnamespace AND a.mode IN ('t', 'o', 'b')
UNION ALL
SELECT 'view', c.relname::text, a.attname::text, a.atttypid::regtype
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v';
-- 5a. Units in the names: a numeric or float column ends in _s, _gpu_h,
-- _pct or _days, counts GPUs (gpus, gpu_num, *_gpus, gpus_*), or is one of
-- a few names without a unit of their own.  cluster_summary is the one
-- analysis kept as published (it is compared with acme_cluster_summary.csv:
-- GPU-seconds, 0..1 rates); the exports write the published files back.
-- GPU time has one name and unit: *gpu_h, never gpu_time, minutes or hours.
CREATE TEMP TABLE unit_exceptions (obj text PRIMARY KEY, why text NOT NULL);
INSERT INTO unit_exceptions VALUES
  ('cluster_summary', 'acme_cluster_summary.csv''s own names and units'),
  ('v_cluster_summary', 'the view of cluster_summary'),
  ('trace_seren_csv', 'writes the published Seren file'),
  ('trace_kalos_csv', 'writes the published Kalos file'),
  ('helios_cluster_log_csv', 'writes the published Helios file');
CREATE TEMP TABLE unitless (col text PRIMARY KEY, why text NOT NULL);
INSERT INTO unitless VALUES
  ('jobs', 'a count'), ('samples', 'a count'), ('series', 'a count'), ('bin', 'a bin number'),
  ('q1', 'gpu_num_boxplot: a GPU count'), ('median', 'a GPU count or the metric''s own unit'), ('q3', 'gpu_num_boxplot: a GPU count'),
  ('value', 'the metric''s own unit'), ('mean', 'the metric''s own unit'), ('min', 'the metric''s own unit'),
  ('max', 'the metric''s own unit'), ('bin_lo', 'the binned value''s unit'), ('bin_hi', 'the binned value''s unit'),
  ('seconds', 'a unit itself'), ('months', 'a unit itself'),
  ('mae_log', 'log10 of a ratio'), ('median_ae_log', 'log10 of a ratio'),
  ('base', 'gbdt_info: the model''s target unit'), ('train_rmse', 'gbdt_info: the model''s target unit'),
  ('learning_rate', 'gbdt_info: a model parameter'),
  ('previous', 'period_summary: its unit column names the unit');
CREATE TEMP VIEW unit_offenders AS
SELECT o.kind, o.obj, o.col, o.type AS breaks_the_unit_rule
  FROM public_outputs o
 WHERE o.obj NOT IN (SELECT obj FROM unit_exceptions)
   AND o.col NOT IN (SELECT col FROM unitless)
   AND ((o.type IN ('numeric'::regtype, 'double precision'::regtype, 'real'::regtype)
         AND o.col !~ '(_s|(^|_)gpu_h|_pct|_days)$' AND o.col !~ '(^|_)(gpus|gpu_num)(_|$)')
        OR o.col ~ '(gpu_time|gpu_s$|minutes|hours|_ms$|_rate($|_))'
        OR (o.col ~ '(^|_)gpu_h$' AND o.type <> 'numeric'::regtype));
SELECT * FROM unit_offenders ORDER BY 1, 2, 3;
-- 5b. Views are named after the function they read (v_<function> or
-- v_<function>_<qualifier>), or are time series (a bucket timestamptz, its
-- cluster and the partial flag); utilization and utilization_series are
-- the samples as rows, not analyses.
CREATE TEMP VIEW view_offenders AS
SELECT v.relname AS view_named_after_no_function
  FROM pg_class v
 WHERE v.relnamespace = 'acmetrace'::regnamespace AND v.relkind = 'v'
   AND v.relname NOT IN ('utilization', 'utilization_series')
   AND NOT EXISTS (SELECT 1 FROM pg_proc p
                    WHERE p.pronamespace = 'acmetrace'::regnamespace
                      AND (v.relname = 'v_' || p.proname OR v.relname LIKE 'v\_' || replace(p.proname, '_', '\_') || '\_%'))
   AND NOT (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = v.oid AND a.attname = 'bucket' AND a.atttypid = 'timestamptz'::regtype)
            AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = v.oid AND a.attname = 'cluster')
            AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = v.oid AND a.attname = 'partial' AND a.atttypid = 'boolean'::regtype));
SELECT * FROM view_offenders ORDER BY 1;
-- 5c. No state-type column (a sketch, an occupancy, a state, samples, a
-- model) in a result: printed, they flood psql and BI tools.  Functions
-- that return such a value alone (queue_sketch, the aggregates) are asked
-- for it by name.
CREATE TEMP VIEW state_offenders AS
SELECT o.kind, o.obj, o.col, o.type AS state_type_in_a_result
  FROM public_outputs o
  JOIN pg_type t ON t.oid = o.type
  LEFT JOIN pg_type e ON e.oid = t.typelem
 WHERE (t.typnamespace = 'acmetrace'::regnamespace AND t.typtype = 'b')
    OR (e.typnamespace = 'acmetrace'::regnamespace AND e.typtype = 'b');
SELECT * FROM state_offenders ORDER BY 1, 2, 3;
-- 5d. Totals are labelled: every public function with a type column either
-- has one row of type 'all' per cluster and other key, whose jobs are the
-- sum of the per-type rows' (so no job is counted twice, and NULL is never
-- the total), or lists each job with its own type.
CREATE TEMP TABLE totals (fn text PRIMARY KEY, call text, keys text);
INSERT INTO totals VALUES
  ('state_by_type', 'state_by_type(%L)', 'final_state'),
  ('type_distribution', 'type_distribution(%L)', NULL),
  ('gpu_num_boxplot', 'gpu_num_boxplot(%L)', NULL),
  ('gpu_time_lost', 'gpu_time_lost(%L)', NULL),
  ('queue_percentiles', 'queue_percentiles(%L)', NULL),
  ('duration_cdf', 'duration_cdf(%L)', 'duration_s'),
  ('queue_cdf', 'queue_cdf(%L)', 'queue_s'),
  ('queue_by_occupancy', 'queue_by_occupancy(%L)', 'bin');
CREATE TEMP TABLE per_job (fn text PRIMARY KEY, why text NOT NULL);
INSERT INTO per_job VALUES
  ('job_features', 'one row per job'), ('job_utilization', 'one row per job'), ('predict_gbdt', 'one row per job'),
  ('predict_history', 'one row per job'), ('replay', 'one row per job'),
  ('trace_seren_csv', 'the published file'), ('trace_kalos_csv', 'the published file'),
  ('replay_summary', 'no cluster column; its all row is type ''all'', checked in sql/replay.sql'),
  -- one cluster per call, no cluster column: its totals are checked on alpha below
  ('prediction_error', 'totals per method, checked below');
CREATE TEMP VIEW type_offenders AS
SELECT DISTINCT o.obj AS type_column_unclassified
  FROM public_outputs o
 WHERE o.kind = 'function' AND o.col = 'type'
   AND o.obj NOT IN (SELECT fn FROM totals UNION ALL SELECT fn FROM per_job);
SELECT * FROM type_offenders ORDER BY 1;
CREATE FUNCTION pg_temp.total_offenders(call text, keys text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE format($q$
        SELECT string_agg(format('%%s %%s: %%s rows of type all (jobs %%s), %%s NULL as total, %%s jobs over the types',
                                 g.cluster, g.k, g.n_all, g.all_jobs, g.n_null, g.typed), '; ' ORDER BY g.cluster, g.k)
          FROM (SELECT t.cluster, coalesce((%s)::text, '-') AS k,
                       count(*) FILTER (WHERE t.type = 'all') AS n_all,
                       count(*) FILTER (WHERE t.type IS NULL) AS n_null,
                       max(t.jobs) FILTER (WHERE t.type = 'all') AS all_jobs,
                       sum(t.jobs) FILTER (WHERE t.type IS DISTINCT FROM 'all') AS typed
                  FROM acmetrace.%s t GROUP BY 1, 2) g
         WHERE g.n_all <> 1 OR g.n_null > 0 OR g.all_jobs IS DISTINCT FROM g.typed$q$,
        coalesce('t.' || keys, 'NULL'), call) INTO r;
    RETURN r;
END
$$;
-- (alpha's and beta's jobs all have a type, so any NULL type is a total)
SELECT count(*) FILTER (WHERE type IS NULL) AS untyped_jobs FROM acmetrace.jobs WHERE cluster IN ('alpha', 'beta');
SELECT t.fn, pg_temp.total_offenders(format(t.call, NULL), t.keys) AS total_offenders
  FROM totals t ORDER BY 1;
-- no function is left labelling its total NULL (none listed as to do)
SELECT p.fn AS all_types_row_still_null FROM per_job p WHERE p.why LIKE 'TO DO%' ORDER BY 1;
SELECT count(*) AS prediction_error_methods,
       string_agg(format('%s: %s rows of type all (jobs %s), %s NULL, %s jobs over the types',
                         g.method, g.n_all, g.all_jobs, g.n_null, g.typed), '; ')
         FILTER (WHERE g.n_all <> 1 OR g.n_null > 0 OR g.all_jobs IS DISTINCT FROM g.typed) AS total_offenders
  FROM (SELECT e.method, count(*) FILTER (WHERE e.type = 'all') AS n_all, count(*) FILTER (WHERE e.type IS NULL) AS n_null,
               max(e.jobs) FILTER (WHERE e.type = 'all') AS all_jobs, sum(e.jobs) FILTER (WHERE e.type <> 'all') AS typed
          FROM acmetrace.prediction_error('alpha', (SELECT min(submit_time) + (max(submit_time) - min(submit_time)) / 2
                                                      FROM acmetrace.jobs WHERE cluster = 'alpha')) e
         GROUP BY e.method) g;
-- The checks catch a function and a view that break every rule.
BEGIN;
CREATE FUNCTION acmetrace.surface_probe(cluster text)
RETURNS TABLE (cluster text, type text, gpu_time numeric, gpu_h float8, share float8, sk acmetrace.delay_sketch)
LANGUAGE sql AS 'SELECT NULL::text, NULL::text, NULL::numeric, NULL::float8, NULL::float8, NULL::acmetrace.delay_sketch';
CREATE VIEW acmetrace.v_no_such_function AS SELECT 1 AS jobs;
SELECT (SELECT string_agg(col, ' ' ORDER BY col) FROM unit_offenders WHERE obj = 'surface_probe') AS unit,
       (SELECT string_agg(view_named_after_no_function, ' ') FROM view_offenders) AS view,
       (SELECT string_agg(col, ' ') FROM state_offenders WHERE obj = 'surface_probe') AS state,
       (SELECT string_agg(type_column_unclassified, ' ') FROM type_offenders) AS type;
ROLLBACK;
-- 5e. The numbers, on alpha's data, in every analysis and view: *_pct
-- within 0..100 (change_pct, a change, may leave it) and not a 0..1
-- fraction (a column whose values are all within 0..1 but not all 0 is
-- one), GPU-hours with at most 2 decimals.
CREATE FUNCTION pg_temp.number_offenders(p_obj text, p_q text) RETURNS TABLE (obj text, col text, problem text)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($f$
        SELECT %L::text, s.key, s.problem FROM (
          SELECT e.key,
                 CASE WHEN e.key ~ '_pct$' AND e.key <> 'change_pct' AND (min(e.value::numeric) < 0 OR max(e.value::numeric) > 100)
                      THEN format('outside 0..100: %%s .. %%s', min(e.value::numeric), max(e.value::numeric))
                      WHEN e.key ~ '_pct$' AND max(abs(e.value::numeric)) <= 1 AND max(abs(e.value::numeric)) > 0
                      THEN format('a 0..1 fraction? largest %%s', max(abs(e.value::numeric)))
                      WHEN e.key ~ '(^|_)gpu_h$' AND max(scale(e.value::numeric)) > 2
                      THEN format('%%s decimals', max(scale(e.value::numeric))) END AS problem
            FROM (%s) t, jsonb_each(to_jsonb(t)) e
           WHERE jsonb_typeof(e.value) = 'number'
           GROUP BY e.key) s
         WHERE s.problem IS NOT NULL$f$, p_obj, p_q);
END
$$;
SELECT o.obj, o.col, o.problem
  FROM (SELECT m.fn AS obj, 'SELECT * FROM acmetrace.' || format(m.call, 'alpha') AS q
          FROM null_means m WHERE m.null_means LIKE 'every cluster%'
        UNION ALL
        SELECT c.relname, 'SELECT * FROM acmetrace.' || quote_ident(c.relname)
          FROM pg_class c WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'v') c,
       LATERAL pg_temp.number_offenders(c.obj, c.q) o
 ORDER BY 1, 2;
-- and the columns that check saw, so a rename cannot empty it
SELECT count(DISTINCT o.obj || '.' || o.col) FILTER (WHERE o.col ~ '_pct$') AS pct_columns,
       count(DISTINCT o.obj || '.' || o.col) FILTER (WHERE o.col ~ '(^|_)gpu_h$') AS gpu_h_columns
  FROM public_outputs o WHERE o.obj NOT IN (SELECT obj FROM unit_exceptions);

-- 5f. No LANGUAGE sql function of either schema reads or writes a table or
-- view of the warehouse: Citus cannot plan an SQL function's query on a
-- distributed table with parameters ("parameterized queries for SQL
-- functions referencing distributed tables are not supported"), so such
-- bodies are PL/pgSQL (an SQL function that only calls one stays SQL).
CREATE TEMP VIEW sql_offenders AS
SELECT p.oid::regprocedure AS sql_function_reading_the_warehouse
  FROM pg_proc p
 WHERE p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql')
   AND p.pronamespace IN ('acmetrace'::regnamespace, 'acmetrace_internal'::regnamespace)
   AND p.prosrc ~* '(FROM|JOIN|INTO|UPDATE|TABLE)\s+acmetrace\.(jobs|clusters|slurm_jobs|failure_reasons|job_gpus|philly_gpus|summary_\w+|utilization\w*|sync_runs|job_type_rules)\M';
SELECT * FROM sql_offenders ORDER BY 1::text;
SELECT count(*) FILTER (WHERE l.lanname = 'sql') AS sql_functions, count(*) FILTER (WHERE l.lanname = 'plpgsql') AS plpgsql_functions
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace IN ('acmetrace'::regnamespace, 'acmetrace_internal'::regnamespace);
-- the check names an offender
BEGIN;
CREATE FUNCTION acmetrace_internal.sql_probe(cl text) RETURNS bigint
LANGUAGE sql STABLE AS 'SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = cl';
SELECT * FROM sql_offenders ORDER BY 1::text;
ROLLBACK;

-- 6. Settings are registered when the library loads (a session that has
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
