-- Who lost what: usage_by_user and usage_by_group equal a plain GROUP BY
-- over acmetrace.jobs for day-aligned windows (the summary path), other
-- windows (the scan), empty and whole ones, in a cluster's own time zone;
-- NULL users are a row of their own and the 'all' row is the sum of the
-- others; the summaries follow appends and state changes (summarize_delta);
-- by vc, account and partition; errors for a bad `by` and unknown clusters.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- alpha: Asia/Shanghai (load_generated's zone), capacity known; beta: UTC,
-- capacity unknown (the observed peak), a Helios-like vc per user.
SELECT acmetrace.load_generated('alpha', 'seren', 3000, 11) AS alpha,
       acmetrace.load_generated('beta', 'kalos', 1500, 12) AS beta;
UPDATE acmetrace.clusters SET time_zone = 'UTC', gpu_capacity = NULL WHERE cluster = 'beta';
UPDATE acmetrace.jobs SET vc = 'vc' || abs(hashtext(coalesce(user_id, ''))) % 4 WHERE cluster = 'beta';
-- a few jobs without a user, one still running (in no window), applied by summarize_delta
UPDATE acmetrace.jobs SET user_id = NULL
 WHERE cluster = 'alpha' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'alpha' ORDER BY job_id LIMIT 25);
SELECT current_setting('acmetrace_internal.last_delta') AS null_users_applied_by;
UPDATE acmetrace.jobs SET end_time = NULL, state = 'RUNNING'
 WHERE cluster = 'alpha' AND job_id = (SELECT max(job_id) FROM acmetrace.jobs WHERE cluster = 'alpha' AND gpu_num > 0);
SELECT current_setting('acmetrace_internal.last_delta') AS running_applied_by;
SELECT c.cluster, c.time_zone, c.gpu_capacity, count(*) AS jobs, count(DISTINCT j.user_id) AS users,
       count(*) FILTER (WHERE j.user_id IS NULL) AS null_users, count(*) FILTER (WHERE j.end_time IS NULL) AS not_ended,
       min(j.end_time) AS first_end, max(j.end_time) AS last_end
  FROM acmetrace.clusters c JOIN acmetrace.jobs j USING (cluster) GROUP BY 1, 2, 3 ORDER BY 1;

-- The definition, written plainly: jobs that ended in [since, until) per
-- key (user_id, vc, or the Slurm account / partition), a total row 'all'.
CREATE FUNCTION pg_temp.ref(cl text, since timestamptz, until timestamptz, key text)
RETURNS TABLE (cluster text, grp text, jobs bigint, gpu_jobs bigint, gpu_h numeric, failed_gpu_h numeric,
               cancelled_gpu_h numeric, lost_gpu_h numeric, lost_pct numeric, mean_wait_s numeric,
               p90_wait_s numeric, capacity_pct numeric)
