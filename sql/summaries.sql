-- Summaries kept at load: every standard analysis gives the same rows from
-- the summaries as from a scan of acmetrace.jobs, after loads, appends,
-- reloads, drops and direct changes, and the summaries always equal a
-- rebuild from scratch.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

\i :abs_srcdir/test/regress_paths.sql

-- fresh(): the summaries equal what a rebuild from the jobs makes.
CREATE FUNCTION pg_temp.summary_text() RETURNS SETOF text LANGUAGE sql AS $$
    SELECT 'c ' || (s.cluster, s.jobs, s.occupancy_capacity, s.peak_allocated, s.exact)::text FROM acmetrace.summary_clusters s
    UNION ALL SELECT 'j ' || s::text FROM acmetrace.summary_jobs s
    UNION ALL SELECT 'g ' || s::text FROM acmetrace.summary_groups s
    UNION ALL SELECT 'w ' || s::text FROM acmetrace.summary_weeks s
    UNION ALL SELECT 'v ' || s::text FROM acmetrace.summary_values s
$$;
CREATE FUNCTION pg_temp.fresh() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    before text[];
    after text[];
BEGIN
    before := ARRAY(SELECT t FROM pg_temp.summary_text() t ORDER BY t);
    PERFORM acmetrace.refresh_summaries();
    after := ARRAY(SELECT t FROM pg_temp.summary_text() t ORDER BY t);
    RETURN before = after AND cardinality(before) > 0;
END
$$;
-- summarized(): which clusters the analyses answer from summaries.
CREATE FUNCTION pg_temp.summarized() RETURNS TABLE (cluster text, summarized boolean) LANGUAGE sql AS $$
    SELECT c.cluster, acmetrace_internal.summarized(c.cluster) FROM acmetrace.clusters c ORDER BY 1
$$;

-- 1. Every published format and generated traces, in three time zones
-- (one with daylight saving time, one a fixed abbreviation).
\copy acmetrace.trace_seren FROM 'acme_trace_seren_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.trace_kalos FROM 'acme_trace_kalos_sample.csv' (FORMAT csv, HEADER match)
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'helios_la';
SET acmetrace.time_zone = 'America/Los_Angeles';
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
SET acmetrace.cluster = 'helios_pst';
RESET acmetrace.time_zone;
\copy acmetrace.helios_cluster_log FROM 'helios_cluster_log_sample.csv' (FORMAT csv, HEADER match)
RESET acmetrace.cluster;
-- (acmetrace.time_zone takes zone names only; older loads accepted abbreviations)
UPDATE acmetrace.clusters SET time_zone = 'PST' WHERE cluster = 'helios_pst';
\copy acmetrace.philly_job_log (line) FROM 'philly_cluster_job_log_sample.json' (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
SELECT acmetrace.load_generated('synth', 'seren', 20000, 5);
SELECT acmetrace.load_generated('kal', 'kalos', 5000, 7);
INSERT INTO acmetrace.failure_reasons
SELECT cluster, job_id, 'Script', 'FileNotFoundError' FROM acmetrace.jobs
 WHERE cluster = 'synth' AND state = 'FAILED' ORDER BY job_id LIMIT 10;
INSERT INTO acmetrace.failure_reasons
SELECT cluster, job_id, 'Infrastructure', 'NVLink error' FROM acmetrace.jobs
 WHERE cluster = 'synth' AND state = 'COMPLETED' ORDER BY job_id LIMIT 3;

SELECT c.cluster, c.jobs, c.occupancy_capacity, c.peak_allocated, c.exact,
       (SELECT count(*) FROM acmetrace.summary_jobs s WHERE s.cluster = c.cluster) AS day_rows,
       (SELECT count(*) FROM acmetrace.summary_groups s WHERE s.cluster = c.cluster) AS group_rows,
       (SELECT count(*) FROM acmetrace.summary_values s WHERE s.cluster = c.cluster) AS value_rows,
       c.jobs = (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = c.cluster) AS every_job
  FROM acmetrace.summary_clusters c ORDER BY 1;
SELECT * FROM pg_temp.summarized();
BEGIN;
SELECT * FROM pg_temp.paths();
SELECT cl, count(*) AS analyses, count(*) FILTER (WHERE same) AS same
  FROM unnest(ARRAY['synth', 'helios_la', 'helios_pst', 'philly']) cl, pg_temp.paths(cl)
 GROUP BY cl ORDER BY cl;
COMMIT;
-- Days and weeks in the cluster's zone: the Helios sample in Los Angeles
-- and at a fixed PST offset, against AT TIME ZONE.
SELECT s.cluster, s.submit_day, s.end_week, s.jobs,
       s.submit_day = (SELECT min((j.submit_time AT TIME ZONE c.time_zone)::date) FROM acmetrace.jobs j
                        WHERE j.cluster = s.cluster AND j.type IS NOT DISTINCT FROM s.type
                          AND j.final_state = s.final_state AND j.gpu_num IS NOT DISTINCT FROM s.gpu_num) AS day_ok
  FROM acmetrace.summary_jobs s JOIN acmetrace.clusters c USING (cluster)
 WHERE s.cluster IN ('helios', 'helios_la', 'helios_pst') ORDER BY 1, 2, 3, 4;

-- 2. An append through the loader, a reload, direct changes: still the
-- same answers, and the summaries are what a rebuild makes.
SET acmetrace.cluster = 'synth';
INSERT INTO acmetrace.trace_seren (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT 'appended-' || job_id, user_id, node_num, gpu_num, cpu_num, type, state,
       submit_time + interval '30 days', start_time + interval '30 days', end_time + interval '30 days',
       duration, queue, gpu_time
  FROM acmetrace.jobs WHERE cluster = 'kal' ORDER BY job_id LIMIT 2000;
RESET acmetrace.cluster;
SELECT jobs FROM acmetrace.summary_clusters WHERE cluster = 'synth';
SELECT pg_temp.fresh() AS fresh_after_append;
BEGIN;
SELECT count(*) AS analyses, count(*) FILTER (WHERE same) AS same FROM pg_temp.paths('synth');
COMMIT;

SELECT acmetrace.drop_cluster('kal');
SELECT count(*) AS kal_summary_rows
  FROM pg_temp.summary_text() t WHERE t ~ '^. \(kal,';
SELECT acmetrace.load_generated('kal', 'kalos', 5000, 8);
SELECT pg_temp.fresh() AS fresh_after_reload;

UPDATE acmetrace.jobs SET state = 'CANCELLED'
 WHERE cluster = 'synth' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'synth' ORDER BY job_id LIMIT 50);
SELECT pg_temp.fresh() AS fresh_after_update;
DELETE FROM acmetrace.jobs WHERE cluster = 'synth' AND gpu_num = 8 AND job_id LIKE '%7';
SELECT pg_temp.fresh() AS fresh_after_delete;
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration, queue)
VALUES ('synth', 'direct-1', 'Eval', 'FAILED', 3, '2023-03-01 10:00+00', '2023-03-01 10:05+00', '2023-03-01 11:00+00', 3300.5, 300),
       ('kal', 'direct-2', NULL, 'COMPLETED', 0, '2023-03-01 10:00+00', NULL, NULL, NULL, NULL);
