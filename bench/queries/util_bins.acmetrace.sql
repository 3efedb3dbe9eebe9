-- GPU utilization samples in 10 bins of 10%: acmetrace.bins over the
-- compressed blocks (no row per sample).
SELECT acmetrace.bins(samples, 0, 100, 10) FROM acmetrace.utilization_blocks
