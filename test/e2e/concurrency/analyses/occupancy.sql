-- Queueing delay against occupancy, and the occupancy aggregate itself.
SELECT q.*
  FROM acmetrace.clusters c, LATERAL acmetrace.queue_by_occupancy(c.cluster, 5) q
 ORDER BY c.cluster COLLATE "C", q.type COLLATE "C", q.bin;
SELECT q.*
  FROM acmetrace.clusters c, LATERAL acmetrace.queue_by_occupancy(c.cluster, 8, 'start', 512) q
 ORDER BY c.cluster COLLATE "C", q.type COLLATE "C", q.bin;
SELECT o.cluster, acmetrace.peak(o.occ) AS peak, md5(o.occ::text) AS occ_md5,
       acmetrace.mean_gpus(o.occ, o.t0, o.t1) AS mean_gpus,
       acmetrace.gpus_at(o.occ, o.t0 + (o.t1 - o.t0) / 2) AS gpus_mid,
       (SELECT array_agg(b.seconds ORDER BY b.bin)
          FROM acmetrace.occupancy_time_bins(o.occ, 0, 1024, 4, o.t0, o.t1) b) AS seconds_in_bins
  FROM (SELECT j.cluster, acmetrace.occupancy_agg(j.start_time, j.end_time, j.gpu_num) AS occ,
               min(j.submit_time) AS t0, max(j.end_time) AS t1
          FROM acmetrace.jobs j GROUP BY j.cluster) o
 ORDER BY o.cluster COLLATE "C";
