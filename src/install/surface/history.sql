-- Job durations predicted at submit time (src/core/history.c), and how
-- good a prediction is.

-- last_jobs, the window of the history functions: 1 .. 1000, else ERROR 22023.
CREATE FUNCTION acmetrace_internal.check_last_jobs(last_jobs integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT last_jobs BETWEEN 1 AND 1000
       OR acmetrace_internal.raise('22023', format('last_jobs must be between 1 and 1000, got %s', coalesce(last_jobs::text, 'NULL')),
                                   'The default is 10: the last ten jobs of a group.')
$$;
COMMENT ON FUNCTION acmetrace_internal.check_last_jobs(integer) IS
  'True for a last_jobs in 1..1000; otherwise ERROR 22023 naming it.';

CREATE FUNCTION acmetrace_internal.history_predictions(cluster text, last_jobs integer)
RETURNS TABLE (job_id text, type text, gpu_num integer, submit_time timestamptz,
               run_s double precision, predicted_s double precision, level integer)
AS 'MODULE_PATHNAME', 'acmetrace_history_predictions'
LANGUAGE C STRICT STABLE PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION acmetrace_internal.history_predictions(text, integer) IS
  'The unrounded rows of acmetrace.predict_history; level 0 .. 4 as its basis.';

CREATE FUNCTION acmetrace.predict_history(cluster text, last_jobs integer DEFAULT 10)
RETURNS TABLE (job_id text, type text, gpu_num integer, submit_time timestamptz,
               run_s numeric, predicted_s numeric, basis text)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
SELECT p.job_id, p.type, p.gpu_num, p.submit_time,
       acmetrace_internal.sig3(p.run_s), acmetrace_internal.sig3(p.predicted_s),
       (ARRAY['user, type and GPUs', 'user and type', 'user', 'type', 'every job'])[p.level + 1]
  FROM acmetrace_internal.history_predictions(predict_history.cluster, predict_history.last_jobs) p
 WHERE acmetrace_internal.one_cluster(predict_history.cluster, 'predict_history')
   AND acmetrace_internal.check_last_jobs(predict_history.last_jobs)
$$;
COMMENT ON FUNCTION acmetrace.predict_history(text, integer) IS
  'Every GPU job of a cluster with its run time predicted at its submit time from the jobs that had ended by then: the geometric mean run of the last last_jobs jobs of the same user, type and GPU count, else the same user and type, the same user, the same type, every job (basis says which); NULL before any job has ended.';

CREATE FUNCTION acmetrace_internal.history_features(cluster text, last_jobs integer)
RETURNS TABLE (job_id text, type text, submit_time timestamptz, run_s double precision, features double precision[])
AS 'MODULE_PATHNAME', 'acmetrace_history_features'
LANGUAGE C STRICT STABLE PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION acmetrace_internal.history_features(text, integer) IS
  'The rows of acmetrace.job_features, unchecked.';

CREATE FUNCTION acmetrace.job_feature_names()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT ARRAY['gpus', 'nodes', 'cpus', 'submit_hour', 'submit_weekday',
             'log_run_user_type_gpus', 'log_run_user_type', 'log_run_user', 'log_run_type', 'log_run_all',
             'jobs_user_type_gpus', 'jobs_user_type', 'jobs_user', 'jobs_type']
$$;
COMMENT ON FUNCTION acmetrace.job_feature_names() IS
  'The names of the features acmetrace.job_features gives, in their order.';

CREATE FUNCTION acmetrace.job_features(cluster text, last_jobs integer DEFAULT 10)
RETURNS TABLE (job_id text, type text, submit_time timestamptz, run_s numeric, features double precision[])
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
SELECT f.job_id, f.type, f.submit_time, f.run_s::numeric, f.features
  FROM acmetrace_internal.history_features(job_features.cluster, job_features.last_jobs) f
 WHERE acmetrace_internal.one_cluster(job_features.cluster, 'job_features')
   AND acmetrace_internal.check_last_jobs(job_features.last_jobs)
$$;
COMMENT ON FUNCTION acmetrace.job_features(text, integer) IS
  'Every GPU job of a cluster with what is known of it at its submit time, as a float8[] in the order of acmetrace.job_feature_names(): GPUs, nodes, CPUs, hour and ISO weekday of submission in the cluster''s time zone, the mean log run time of the last last_jobs ended jobs of the same user, type and GPUs / user and type / user / type / every job (NaN: none yet), and how many jobs each of the first four windows holds. run_s is the recorded run time (NULL if the job never ran).';

-- The boosted trees trained on the jobs submitted before split, predicting every job (unrounded).
CREATE FUNCTION acmetrace_internal.gbdt_predictions(cluster text, split timestamptz, rounds integer,
                                                    depth integer, learning_rate double precision, last_jobs integer)
RETURNS TABLE (job_id text, type text, submit_time timestamptz, run_s double precision,
               predicted_s double precision, in_training boolean)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
WITH f AS MATERIALIZED (
    SELECT * FROM acmetrace_internal.history_features(gbdt_predictions.cluster, gbdt_predictions.last_jobs)
     WHERE acmetrace_internal.one_cluster(gbdt_predictions.cluster, 'predict_gbdt')
       AND acmetrace_internal.check_last_jobs(gbdt_predictions.last_jobs)
       AND (gbdt_predictions.split IS NOT NULL AND isfinite(gbdt_predictions.split)
            OR acmetrace_internal.raise('22023', 'predict_gbdt needs a finite split time',
                                        'The jobs submitted before it train the model; every job is predicted.'))
       -- checked here too: a query that reads no prediction never trains
       AND (gbdt_predictions.rounds BETWEEN 1 AND 10000 AND gbdt_predictions.depth BETWEEN 1 AND 10
            AND gbdt_predictions.learning_rate > 0 AND gbdt_predictions.learning_rate <= 1
            OR acmetrace_internal.raise(CASE WHEN num_nulls(gbdt_predictions.rounds, gbdt_predictions.depth,
                                                            gbdt_predictions.learning_rate) > 0 THEN '22004' ELSE '22023' END,
                                        format('predict_gbdt: rounds %s, depth %s or learning_rate %s out of range',
                                               coalesce(gbdt_predictions.rounds::text, 'NULL'),
                                               coalesce(gbdt_predictions.depth::text, 'NULL'),
                                               coalesce(gbdt_predictions.learning_rate::text, 'NULL')),
                                        'rounds 1 to 10000, depth 1 to 10, learning_rate above 0 and at most 1.'))),
model AS (
    SELECT acmetrace.gbdt_train(f.features, ln(greatest(f.run_s, 1)), gbdt_predictions.rounds,
                                gbdt_predictions.depth, gbdt_predictions.learning_rate) AS m
      FROM f WHERE f.submit_time < gbdt_predictions.split AND f.run_s >= 0)
SELECT f.job_id, f.type, f.submit_time, f.run_s, exp(acmetrace.gbdt_predict(model.m, f.features)),
       f.submit_time < gbdt_predictions.split AND f.run_s >= 0
  FROM f CROSS JOIN model
$$;
COMMENT ON FUNCTION acmetrace_internal.gbdt_predictions(text, timestamptz, integer, integer, double precision, integer) IS
  'The unrounded rows of acmetrace.predict_gbdt.';

CREATE FUNCTION acmetrace.predict_gbdt(cluster text, split timestamptz, rounds integer DEFAULT 100, depth integer DEFAULT 6,
                                       learning_rate double precision DEFAULT 0.1, last_jobs integer DEFAULT 10)
RETURNS TABLE (job_id text, type text, submit_time timestamptz, run_s numeric, predicted_s numeric, in_training boolean)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
SELECT p.job_id, p.type, p.submit_time, acmetrace_internal.sig3(p.run_s), acmetrace_internal.sig3(p.predicted_s), p.in_training
  FROM acmetrace_internal.gbdt_predictions(predict_gbdt.cluster, predict_gbdt.split, predict_gbdt.rounds,
                                           predict_gbdt.depth, predict_gbdt.learning_rate, predict_gbdt.last_jobs) p
$$;
COMMENT ON FUNCTION acmetrace.predict_gbdt(text, timestamptz, integer, integer, double precision, integer) IS
  'Every GPU job of a cluster with its run time predicted by boosted trees (acmetrace.gbdt_train on log run time) trained on acmetrace.job_features of the jobs that ran and were submitted before split; in_training marks those. No such job: predicted_s is NULL.';

CREATE FUNCTION acmetrace.prediction_error(cluster text, split timestamptz,
                                           predictions regclass DEFAULT NULL, last_jobs integer DEFAULT 10,
                                           methods text[] DEFAULT NULL, rounds integer DEFAULT 100,
                                           depth integer DEFAULT 6)
RETURNS TABLE (type text, method text, jobs bigint, mae_log numeric, median_ae_log numeric, within_2x_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
-- the scored jobs joined to the predictions by hashing the jobs: a merge
-- join sorted every prediction's job_id (a third of the scoring's time)
SET enable_mergejoin = off
AS $$
DECLARE
    m text[] := coalesce(methods, CASE WHEN predictions IS NULL THEN '{history}'::text[] ELSE '{}'::text[] END);
    -- the predictions' own method column (text), if it has one
    by_method boolean := predictions IS NOT NULL AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = predictions AND a.attname = 'method' AND a.atttypid = 'text'::regtype
           AND a.attnum > 0 AND NOT a.attisdropped);
    clash text;
    extra text;
    pred  text;
    p_method text[];
    p_job    text[];
    p_pred   float8[];
    -- the scoring: %1$s the cluster, %2$s the split, %3$s the predictions
    score text := $q$
    WITH jobs AS (
        SELECT j.job_id, j.type, greatest(extract(epoch FROM j.end_time - j.start_time)::float8, 1) AS run_s,
               j.submit_time >= %2$s AS scored
          FROM acmetrace.jobs j
         WHERE j.cluster = %1$s AND j.gpu_num > 0 AND j.start_time IS NOT NULL AND j.end_time >= j.start_time),
    global_median AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS m FROM jobs WHERE NOT scored),
    type_median AS (SELECT type, percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS m
                      FROM jobs WHERE NOT scored GROUP BY type),
    pred AS (%3$s),
    scored AS (
        SELECT j.type, p.method, abs(ln(greatest(p.predicted_s, 1)) - ln(j.run_s)) AS e
          FROM jobs j JOIN pred p ON p.job_id = j.job_id
         WHERE j.scored AND p.predicted_s IS NOT NULL
        UNION ALL
        SELECT j.type, x.method, abs(ln(greatest(x.p, 1)) - ln(j.run_s))
          FROM jobs j
          LEFT JOIN type_median t ON t.type IS NOT DISTINCT FROM j.type
          CROSS JOIN global_median g
          CROSS JOIN LATERAL (VALUES ('global median', g.m), ('type median', t.m)) x(method, p)
         WHERE j.scored AND x.p IS NOT NULL)
    SELECT CASE WHEN grouping(s.type) = 1 THEN 'all' ELSE s.type END, s.method, count(*),
           round(avg(s.e)::numeric, 3),
           round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.e))::numeric, 3),
           acmetrace_internal.pct(count(*) FILTER (WHERE s.e <= ln(2)), count(*))
      FROM scored s
     GROUP BY GROUPING SETS ((s.method), (s.type, s.method))
     ORDER BY grouping(s.type) DESC, s.type, s.method$q$;