SELECT pg_temp.fresh() AS fresh_after_insert;
UPDATE acmetrace.clusters SET gpu_capacity = 1000 WHERE cluster = 'synth';
SELECT occupancy_capacity FROM acmetrace.summary_clusters WHERE cluster = 'synth';
UPDATE acmetrace.clusters SET time_zone = 'Asia/Tokyo' WHERE cluster = 'kal';
SELECT pg_temp.fresh() AS fresh_after_cluster_changes;
BEGIN;
SELECT cl, count(*) AS analyses, count(*) FILTER (WHERE same) AS same
  FROM unnest(ARRAY[NULL, 'synth', 'kal']) cl, pg_temp.paths(cl)
 GROUP BY cl ORDER BY cl;
COMMIT;

-- A rolled-back load leaves the summaries as they were.
BEGIN;
SELECT acmetrace.load_generated('gone', 'seren', 100, 1);
ROLLBACK;
SELECT count(*) AS gone_rows FROM pg_temp.summary_text() t WHERE t ~ '^. \(gone,';
SELECT pg_temp.fresh() AS fresh_after_rollback;

-- 3. Values the summaries cannot hold exactly: the cluster is scanned.
-- A NaN duration, then a job that ends before it starts (no occupancy:
-- queue_by_occupancy scans and gives the scan's error).
INSERT INTO acmetrace.jobs (cluster, job_id, state, gpu_num, submit_time, start_time, end_time, duration)
VALUES ('synth', 'nan', 'COMPLETED', 1, '2023-03-01 10:00+00', '2023-03-01 10:00+00', '2023-03-01 10:01+00', 'NaN');
SELECT exact FROM acmetrace.summary_clusters WHERE cluster = 'synth';
SELECT * FROM pg_temp.summarized();
DELETE FROM acmetrace.jobs WHERE cluster = 'synth' AND job_id = 'nan';
INSERT INTO acmetrace.jobs (cluster, job_id, state, gpu_num, submit_time, start_time, end_time, duration)
VALUES ('kal', 'backwards', 'COMPLETED', 2, '2023-03-01 10:00+00', '2023-03-01 12:00+00', '2023-03-01 11:00+00', 10);
SELECT exact, occupancy_capacity, peak_allocated FROM acmetrace.summary_clusters WHERE cluster = 'kal';
BEGIN;
SELECT * FROM pg_temp.paths('kal') WHERE analysis LIKE 'queue_by_occupancy%' OR analysis LIKE 'trace_comparison%' OR NOT same;
COMMIT;
DELETE FROM acmetrace.jobs WHERE cluster = 'kal' AND job_id = 'backwards';
SELECT * FROM pg_temp.summarized();

-- Numerics the one-pass grouping cannot sum exactly in 128-bit integers
-- (10 decimals, 20 digits): the grouping falls back to SQL's numeric, and
-- the answers are still the scan's.
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration, queue)
VALUES ('synth', 'long-decimals', 'Eval', 'COMPLETED', 8, '2023-03-02 10:00+00', '2023-03-02 10:00+00', '2023-03-02 10:01+00', 60.0000000001, 0),
       ('synth', 'many-digits', 'Eval', 'FAILED', 2147483647, '2023-03-02 11:00+00', '2023-03-02 11:00+00', '2023-03-02 11:01+00', 12345678901234567890, 0);
