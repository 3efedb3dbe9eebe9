-- Job durations predicted at submit time from users' histories
-- (acmetrace.predict_history) and scored (acmetrace.prediction_error).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

-- A trace with a planted rule: the run time is set by the user and the
-- type (times a noise of about 30%), jobs a minute apart.
BEGIN;
SET LOCAL acmetrace.cluster = 'planted';
INSERT INTO acmetrace.trace_seren (job_id, "user", node_num, gpu_num, cpu_num, type, state,
                                   submit_time, start_time, end_time, duration, queue, gpu_time)
SELECT i::text, 'u' || u, 1, g, 8 * g, t, 'COMPLETED', s, s, s + make_interval(secs => run), run, 0, run * g
  FROM (SELECT i, u, t, g, timestamptz '2023-07-01 00:00+00' + i * interval '1 minute' AS s,
               round(exp(1 + 3 * ((hashint4(u) & 1023) / 1023.0))          -- per user
                     * CASE t WHEN 'Eval' THEN 30 WHEN 'SFT' THEN 600 ELSE 9000 END
                     * exp(0.3 * (((hashint4(i * 7 + 1) & 65535) / 65535.0) - 0.5) * 3.4)) AS run
          FROM (SELECT i, i * 7919 % 40 AS u, (ARRAY['Eval', 'SFT', 'Pretrain'])[1 + i * 104729 % 3] AS t,
                       1 << (i * 31 % 4) AS g
                  FROM generate_series(1, 12000) i) x) y;
COMMIT;

SELECT count(*) AS jobs, count(predicted_s) AS predicted,
       count(*) FILTER (WHERE basis = 'user, type and GPUs') AS from_user_type_gpus,
       min(submit_time) = (SELECT min(submit_time) FROM acmetrace.jobs WHERE cluster = 'planted') AS first_kept
  FROM acmetrace.predict_history('planted');
SELECT job_id, type, gpu_num, run_s, predicted_s, basis
  FROM acmetrace.predict_history('planted') ORDER BY submit_time LIMIT 4;

-- Only jobs ended by the submit time: no job's own run, nor later ones.
SELECT count(*) AS predicted_from_the_future
  FROM acmetrace.predict_history('planted', 1) p
 WHERE p.basis IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM acmetrace.jobs j
                    WHERE j.cluster = 'planted' AND j.end_time <= p.submit_time);

-- Scored on the second half: the history beats both medians.
SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00');
SELECT (SELECT mae_log FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00') WHERE type = 'all' AND method = 'history')
     < (SELECT mae_log FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00') WHERE type = 'all' AND method = 'global median')
       AS history_beats_global_median;
-- The boosted trees on the jobs' features (acmetrace.job_features),
-- trained on the first half: at least 10 points more within 2x than the
-- per-type median, and the history beats the global median.
SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', methods => '{history,gbdt}')
 WHERE type = 'all';
SELECT max(within_2x_pct) FILTER (WHERE method = 'gbdt') - max(within_2x_pct) FILTER (WHERE method = 'type median') >= 10
         AS gbdt_10_points_over_type_median,
       max(within_2x_pct) FILTER (WHERE method = 'history') > max(within_2x_pct) FILTER (WHERE method = 'global median')
         AS history_over_global_median
  FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', methods => '{history,gbdt}', rounds => 50, depth => 5)
 WHERE type = 'all';
SELECT count(*) AS jobs, count(*) FILTER (WHERE in_training) AS trained_on, count(predicted_s) AS predicted,
       bool_and(in_training = (submit_time < '2023-07-05 04:00+00')) AS split_respected
  FROM acmetrace.predict_gbdt('planted', '2023-07-05 04:00+00', rounds => 20);
SELECT array_length(acmetrace.job_feature_names(), 1) = min(cardinality(features)) AS names_match,
       count(*) FILTER (WHERE features[6] = 'NaN') AS without_own_history
  FROM acmetrace.job_features('planted');
-- Any model's predictions: a table of job_id and predicted_s.
CREATE TABLE perfect AS SELECT job_id, run_s AS predicted_s FROM acmetrace.jobs WHERE cluster = 'planted';
SELECT method, jobs, mae_log, within_2x_pct
  FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'perfect') WHERE type = 'all';
-- and the predictions drive a replay
SELECT count(*) AS replayed FROM acmetrace.replay('planted', 'sjf', 64, predictions => 'perfect');
DROP TABLE perfect;
-- A table of several methods (a text column method): each is scored under
-- its own name, in the same rows as the methods computed here.
CREATE TABLE several AS
SELECT 'history'::text AS method, job_id, predicted_s FROM acmetrace_internal.history_predictions('planted', 10)
UNION ALL
SELECT 'gbdt', job_id, predicted_s
  FROM acmetrace_internal.gbdt_predictions('planted', '2023-07-05 04:00+00', 20, 4, 0.1, 10);
WITH a AS (SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'several', methods => '{}')),
     b AS (SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', methods => '{history,gbdt}',
                                                    rounds => 20, depth => 4))
SELECT (SELECT count(*) FROM a) AS scored_rows,
       (SELECT string_agg(DISTINCT method, ', ') FROM a) AS methods,
       (SELECT count(*) FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM b) x)
       + (SELECT count(*) FROM (SELECT * FROM b EXCEPT ALL SELECT * FROM a) y) AS rows_differing;
