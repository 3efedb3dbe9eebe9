-- The floor: reading the same rows and doing nothing with them.
SELECT count(*) FROM acmetrace.jobs WHERE cluster = 'seren'
