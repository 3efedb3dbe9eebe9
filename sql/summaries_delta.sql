-- Summaries at the cost of what changed: after every change applied by
-- summarize_delta (appends of a later day, running jobs completing, state
-- changes, deletes, jobs that have not ended), each summary table equals a
-- rebuild from the jobs, and the delta path (not the rebuild) was taken.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- The summaries of cl as text rows (built_at aside; text: a numeric's scale counts).
CREATE FUNCTION pg_temp.summary_rows(cl text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT 'c ' || (s.cluster, s.jobs, s.occupancy_capacity, s.peak_allocated, s.exact)::text
      FROM acmetrace.summary_clusters s WHERE s.cluster = cl
    UNION ALL SELECT 'j ' || s::text FROM acmetrace.summary_jobs s WHERE s.cluster = cl
    UNION ALL SELECT 'g ' || s::text FROM acmetrace.summary_groups s WHERE s.cluster = cl
    UNION ALL SELECT 'w ' || s::text FROM acmetrace.summary_weeks s WHERE s.cluster = cl
    UNION ALL SELECT 'v ' || s::text FROM acmetrace.summary_values s WHERE s.cluster = cl
$$;
-- differing(cl): rows in the summaries but not in a rebuild, plus the
-- reverse (EXCEPT ALL both ways); the rebuild stays.
CREATE FUNCTION pg_temp.differing(cl text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    before text[] := ARRAY(SELECT pg_temp.summary_rows(cl));
    after text[];
BEGIN
    PERFORM acmetrace_internal.summarize(cl);
    after := ARRAY(SELECT pg_temp.summary_rows(cl));
    RETURN (SELECT count(*) FROM (SELECT unnest(before) EXCEPT ALL SELECT unnest(after)) a)
         + (SELECT count(*) FROM (SELECT unnest(after) EXCEPT ALL SELECT unnest(before)) b);
END
$$;

CREATE TABLE pg_temp.tally (cluster text, op text, changes integer, how text, differing bigint);

-- One random change of cl through summarize_delta, checked.
CREATE FUNCTION pg_temp.change(cl text, it integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    op text := (ARRAY['append', 'complete', 'state', 'delete', 'start', 'move', 'append'])[1 + it % 7];
    ids text[];
    old_rows acmetrace.jobs[];
    new_rows acmetrace.jobs[];
    n integer := 1 + floor(random() * 12)::integer;
    last timestamptz;
BEGIN
    PERFORM acmetrace_internal.summaries_by_caller(cl);
    IF op = 'append' THEN
        -- a later day: copies of random jobs, some still running, some pending
        SELECT max(j.submit_time) INTO last FROM acmetrace.jobs j WHERE j.cluster = cl;
        ids := ARRAY(SELECT j.job_id FROM acmetrace.jobs j WHERE j.cluster = cl ORDER BY random() LIMIT n * 4);
        INSERT INTO acmetrace.jobs (cluster, type, gpu_num, node_num, cpu_num, submit_time, start_time, end_time, state,
                                    job_id, user_id, duration, queue, gpu_time)
        SELECT cl, j.type, j.gpu_num, j.node_num, j.cpu_num, s.submit, s.submit + q.q,
               CASE WHEN r.r < 0.15 THEN NULL ELSE s.submit + q.q + d.d END,
               CASE WHEN r.r < 0.08 THEN 'PENDING' WHEN r.r < 0.15 THEN 'RUNNING' ELSE j.state END,
               'd' || it || '_' || j.job_id, j.user_id, CASE WHEN r.r >= 0.15 THEN date_part('epoch', d.d)::numeric END,
               date_part('epoch', q.q)::numeric, CASE WHEN r.r >= 0.15 THEN date_part('epoch', d.d)::numeric * j.gpu_num END
          FROM acmetrace.jobs j,
               LATERAL (SELECT random() AS r) r,
               LATERAL (SELECT last + interval '1 day' * random() + interval '1 hour' AS submit) s,
               LATERAL (SELECT interval '1 second' * floor(random() * 600) AS q) q,
               LATERAL (SELECT interval '1 second' * (1 + floor(random() * 20000)) AS d) d
         WHERE j.cluster = cl AND j.job_id = ANY (ids);
        -- pending: no start
        UPDATE acmetrace.jobs j SET start_time = NULL, queue = NULL
         WHERE j.cluster = cl AND j.job_id LIKE 'd' || it || '\_%' AND j.state = 'PENDING';
        old_rows := '{}';
        new_rows := ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id LIKE 'd' || it || '\_%');
    ELSE
        ids := ARRAY(SELECT j.job_id FROM acmetrace.jobs j
                      WHERE j.cluster = cl
                        AND CASE op WHEN 'complete' THEN j.state = 'RUNNING' WHEN 'start' THEN j.state = 'PENDING' ELSE true END
                      ORDER BY random() LIMIT n);
        old_rows := ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id = ANY (ids));
        IF op = 'complete' THEN
            UPDATE acmetrace.jobs j SET end_time = j.start_time + interval '1 second' * (1 + floor(random() * 9000)),
                                        state = (ARRAY['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT'])[1 + floor(random() * 4)::integer]
             WHERE j.cluster = cl AND j.job_id = ANY (ids);
            UPDATE acmetrace.jobs j SET duration = date_part('epoch', j.end_time - j.start_time)::numeric,
                                        gpu_time = date_part('epoch', j.end_time - j.start_time)::numeric * j.gpu_num
             WHERE j.cluster = cl AND j.job_id = ANY (ids);
        ELSIF op = 'start' THEN
            UPDATE acmetrace.jobs j SET start_time = j.submit_time + interval '1 second' * floor(random() * 900),
                                        state = 'RUNNING'
             WHERE j.cluster = cl AND j.job_id = ANY (ids);
            UPDATE acmetrace.jobs j SET queue = date_part('epoch', j.start_time - j.submit_time)::numeric
             WHERE j.cluster = cl AND j.job_id = ANY (ids);
        ELSIF op = 'state' THEN
            UPDATE acmetrace.jobs j SET state = (ARRAY['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL'])[1 + floor(random() * 5)::integer]
             WHERE j.cluster = cl AND j.job_id = ANY (ids) AND j.end_time IS NOT NULL;
        ELSIF op = 'move' THEN
            -- earlier in the history: other times, other GPUs, a type of another job
            UPDATE acmetrace.jobs j SET start_time = j.start_time - interval '1 minute' * floor(random() * 30),
                                        gpu_num = CASE WHEN j.gpu_num > 0 THEN greatest(1, j.gpu_num / 2) ELSE 0 END,
                                        type = CASE WHEN random() < 0.3 THEN 'Debug' ELSE j.type END
             WHERE j.cluster = cl AND j.job_id = ANY (ids) AND j.start_time IS NOT NULL;
        ELSE
            DELETE FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id = ANY (ids);
        END IF;
        new_rows := ARRAY(SELECT j FROM acmetrace.jobs j WHERE j.cluster = cl AND j.job_id = ANY (ids));
    END IF;
    PERFORM acmetrace_internal.summarize_delta(cl, old_rows, new_rows);
    INSERT INTO pg_temp.tally
    VALUES (cl, op, cardinality(old_rows) + cardinality(new_rows),
            pg_catalog.current_setting('acmetrace_internal.last_delta'), pg_temp.differing(cl));
END
$$;

-- 1. Generated clusters: one in a zone with daylight saving time and the
-- observed peak as capacity, one with gpu_capacity, one at a fixed offset.
SELECT acmetrace.load_generated('ny', 'seren', 3000, 11);
SELECT acmetrace.load_generated('ber', 'kalos', 3000, 12);
SELECT acmetrace.load_generated('est', 'seren', 2000, 13);
UPDATE acmetrace.clusters SET gpu_capacity = NULL, time_zone = 'America/New_York' WHERE cluster = 'ny';
UPDATE acmetrace.clusters SET time_zone = 'Europe/Berlin' WHERE cluster = 'ber';
UPDATE acmetrace.clusters SET gpu_capacity = NULL, time_zone = 'EST' WHERE cluster = 'est';
SELECT cluster, time_zone, gpu_capacity FROM acmetrace.clusters ORDER BY 1;

-- 2. Many random changes, each checked against a rebuild.
SELECT setseed(0.33);
BEGIN;
SELECT count(pg_temp.change(c.cluster, i))
  FROM generate_series(1, 60) i, (VALUES ('ny'), ('ber'), ('est')) c(cluster);
COMMIT;
-- every change: 0 differing rows; the delta path taken for nearly all.
-- (Which jobs a change picks depends on the scan order random() meets, so
-- only what holds for any pick is shown.)
SELECT cluster, count(*) AS changes, sum(changes) > 400 AS hundreds_of_jobs_changed, sum(differing) AS differing_rows,
       count(*) FILTER (WHERE how = 'delta') >= 0.9 * count(*) AS mostly_delta
  FROM pg_temp.tally GROUP BY cluster ORDER BY 1;
SELECT op, sum(changes) > 0 AS jobs_changed, sum(differing) AS differing_rows,
       count(*) FILTER (WHERE how = 'delta') > 0 AS delta_taken
  FROM pg_temp.tally GROUP BY op ORDER BY 1;
SELECT count(*) AS changes, sum(differing) AS differing_rows,
       bool_and(how = 'delta' OR how IN ('rebuild: the peak may fall', 'rebuild: the capacity (the peak) moves')) AS known_paths
  FROM pg_temp.tally;
-- what the appends held: jobs that have not ended, running and pending
SELECT count(*) FILTER (WHERE j.state = 'RUNNING' AND j.start_time IS NOT NULL AND j.end_time IS NULL) > 0 AS running,
       count(*) FILTER (WHERE j.state = 'PENDING' AND j.start_time IS NULL) > 0 AS pending
  FROM acmetrace.jobs j;

-- 3. The statement triggers: an UPDATE or DELETE of a few jobs takes the
-- delta path; of many, a rebuild.  Each leaves the summaries fresh.
UPDATE acmetrace.jobs SET state = 'FAILED' WHERE cluster = 'ny' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'ny' AND state = 'COMPLETED' ORDER BY job_id LIMIT 5);
SELECT current_setting('acmetrace_internal.last_delta') AS how, pg_temp.differing('ny') AS differing_rows;
UPDATE acmetrace.jobs SET end_time = start_time + interval '1 hour', state = 'COMPLETED', duration = 3600
 WHERE cluster = 'ber' AND state = 'RUNNING' AND start_time IS NOT NULL;
SELECT current_setting('acmetrace_internal.last_delta') AS how, pg_temp.differing('ber') AS differing_rows;
DELETE FROM acmetrace.jobs WHERE cluster = 'est' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'est' ORDER BY job_id DESC LIMIT 7);
SELECT current_setting('acmetrace_internal.last_delta') AS how, pg_temp.differing('est') AS differing_rows;
SELECT acmetrace_internal.delta_taken('none');
UPDATE acmetrace.jobs SET user_id = user_id WHERE cluster = 'est';
SELECT current_setting('acmetrace_internal.last_delta') AS how, pg_temp.differing('est') AS differing_rows;
-- the caller's clusters are left to it until the transaction ends
BEGIN;
SELECT acmetrace_internal.summaries_by_caller('ny');
SELECT acmetrace_internal.delta_taken('none');
DELETE FROM acmetrace.jobs WHERE cluster = 'ny' AND job_id IN (SELECT job_id FROM acmetrace.jobs WHERE cluster = 'ny' ORDER BY job_id LIMIT 3);
SELECT current_setting('acmetrace_internal.last_delta') AS how,
       (SELECT s.jobs FROM acmetrace.summary_clusters s WHERE s.cluster = 'ny') - (SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'ny') AS stale_by;
