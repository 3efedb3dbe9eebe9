-- DuckDB: the same utilization samples, only counted.
SELECT count(*) FROM utilization
