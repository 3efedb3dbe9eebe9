-- DuckDB: the floor, reading the same rows and doing nothing with them.
SELECT count(*) FROM jobs WHERE cluster = 'seren'
