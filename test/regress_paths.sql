-- Included by the pg_regress suites summaries and summaries_delta.
-- paths(cluster): each analysis (with its default arguments and some
-- others) with the summaries and with the scan; same = identical text of
-- every row, in order.
CREATE FUNCTION pg_temp.paths(cl text DEFAULT NULL)
RETURNS TABLE (analysis text, rows bigint, same boolean)
LANGUAGE plpgsql AS $$
DECLARE
    q text;
    a text;
    s1 text;
    s2 text;
    e1 text;
    e2 text;
BEGIN
    FOR a, q IN VALUES
      ('cluster_summary', 'cluster_summary(%L)'),
      ('cluster_summary unrounded', 'cluster_summary(%L, NULL)'),
      ('state_breakdown', 'state_breakdown(%L)'),
      ('state_by_type', 'state_by_type(%L)'),
      ('type_distribution', 'type_distribution(%L)'),
      ('gpu_num_boxplot', 'gpu_num_boxplot(%L)'),
      ('cancelled_by_queue', 'cancelled_by_queue(%L)'),
      ('cancelled_by_queue all types 60 s', 'cancelled_by_queue(%L, NULL, 60, 3600)'),
      ('gpu_time_lost', 'gpu_time_lost(%L)'),
      ('gpu_time_lost_weekly', 'gpu_time_lost_weekly(%L)'),
      ('queue_percentiles', 'queue_percentiles(%L)'),
      ('queue_percentiles 0 .. 1', 'queue_percentiles(%L, ''{0,0.25,0.999,1}'')'),
      ('queue_sketch', 'queue_sketch(%L)'),
      ('queue_sketch Eval', 'queue_sketch(%L, ''Eval'')'),
      ('queue_by_occupancy', 'queue_by_occupancy(%L)'),
      ('duration_cdf', 'duration_cdf(%L)'),
      ('duration_cdf minutes', 'duration_cdf(%L, acmetrace.steps(0, 7200, 60))'),
      ('queue_cdf', 'queue_cdf(%L)'),
      ('gpu_num_cdf', 'gpu_num_cdf(%L)'),
      ('failure_taxonomy', 'failure_taxonomy(%L)'),
      ('trace_comparison', 'trace_comparison(%L)')
    LOOP
        q := format('SELECT count(*), string_agg(t::text, ''|'') FROM acmetrace.' || q || ' t', cl);
        e1 := NULL;
        e2 := NULL;
        SET LOCAL acmetrace.summaries = on;
        BEGIN
            EXECUTE q INTO rows, s1;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS e1 = RETURNED_SQLSTATE;
        END;
        SET LOCAL acmetrace.summaries = off;
        BEGIN
            EXECUTE q INTO rows, s2;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS e2 = RETURNED_SQLSTATE;
        END;
        SET LOCAL acmetrace.summaries = on;
        analysis := a;
        same := s1 IS NOT DISTINCT FROM s2 AND e1 IS NOT DISTINCT FROM e2;
        IF e1 IS NOT NULL THEN
            analysis := a || ' (error ' || e1 || ')';
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