BEGIN
    PERFORM acmetrace_internal.one_cluster(prediction_error.cluster, 'prediction_error');
    IF split IS NULL OR NOT isfinite(split) THEN
        PERFORM acmetrace_internal.raise('22023', 'prediction_error needs a finite split time',
              'Jobs submitted before it train the baselines; the ones from it on are scored.');
    END IF;
    IF array_position(m, NULL) IS NOT NULL OR NOT m <@ '{history,gbdt}'::text[] THEN
        PERFORM acmetrace_internal.raise('22023', format('prediction_error: unknown method in %s', m),
              'Methods are history (acmetrace.predict_history) and gbdt (acmetrace.predict_gbdt), e.g. methods => ''{history,gbdt}''.');
    END IF;
    IF by_method THEN
        -- a method of the table scored under a name this function also gives would merge two methods' rows
        EXECUTE format('SELECT min(p.method) FROM %s p WHERE p.method = ANY ($1)', predictions)
           INTO clash USING m || '{global median,type median}'::text[];
        IF clash IS NOT NULL THEN
            PERFORM acmetrace_internal.raise('22023',
                  format('prediction_error: method %L of %s is also computed here', clash, predictions),
                  'Rename the method in the predictions, or leave it out of methods; global median and type median are always computed.');
        END IF;
    END IF;
    extra := CASE WHEN predictions IS NULL THEN ''
                  -- a row of no method counts as 'predictions'
                  WHEN by_method THEN format('UNION ALL SELECT coalesce(method, ''predictions''), job_id::text, predicted_s::float8 FROM %s',
                                             predictions)
                  ELSE format('UNION ALL SELECT ''predictions'', job_id::text, predicted_s::float8 FROM %s', predictions) END;
    pred := format($p$
        SELECT 'history' AS method, h.job_id, h.predicted_s
          FROM acmetrace_internal.history_predictions($1, $3) h WHERE 'history' = ANY ($4)
        UNION ALL
        SELECT 'gbdt', g.job_id, g.predicted_s
          FROM acmetrace_internal.gbdt_predictions($1, $2, $5, $6, 0.1, $3) g WHERE 'gbdt' = ANY ($4)
        %s$p$, extra);
    IF acmetrace_internal.distributed() THEN
        -- Citus would send the whole query, these calls included, to the
        -- worker holding the cluster's jobs: the predictions are made here
        -- first and the query gets them, and only them, as parameters
        EXECUTE 'SELECT array_agg(p.method), array_agg(p.job_id), array_agg(p.predicted_s) FROM (' || pred || ') p'
           INTO p_method, p_job, p_pred USING cluster, split, coalesce(last_jobs, 10), m, rounds, depth;
        RETURN QUERY EXECUTE format(score, quote_literal(cluster), quote_literal(split) || '::timestamptz',
                                    'SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) AS p(method, job_id, predicted_s)')
            USING p_method, p_job, p_pred;
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(score, '$1', '$2', pred)
    USING cluster, split, coalesce(last_jobs, 10), m, rounds, depth;
