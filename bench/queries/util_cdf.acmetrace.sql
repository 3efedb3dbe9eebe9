-- CDF of GPU utilization samples at 0, 1, ..., 100%: acmetrace.cdf_at over
-- the compressed blocks.
SELECT acmetrace.cdf_at(samples, acmetrace.steps(0, 100, 1)) FROM acmetrace.utilization_blocks
