-- acmetrace.queue_by_occupancy: queueing delay by GPUs allocated at submission.

-- The seed analysis: queueing delay against occupancy, per job type.  The
-- occupancy of a cluster is computed once, into a variable that every
-- job's gpus_at reads (its cache keeps it decoded); carried through a join
-- instead, a copy of it would travel with every row.
-- PL/pgSQL cannot name an IN and an OUT parameter alike: the public
-- function wraps this one.
CREATE FUNCTION acmetrace_internal.queue_by_occupancy_scan(in_cluster text, nbins integer, measured_at text,
                                                      capacity bigint, all_jobs boolean)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
#variable_conflict use_variable
DECLARE
    cl  text;
    occ acmetrace.occupancy;
    cap bigint;
BEGIN
    PERFORM acmetrace_internal.known_cluster(in_cluster);
    IF measured_at IS NULL OR measured_at NOT IN ('submit', 'start') THEN
        PERFORM acmetrace_internal.raise('22023', format('measured_at must be ''submit'' or ''start'', not %s',
                                                         coalesce(quote_literal(measured_at), 'NULL')),
              '''submit'': occupancy when the job arrived; ''start'': when it started.');
    END IF;
    IF nbins IS NULL OR nbins < 1 THEN
        PERFORM acmetrace_internal.raise('22023', format('nbins must be at least 1, not %s', coalesce(nbins::text, 'NULL')),
              'The paper uses 10 bins of the cluster''s GPUs.');
    END IF;
    IF capacity < 1 THEN
        PERFORM acmetrace_internal.raise('22023', format('capacity must be positive, not %s', capacity),
              'NULL uses the cluster''s GPU capacity, else the observed peak.');
    END IF;
    FOR cl IN SELECT c.cluster FROM acmetrace.clusters c
               WHERE in_cluster IS NULL OR c.cluster = in_cluster
               ORDER BY c.cluster COLLATE "C"
    LOOP
        SELECT acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) INTO occ
          FROM acmetrace.jobs j WHERE j.cluster = cl;
        -- unknown capacity: bin up to the observed peak
        SELECT coalesce(capacity, c.gpu_capacity, nullif(acmetrace.peak(occ), 0), 1) INTO cap
          FROM acmetrace.clusters c WHERE c.cluster = cl;
        RETURN QUERY
        SELECT cl, CASE WHEN grouping(s.type) = 0 THEN s.type ELSE 'all' END, s.b,
               round((cap::double precision * (s.b - 1) / nbins)::numeric, 1),
               CASE WHEN s.b <= nbins THEN round((cap::double precision * s.b / nbins)::numeric, 1) END,
               count(*),
               acmetrace_internal.sig3(avg(s.q)),
               acmetrace_internal.sig3(percentile_cont(0.5) WITHIN GROUP (ORDER BY s.q)),
               acmetrace_internal.sig3(percentile_cont(0.9) WITHIN GROUP (ORDER BY s.q))
          FROM (SELECT j.type,
                       width_bucket(acmetrace.gpus_at(occ, CASE measured_at WHEN 'submit' THEN j.submit_time
                                                                            ELSE j.start_time END)::double precision,
                                    0, cap::double precision, nbins) AS b,
                       j.wait_s AS q
                  FROM acmetrace.jobs j
                 WHERE j.cluster = cl
                   AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
                   AND j.wait_s >= 0) s
         GROUP BY GROUPING SETS ((s.b), (s.type, s.b))
         ORDER BY grouping(s.type) DESC, s.type COLLATE "C", s.b;
    END LOOP;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_by_occupancy_scan(text, integer, text, bigint, boolean) IS
  'The scan path of acmetrace.queue_by_occupancy: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.queue_by_occupancy_summary(cluster text)
RETURNS TABLE (out_cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(queue_by_occupancy_summary.cluster);
    RETURN QUERY
    -- the all-types line: each bin's value counts merged over the types
    WITH w AS (
        SELECT v.cluster, v.type, 0 AS total, v.occupancy_bin, v.vals, v.counts
          FROM acmetrace.summary_values v
         WHERE v.measure = 'wait_by_occupancy'
           AND (queue_by_occupancy_summary.cluster IS NULL OR v.cluster = queue_by_occupancy_summary.cluster)
        UNION ALL
        SELECT m.cluster, 'all', 1, m.occupancy_bin, array_agg(m.val ORDER BY m.val), array_agg(m.n ORDER BY m.val)
          FROM (SELECT v.cluster, v.occupancy_bin, u.val, sum(u.n)::bigint AS n
                  FROM acmetrace.summary_values v, unnest(v.vals, v.counts) u(val, n)
                 WHERE v.measure = 'wait_by_occupancy'
                   AND (queue_by_occupancy_summary.cluster IS NULL OR v.cluster = queue_by_occupancy_summary.cluster)
                 GROUP BY v.cluster, v.occupancy_bin, u.val) m
         GROUP BY m.cluster, m.occupancy_bin)
    SELECT v.cluster, v.type, v.occupancy_bin,
           round((c.occupancy_capacity::double precision * (v.occupancy_bin - 1) / 10)::numeric, 1),
           CASE WHEN v.occupancy_bin <= 10 THEN round((c.occupancy_capacity::double precision * v.occupancy_bin / 10)::numeric, 1) END,
           t.n,
           acmetrace_internal.sig3(t.s / t.n),
           acmetrace_internal.sig3(t.p[1]),
           acmetrace_internal.sig3(t.p[2])
      FROM w v
      JOIN acmetrace.summary_clusters c ON c.cluster = v.cluster
     CROSS JOIN LATERAL (SELECT (acmetrace_internal.vc_counts_at(v.vals, v.counts, '{Infinity}', false))[1] AS n,
                                acmetrace_internal.vc_percentiles(v.vals, v.counts, '{0.5,0.9}') AS p,
                                acmetrace_internal.vc_sum(v.vals, v.counts) AS s
                          OFFSET 0) t  -- each function once per row
     ORDER BY v.cluster COLLATE "C", v.total DESC, v.type COLLATE "C", v.occupancy_bin;
END
$$;

CREATE FUNCTION acmetrace_internal.queue_by_occupancy_run(a1 text, a2 integer, a3 text, a4 bigint, a5 boolean)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.queue_by_occupancy_run(per_cluster, a2, a3, a4, a5);
        END LOOP;
        RETURN;
    END IF;
    IF acmetrace_internal.summarized(a1, true) AND a2 IS NOT DISTINCT FROM 10 AND a3 IS NOT DISTINCT FROM 'submit' AND a4 IS NULL AND NOT coalesce(a5, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_by_occupancy_summary(a1);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_by_occupancy_scan(a1, a2, a3, a4, a5);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_by_occupancy_run(text, integer, text, bigint, boolean) IS
  'acmetrace.queue_by_occupancy: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_by_occupancy(cluster text DEFAULT NULL, nbins integer DEFAULT 10,
                                             measured_at text DEFAULT 'submit', capacity bigint DEFAULT NULL,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, type text, bin integer, gpus_from numeric, gpus_to numeric, jobs bigint,
               mean_queue_s numeric, median_queue_s numeric, p90_queue_s numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.queue_by_occupancy_run($1, $2, $3, $4, $5)';
COMMENT ON FUNCTION acmetrace.queue_by_occupancy(text, integer, text, bigint, boolean) IS
  'Queueing delay (start - submit, seconds, 3 significant digits) of GPU jobs (all_jobs: every job) by cluster, job type (first type ''all'': every type; NULL: jobs without a type) and bin of GPUs allocated when the job was submitted (or started): width_bucket(gpus_at, 0, capacity, nbins); bin nbins+1 is at or over capacity. capacity defaults to the cluster''s, else the observed peak.';

CREATE VIEW acmetrace.v_queue_by_occupancy WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.queue_by_occupancy(NULL);
COMMENT ON VIEW acmetrace.v_queue_by_occupancy IS
  'Queueing delay (start - submit) of GPU jobs per cluster, type and tenth of GPU capacity allocated when they were submitted (acmetrace.queue_by_occupancy with 10 bins).';