SELECT s.duration_sum, s.gpu_time
  FROM acmetrace.summary_jobs s
 WHERE s.cluster = 'synth' AND s.submit_day = '2023-03-02' AND s.type = 'Eval' AND s.gpu_num IN (8, 2147483647)
 ORDER BY s.gpu_num;
SELECT pg_temp.fresh() AS fresh_with_wide_numerics;
BEGIN;
SELECT count(*) AS analyses, count(*) FILTER (WHERE same) AS same FROM pg_temp.paths('synth');
COMMIT;
DELETE FROM acmetrace.jobs WHERE cluster = 'synth' AND job_id IN ('long-decimals', 'many-digits');
-- Every gpu_time too wide for the one-pass grouping, so from the first job
-- on each new duration and queue is read while the pass's table of
-- distinct numerics grows past its first 1024 entries (a read of that
-- table across its growth once gave stale values, depending on where the
-- wide rows lay in the heap; under ASan it is a use after free).
INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone)
VALUES ('wide', 'generated', 64, 'UTC');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT 'wide', 'w' || i, 'Eval', 'COMPLETED', i % 2, timestamptz '2023-03-01 00:00+00' + i * interval '1 minute',
       timestamptz '2023-03-01 00:00+00' + i * interval '1 minute', timestamptz '2023-03-01 00:00+00' + i * interval '1 minute',
       i + 0.5, 3000 + i + 0.25, 12345678901234567890 + i
  FROM generate_series(1, 3000) i;
SELECT m.measure, m.gpu, cardinality(m.vals) AS distinct_values,
       m.vals = ARRAY(SELECT DISTINCT CASE m.measure WHEN 'duration' THEN j.duration ELSE j.queue END::float8 AS v
                        FROM acmetrace.jobs j WHERE j.cluster = 'wide' AND (j.gpu_num > 0) = m.gpu ORDER BY v) AS vals_ok
  FROM acmetrace.summary_values m
 WHERE m.cluster = 'wide' AND m.measure IN ('duration', 'queue') AND m.all_types
 ORDER BY 1, 2;
SELECT pg_temp.fresh() AS fresh_with_wide_gpu_time;
BEGIN;
SELECT count(*) AS analyses, count(*) FILTER (WHERE same) AS same FROM pg_temp.paths('wide');
COMMIT;
SELECT acmetrace.drop_cluster('wide');

-- 4. acmetrace.summaries = off: loads keep no summaries for the clusters
-- they change (those are scanned), refresh_summaries builds them.
SET acmetrace.summaries = off;
SELECT acmetrace.load_generated('bulk', 'seren', 1000, 3);
RESET acmetrace.summaries;
SELECT * FROM pg_temp.summarized() WHERE cluster = 'bulk';
SELECT acmetrace_internal.summarized(NULL) AS all_summarized;
SELECT acmetrace.refresh_summaries('bulk');
SELECT * FROM pg_temp.summarized() WHERE cluster = 'bulk';
SELECT acmetrace.refresh_summaries() = (SELECT count(*) FROM acmetrace.clusters) AS refreshed_every_cluster;
\set VERBOSITY terse
SELECT acmetrace.refresh_summaries('nope');
\set VERBOSITY default

