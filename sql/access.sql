-- Teams kept apart: row-level security by cluster (acmetrace.cluster_access).
-- A role sees and writes only the clusters granted to it (or to a role whose
-- privileges it has), in every table, analysis, view and summary; the grants
-- are the owner's to make; a user's own policy can only narrow further.
-- (test/e2e/access.sh compares every public function and view, and the
-- report, with a database holding only the team's clusters.)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- 1. Every table keyed by cluster carries the grants' restrictive policy.
SELECT c.oid::regclass AS table_without_cluster_policy
  FROM pg_class c
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind = 'r' AND c.relpersistence = 'p'
   AND c.oid <> 'acmetrace.cluster_access'::regclass
   AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'cluster' AND NOT a.attisdropped)
   AND NOT (c.relrowsecurity
            AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'cluster_access'
                           AND NOT p.polpermissive AND pg_get_expr(p.polqual, c.oid) ~ 'cluster_visible\(cluster\)'));
SELECT count(*) AS tables_with_cluster_policy FROM pg_policy WHERE polname = 'cluster_access';

-- 2. Two teams, one warehouse.
SELECT acmetrace.load_generated('east', 'seren', 3000, 1), acmetrace.load_generated('west', 'kalos', 2000, 2);
SET acmetrace.cluster = 'east';
SET acmetrace.metric = 'NODE_CPU_UTILIZATION';
\copy acmetrace.utilization_lines FROM 'acme_NODE_CPU_UTILIZATION_sample.csv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster;
RESET acmetrace.metric;
CREATE ROLE regress_team_east;
CREATE ROLE regress_team_west;
CREATE ROLE regress_alice IN ROLE regress_team_east;
CREATE ROLE regress_west_loader IN ROLE regress_team_west;
CREATE ROLE regress_everyone;
GRANT USAGE ON SCHEMA acmetrace TO regress_team_east, regress_team_west, regress_everyone;
GRANT SELECT ON ALL TABLES IN SCHEMA acmetrace TO regress_team_east, regress_everyone;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA acmetrace TO regress_team_west;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA acmetrace TO regress_team_west;
SELECT acmetrace.grant_cluster('east', 'regress_team_east') AS east,
       acmetrace.grant_cluster('west', 'regress_team_west') AS west,
       acmetrace.grant_cluster('west', 'regress_team_west') AS west_again,
       acmetrace.grant_cluster('*', 'regress_everyone') AS every_cluster;

-- 3. A member of east sees east only: tables, analyses, views, grants.
SET ROLE regress_alice;
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster;
SELECT cluster FROM acmetrace.clusters;
SELECT cluster, grantee FROM acmetrace.cluster_access;
SELECT cluster, job_num FROM acmetrace.cluster_summary();
SELECT DISTINCT cluster FROM acmetrace.v_state_breakdown;
SELECT DISTINCT cluster FROM acmetrace.v_daily_jobs;
SELECT count(*) AS blocks, sum(n) AS samples FROM acmetrace.utilization_blocks;
SELECT count(*) AS summary_rows_of_west
  FROM (SELECT cluster FROM acmetrace.summary_clusters UNION ALL SELECT cluster FROM acmetrace.summary_jobs
        UNION ALL SELECT cluster FROM acmetrace.summary_values) s WHERE cluster <> 'east';
-- the analyses answer from the summaries: the cluster policy is theirs too
SELECT acmetrace_internal.summarized('east') AS summarized, acmetrace_internal.jobs_narrowed() AS narrowed;
SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS east_breakdown FROM acmetrace.state_breakdown('east') t \gset alice_
-- west does not exist for her, and its name does not leak through the hint
\set VERBOSITY terse
SELECT * FROM acmetrace.state_breakdown('west');
\set VERBOSITY default
SELECT * FROM acmetrace.queue_percentiles('west');
RESET ROLE;
SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) = :'alice_east_breakdown' AS same_as_superuser
  FROM acmetrace.state_breakdown('east') t;

-- 4. Forced parallel plans: the workers apply the same policy.
SET ROLE regress_alice;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster;
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET ROLE;

-- 5. A loader writes only its clusters.
SET ROLE regress_west_loader;
\set VERBOSITY terse
SELECT acmetrace.load_generated('west2', 'kalos', 100, 3);
\echo :LAST_ERROR_SQLSTATE
UPDATE acmetrace.jobs SET cluster = 'east' WHERE cluster = 'west';
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.drop_cluster('east');
\set VERBOSITY default
UPDATE acmetrace.jobs SET state = 'FAILED' WHERE cluster = 'east';
DELETE FROM acmetrace.utilization_blocks WHERE cluster = 'east';
SELECT acmetrace.refresh_summaries() AS clusters_refreshed;
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster;
RESET ROLE;
SELECT acmetrace.grant_cluster('west2', 'regress_team_west');
SET ROLE regress_west_loader;
SELECT acmetrace.load_generated('west2', 'kalos', 100, 3);
SELECT cluster FROM acmetrace.clusters ORDER BY cluster;
RESET ROLE;
-- east untouched, and every summary still equals a rebuild
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster ORDER BY cluster;
SELECT count(*) AS east_samples FROM acmetrace.utilization_blocks WHERE cluster = 'east';
SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS summaries FROM acmetrace.summary_jobs t \gset before_
SELECT acmetrace.refresh_summaries() > 0 AS refreshed;
SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) = :'before_summaries' AS summaries_equal_a_rebuild
  FROM acmetrace.summary_jobs t;

