-- acmetrace.util_cdf: CDF of a utilization metric over all its samples.

-- Metric names are stored upper case, so any spelling finds them.
CREATE FUNCTION acmetrace.util_cdf(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL',
                                   thresholds double precision[] DEFAULT acmetrace.steps(0, 100, 1))
RETURNS TABLE (cluster text, value double precision, cdf_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
SELECT g.cluster, u.x, round(u.p::numeric, 2)
  FROM (SELECT b.cluster, acmetrace.cdf_at(b.samples, thresholds) AS cdf
          FROM acmetrace.utilization_blocks b
         WHERE acmetrace_internal.known_cluster(util_cdf.cluster, util_cdf.metric)
           AND b.metric = upper(util_cdf.metric) AND (util_cdf.cluster IS NULL OR b.cluster = util_cdf.cluster)
         GROUP BY b.cluster) g,
       unnest(thresholds, g.cdf) u(x, p)
 ORDER BY g.cluster COLLATE "C", u.x
$$;
COMMENT ON FUNCTION acmetrace.util_cdf(text, text, double precision[]) IS
  'CDF (percent, 2 decimals) of a utilization metric (default GPU_UTIL, any case) over all its samples, per cluster, at each threshold value (default 0..100), counted straight from the compressed blocks.';
