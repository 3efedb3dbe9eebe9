-- acmetrace.util_cdf: CDF of a utilization metric over all its samples.

-- Metric names are stored upper case, so any spelling finds them.
CREATE FUNCTION acmetrace_internal.util_cdf_scan(cluster text, metric text, thresholds double precision[])
RETURNS TABLE (out_cluster text, value double precision, cdf_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(util_cdf_scan.cluster, util_cdf_scan.metric);
    RETURN QUERY
SELECT g.cluster, u.x, round(u.p::numeric, 2)
  FROM (SELECT b.cluster, acmetrace.cdf_at(b.samples, thresholds) AS cdf
          FROM acmetrace.utilization_blocks b
         WHERE b.metric = upper(util_cdf_scan.metric) AND (util_cdf_scan.cluster IS NULL OR b.cluster = util_cdf_scan.cluster)
         GROUP BY b.cluster) g,
       unnest(thresholds, g.cdf) u(x, p)
 ORDER BY g.cluster COLLATE "C", u.x;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.util_cdf_scan(text, text, double precision[]) IS
  'The body of acmetrace.util_cdf (PL/pgSQL, so that Citus can plan its query on distributed blocks).';

CREATE FUNCTION acmetrace.util_cdf(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL',
                                   thresholds double precision[] DEFAULT acmetrace.steps(0, 100, 1))
RETURNS TABLE (cluster text, value double precision, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.util_cdf_scan($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.util_cdf(text, text, double precision[]) IS
  'CDF (percent, 2 decimals) of a utilization metric (default GPU_UTIL, any case) over all its samples, per cluster, at each threshold value (default 0..100), counted straight from the compressed blocks.';
