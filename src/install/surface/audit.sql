-- Trace audit: where the published rows break their own documented rules.

-- The checks, as data: name, meaning, and a condition over jobs j joined to
-- clusters c ($1 is the tolerance in seconds).
CREATE FUNCTION acmetrace.audit_checks()
RETURNS TABLE (anomaly text, description text, condition text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
VALUES
 ('duration_mismatch', 'published duration differs from end_time - start_time',
  'abs(j.duration - j.run_s) > $1'),
 ('duration_is_end_minus_submit', 'published duration differs from end_time - start_time but equals end_time - submit_time (queue counted in)',
  'abs(j.duration - j.run_s) > $1 AND abs(j.duration - date_part(''epoch'', j.end_time - j.submit_time)) <= $1'),
 ('queue_mismatch', 'published queue differs from start_time - submit_time',
  'abs(j.queue - j.wait_s) > $1'),
 ('gpu_time_mismatch', 'published gpu_time differs from (end_time - start_time) * gpu_num',
  'abs(j.gpu_time - j.gpu_s) > $1 * j.gpu_num'),
 ('gpu_time_not_duration_x_gpus', 'published gpu_time differs from published duration * gpu_num',
  'abs(j.gpu_time - j.duration * j.gpu_num) > $1 * j.gpu_num'),
 ('end_before_start', 'end_time earlier than start_time',
  'j.end_time < j.start_time'),
 ('start_before_submit', 'start_time earlier than submit_time',
  'j.start_time < j.submit_time'),
 ('never_started', 'no start_time: the job never ran',
  'j.start_time IS NULL'),
 ('missing_end', 'started but no end_time',
  'j.start_time IS NOT NULL AND j.end_time IS NULL'),
 ('missing_submit', 'no submit_time',
  'j.submit_time IS NULL'),
 ('negative_value', 'a negative node_num, gpu_num, cpu_num, duration, queue or gpu_time',
  'least(j.node_num, j.gpu_num, j.cpu_num, j.duration, j.queue, j.gpu_time) < 0'),
 ('gpus_over_capacity', 'gpu_num larger than the cluster''s GPU capacity',
  'j.gpu_num > c.gpu_capacity'),
 ('run_over_one_year', 'end_time - start_time longer than 366 days',
  'j.run_s > 366 * 86400'),
 ('time_out_of_range', 'a timestamp before 2000 or in the future',
  'least(j.submit_time, j.start_time, j.end_time) < ''2000-01-01 UTC'' OR greatest(j.submit_time, j.start_time, j.end_time) > now() + interval ''1 day'''),
 ('unknown_state', 'state not one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL',
  'j.state NOT IN (''COMPLETED'', ''CANCELLED'', ''FAILED'', ''TIMEOUT'', ''NODE_FAIL'')'),
 ('unknown_type', 'type not one of Pretrain, Eval, SFT, MLLM, Debug, Other',
  'j.type NOT IN (''Pretrain'', ''Eval'', ''SFT'', ''MLLM'', ''Debug'', ''Other'')')
$$;
COMMENT ON FUNCTION acmetrace.audit_checks() IS
  'The anomaly checks acmetrace.audit() runs, with their meaning and SQL condition.';

-- PL/pgSQL cannot name an IN and an OUT parameter alike: audit() wraps this.
CREATE FUNCTION acmetrace_internal.audit(in_cluster text, tolerance_s double precision, examples integer)
RETURNS TABLE (cluster text, anomaly text, jobs bigint, example_job_ids text[])
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
    chk    record;
    counts text := '';
    names  text[] := '{}';
    q      text;
BEGIN
    IF tolerance_s IS NULL OR tolerance_s < 0 OR tolerance_s = 'NaN' THEN
        PERFORM acmetrace_internal.raise('22023', format('tolerance_s must be a non-negative number, got %s', coalesce(tolerance_s::text, 'NULL')),
              'Published times are whole seconds; the default tolerance is 1 second.');
    END IF;
    IF examples IS NULL OR examples < 0 THEN
        PERFORM acmetrace_internal.raise('22023', format('examples must be >= 0, got %s', coalesce(examples::text, 'NULL')),
              'examples is how many job ids to list per anomaly; 0 lists none.');
    END IF;
    PERFORM acmetrace_internal.known_cluster(in_cluster);

    -- One scan for every count, then examples only for non-zero checks.
    FOR chk IN SELECT * FROM acmetrace.audit_checks() LOOP
        names  := names || chk.anomaly;
        counts := counts || format(', count(j.job_id) FILTER (WHERE coalesce(%s, false))', chk.condition);
    END LOOP;
    q := 'SELECT g.cluster, u.anomaly, u.n
            FROM (SELECT c.cluster, ARRAY[' || substr(counts, 3) || '] AS ns
                    FROM acmetrace.clusters c
                    LEFT JOIN acmetrace.jobs j ON j.cluster = c.cluster
                   WHERE $2::text IS NULL OR c.cluster = $2
                   GROUP BY c.cluster) g,
                 unnest($3::text[], g.ns) WITH ORDINALITY u(anomaly, n, k)
           ORDER BY g.cluster COLLATE "C", u.k';
    FOR chk IN EXECUTE q USING tolerance_s, in_cluster, names LOOP
        cluster := chk.cluster;
        anomaly := chk.anomaly;
        jobs := chk.n;
        example_job_ids := '{}';
        IF chk.n > 0 AND examples > 0 THEN
            EXECUTE format('SELECT array_agg(job_id) FROM (
                              SELECT j.job_id FROM acmetrace.jobs j
                                JOIN acmetrace.clusters c ON c.cluster = j.cluster
                               WHERE j.cluster = $2 AND (%s)
                               ORDER BY j.submit_time NULLS LAST, j.job_id COLLATE "C"
                               LIMIT $3) s',
                           (SELECT a.condition FROM acmetrace.audit_checks() a WHERE a.anomaly = chk.anomaly))
               INTO example_job_ids USING tolerance_s, chk.cluster, examples;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
CREATE FUNCTION acmetrace.audit(cluster text DEFAULT NULL,
                                tolerance_s double precision DEFAULT 1,
                                examples integer DEFAULT 5)
RETURNS TABLE (cluster text, anomaly text, jobs bigint, example_job_ids text[])
LANGUAGE sql STABLE
AS 'SELECT * FROM acmetrace_internal.audit($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.audit(text, double precision, integer) IS
  'Per cluster and anomaly (see audit_checks()): how many jobs break the rule and the first few job ids in submit order. Differences up to tolerance_s seconds are accepted.';
