-- acmetrace.util_polarization: how polarized a utilization metric is.

-- Counted with bins_at: [0] is v < the float8 just above 1 (v <= 1), [2] and
-- [3] are v >= 99.
CREATE FUNCTION acmetrace.util_polarization(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL')
RETURNS TABLE (cluster text, samples bigint, at_most_1_pct numeric, at_least_99_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, g.samples, acmetrace_internal.pct(g.c[0], g.samples), acmetrace_internal.pct(g.c[2] + g.c[3], g.samples)
  FROM (SELECT b.cluster, sum(b.n)::bigint AS samples,
               acmetrace.bins_at(b.samples, ARRAY[1 + 2::float8 ^ -52, 99, 1.7976931348623157e308]) AS c
          FROM acmetrace.utilization_blocks b
         WHERE acmetrace_internal.known_cluster(util_polarization.cluster, util_polarization.metric)
           AND b.metric = upper(util_polarization.metric)
           AND (util_polarization.cluster IS NULL OR b.cluster = util_polarization.cluster)
         GROUP BY b.cluster) g
 ORDER BY g.cluster COLLATE "C"
$$;
COMMENT ON FUNCTION acmetrace.util_polarization(text, text) IS
  'How polarized a utilization metric (default GPU_UTIL, any case) is, per cluster: the percent (2 decimals) of samples at or below 1 and at or above 99.';
