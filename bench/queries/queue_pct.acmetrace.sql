-- p50/p90/p99 of queueing delay of GPU jobs by job type: acmetrace's
-- function (the sketch behind each row, unrounded, for the accuracy check:
-- queue_percentiles no longer returns it, acmetrace.queue_sketch does).
SELECT type, acmetrace.percentiles(acmetrace.queue_sketch('seren', type), '{0.5,0.9,0.99}') FROM acmetrace.queue_percentiles('seren', '{0.5,0.9,0.99}') WHERE type <> 'all'
