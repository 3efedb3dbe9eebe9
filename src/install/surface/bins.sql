-- Bin counts as rows, for BI tools.
CREATE FUNCTION acmetrace.bin_rows(counts bigint[], lo double precision, hi double precision)
RETURNS TABLE (bin integer, bin_lo double precision, bin_hi double precision, count bigint,
               count_pct double precision, cumulative_pct double precision)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    n integer := array_upper(counts, 1) - 1;
BEGIN
    IF array_ndims(counts) <> 1 OR array_lower(counts, 1) <> 0 OR n < 1 THEN
        PERFORM acmetrace_internal.raise('22023', 'bin_rows expects the array acmetrace.bins returns (indexed from 0, at least 3 cells)',
              'Pass acmetrace.bins(value, lo, hi, nbins) with the same lo and hi.');
    END IF;
    RETURN QUERY
    SELECT i, CASE WHEN i = 0 THEN '-Infinity'::float8 ELSE lo + (hi - lo) * (i - 1) / n END,
              CASE WHEN i = n + 1 THEN 'Infinity'::float8 WHEN i = n THEN hi ELSE lo + (hi - lo) * i / n END,
           counts[i],
           counts[i]::float8 / sum(counts[i]) OVER () * 100,
           sum(counts[i]) OVER (ORDER BY i)::float8 / sum(counts[i]) OVER () * 100
      FROM generate_series(0, n + 1) i
     ORDER BY i;
END
$$;
COMMENT ON FUNCTION acmetrace.bin_rows(bigint[], double precision, double precision) IS
  'The result of acmetrace.bins as rows (bin 0 below lo and nbins+1 above hi included): nominal edges, count, percent of all counted values and cumulative percent (unrounded).';

CREATE FUNCTION acmetrace.bin_rows(counts bigint[], edges double precision[])
RETURNS TABLE (bin integer, bin_lo double precision, bin_hi double precision, count bigint,
               count_pct double precision, cumulative_pct double precision)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    k integer := cardinality(edges) - 1;
BEGIN
    IF array_ndims(counts) <> 1 OR array_lower(counts, 1) <> 0 OR array_upper(counts, 1) <> k + 1 THEN
        PERFORM acmetrace_internal.raise('22023', format('bin_rows expects the array acmetrace.bins_at returns for these %s edges', k + 1),
              'Pass acmetrace.bins_at(value, edges) with the same edges.');
    END IF;
    RETURN QUERY
    SELECT i, CASE WHEN i = 0 THEN '-Infinity'::float8 ELSE edges[i] END,
              CASE WHEN i = k + 1 THEN 'Infinity'::float8 ELSE edges[i + 1] END,
           counts[i],
           counts[i]::float8 / sum(counts[i]) OVER () * 100,
           sum(counts[i]) OVER (ORDER BY i)::float8 / sum(counts[i]) OVER () * 100
      FROM generate_series(0, k + 1) i
     ORDER BY i;
END
$$;
COMMENT ON FUNCTION acmetrace.bin_rows(bigint[], double precision[]) IS
  'The result of acmetrace.bins_at as rows: bin i spans [edges[i], edges[i+1]) (bin 0 below the first edge, the last bin above the last edge).';
