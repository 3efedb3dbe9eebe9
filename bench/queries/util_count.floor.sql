-- The same rows, only counted.
SELECT count(*) FROM bench_util_rows
