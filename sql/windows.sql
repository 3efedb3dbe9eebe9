-- Time windows of the job analyses: since, until select the jobs submitted
-- in [since, until).  A windowed call equals the unwindowed call over a
-- cluster holding just that window's jobs (the same rows, in order, but for
-- the cluster's name); NULL bounds are open; since >= until is 22023.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SELECT acmetrace.load_generated('w', 'seren', 6000, 21) AS jobs;
-- a few untyped jobs, so the untyped rows are windowed too
UPDATE acmetrace.jobs SET type = NULL WHERE cluster = 'w' AND hashtext(job_id) % 50 = 0;
SELECT min(submit_time) AS first_submit, max(submit_time) AS last_submit FROM acmetrace.jobs WHERE cluster = 'w';
-- the window: from 4 to 16 hours after the first whole hour
SELECT date_trunc('hour', min(submit_time)) + interval '4 hours' AS since,
       date_trunc('hour', min(submit_time)) + interval '16 hours' AS until
  FROM acmetrace.jobs WHERE cluster = 'w' \gset
-- the window's jobs as a cluster of their own
INSERT INTO acmetrace.clusters (cluster, source_format, time_zone, gpu_capacity)
SELECT 'w_part', source_format, time_zone, gpu_capacity FROM acmetrace.clusters WHERE cluster = 'w';
SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS cols FROM pg_attribute
 WHERE attrelid = 'acmetrace.jobs'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' AND attname <> 'cluster' \gset
INSERT INTO acmetrace.jobs (cluster, :cols)
SELECT 'w_part', :cols FROM acmetrace.jobs j WHERE j.cluster = 'w' AND j.submit_time >= :'since' AND j.submit_time < :'until';
SELECT (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'w') AS all_jobs,
       (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'w_part') AS window_jobs,
       (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'w_part' AND type IS NULL) AS untyped_in_window;

-- some failures classified, in both clusters alike
INSERT INTO acmetrace.failure_reasons (cluster, job_id, category, reason)
SELECT j.cluster, j.job_id, 'Script', CASE WHEN j.gpu_num >= 8 THEN 'CUDA error' ELSE 'FileNotFoundError' END
  FROM acmetrace.jobs j WHERE j.cluster IN ('w', 'w_part') AND j.final_state = 'FAILED' AND hashtext(j.job_id) % 3 = 0;

-- windowed(call): the rows of call on w within the window and of call on
-- w_part, each as text without the cluster, in order.
CREATE FUNCTION pg_temp.same(call text, since timestamptz, until timestamptz)
RETURNS TABLE (rows bigint, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
    a text[];
    b text[];
BEGIN
    EXECUTE format('SELECT array_agg((to_jsonb(t) - ''cluster'' - ''ordinality'')::text ORDER BY t.ordinality) FROM acmetrace.%s WITH ORDINALITY t',
                   format(call, 'w', since, until)) INTO a;
    EXECUTE format('SELECT array_agg((to_jsonb(t) - ''cluster'' - ''ordinality'')::text ORDER BY t.ordinality) FROM acmetrace.%s WITH ORDINALITY t',
                   format(call, 'w_part', NULL, NULL)) INTO b;
    RETURN QUERY SELECT cardinality(a)::bigint, a IS NOT DISTINCT FROM b;
END
$$;
SELECT c.call, s.rows, s.same
  FROM (VALUES ('state_breakdown(%L, since => %L, until => %L)'),
               ('state_by_type(%L, since => %L, until => %L)'),
               ('type_distribution(%L, since => %L, until => %L)'),
               ('gpu_time_lost(%L, since => %L, until => %L)'),
               ('gpu_time_lost_weekly(%L, since => %L, until => %L)'),
               ('queue_percentiles(%L, since => %L, until => %L)'),
               ('queue_percentiles(%L, ''{0,0.25,1}'', true, %L, %L)'),
               ('queue_cdf(%L, since => %L, until => %L)'),
               ('duration_cdf(%L, since => %L, until => %L)'),
               ('gpu_num_cdf(%L, since => %L, until => %L)'),
               ('gpu_num_boxplot(%L, since => %L, until => %L)'),
               ('failure_taxonomy(%L, since => %L, until => %L)')) c(call),
       LATERAL pg_temp.same(c.call, :'since', :'until') s;
-- the window changes the answer (w's own rows differ), and both bounds NULL
-- is the whole trace, from the summaries
SELECT (SELECT jobs FROM acmetrace.type_distribution('w') WHERE type = 'all') AS all_jobs,
       (SELECT jobs FROM acmetrace.type_distribution('w', :'since', :'until') WHERE type = 'all') AS window_jobs,
       (SELECT jobs FROM acmetrace.type_distribution('w', :'since') WHERE type = 'all')
         = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'w' AND gpu_num > 0 AND submit_time >= :'since') AS open_until,
       (SELECT jobs FROM acmetrace.type_distribution('w', until => :'until') WHERE type = 'all')
         = (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'w' AND gpu_num > 0 AND submit_time < :'until') AS open_since,
       (SELECT array_agg(t::text) FROM acmetrace.state_by_type('w', NULL, NULL) t)
         = (SELECT array_agg(t::text) FROM acmetrace.state_by_type('w') t) AS null_is_unbounded;
-- every cluster (NULL) with a window: each cluster's own window
SELECT cluster, jobs FROM acmetrace.type_distribution(NULL, :'since', :'until') WHERE type = 'all' ORDER BY 1;
-- partial: the window is shorter than a week
SELECT week, jobs, partial FROM acmetrace.gpu_time_lost_weekly('w', :'since', :'until') ORDER BY week;

-- An empty or reversed window is an error naming both bounds, with a hint.
\set VERBOSITY default
SELECT * FROM acmetrace.state_breakdown('w', '2023-03-10', '2023-03-10');
SELECT * FROM acmetrace.queue_percentiles('w', since => '2023-03-10', until => '2023-03-01');
-- an unknown cluster is still 42704
SELECT * FROM acmetrace.gpu_time_lost('nope', '2023-03-01', '2023-03-10');
