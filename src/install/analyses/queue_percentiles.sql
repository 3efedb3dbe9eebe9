-- acmetrace.queue_percentiles, acmetrace.queue_sketch and the view
-- v_queue_percentiles: queueing delay percentiles within 0.5%.

-- Queueing delay percentiles: plain SQL over delay_sketch_agg, so the
-- executor brings parallel workers, partitions, foreign tables and
-- row-level security.  The same jobs as queue_cdf.
CREATE FUNCTION acmetrace_internal.queue_percentiles_scan(cluster text DEFAULT NULL,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            all_jobs boolean DEFAULT false,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (out_cluster text, type text, jobs bigint, percentiles_s numeric[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(queue_percentiles_scan.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, acmetrace.count(s.sk),
           ARRAY(SELECT acmetrace_internal.sig3(p.v)
                   FROM unnest(acmetrace.percentiles(s.sk, fractions)) WITH ORDINALITY p(v, k) ORDER BY p.k),
           s.sk
      FROM (SELECT j.cluster, CASE WHEN grouping(j.type) = 0 THEN j.type ELSE 'all' END AS type, grouping(j.type) AS total,
                   acmetrace.delay_sketch_agg(j.wait_s) AS sk
              FROM acmetrace.jobs j
             WHERE (queue_percentiles_scan.since IS NULL OR j.submit_time >= queue_percentiles_scan.since)
               AND (queue_percentiles_scan.until IS NULL OR j.submit_time < queue_percentiles_scan.until)
               AND acmetrace_internal.check_fractions(fractions)
               AND j.wait_s >= 0 AND (j.gpu_num > 0 OR coalesce(all_jobs, false))
               AND (queue_percentiles_scan.cluster IS NULL OR j.cluster = queue_percentiles_scan.cluster)
             GROUP BY GROUPING SETS ((j.cluster), (j.cluster, j.type))) s
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_percentiles_scan(text, double precision[], boolean, timestamptz, timestamptz) IS
  'The scan path of acmetrace.queue_percentiles: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.queue_percentiles_summary(cluster text, fractions double precision[])
RETURNS TABLE (out_cluster text, type text, jobs bigint, percentiles_s numeric[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(queue_percentiles_summary.cluster);
    RETURN QUERY
    SELECT s.cluster, s.type, acmetrace.count(s.sk),
           ARRAY(SELECT acmetrace_internal.sig3(p.v)
                   FROM unnest(acmetrace.percentiles(s.sk, fractions)) WITH ORDINALITY p(v, k) ORDER BY p.k),
           s.sk
      FROM (SELECT v.cluster, CASE WHEN grouping(v.type) = 0 THEN v.type ELSE 'all' END AS type, grouping(v.type) AS total,
                   acmetrace.rollup(acmetrace_internal.vc_sketch(v.vals, v.counts)) AS sk
              FROM acmetrace.summary_values v
             WHERE acmetrace_internal.check_fractions(fractions)
               AND v.measure = 'wait'
               AND (queue_percentiles_summary.cluster IS NULL OR v.cluster = queue_percentiles_summary.cluster)
             GROUP BY GROUPING SETS ((v.cluster), (v.cluster, v.type))) s
     ORDER BY s.cluster COLLATE "C", s.total DESC, s.type COLLATE "C";
END
$$;

CREATE FUNCTION acmetrace_internal.queue_percentiles_run(a1 text, a2 double precision[], a3 boolean, a_since timestamptz, a_until timestamptz)
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles_s numeric[], sketch acmetrace.delay_sketch)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.queue_percentiles_run(per_cluster, a2, a3, a_since, a_until);
        END LOOP;
        RETURN;
    END IF;
    PERFORM acmetrace_internal.check_window(a_since, a_until);
    IF a_since IS NULL AND a_until IS NULL AND acmetrace_internal.summarized(a1) AND NOT coalesce(a3, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_percentiles_summary(a1, a2);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.queue_percentiles_scan(a1, a2, a3, a_since, a_until);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_percentiles_run(text, double precision[], boolean, timestamptz, timestamptz) IS
  'acmetrace.queue_percentiles: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.queue_percentiles(cluster text DEFAULT NULL,
                                            fractions double precision[] DEFAULT '{0.5,0.9,0.99}',
                                            all_jobs boolean DEFAULT false,
        since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
RETURNS TABLE (cluster text, type text, jobs bigint, percentiles_s numeric[])
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT r.cluster, r.type, r.jobs, r.percentiles_s FROM acmetrace_internal.queue_percentiles_run($1, $2, $3, $4, $5) r';
COMMENT ON FUNCTION acmetrace.queue_percentiles(text, double precision[], boolean, timestamptz, timestamptz) IS
  'Queueing delay (start_time - submit_time, seconds, 3 significant digits) percentiles of GPU jobs (all_jobs: every job) per cluster, for all types (type ''all'') and per type (NULL: jobs without a type), within 0.5%: percentiles_s[k] is the fractions[k] percentile. Jobs that never started or started before their submit time are left out. acmetrace.queue_sketch returns the sketch behind a row, to roll up or query further. since, until: only the jobs submitted in [since, until) (NULL: open).';

-- The sketch behind one row of queue_percentiles, for acmetrace.rollup and
-- the sketch accessors; kept out of queue_percentiles' rows, where its
-- serialized form would flood psql and BI tools.
CREATE FUNCTION acmetrace.queue_sketch(cluster text DEFAULT NULL, type text DEFAULT 'all', all_jobs boolean DEFAULT false)
RETURNS acmetrace.delay_sketch
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT acmetrace.rollup(r.sketch)
      FROM acmetrace_internal.queue_percentiles_run(queue_sketch.cluster, '{0.5}', queue_sketch.all_jobs, NULL, NULL) r
     WHERE r.type IS NOT DISTINCT FROM queue_sketch.type
$$;
COMMENT ON FUNCTION acmetrace.queue_sketch(text, text, boolean) IS
  'The delay_sketch of the queueing delays (start - submit, seconds) of the GPU jobs (all_jobs: every job) of a cluster (NULL: every cluster, merged) and type (default ''all'': every type; NULL: the jobs without a type) that queue_percentiles counts; NULL when there are none. acmetrace.percentiles, mean, max and rollup read it.';

CREATE VIEW acmetrace.v_queue_percentiles WITH (security_invoker = true) AS
    SELECT q.cluster, q.type, q.jobs,
           q.percentiles_s[1] AS p50_s, q.percentiles_s[2] AS p90_s, q.percentiles_s[3] AS p99_s,
           acmetrace_internal.sig3(acmetrace.mean(q.sketch)) AS mean_s,
           acmetrace_internal.sig3(acmetrace.max(q.sketch)) AS max_s
      FROM acmetrace_internal.queue_percentiles_run(NULL, '{0.5,0.9,0.99}', false, NULL, NULL) q;
COMMENT ON VIEW acmetrace.v_queue_percentiles IS
  'Queueing delay (start - submit) of GPU jobs per cluster, for all types (type ''all'') and per type: p50/p90/p99 within 0.5%, mean and max, seconds with 3 significant digits (acmetrace.queue_percentiles).';