LANGUAGE sql AS $$
    WITH j AS (
        SELECT j.*, CASE key WHEN 'user' THEN j.user_id WHEN 'vc' THEN j.vc WHEN 'account' THEN s.account
                                 ELSE s.partition END AS k
          FROM acmetrace.jobs j LEFT JOIN acmetrace.slurm_jobs s USING (cluster, job_id)
         WHERE (cl IS NULL OR j.cluster = cl) AND j.end_time >= coalesce(since, '-infinity')
           AND (until IS NULL OR j.end_time < until)),
    span AS (
        SELECT c.cluster,
               coalesce(c.gpu_capacity, (SELECT acmetrace.peak(acmetrace.occupancy_agg(x.start_time, x.end_time, x.gpu_num))
                                           FROM acmetrace.jobs x WHERE x.cluster = c.cluster AND x.gpu_num > 0)) AS cap,
               extract(epoch FROM least(until, max(x.end_time)) - greatest(since, min(x.submit_time))) AS secs
          FROM acmetrace.clusters c JOIN acmetrace.jobs x ON x.cluster = c.cluster AND x.end_time IS NOT NULL
         WHERE cl IS NULL OR c.cluster = cl
         GROUP BY c.cluster),
    g AS (
        SELECT j.cluster, j.k, count(*) AS n, count(*) FILTER (WHERE j.gpu_num > 0) AS gn,
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0), 0) AS t,
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'FAILED'), 0) AS f,
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'CANCELLED'), 0) AS c,
               extract(epoch FROM avg(j.start_time - j.submit_time) FILTER (WHERE j.gpu_num > 0 AND j.wait_s >= 0)) AS mw,
               percentile_cont(0.9) WITHIN GROUP (ORDER BY j.wait_s) FILTER (WHERE j.gpu_num > 0 AND j.wait_s >= 0) AS p90
          FROM j GROUP BY j.cluster, j.k
        UNION ALL
        SELECT s.cluster, 'all', count(j.*), count(*) FILTER (WHERE j.gpu_num > 0),
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0), 0),
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'FAILED'), 0),
               coalesce(sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'CANCELLED'), 0),
               extract(epoch FROM avg(j.start_time - j.submit_time) FILTER (WHERE j.gpu_num > 0 AND j.wait_s >= 0)),
               percentile_cont(0.9) WITHIN GROUP (ORDER BY j.wait_s) FILTER (WHERE j.gpu_num > 0 AND j.wait_s >= 0)
          FROM span s LEFT JOIN j ON j.cluster = s.cluster GROUP BY s.cluster)
    SELECT g.cluster, g.k, g.n, g.gn, round(g.t / 3600, 2), round(g.f / 3600, 2), round(g.c / 3600, 2),
           round((g.f + g.c) / 3600, 2), round(100 * (g.f + g.c) / nullif(g.t, 0), 2),
           acmetrace_internal.sig3(g.mw::float8), acmetrace_internal.sig3(g.p90),
           CASE WHEN s.secs > 0 THEN round(100 * g.t / (s.cap * s.secs), 2) END
      FROM g JOIN span s USING (cluster)
     ORDER BY g.cluster COLLATE "C", g.k IS NOT DISTINCT FROM 'all' DESC, g.f + g.c DESC, g.k COLLATE "C" NULLS LAST
