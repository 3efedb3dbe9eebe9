-- acmetrace.util_polarization: how polarized a utilization metric is.

-- Counted with bins_at: [0] is v < the float8 just above 1 (v <= 1), [2] and
-- [3] are v >= 99.
CREATE FUNCTION acmetrace_internal.util_polarization_scan(cluster text, metric text)
RETURNS TABLE (out_cluster text, samples bigint, at_most_1_pct numeric, at_least_99_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(util_polarization_scan.cluster, util_polarization_scan.metric);
    RETURN QUERY
SELECT g.cluster, g.samples, acmetrace_internal.pct(g.c[0], g.samples), acmetrace_internal.pct(g.c[2] + g.c[3], g.samples)
  FROM (SELECT b.cluster, sum(b.n)::bigint AS samples,
               acmetrace.bins_at(b.samples, ARRAY[1 + 2::float8 ^ -52, 99, 1.7976931348623157e308]) AS c
          FROM acmetrace.utilization_blocks b
         WHERE b.metric = upper(util_polarization_scan.metric)
           AND (util_polarization_scan.cluster IS NULL OR b.cluster = util_polarization_scan.cluster)
         GROUP BY b.cluster) g
 ORDER BY g.cluster COLLATE "C";
END
$$;
COMMENT ON FUNCTION acmetrace_internal.util_polarization_scan(text, text) IS
  'The body of acmetrace.util_polarization (PL/pgSQL, so that Citus can plan its query on distributed blocks).';

CREATE FUNCTION acmetrace.util_polarization(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL')
RETURNS TABLE (cluster text, samples bigint, at_most_1_pct numeric, at_least_99_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.util_polarization_scan($1, $2)';
COMMENT ON FUNCTION acmetrace.util_polarization(text, text) IS
  'How polarized a utilization metric (default GPU_UTIL, any case) is, per cluster: the percent (2 decimals) of samples at or below 1 and at or above 99.';
