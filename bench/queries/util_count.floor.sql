-- The same rows, only counted.
SELECT count(*) FROM acmetrace.utilization