-- 5. Readers: without SELECT on the summaries, or under row-level
-- security, the analyses scan, so a policy still decides what a reader sees.
CREATE ROLE regress_acmetrace_summary_reader;
GRANT USAGE ON SCHEMA acmetrace TO regress_acmetrace_summary_reader;
GRANT SELECT ON acmetrace.jobs, acmetrace.clusters, acmetrace.failure_reasons TO regress_acmetrace_summary_reader;
SELECT acmetrace.grant_cluster('*', 'regress_acmetrace_summary_reader');
SET ROLE regress_acmetrace_summary_reader;
SELECT acmetrace_internal.summarized('synth') AS summarized_without_grant,
       (SELECT jobs FROM acmetrace.type_distribution('synth') WHERE type = 'Eval') AS eval_jobs;
RESET ROLE;
GRANT SELECT ON acmetrace.summary_clusters, acmetrace.summary_jobs, acmetrace.summary_groups,
                acmetrace.summary_weeks, acmetrace.summary_values TO regress_acmetrace_summary_reader;
CREATE POLICY only_eval ON acmetrace.jobs AS RESTRICTIVE FOR SELECT TO regress_acmetrace_summary_reader USING (type = 'Eval');
SET ROLE regress_acmetrace_summary_reader;
SELECT acmetrace_internal.summarized('synth') AS summarized_under_policy,
       (SELECT string_agg(type, ',') FROM acmetrace.type_distribution('synth')) AS types_seen;
RESET ROLE;
DROP POLICY only_eval ON acmetrace.jobs;
SET ROLE regress_acmetrace_summary_reader;
SELECT acmetrace_internal.summarized('synth') AS summarized_with_grants;
RESET ROLE;
SELECT acmetrace.revoke_cluster('*', 'regress_acmetrace_summary_reader');
DROP OWNED BY regress_acmetrace_summary_reader;
DROP ROLE regress_acmetrace_summary_reader;

-- 6. The value-count readers check what they are given.
SELECT acmetrace_internal.vc_percentiles('{1,2,4}', '{1,2,1}', '{0,0.5,0.75,1}') AS percentiles,
       acmetrace_internal.vc_counts_at('{1,2,4}', '{1,2,1}', '{0,2,3,4}', false) AS at_or_below,
       acmetrace_internal.vc_counts_at('{1,2,4}', '{1,2,1}', '{0,2,3,4}', true) AS below,
       acmetrace_internal.vc_sum('{1,2,4}', '{1,2,1}') AS sum,
       acmetrace_internal.vc_percentiles('{}', '{}', '{0.5}') AS no_values;
SELECT percentile_cont(ARRAY[0, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY v) AS percentile_cont_agrees
  FROM unnest('{1,2,2,4}'::float8[]) v;
\set VERBOSITY terse
SELECT acmetrace_internal.vc_percentiles('{1,1}', '{1,1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{2,1}', '{1,1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,NaN}', '{1,1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,Infinity}', '{1,1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,2}', '{1,0}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,2}', '{1,-5}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,2}', '{1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{{1,2}}', '{{1,1}}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,NULL}', '{1,1}', '{0.5}');
SELECT acmetrace_internal.vc_percentiles('{1,2}', '{1,1}', '{1.5}');
SELECT acmetrace_internal.vc_counts_at('{1,2}', '{1,1}', '{1,NULL}', false);
SELECT acmetrace_internal.vc_sketch('{1,2}', '{4503599627370497,1}');
SELECT acmetrace_internal.summary_scan('synth', 0, 'UTC', NULL);
SELECT acmetrace_internal.summary_scan('synth', NULL, 'Not/AZone', NULL);
SELECT acmetrace_internal.summary_scan('synth', NULL, NULL, 2000000000);
\set VERBOSITY default

-- Summary rows a user has tampered with are read through the same checks:
-- an error, never a crash; a refresh puts them right.
UPDATE acmetrace.summary_values SET vals = '{3,2,1}', counts = '{1,1,1}'
 WHERE cluster = 'synth' AND measure = 'wait';
\set VERBOSITY terse
SELECT count(*) FROM acmetrace.queue_cdf('synth');
\set VERBOSITY default
SELECT acmetrace.refresh_summaries('synth');
SELECT count(*) AS queue_cdf_rows FROM acmetrace.queue_cdf('synth');

-- 7. TRUNCATE empties every summary.
TRUNCATE acmetrace.jobs CASCADE;
SELECT count(*) AS summary_rows_left FROM pg_temp.summary_text() t WHERE t !~ '^c ';
SELECT cluster, jobs FROM acmetrace.summary_clusters ORDER BY 1;
