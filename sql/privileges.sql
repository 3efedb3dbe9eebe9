-- Privileges: nothing needs superuser after CREATE EXTENSION.  An analyst
-- role with only SELECT on the trace tables runs every analysis and gets the
-- superuser's answers; a loader role with the documented grants loads and
-- drops clusters; a role with no grants gets permission errors (42501); no
-- function runs with its owner's rights; names are data, never SQL.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- No SECURITY DEFINER function, no function that sets a role or path, every
-- view runs with the caller's rights, and PUBLIC gets no table privileges.
CREATE TEMP VIEW ext_functions AS
SELECT p.* FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'acmetrace');
SELECT count(*) FILTER (WHERE prosecdef) AS security_definer, count(*) > 90 AS many_functions
  FROM ext_functions;
SELECT proname, proconfig FROM ext_functions WHERE proconfig IS NOT NULL ORDER BY proname;
SELECT count(*) AS views_without_security_invoker
  FROM pg_class
 WHERE relnamespace = 'acmetrace'::regnamespace AND relkind = 'v'
   AND NOT coalesce('security_invoker=true' = ANY (reloptions), false);
-- (but the cluster grants, whose policy shows each role only its own)
SELECT count(*) AS public_table_grants,
       string_agg(table_name || ':' || privilege_type, ',') AS granted
  FROM information_schema.role_table_grants
 WHERE table_schema = 'acmetrace' AND grantee = 'PUBLIC';

CREATE ROLE regress_acmetrace_analyst;
CREATE ROLE regress_acmetrace_loader;
CREATE ROLE regress_acmetrace_nobody;
-- The analyst: read the traces.
GRANT USAGE ON SCHEMA acmetrace TO regress_acmetrace_analyst;
GRANT SELECT ON ALL TABLES IN SCHEMA acmetrace TO regress_acmetrace_analyst;
-- The loader: write the staging tables and what their triggers fill.
GRANT USAGE ON SCHEMA acmetrace TO regress_acmetrace_loader;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA acmetrace TO regress_acmetrace_loader;
GRANT USAGE ON SCHEMA acmetrace TO regress_acmetrace_nobody;
-- Both see every cluster (row-level security: sql/access.sql).
SELECT acmetrace.grant_cluster('*', 'regress_acmetrace_analyst'), acmetrace.grant_cluster('*', 'regress_acmetrace_loader');

-- Loading as the loader.
SET ROLE regress_acmetrace_loader;
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'seren';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SET acmetrace.cluster = 'gpulab';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.prometheus_samples VALUES ('node01-gpu0', '7', '1688169600000:50 1688169615000:0'), ('!end', NULL, '1 2 0');
SELECT * FROM acmetrace_internal.prometheus_last_load();
RESET acmetrace.cluster;
RESET acmetrace.metric;
SELECT acmetrace.load_generated('synth', 'seren', 3000, 5);
SELECT acmetrace.load_generated('gone', 'kalos', 100, 5);
INSERT INTO acmetrace.failure_reasons
SELECT cluster, job_id, 'Script', 'FileNotFoundError' FROM acmetrace.jobs
 WHERE cluster = 'synth' AND state = 'FAILED' ORDER BY job_id LIMIT 10;
SELECT acmetrace.drop_cluster('gone');
-- Cluster names are values, not SQL.
SELECT acmetrace.drop_cluster('synth''); DELETE FROM acmetrace.jobs; --');
RESET ROLE;
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster;