-- 6. '*' grants every cluster, present and future.
SET ROLE regress_everyone;
SELECT string_agg(DISTINCT cluster, ',' ORDER BY cluster) AS everyone_sees FROM acmetrace.jobs;
RESET ROLE;

-- 7. The grants are the owner's: errors, NULLs, revoking.
SET ROLE regress_alice;
\set VERBOSITY terse
SELECT acmetrace.grant_cluster('west', 'regress_alice');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.revoke_cluster('east', 'regress_team_east');
\echo :LAST_ERROR_SQLSTATE
SELECT acmetrace.revoke_cluster('west', 'regress_team_west') AS revoked_an_invisible_grant;
\set VERBOSITY default
RESET ROLE;
\set VERBOSITY terse
SELECT acmetrace.grant_cluster(NULL, 'regress_alice');
SELECT acmetrace.grant_cluster('', 'regress_alice');
SELECT acmetrace.grant_cluster('east', NULL);
SELECT acmetrace.grant_cluster('east', 'regress_nobody_such');
SELECT acmetrace.revoke_cluster('east', NULL);
\set VERBOSITY default
SELECT acmetrace.revoke_cluster('east', 'regress_nobody_such') AS revoked_nothing;
SELECT acmetrace.revoke_cluster('east', 'regress_team_east') AS revoked;
SET ROLE regress_alice;
SELECT count(*) AS jobs_after_revoke FROM acmetrace.jobs;
RESET ROLE;
-- public: every role; a dropped role's grant applies to nobody and breaks nothing
SELECT acmetrace.grant_cluster('east', 'public');
CREATE ROLE regress_gone;
SELECT acmetrace.grant_cluster('west', 'regress_gone');
DROP ROLE regress_gone;
SET ROLE regress_alice;
SELECT cluster, count(*) FROM acmetrace.jobs GROUP BY cluster;
SELECT cluster, grantee FROM acmetrace.cluster_access ORDER BY 1, 2;
RESET ROLE;
SELECT acmetrace.revoke_cluster('east', 'public'), acmetrace.revoke_cluster('west', 'regress_gone');

-- 8. Job type rules of every cluster (cluster NULL): read by all, written by the owner.
INSERT INTO acmetrace.job_type_rules (cluster, position, field, pattern, type) VALUES (NULL, 1, 'job_name', '^eval', 'Eval');
SET ROLE regress_west_loader;
SELECT count(*) AS rules_seen FROM acmetrace.job_type_rules;
\set VERBOSITY terse
INSERT INTO acmetrace.job_type_rules (cluster, position, field, pattern, type) VALUES (NULL, 2, 'job_name', '^x', 'Debug');
\set VERBOSITY default
DELETE FROM acmetrace.job_type_rules WHERE cluster IS NULL;
UPDATE acmetrace.job_type_rules SET cluster = 'west' WHERE cluster IS NULL;
INSERT INTO acmetrace.job_type_rules (cluster, position, field, pattern, type) VALUES ('west', 2, 'job_name', '^x', 'Debug');
RESET ROLE;
SELECT cluster, position, type FROM acmetrace.job_type_rules ORDER BY position;

-- 9. A user's own policy narrows within a cluster (restrictive), and the
-- analyses then scan rather than read the summaries.
CREATE POLICY regress_only_eval ON acmetrace.jobs AS RESTRICTIVE FOR SELECT TO regress_everyone USING (type = 'Eval');
SET ROLE regress_everyone;
SELECT acmetrace_internal.jobs_narrowed() AS narrowed, acmetrace_internal.summarized('west') AS summarized;
SELECT (SELECT string_agg(DISTINCT type, ',') FROM acmetrace.jobs) AS types_seen,
       (SELECT string_agg(type, ',' ORDER BY type) FROM acmetrace.type_distribution('west')) AS analysis_types;
RESET ROLE;
DROP POLICY regress_only_eval ON acmetrace.jobs;

DELETE FROM acmetrace.cluster_access;
DROP OWNED BY regress_team_east, regress_team_west, regress_alice, regress_west_loader, regress_everyone;
DROP ROLE regress_alice, regress_west_loader, regress_team_east, regress_team_west, regress_everyone;
DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
