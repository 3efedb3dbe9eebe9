-- acmetrace.v_hourly_utilization for cluster :'c' and buckets in [:'from', :'to'], by a
-- plain aggregate over acmetrace.utilization (the samples as long rows): the
-- first and last sample's hours of each metric, then each UTC hour of the
-- window's samples (mean of the exact values, 2 decimals).
WITH ends AS (
    SELECT u.metric, date_trunc('hour', min(u.ts), 'UTC') AS first_hour, date_trunc('hour', max(u.ts), 'UTC') AS last_hour
      FROM acmetrace.utilization u WHERE u.cluster = :'c' GROUP BY u.metric)
SELECT u.metric, u.cluster, date_trunc('hour', u.ts, 'UTC') AS bucket, count(DISTINCT u.series) AS series,
       count(*) AS samples, round(avg(u.value::numeric), 2) AS mean, min(u.value) AS min, max(u.value) AS max,
       date_trunc('hour', u.ts, 'UTC') IN (e.first_hour, e.last_hour) AS partial
  FROM acmetrace.utilization u JOIN ends e USING (metric)
 WHERE u.cluster = :'c' AND u.ts >= :'from' AND u.ts < :'to'::timestamptz + interval '1 hour'
 GROUP BY u.metric, u.cluster, date_trunc('hour', u.ts, 'UTC'), e.first_hour, e.last_hour
 ORDER BY u.metric, bucket