$$;
-- same(): the rows, in order, as text
CREATE FUNCTION pg_temp.same(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE x text[]; y text[];
BEGIN
    EXECUTE 'SELECT array_agg(t::text) FROM (' || a || ') t' INTO x;
    EXECUTE 'SELECT array_agg(t::text) FROM (' || b || ') t' INTO y;
    RETURN x IS NOT DISTINCT FROM y AND cardinality(x) > 0;
END
$$;

-- 1. Windows: whole, a day in alpha's zone (summary path), the same day
-- at UTC midnights and some hours (scan), one bound only, an empty window,
-- a window past the trace; every cluster with bounds on midnights of both
-- zones (a cluster at a time: alpha's midnights are not beta's).  paths:
-- where the window is on a cluster's local midnights, usage_by_user reads
-- its summary_usage; summary: that path alone against the definition.
CREATE TEMP TABLE windows (name text, cl text, since timestamptz, until timestamptz);
INSERT INTO windows VALUES
  ('whole', 'alpha', NULL, NULL),
  ('local day', 'alpha', '2023-03-01 00:00+08', '2023-03-02 00:00+08'),
  ('utc day', 'alpha', '2023-03-01 00:00+00', '2023-03-02 00:00+00'),
  ('hours', 'alpha', '2023-03-01 09:00+08', '2023-03-01 13:30+08'),
  ('since only', 'alpha', '2023-03-02 00:00+08', NULL),
  ('until only', 'alpha', NULL, '2023-03-02 00:00+08'),
  ('empty', 'alpha', '2023-03-01 00:00+08', '2023-03-01 00:00+08'),
  ('after the trace', 'alpha', '2031-01-01 00:00+08', '2031-01-08 00:00+08'),
  ('beta whole', 'beta', NULL, NULL),
  ('beta days', 'beta', '2023-05-02', '2023-05-04'),
  ('every cluster', NULL, NULL, NULL),
  ('every cluster, utc days', NULL, '2023-03-01', '2023-05-03'),
  ('every cluster, alpha''s days', NULL, '2023-03-01 00:00+08', '2023-05-03 00:00+08');
SELECT w.name,
       (SELECT string_agg(c.cluster || CASE WHEN acmetrace_internal.usage_days(c.cluster, w.since, w.until)
                                             THEN ' summary' ELSE ' scan' END, ', ' ORDER BY c.cluster)
          FROM acmetrace.clusters c WHERE w.cl IS NULL OR c.cluster = w.cl) AS paths,
       (SELECT count(*) FROM acmetrace.usage_by_user(w.cl, w.since, w.until)) AS rows,
       pg_temp.same(format('SELECT * FROM acmetrace.usage_by_user(%L, %L, %L)', w.cl, w.since, w.until),
                    format('SELECT * FROM pg_temp.ref(%L, %L, %L, ''user'')', w.cl, w.since, w.until)) AS by_user,
       pg_temp.same(format('SELECT * FROM acmetrace_internal.usage_scan(%L, %L, %L, ''user'')', w.cl, w.since, w.until),
                    format('SELECT * FROM pg_temp.ref(%L, %L, %L, ''user'')', w.cl, w.since, w.until)) AS scan,
       CASE WHEN acmetrace_internal.usage_days(w.cl, w.since, w.until) THEN
       pg_temp.same(format('SELECT * FROM acmetrace_internal.usage_summary(%L, %L, %L, ''user'')', w.cl, w.since, w.until),
                    format('SELECT * FROM pg_temp.ref(%L, %L, %L, ''user'')', w.cl, w.since, w.until)) END AS summary,
       pg_temp.same(format('SELECT * FROM acmetrace.usage_by_group(%L, %L, %L)', w.cl, w.since, w.until),
                    format('SELECT * FROM pg_temp.ref(%L, %L, %L, ''vc'')', w.cl, w.since, w.until)) AS by_vc
  FROM windows w ORDER BY w.name;

-- A local day as the analysis prints it, an empty window (the total row
-- alone), and beta's vcs over two days.
SELECT * FROM acmetrace.usage_by_user('alpha', '2023-03-01 00:00+08', '2023-03-02 00:00+08') LIMIT 6;
SELECT * FROM acmetrace.usage_by_user('alpha', '2023-03-01 00:00+08', '2023-03-01 00:00+08');
SELECT * FROM acmetrace.usage_by_group('beta', '2023-05-02', '2023-05-04');

-- 2. NULL users: one row; the 'all' row is the sum of the others (GPU-hours
-- to the rounding of each row); the running job is in no window.
SELECT u.cluster, count(*) FILTER (WHERE u.user_id IS NULL) AS null_user_rows,
       sum(u.jobs) FILTER (WHERE u.user_id IS NULL) AS null_user_jobs,
       max(u.jobs) FILTER (WHERE u.user_id = 'all') = sum(u.jobs) FILTER (WHERE u.user_id IS DISTINCT FROM 'all') AS jobs_add_up,
       max(u.gpu_jobs) FILTER (WHERE u.user_id = 'all') = sum(u.gpu_jobs) FILTER (WHERE u.user_id IS DISTINCT FROM 'all') AS gpu_jobs_add_up,
       abs(max(u.gpu_h) FILTER (WHERE u.user_id = 'all') - sum(u.gpu_h) FILTER (WHERE u.user_id IS DISTINCT FROM 'all'))
         <= 0.005 * count(*) AS gpu_h_add_up,
       abs(max(u.lost_gpu_h) FILTER (WHERE u.user_id = 'all') - sum(u.lost_gpu_h) FILTER (WHERE u.user_id IS DISTINCT FROM 'all'))
         <= 0.005 * count(*) AS lost_gpu_h_add_up,
       max(u.jobs) FILTER (WHERE u.user_id = 'all') = (SELECT count(*) FROM acmetrace.jobs j WHERE j.cluster = u.cluster AND j.end_time IS NOT NULL) AS all_ended_jobs
  FROM acmetrace.v_usage_by_user u GROUP BY u.cluster ORDER BY 1;
-- ordered by lost GPU-hours within each cluster, the total first
SELECT cluster, bool_and(ordered) AS lost_desc
  FROM (SELECT cluster, lost_gpu_h <= lag(lost_gpu_h) OVER (PARTITION BY cluster ORDER BY ord) OR user_id = 'all'
                        OR lag(user_id) OVER (PARTITION BY cluster ORDER BY ord) = 'all' AS ordered
          FROM acmetrace.usage_by_user() WITH ORDINALITY t(cluster, user_id, jobs, gpu_jobs, gpu_h, f, c, lost_gpu_h, l, m, p, cp, ord)) o
 GROUP BY cluster ORDER BY 1;

-- 3. The summaries follow changes: jobs appended by summarize_delta (the
-- Slurm loader's path), a state changed, a job deleted; after each,
-- summary_usage equals a rebuild, and the windows still equal the definition.
CREATE FUNCTION pg_temp.usage_rows(cl text) RETURNS SETOF text LANGUAGE sql AS
  'SELECT s::text FROM acmetrace.summary_usage s WHERE s.cluster = cl';
CREATE FUNCTION pg_temp.differing(cl text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before text[] := ARRAY(SELECT pg_temp.usage_rows(cl));
    after text[];
BEGIN
    PERFORM acmetrace_internal.summarize(cl);
    after := ARRAY(SELECT pg_temp.usage_rows(cl));
    RETURN (SELECT count(*) FROM (SELECT unnest(before) EXCEPT ALL SELECT unnest(after)) a)
         + (SELECT count(*) FROM (SELECT unnest(after) EXCEPT ALL SELECT unnest(before)) b);
END
$$;
BEGIN;
SELECT acmetrace_internal.summaries_by_caller('alpha');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, user_id, gpu_num, duration, submit_time, start_time, end_time)
VALUES ('alpha', 'new1', 'Pretrain', 'FAILED', 'newcomer', 8, 7200, '2023-03-01 09:00+08', '2023-03-01 10:00+08', '2023-03-01 12:00+08'),
       ('alpha', 'new2', 'Pretrain', 'CANCELLED', 'newcomer', 4, 3600, '2023-03-01 23:00+08', '2023-03-01 23:30+08', '2023-03-02 00:30+08'),
       ('alpha', 'new3', 'Eval', 'COMPLETED', NULL, 1, 60, '2023-03-01 10:00+08', '2023-03-01 10:00+08', '2023-03-01 10:01+08');
SELECT acmetrace_internal.summarize_delta('alpha', '{}',
         ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = 'alpha' AND j.job_id LIKE 'new%'));
COMMIT;
SELECT current_setting('acmetrace_internal.last_delta') AS appended_by, pg_temp.differing('alpha') AS differing;
SELECT * FROM acmetrace.usage_by_user('alpha', '2023-03-01 00:00+08', '2023-03-03 00:00+08') WHERE user_id IN ('newcomer', 'all') OR user_id IS NULL;
UPDATE acmetrace.jobs SET state = 'COMPLETED' WHERE cluster = 'alpha' AND job_id = 'new1';
SELECT current_setting('acmetrace_internal.last_delta') AS state_change_by, pg_temp.differing('alpha') AS differing;
SELECT user_id, jobs, gpu_h, failed_gpu_h, cancelled_gpu_h, lost_gpu_h, lost_pct
  FROM acmetrace.usage_by_user('alpha', '2023-03-01 00:00+08', '2023-03-03 00:00+08') WHERE user_id = 'newcomer';
DELETE FROM acmetrace.jobs WHERE cluster = 'alpha' AND job_id = 'new2';
SELECT current_setting('acmetrace_internal.last_delta') AS delete_by, pg_temp.differing('alpha') AS differing;
SELECT w.name,
       pg_temp.same(format('SELECT * FROM acmetrace.usage_by_user(%L, %L, %L)', w.cl, w.since, w.until),
                    format('SELECT * FROM pg_temp.ref(%L, %L, %L, ''user'')', w.cl, w.since, w.until)) AS by_user
  FROM windows w WHERE w.cl = 'alpha' ORDER BY w.name;

-- The rebuild's one C pass (usage_scan_pass) against the SQL it stands in
-- for (usage_rows), row for row as text, on every cluster; a NaN gpu_time
-- makes the pass give up (no rows), and the SQL then builds the cluster.
SELECT c.cluster, count(*) AS rows,
       (SELECT count(*) FROM (SELECT s::text FROM acmetrace.summary_usage s WHERE s.cluster = c.cluster
                              EXCEPT ALL SELECT u::text FROM acmetrace_internal.usage_rows(c.cluster, c.time_zone, NULL) u) a)
     + (SELECT count(*) FROM (SELECT u::text FROM acmetrace_internal.usage_rows(c.cluster, c.time_zone, NULL) u
                              EXCEPT ALL SELECT s::text FROM acmetrace.summary_usage s WHERE s.cluster = c.cluster) b) AS differing
  FROM acmetrace.clusters c JOIN acmetrace.summary_usage s USING (cluster) GROUP BY c.cluster, c.time_zone ORDER BY 1;
BEGIN;
SELECT acmetrace_internal.summaries_by_caller('alpha');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, user_id, gpu_num, duration, gpu_time, submit_time, start_time, end_time)
VALUES ('alpha', 'nan', 'Eval', 'COMPLETED', 'newcomer', 2, 60, 'NaN', '2023-03-01 09:00+08', '2023-03-01 10:00+08', '2023-03-01 10:01+08');
SELECT acmetrace_internal.summarize_delta('alpha', '{}', ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = 'alpha' AND j.job_id = 'nan'));
SELECT count(*) AS pass_rows FROM acmetrace_internal.usage_scan_pass('alpha', 'Asia/Shanghai', NULL);
SELECT pg_temp.differing('alpha') AS differing;
ROLLBACK;