-- Every analysis, as the superuser and then as the analyst: same answers.
-- (One md5 per analysis; a psql variable carries the superuser's.)
CREATE FUNCTION pg_temp.analyses()
RETURNS TABLE (analysis text, digest text)
LANGUAGE sql AS $$
SELECT 'cluster_summary', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.cluster_summary() t
UNION ALL SELECT 'state_by_type', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.state_by_type('synth') t
UNION ALL SELECT 'state_breakdown', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.state_breakdown('synth') t
UNION ALL SELECT 'type_distribution', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.type_distribution('synth') t
UNION ALL SELECT 'gpu_num_boxplot', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.gpu_num_boxplot('synth') t
UNION ALL SELECT 'duration_cdf', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.duration_cdf() t
UNION ALL SELECT 'queue_cdf', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.queue_cdf('synth') t
UNION ALL SELECT 'gpu_num_cdf', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.gpu_num_cdf('synth') t
UNION ALL SELECT 'queue_percentiles', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.queue_percentiles('synth') t
UNION ALL SELECT 'queue_by_occupancy', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.queue_by_occupancy('synth') t
UNION ALL SELECT 'cancelled_by_queue', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.cancelled_by_queue('synth') t
UNION ALL SELECT 'gpu_time_lost', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.gpu_time_lost('synth') t
UNION ALL SELECT 'gpu_time_lost_weekly', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.gpu_time_lost_weekly('synth') t
UNION ALL SELECT 'failure_taxonomy', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.failure_taxonomy('synth') t
UNION ALL SELECT 'audit', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.audit() t
UNION ALL SELECT 'trace_comparison', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.trace_comparison() t
UNION ALL SELECT 'usage_by_user', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.usage_by_user('synth', '2023-03-01 00:00+08', '2023-03-08 00:00+08') t
UNION ALL SELECT 'util_histogram', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.util_histogram('seren', 'NODE_CPU_UTILIZATION') t
UNION ALL SELECT 'util_cdf', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.util_cdf('seren', 'node_cpu_utilization') t
UNION ALL SELECT 'trace_seren_csv', md5(string_agg(t::text, '|' ORDER BY t::text)) FROM acmetrace.trace_seren_csv('synth') t
UNION ALL SELECT 'aggregates', md5(string_agg(t::text, '|' ORDER BY t::text))
  FROM (SELECT cluster, acmetrace.delay_sketch_agg(queue)::text, acmetrace.occupancy_agg(start_time, end_time, gpu_num)::text,
               acmetrace.bins(duration, 0, 100000, 10), acmetrace.cdf_at(queue, '{0,10,100,1000}')
          FROM acmetrace.jobs GROUP BY cluster) t
UNION ALL SELECT 'views', md5(string_agg(t::text, '|' ORDER BY t::text))
  FROM (SELECT 'v_cluster_summary', v::text FROM acmetrace.v_cluster_summary v
        UNION ALL SELECT 'v_queue_by_occupancy', v::text FROM acmetrace.v_queue_by_occupancy v
        UNION ALL SELECT 'v_failure_taxonomy', v::text FROM acmetrace.v_failure_taxonomy v) t
$$;
GRANT EXECUTE ON FUNCTION pg_temp.analyses() TO regress_acmetrace_analyst, regress_acmetrace_nobody;
SELECT string_agg(analysis || '=' || digest, ',' ORDER BY analysis) AS superuser_digests,
       count(*) AS analyses, coalesce(string_agg(analysis, ',') FILTER (WHERE digest IS NULL), 'none') AS empty_analyses
  FROM pg_temp.analyses() \gset
SELECT :analyses AS analyses, :'empty_analyses' AS empty_analyses;

SET ROLE regress_acmetrace_analyst;
SELECT string_agg(analysis || '=' || digest, ',' ORDER BY analysis) = :'superuser_digests' AS analyst_gets_same_answers
  FROM pg_temp.analyses();
-- The analyst cannot change the traces.
DELETE FROM acmetrace.jobs;
SELECT acmetrace.drop_cluster('synth');
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
-- Cluster names are values, not SQL.
SELECT * FROM acmetrace.queue_percentiles('synth''; DROP TABLE acmetrace.jobs; --');
SELECT count(*) FROM acmetrace.audit(cluster => 'x'' OR true --');
RESET ROLE;

-- Without grants: a permission error naming the table, nothing else.
SET ROLE regress_acmetrace_nobody;
\set VERBOSITY terse
SELECT * FROM acmetrace.cluster_summary();
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.queue_percentiles('synth');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.load_generated('mine', 'seren', 10, 1);
\echo :LAST_ERROR_SQLSTATE
SET acmetrace.cluster = 'gpulab';
SET acmetrace.metric = 'GPU_UTIL';
INSERT INTO acmetrace.prometheus_samples VALUES ('node01-gpu0', '7', '1688169630000:1'), ('!end', NULL, '1 1 0');
\echo :LAST_ERROR_SQLSTATE
RESET acmetrace.cluster;
RESET acmetrace.metric;
\set VERBOSITY default
RESET ROLE;
SELECT count(*) AS jobs, count(DISTINCT cluster) AS clusters FROM acmetrace.jobs;
SELECT series, job_id, first_ts, last_ts FROM acmetrace.utilization_jobs;

DROP FUNCTION pg_temp.analyses();
DROP VIEW ext_functions;
DROP OWNED BY regress_acmetrace_analyst, regress_acmetrace_loader, regress_acmetrace_nobody;
DROP ROLE regress_acmetrace_analyst, regress_acmetrace_loader, regress_acmetrace_nobody;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
