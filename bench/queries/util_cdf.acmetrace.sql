-- CDF of GPU utilization samples at 0, 1, ..., 100%: acmetrace.cdf_at.
SELECT acmetrace.cdf_at(value, acmetrace.steps(0, 100, 1)) FROM acmetrace.utilization
