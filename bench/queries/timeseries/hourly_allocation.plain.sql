-- acmetrace.v_hourly_allocation for cluster :'c' and buckets in [:'from', :'to'], by a
-- plain scan of acmetrace.jobs: the trace's extent and first start, then the
-- GPU-seconds each job holds in each hour of the window (the overlap of its
-- [start, end) with the hour; a running job: to the last event).
WITH x AS (
    SELECT min(least(j.submit_time, j.start_time, j.end_time)) AS fe,
           max(greatest(j.submit_time, j.start_time, j.end_time)) AS le,
           min(j.start_time) FILTER (WHERE j.gpu_num > 0 AND (j.end_time IS NULL OR j.end_time > j.start_time)) AS fs
      FROM acmetrace.jobs j WHERE j.cluster = :'c'),
cap AS (
    SELECT coalesce(c.gpu_capacity,
                    (SELECT greatest(acmetrace.peak(acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num)), 1)
                       FROM acmetrace.jobs j WHERE j.cluster = :'c' AND j.gpu_num > 0)) AS gpus
      FROM acmetrace.clusters c WHERE c.cluster = :'c'),
h AS (
    SELECT g.h FROM x, generate_series(date_bin('1 hour', x.fe, '2000-01-01 00:00+00'), x.le, interval '1 hour') g(h)
     WHERE g.h BETWEEN :'from' AND :'to'),
w AS (
    SELECT j.gpu_num, j.start_time AS b, coalesce(j.end_time, x.le) AS e
      FROM acmetrace.jobs j, x
     WHERE j.cluster = :'c' AND j.gpu_num > 0 AND j.start_time IS NOT NULL
       AND (j.end_time IS NULL OR j.end_time > j.start_time)
       AND j.start_time < :'to'::timestamptz + interval '1 hour' AND coalesce(j.end_time, x.le) > :'from'::timestamptz),
held AS (
    SELECT g.h, sum(w.gpu_num * extract(epoch FROM least(w.e, g.h + interval '1 hour') - greatest(w.b, g.h))) AS s
      FROM w, generate_series(greatest(date_bin('1 hour', w.b, '2000-01-01 00:00+00'),
                                       date_bin('1 hour', :'from'::timestamptz, '2000-01-01 00:00+00')),
                              least(w.e, :'to'::timestamptz), interval '1 hour') g(h)
     GROUP BY g.h)
SELECT :'c'::text AS cluster, h.h AS bucket, round(coalesce(held.s, 0) / 3600, 2) AS allocated_gpus,
       cap.gpus AS capacity_gpus, round(100 * coalesce(held.s, 0) / 3600 / cap.gpus, 2) AS allocation_pct,
       coalesce(h.h < x.fs, true) OR h.h + interval '1 hour' > x.le AS partial
  FROM x, cap, h LEFT JOIN held ON held.h = h.h
 ORDER BY h.h