-- a row without a method counts as 'predictions'
UPDATE several SET method = NULL WHERE method = 'gbdt';
SELECT type, method, jobs FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'several', methods => '{}')
 WHERE type = 'all';
-- a method also computed here is refused, not merged with it
SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'several', methods => '{history}');
\echo :LAST_ERROR_SQLSTATE
UPDATE several SET method = 'type median' WHERE method IS NULL;
SELECT * FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'several', methods => '{}');
\echo :LAST_ERROR_SQLSTATE
-- a method column that is not text is not a method: every row is 'predictions'
CREATE TABLE numbered AS SELECT 1 AS method, job_id, predicted_s FROM several WHERE method = 'history';
SELECT type, method, jobs FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00', 'numbered')
 WHERE type = 'all';
DROP TABLE several, numbered;
-- Jobs without a type are a row of their own (type NULL), apart from the
-- total (type 'all'), which counts them.
BEGIN;
UPDATE acmetrace.jobs SET type = NULL WHERE cluster = 'planted' AND type = 'Eval';
SELECT type, jobs FROM acmetrace.prediction_error('planted', '2023-07-05 04:00+00') WHERE method = 'history';
ROLLBACK;

-- A split without a zone is a local time of the cluster: the same jobs are
-- scored under any session TimeZone, and the same as the split written with
-- the cluster's offset; one with an offset is read as written.
UPDATE acmetrace.clusters SET time_zone = 'Asia/Shanghai' WHERE cluster = 'planted';
SET TimeZone = 'UTC';
CREATE TEMP TABLE split_counts AS
SELECT 'UTC' AS session_zone, jobs FROM acmetrace.prediction_error('planted', '2023-07-05 12:00') WHERE type = 'all' AND method = 'history';
SET TimeZone = 'America/New_York';
INSERT INTO split_counts
SELECT 'America/New_York', jobs FROM acmetrace.prediction_error('planted', '2023-07-05 12:00') WHERE type = 'all' AND method = 'history';
INSERT INTO split_counts
SELECT 'written +08', jobs FROM acmetrace.prediction_error('planted', '2023-07-05 12:00+08') WHERE type = 'all' AND method = 'history';
INSERT INTO split_counts
SELECT 'timestamptz in New York', jobs FROM acmetrace.prediction_error('planted', timestamptz '2023-07-05 12:00') WHERE type = 'all' AND method = 'history';
SELECT session_zone, jobs, jobs = first_value(jobs) OVER (ORDER BY session_zone = 'UTC' DESC) AS same_as_utc FROM split_counts;
RESET TimeZone;
UPDATE acmetrace.clusters SET time_zone = 'UTC' WHERE cluster = 'planted';

-- The features' hour and weekday of submission are the cluster's local
-- ones, as AT TIME ZONE gives them: zone names (a half-hour offset, DST),
-- abbreviations of fixed offset (EST, and CET, which AT TIME ZONE reads as
-- the abbreviation), a dynamic one (MSK); an unknown zone is an error.
CREATE FUNCTION pg_temp.local_time_mismatches(tz text)
RETURNS TABLE (zone text, first_hour double precision, first_weekday double precision, mismatches bigint)
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE acmetrace.clusters c SET time_zone = local_time_mismatches.tz WHERE c.cluster = 'planted';
    RETURN QUERY
    SELECT local_time_mismatches.tz, (array_agg(f.features[4] ORDER BY f.submit_time))[1],
           (array_agg(f.features[5] ORDER BY f.submit_time))[1],
           count(*) FILTER (WHERE f.features[4] IS DISTINCT FROM date_part('hour', f.submit_time AT TIME ZONE local_time_mismatches.tz)
                               OR f.features[5] IS DISTINCT FROM date_part('isodow', f.submit_time AT TIME ZONE local_time_mismatches.tz))
      FROM acmetrace.job_features('planted') f;
END
$$;
SELECT m.* FROM unnest(ARRAY['UTC', 'Asia/Kolkata', 'America/New_York', 'Pacific/Kiritimati', 'EST', 'CET', 'MSK']) z,
                LATERAL pg_temp.local_time_mismatches(z) m;
BEGIN;
SET LOCAL acmetrace.summaries = off;  -- (the summaries would fail on it first)
\set VERBOSITY terse
SELECT * FROM pg_temp.local_time_mismatches('Mars/Olympus_Mons');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
ROLLBACK;
UPDATE acmetrace.clusters SET time_zone = 'UTC' WHERE cluster = 'planted';

-- Arguments.
SELECT * FROM acmetrace.predict_history(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.predict_history('nope');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.predict_history('planted', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.predict_history('planted', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.prediction_error('planted', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.prediction_error('planted', 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.prediction_error(NULL, now());
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.prediction_error('planted', now(), methods => '{history,forest}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.predict_gbdt('planted', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM acmetrace.job_features('planted', 0);
\echo :LAST_ERROR_SQLSTATE
-- parameters are checked even when no prediction is read
SELECT count(*) FROM acmetrace.predict_gbdt('planted', now(), rounds => 0);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM acmetrace.predict_gbdt('planted', now(), depth => NULL);
\echo :LAST_ERROR_SQLSTATE
-- a split before every job: no model, no prediction
SELECT count(*) AS jobs, count(predicted_s) AS predicted FROM acmetrace.predict_gbdt('planted', '2000-01-01');
-- a split before every job: nothing trains the medians, only history scores
SELECT method, jobs FROM acmetrace.prediction_error('planted', '2000-01-01') WHERE type = 'all';

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
