-- acmetrace.v_daily_jobs for cluster :'c' and buckets in [:'from', :'to'], by a plain
-- scan of acmetrace.jobs: the trace's extent, the cluster's local days, jobs
-- submitted and ended in each.
WITH c AS (SELECT cl.time_zone AS tz FROM acmetrace.clusters cl WHERE cl.cluster = :'c'),
x AS (
    SELECT min(least(j.submit_time, j.start_time, j.end_time)) AS fe,
           max(greatest(j.submit_time, j.start_time, j.end_time)) AS le
      FROM acmetrace.jobs j WHERE j.cluster = :'c'),
d AS (
    SELECT g.d::date AS day, g.d AT TIME ZONE c.tz AS bucket, (g.d + interval '1 day') AT TIME ZONE c.tz AS nxt
      FROM c, x, generate_series(date_trunc('day', x.fe AT TIME ZONE c.tz), x.le AT TIME ZONE c.tz, interval '1 day') g(d)
     WHERE g.d AT TIME ZONE c.tz BETWEEN :'from' AND :'to'),
s AS (
    SELECT (j.submit_time AT TIME ZONE c.tz)::date AS day, count(*) AS n
      FROM acmetrace.jobs j, c
     WHERE j.cluster = :'c' AND j.submit_time >= (SELECT min(d.bucket) FROM d) AND j.submit_time < (SELECT max(d.nxt) FROM d)
     GROUP BY 1),
e AS (
    SELECT (j.end_time AT TIME ZONE c.tz)::date AS day,
           count(*) FILTER (WHERE j.final_state = 'COMPLETED') AS completed,
           count(*) FILTER (WHERE j.final_state = 'FAILED') AS failed,
           count(*) FILTER (WHERE j.final_state = 'CANCELLED') AS cancelled,
           sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0) AS g,
           sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'FAILED') AS fg,
           sum(coalesce(j.gpu_time, j.duration * j.gpu_num)) FILTER (WHERE j.gpu_num > 0 AND j.final_state = 'CANCELLED') AS cg
      FROM acmetrace.jobs j, c
     WHERE j.cluster = :'c' AND j.end_time >= (SELECT min(d.bucket) FROM d) AND j.end_time < (SELECT max(d.nxt) FROM d)
     GROUP BY 1)
SELECT :'c'::text AS cluster, d.bucket, coalesce(s.n, 0) AS submitted, coalesce(e.completed, 0) AS completed,
       coalesce(e.failed, 0) AS failed, coalesce(e.cancelled, 0) AS cancelled,
       round(coalesce(e.g, 0) / 3600, 2) AS gpu_h, round(coalesce(e.fg, 0) / 3600, 2) AS failed_gpu_h,
       round(coalesce(e.cg, 0) / 3600, 2) AS cancelled_gpu_h, round((coalesce(e.fg, 0) + coalesce(e.cg, 0)) / 3600, 2) AS lost_gpu_h,
       d.bucket < x.fe OR d.nxt > x.le AS partial
  FROM x, d LEFT JOIN s ON s.day = d.day LEFT JOIN e ON e.day = d.day
 ORDER BY d.bucket
