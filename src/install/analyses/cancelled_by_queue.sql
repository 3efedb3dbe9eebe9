-- acmetrace.cancelled_by_queue: GPU jobs of one type by queueing-delay bin, and
-- how many of them were cancelled (the Spark study's Eval figure).

-- Cancellations by queueing-delay bin: [0, w), [w, 2w), ... up to `upper`,
-- then one open bin for waits >= upper.  Every bin is listed, empty or not.
CREATE FUNCTION acmetrace_internal.queue_bin_count(bin_width double precision, upper double precision)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE
    WHEN NOT (bin_width > 0 AND bin_width < 'Infinity' AND upper >= bin_width AND upper < 'Infinity') THEN
        acmetrace_internal.raise('22023',
            format('bin_width must be positive and upper at least bin_width, not %s, %s',
                   coalesce(bin_width::text, 'NULL'), coalesce(upper::text, 'NULL')),
            'The Spark study uses 20 s bins up to 300 s: cancelled_by_queue(cluster, ''Eval'', 20, 300).')::integer
    WHEN upper / bin_width > 10000 THEN
        acmetrace_internal.raise('54000', format('at most 10000 bins, not %s', ceil(upper / bin_width)),
                                 'Use a wider bin_width or a lower upper.')::integer
    ELSE ceil(upper / bin_width)::integer
END
$$;
COMMENT ON FUNCTION acmetrace_internal.queue_bin_count(double precision, double precision) IS
  'Checks cancelled_by_queue''s bins and returns how many closed bins there are.';

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_scan(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (out_cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_job_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(cancelled_by_queue_scan.cluster);
    RETURN QUERY
    WITH p AS (SELECT acmetrace_internal.queue_bin_count(bin_width, upper) AS nb),
    b AS (
        SELECT j.cluster,
               CASE WHEN j.wait_s >= upper THEN p.nb + 1
                    ELSE floor(j.wait_s / bin_width)::integer + 1 END AS bin,
               j.state = 'CANCELLED' AS is_cancelled
          FROM acmetrace.jobs j, p
         WHERE (j.gpu_num > 0 OR coalesce(all_jobs, false)) AND j.wait_s >= 0
           AND (cancelled_by_queue_scan.cluster IS NULL OR j.cluster = cancelled_by_queue_scan.cluster)
           AND (cancelled_by_queue_scan.type IS NULL OR j.type = cancelled_by_queue_scan.type)),
    c AS (SELECT DISTINCT b.cluster FROM b)
    SELECT c.cluster, k.bin,
           least((k.bin - 1) * bin_width, upper),
           CASE WHEN k.bin <= p.nb THEN least(k.bin * bin_width, upper) END,
           count(b.bin), count(b.bin) FILTER (WHERE b.is_cancelled),
           acmetrace_internal.pct(count(b.bin) FILTER (WHERE b.is_cancelled), count(b.bin))
      FROM c
     CROSS JOIN p
     CROSS JOIN LATERAL generate_series(1, p.nb + 1) k(bin)
      LEFT JOIN b ON b.cluster = c.cluster AND b.bin = k.bin
     GROUP BY c.cluster, k.bin, p.nb
     ORDER BY c.cluster COLLATE "C", k.bin;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cancelled_by_queue_scan(text, text, double precision, double precision, boolean) IS
  'The scan path of acmetrace.cancelled_by_queue: reads acmetrace.jobs.';

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_summary(cluster text, type text, bin_width double precision,
                                                              upper double precision)
RETURNS TABLE (out_cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_job_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(cancelled_by_queue_summary.cluster);
    RETURN QUERY
    WITH p AS (SELECT acmetrace_internal.queue_bin_count(bin_width, upper) AS nb),
    b AS (
        SELECT v.cluster, u.bin, sum(u.n) AS n, sum(u.n) FILTER (WHERE v.cancelled) AS c
          FROM acmetrace.summary_values v, p,
               unnest(acmetrace_internal.vc_bins(v.vals, v.counts, bin_width, upper, p.nb)) WITH ORDINALITY u(n, bin)
         WHERE v.measure = 'wait'
           AND (cancelled_by_queue_summary.cluster IS NULL OR v.cluster = cancelled_by_queue_summary.cluster)
           AND (cancelled_by_queue_summary.type IS NULL OR v.type = cancelled_by_queue_summary.type)
         GROUP BY v.cluster, u.bin)
    SELECT b.cluster, b.bin::integer,
           least((b.bin - 1) * bin_width, upper),
           CASE WHEN b.bin <= p.nb THEN least(b.bin * bin_width, upper) END,
           b.n::bigint, coalesce(b.c, 0)::bigint,
           acmetrace_internal.pct(coalesce(b.c, 0), b.n)
      FROM b, p
     ORDER BY b.cluster COLLATE "C", b.bin;
END
$$;

CREATE FUNCTION acmetrace_internal.cancelled_by_queue_run(a1 text, a2 text, a3 double precision, a4 double precision, a5 boolean)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_job_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
    per_cluster text;
BEGIN
    IF a1 IS NULL AND acmetrace_internal.distributed() THEN
        -- on Citus cluster by cluster: each call is one query on one worker
        -- (Citus runs GROUPING SETS and correlated subqueries only there)
        FOR per_cluster IN SELECT k.cluster FROM acmetrace.clusters k ORDER BY k.cluster COLLATE "C" LOOP
            RETURN QUERY SELECT * FROM acmetrace_internal.cancelled_by_queue_run(per_cluster, a2, a3, a4, a5);
        END LOOP;
        RETURN;
    END IF;
    IF acmetrace_internal.summarized(a1) AND NOT coalesce(a5, false) THEN
        RETURN QUERY SELECT * FROM acmetrace_internal.cancelled_by_queue_summary(a1, a2, a3, a4);
    ELSE
        RETURN QUERY SELECT * FROM acmetrace_internal.cancelled_by_queue_scan(a1, a2, a3, a4, a5);
    END IF;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cancelled_by_queue_run(text, text, double precision, double precision, boolean) IS
  'acmetrace.cancelled_by_queue: from the summaries when they can answer, else the scan.';

CREATE FUNCTION acmetrace.cancelled_by_queue(cluster text DEFAULT NULL, type text DEFAULT 'Eval',
                                             bin_width double precision DEFAULT 20,
                                             upper double precision DEFAULT 300,
                                             all_jobs boolean DEFAULT false)
RETURNS TABLE (cluster text, bin integer, queue_from_s double precision, queue_to_s double precision,
               jobs bigint, cancelled bigint, cancelled_job_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.cancelled_by_queue_run($1, $2, $3, $4, $5)';
COMMENT ON FUNCTION acmetrace.cancelled_by_queue(text, text, double precision, double precision, boolean) IS
  'GPU jobs (all_jobs: every job) of one type (default Eval; NULL: every type) by queueing delay (start - submit) in bins of bin_width seconds up to upper, then one open bin (queue_to_s NULL): jobs, cancelled jobs and the percent of the bin''s jobs cancelled (cancelled_job_pct, 2 decimals; NULL for an empty bin). Every bin is listed; jobs that never started are left out.';

CREATE VIEW acmetrace.v_cancelled_by_queue_eval WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.cancelled_by_queue(NULL, 'Eval', 20, 300);
COMMENT ON VIEW acmetrace.v_cancelled_by_queue_eval IS
  'Eval GPU jobs by queueing delay (start - submit) in 20 s bins up to 300 s, then over 300 s: jobs and cancellations (acmetrace.cancelled_by_queue).';
