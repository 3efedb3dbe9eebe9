-- GPU utilization samples in 10 bins of 10%: acmetrace.bins.
SELECT acmetrace.bins(value, 0, 100, 10) FROM acmetrace.utilization
