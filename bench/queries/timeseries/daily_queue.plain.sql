-- acmetrace.v_daily_queue for cluster :'c' and buckets in [:'from', :'to'], by a plain
-- scan of acmetrace.jobs: the waits (start - submit) of the GPU jobs that
-- started each local day at or after submission, percentile_cont and avg
-- (3 significant digits, as the view rounds).
WITH c AS (SELECT cl.time_zone AS tz FROM acmetrace.clusters cl WHERE cl.cluster = :'c'),
x AS (
    SELECT min(least(j.submit_time, j.start_time, j.end_time)) AS fe,
           max(greatest(j.submit_time, j.start_time, j.end_time)) AS le
      FROM acmetrace.jobs j WHERE j.cluster = :'c'),
d AS (
    SELECT g.d::date AS day, g.d AT TIME ZONE c.tz AS bucket, (g.d + interval '1 day') AT TIME ZONE c.tz AS nxt
      FROM c, x, generate_series(date_trunc('day', x.fe AT TIME ZONE c.tz), x.le AT TIME ZONE c.tz, interval '1 day') g(d)
     WHERE g.d AT TIME ZONE c.tz BETWEEN :'from' AND :'to'),
q AS (
    SELECT (j.start_time AT TIME ZONE c.tz)::date AS day, count(*) AS n,
           percentile_cont('{0.5,0.9,0.99}'::float8[]) WITHIN GROUP (ORDER BY j.wait_s) AS p, avg(j.wait_s::numeric) AS m
      FROM acmetrace.jobs j, c
     WHERE j.cluster = :'c' AND j.gpu_num > 0 AND j.wait_s >= 0
       AND j.start_time >= (SELECT min(d.bucket) FROM d) AND j.start_time < (SELECT max(d.nxt) FROM d)
     GROUP BY 1)
SELECT :'c'::text AS cluster, d.bucket, coalesce(q.n, 0) AS jobs, acmetrace_internal.sig3(q.p[1]) AS p50_s,
       acmetrace_internal.sig3(q.p[2]) AS p90_s, acmetrace_internal.sig3(q.p[3]) AS p99_s,
       acmetrace_internal.sig3(q.m::float8) AS mean_s, d.bucket < x.fe OR d.nxt > x.le AS partial
  FROM x, d LEFT JOIN q ON q.day = d.day
 ORDER BY d.bucket
