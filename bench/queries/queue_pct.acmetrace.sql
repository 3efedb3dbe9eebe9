-- p50/p90/p99 of queueing delay by job type: acmetrace's function (one scan).
SELECT type, percentiles FROM acmetrace.queue_percentiles('seren', '{0.5,0.9,0.99}')
