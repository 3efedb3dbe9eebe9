-- p50/p90/p99 of queueing delay of GPU jobs by job type: acmetrace's
-- function (its sketch column, unrounded, for the accuracy check).
SELECT type, acmetrace.percentiles(sketch, '{0.5,0.9,0.99}') FROM acmetrace.queue_percentiles('seren', '{0.5,0.9,0.99}') WHERE type IS NOT NULL
