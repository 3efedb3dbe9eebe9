-- Job durations predicted at submit time (src/core/history.c), and how
-- good a prediction is.

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
   AND (predict_history.last_jobs BETWEEN 1 AND 1000
        OR acmetrace_internal.raise('22023', format('last_jobs must be between 1 and 1000, got %s',
                                                    coalesce(predict_history.last_jobs::text, 'NULL')),
                                    'The default is 10: the last ten jobs of a group.'))
$$;
COMMENT ON FUNCTION acmetrace.predict_history(text, integer) IS
  'Every GPU job of a cluster with its run time predicted at its submit time from the jobs that had ended by then: the geometric mean run of the last last_jobs jobs of the same user, type and GPU count, else the same user and type, the same user, the same type, every job (basis says which); NULL before any job has ended.';

CREATE FUNCTION acmetrace.prediction_error(cluster text, split timestamptz,
                                           predictions regclass DEFAULT NULL, last_jobs integer DEFAULT 10)
RETURNS TABLE (type text, method text, jobs bigint, mae_log numeric, median_ae_log numeric, within_2x_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
AS $$
BEGIN
    PERFORM acmetrace_internal.one_cluster(prediction_error.cluster, 'prediction_error');
    IF split IS NULL OR NOT isfinite(split) THEN
        PERFORM acmetrace_internal.raise('22023', 'prediction_error needs a finite split time',
              'Jobs submitted before it train the baselines; the ones from it on are scored.');
    END IF;
    RETURN QUERY EXECUTE format($q$
    WITH jobs AS (
        SELECT j.job_id, j.type, greatest(extract(epoch FROM j.end_time - j.start_time)::float8, 1) AS run_s,
               j.submit_time >= $2 AS scored
          FROM acmetrace.jobs j
         WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.start_time IS NOT NULL AND j.end_time >= j.start_time),
    global_median AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS m FROM jobs WHERE NOT scored),
    type_median AS (SELECT type, percentile_cont(0.5) WITHIN GROUP (ORDER BY run_s) AS m
                      FROM jobs WHERE NOT scored GROUP BY type),
    pred AS (%s),
    scored AS (
        SELECT j.type, x.method, abs(ln(greatest(x.p, 1)) - ln(j.run_s)) AS e
          FROM jobs j
          LEFT JOIN pred p ON p.job_id = j.job_id
          LEFT JOIN type_median t ON t.type IS NOT DISTINCT FROM j.type
          CROSS JOIN global_median g
          CROSS JOIN LATERAL (VALUES (%L, p.predicted_s), ('global median', g.m), ('type median', t.m)) x(method, p)
         WHERE j.scored AND x.p IS NOT NULL)
    SELECT CASE WHEN grouping(s.type) = 1 THEN NULL ELSE s.type END, s.method, count(*),
           round(avg(s.e)::numeric, 3),
           round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.e))::numeric, 3),
           acmetrace_internal.pct(count(*) FILTER (WHERE s.e <= ln(2)), count(*))
      FROM scored s
     GROUP BY GROUPING SETS ((s.method), (s.type, s.method))
     ORDER BY grouping(s.type) DESC, s.type, s.method$q$,
        CASE WHEN predictions IS NULL
             THEN format('SELECT job_id, predicted_s::float8 AS predicted_s FROM acmetrace_internal.history_predictions(%L, %s)',
                         cluster, coalesce(last_jobs, 10))
             ELSE format('SELECT job_id::text AS job_id, predicted_s::float8 AS predicted_s FROM %s', predictions) END,
        CASE WHEN predictions IS NULL THEN 'history' ELSE 'predictions' END)
    USING cluster, split;
END
$$;
COMMENT ON FUNCTION acmetrace.prediction_error(text, timestamptz, regclass, integer) IS
  'How well run times are predicted for the GPU jobs submitted from split on: mean and median absolute error of the log run time and the percent within 2x, per type and for all (type NULL), for the predictions (a table or view of job_id, predicted_s; default acmetrace.predict_history) against the global and the per-type median run time of the jobs submitted before split.';