-- 4. Slurm jobs by account and partition (acmetrace.slurm_jobs); other
-- jobs of a Slurm cluster would be the NULL group.
SET acmetrace.cluster = 'prod';
\copy acmetrace.sacct_jobs FROM 'slurm/sample.txt' (FORMAT csv, HEADER match, DELIMITER E'\x1f', QUOTE E'\x1e')
RESET acmetrace.cluster;
SELECT * FROM acmetrace.usage_by_group('prod', by => 'account');
SELECT * FROM acmetrace.usage_by_group('prod', by => 'partition');
SELECT b, pg_temp.same(format('SELECT * FROM acmetrace.usage_by_group(''prod'', NULL, NULL, %L)', b),
                       format('SELECT * FROM pg_temp.ref(''prod'', NULL, NULL, %L)', b)) AS same,
       pg_temp.same(format('SELECT * FROM acmetrace.usage_by_group(''prod'', ''2023-07-01'', ''2023-07-02 06:00'', %L)', b),
                    format('SELECT * FROM pg_temp.ref(''prod'', ''2023-07-01'', ''2023-07-02 06:00'', %L)', b)) AS same_window
  FROM unnest(ARRAY['account', 'partition', 'vc']) b;
SELECT * FROM acmetrace.usage_by_user('prod');

-- 5. Errors: an unknown `by` (22023, the choices in the hint), an unknown
-- cluster (42704); NULL is every cluster.
\set VERBOSITY default
SELECT * FROM acmetrace.usage_by_group('alpha', by => 'user');
SELECT * FROM acmetrace.usage_by_group('alpha', by => NULL);
SELECT * FROM acmetrace.usage_by_user('nope');
SELECT * FROM acmetrace.usage_by_group('Alpha');
SELECT cluster, count(*) AS rows FROM acmetrace.usage_by_user(NULL) GROUP BY 1 ORDER BY 1;
SELECT (SELECT count(*) FROM acmetrace.v_usage_by_group) AS group_rows,
       (SELECT count(DISTINCT cluster) FROM acmetrace.v_usage_by_group) AS group_clusters;

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
