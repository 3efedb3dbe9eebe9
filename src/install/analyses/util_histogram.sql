-- acmetrace.util_histogram: histogram of the per-series average of a
-- utilization metric (the Spark study's 10% bins).

CREATE FUNCTION acmetrace_internal.util_histogram_scan(cluster text, metric text, nbins integer)
RETURNS TABLE (out_cluster text, bin integer, bin_lo double precision, bin_hi double precision, series bigint,
               series_pct numeric, cumulative_pct numeric)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    -- checked first and apart: a parallel-restricted call in the query keeps it serial
    PERFORM acmetrace_internal.known_cluster(util_histogram_scan.cluster, util_histogram_scan.metric);
    RETURN QUERY
SELECT h.cluster, r.bin, r.bin_lo, r.bin_hi, r.count, round(r.count_pct::numeric, 2), round(r.cumulative_pct::numeric, 2)
  FROM (SELECT a.cluster, acmetrace.bins(a.mean, 0, 100, nbins) AS counts
          FROM (SELECT b.cluster, (sum(b.sum) / sum(b.n))::double precision AS mean
                  FROM acmetrace.utilization_blocks b
                 WHERE b.metric = upper(util_histogram_scan.metric)
                   AND (util_histogram_scan.cluster IS NULL OR b.cluster = util_histogram_scan.cluster)
                 GROUP BY b.cluster, b.series) a
         GROUP BY a.cluster) h,
       acmetrace.bin_rows(h.counts, 0, 100) r
 ORDER BY h.cluster COLLATE "C", r.bin;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.util_histogram_scan(text, text, integer) IS
  'The body of acmetrace.util_histogram (PL/pgSQL, so that Citus can plan its query on distributed blocks).';

CREATE FUNCTION acmetrace.util_histogram(cluster text DEFAULT NULL, metric text DEFAULT 'GPU_UTIL', nbins integer DEFAULT 10)
RETURNS TABLE (cluster text, bin integer, bin_lo double precision, bin_hi double precision, series bigint,
               series_pct numeric, cumulative_pct numeric)
LANGUAGE sql STABLE PARALLEL SAFE
AS 'SELECT * FROM acmetrace_internal.util_histogram_scan($1, $2, $3)';
COMMENT ON FUNCTION acmetrace.util_histogram(text, text, integer) IS
  'Histogram of the per-series (per-GPU or per-server) average of a utilization metric (default GPU_UTIL, any case) in nbins equal bins over 0..100, per cluster: the Spark study''s 10% bins, in series and percent of series (2 decimals). Averages are exact (the blocks'' numeric sums over their counts, rounded once) and read from the block summaries without decoding a sample. Bins 0 and nbins+1 count averages below 0 and above 100.';

CREATE VIEW acmetrace.v_util_histogram WITH (security_invoker = true) AS
    SELECT * FROM acmetrace.util_histogram(NULL, 'GPU_UTIL', 10);
COMMENT ON VIEW acmetrace.v_util_histogram IS
  'Per-GPU average GPU_UTIL in 10% bins per cluster, the Spark study''s histogram (acmetrace.util_histogram).';