END
$$;
COMMENT ON FUNCTION acmetrace.prediction_error(text, timestamptz, regclass, integer, text[], integer, integer) IS
  'How well run times are predicted for the GPU jobs submitted from split on: mean and median absolute error of the log run time and the percent within 2x, per type and for all (type ''all'', first; jobs without a type under NULL), for each method (history: acmetrace.predict_history; gbdt: acmetrace.predict_gbdt trained on the jobs before split with rounds and depth; default history alone, or nothing but the predictions table when one is given) and the predictions (a table or view of job_id, predicted_s: method predictions; with a text column method, each of its methods under its own name), against the global and the per-type median run time of the jobs submitted before split.';

-- A split written without a zone or offset ('2023-03-10') is read in the
-- cluster's time zone, as the weekly buckets are, not in the session's.
CREATE FUNCTION acmetrace_internal.cluster_time(cluster text, t text)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE STRICT PARALLEL RESTRICTED SET TimeZone = 'UTC'
AS $$
DECLARE
    a timestamptz := t::timestamptz;
    tz text;
BEGIN
    -- the same instant at UTC and at +14: the text names its zone or offset
    PERFORM set_config('TimeZone', 'Pacific/Kiritimati', true);
    IF t::timestamptz = a THEN
        RETURN a;
    END IF;
    SELECT c.time_zone INTO tz FROM acmetrace.clusters c WHERE c.cluster = cluster_time.cluster;
    PERFORM set_config('TimeZone', coalesce(tz, 'UTC'), true);
    RETURN t::timestamptz;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_time(text, text) IS
  'The text as a timestamptz, read in the cluster''s time zone (acmetrace.clusters.time_zone) unless it names a zone or an offset; the session''s TimeZone plays no part.';

CREATE FUNCTION acmetrace.prediction_error(cluster text, split text,
                                           predictions regclass DEFAULT NULL, last_jobs integer DEFAULT 10,
                                           methods text[] DEFAULT NULL, rounds integer DEFAULT 100,
                                           depth integer DEFAULT 6)
RETURNS TABLE (type text, method text, jobs bigint, mae_log numeric, median_ae_log numeric, within_2x_pct numeric)
LANGUAGE sql VOLATILE PARALLEL RESTRICTED
AS $$
SELECT * FROM acmetrace.prediction_error(prediction_error.cluster,
                                         acmetrace_internal.cluster_time(prediction_error.cluster, prediction_error.split),
                                         prediction_error.predictions, prediction_error.last_jobs,
                                         prediction_error.methods, prediction_error.rounds, prediction_error.depth)
$$;
COMMENT ON FUNCTION acmetrace.prediction_error(text, text, regclass, integer, text[], integer, integer) IS
  'acmetrace.prediction_error with split given as text (a quoted literal such as ''2023-03-10'' picks this one): read in the cluster''s time zone unless it names a zone or an offset, so the session''s TimeZone does not change the jobs scored.';
