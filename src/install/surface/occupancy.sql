-- Bins follow width_bucket(gpus, lo, hi, nbins), so they agree with queries
-- that bin gpus_at() the same way.
CREATE FUNCTION acmetrace.occupancy_time_bins(occ acmetrace.occupancy, lo bigint, hi bigint, nbins integer,
                                              from_time timestamptz, to_time timestamptz)
RETURNS TABLE (bin integer, gpus_from double precision, gpus_to double precision,
               seconds double precision, time_pct double precision)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    WITH lv AS (
        SELECT width_bucket(l.gpus::double precision, lo::double precision, hi::double precision, nbins) AS b,
               l.seconds
          FROM acmetrace.occupancy_levels(occ, from_time, to_time) l
    ), bins AS (
        SELECT g AS b FROM generate_series(1, nbins) g
        UNION
        SELECT lv.b FROM lv
    )
    SELECT bins.b,
           CASE WHEN bins.b > 0 THEN lo + (hi - lo)::double precision * (bins.b - 1) / nbins END,
           CASE WHEN bins.b <= nbins THEN lo + (hi - lo)::double precision * bins.b / nbins END,
           coalesce(sum(lv.seconds), 0),
           100 * coalesce(sum(lv.seconds), 0)
               -- numeric epochs: the interval of a very wide window overflows
               / (extract(epoch FROM to_time) - extract(epoch FROM from_time))::double precision
      FROM bins LEFT JOIN lv ON lv.b = bins.b
     GROUP BY bins.b
     ORDER BY bins.b
$$;
COMMENT ON FUNCTION acmetrace.occupancy_time_bins(acmetrace.occupancy, bigint, bigint, integer, timestamptz, timestamptz) IS
  'Seconds within [from_time, to_time) spent in each bin of allocated GPUs, bins as width_bucket(gpus, lo, hi, nbins): 1..nbins always, 0 (below lo) and nbins+1 (hi and above) when time was spent there. time_pct = 100 * seconds / window length (unrounded).';