-- an INSERT meanwhile is the caller's: no cluster is rebuilt
CREATE TEMP TABLE built AS SELECT cluster, built_at FROM acmetrace.summary_clusters;
INSERT INTO acmetrace.jobs (cluster, job_id, state, submit_time) VALUES ('ny', 'x1', 'PENDING', '2023-03-01 00:00');
SELECT count(*) AS rebuilt FROM acmetrace.summary_clusters s JOIN built b USING (cluster) WHERE s.built_at <> b.built_at;
ROLLBACK;

-- 4. Jobs that have not ended (doc/analyses.md, "Jobs that have not
-- ended"): a running job (start, no end) and a pending one (no start) among
-- finished ones, counted as documented, the same by the summaries and the scan.
\i :abs_srcdir/test/regress_paths.sql

INSERT INTO acmetrace.clusters (cluster, source_format, gpu_capacity, time_zone) VALUES ('live', 'generated', 16, 'UTC');
INSERT INTO acmetrace.jobs (cluster, job_id, type, state, gpu_num, submit_time, start_time, end_time, duration, queue, gpu_time)
VALUES ('live', 'c1', 'Eval', 'COMPLETED', 4, '2024-01-01 00:00', '2024-01-01 00:10', '2024-01-01 02:10', 7200, 600, 28800),
       ('live', 'c2', 'Eval', 'COMPLETED', 2, '2024-01-01 00:20', '2024-01-01 00:30', '2024-01-01 01:30', 3600, 600, 7200),
       ('live', 'f1', 'Eval', 'FAILED', 1, '2024-01-01 01:00', '2024-01-01 01:05', '2024-01-01 01:35', 1800, 300, 1800),
       ('live', 'r1', 'Eval', 'RUNNING', 8, '2024-01-01 01:00', '2024-01-01 01:20', NULL, NULL, 1200, NULL),
       ('live', 'p1', 'Eval', 'PENDING', 2, '2024-01-01 01:40', NULL, NULL, NULL, NULL, NULL);
SELECT acmetrace_internal.summarized('live', true) AS summarized;
-- in, as their own state
SELECT final_state, jobs FROM acmetrace.state_breakdown('live') ORDER BY 1;
SELECT final_state, jobs FROM acmetrace.state_by_type('live') WHERE type = 'all' ORDER BY 1;
-- in: the running job holds its 8 GPUs to the end (peak 4 + 2 + 1 + 8 at 01:20)
SELECT jobs, gpu_jobs, peak_allocated FROM acmetrace.trace_comparison('live');
-- out of durations (none yet): 3 finished GPU jobs
SELECT type, duration_s, jobs, cdf_pct FROM acmetrace.duration_cdf('live', '{3600, 100000}') ORDER BY 1, 2;
-- waits: the running job in (it started), the pending one out
SELECT bin, jobs FROM acmetrace.cancelled_by_queue('live', NULL, 600, 1200) ORDER BY bin;
SELECT type, jobs FROM acmetrace.queue_percentiles('live');
SELECT type, jobs FROM acmetrace.queue_by_occupancy('live');
-- counts in, GPU time none
SELECT type, jobs, gpu_h FROM acmetrace.type_distribution('live');
SELECT type, jobs, gpu_h FROM acmetrace.gpu_time_lost('live');
-- weekly by end: out until they end
SELECT week, jobs FROM acmetrace.gpu_time_lost_weekly('live');
SELECT job_num, gpu_job_num, complete_rate_gpu, cancel_rate_gpu, fail_rate_gpu FROM acmetrace.cluster_summary('live');
-- the same answers by the summaries and the scan, here and on the changed clusters
SELECT count(*) AS analyses, count(*) FILTER (WHERE same) AS same FROM pg_temp.paths('live');
SELECT c AS cluster, count(*) AS analyses, count(*) FILTER (WHERE same) AS same
  FROM (VALUES ('ny'), ('ber'), ('est')) v(c), pg_temp.paths(v.c) GROUP BY c ORDER BY 1;
-- the running job ends, the pending one starts (the trigger: a rebuild, 1 of 5 jobs is many)
UPDATE acmetrace.jobs SET state = 'COMPLETED', end_time = '2024-01-01 03:20', duration = 7200, gpu_time = 57600
 WHERE cluster = 'live' AND job_id = 'r1';
SELECT current_setting('acmetrace_internal.last_delta') AS how;
UPDATE acmetrace.jobs SET state = 'RUNNING', start_time = '2024-01-01 02:00', queue = 1200 WHERE cluster = 'live' AND job_id = 'p1';
SELECT current_setting('acmetrace_internal.last_delta') AS how;
SELECT final_state, jobs FROM acmetrace.state_breakdown('live') ORDER BY 1;
SELECT week, jobs FROM acmetrace.gpu_time_lost_weekly('live');
SELECT count(*) AS analyses, count(*) FILTER (WHERE same) AS same FROM pg_temp.paths('live');
SELECT pg_temp.differing('live') AS differing_rows;
