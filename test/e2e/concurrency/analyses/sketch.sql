-- Queueing-delay percentiles through the sketch: the aggregate in SQL, the
-- one-scan queue_percentiles, rollup of its sketches, and the view.
SELECT s.cluster, s.type, acmetrace.count(s.sk) AS n,
       acmetrace.percentiles(s.sk, '{0.5,0.9,0.99}') AS p, acmetrace.mean(s.sk) AS mean,
       acmetrace.min(s.sk) AS min, acmetrace.max(s.sk) AS max,
       acmetrace.rank_pct(s.sk, 60) AS rank_60_pct, md5(s.sk::text) AS sketch_md5
  FROM (SELECT j.cluster, j.type, acmetrace.delay_sketch_agg(j.wait_s) AS sk
          FROM acmetrace.jobs j WHERE j.wait_s >= 0
         GROUP BY j.cluster, j.type) s
 ORDER BY s.cluster COLLATE "C", s.type COLLATE "C";
SELECT c.cluster, q.type, q.jobs, q.percentiles_s, md5(acmetrace.queue_sketch(c.cluster, q.type)::text) AS sketch_md5
  FROM acmetrace.clusters c, LATERAL acmetrace.queue_percentiles(c.cluster, '{0.5,0.9,0.99,1}') q
 ORDER BY c.cluster COLLATE "C", q.type COLLATE "C" NULLS FIRST;
SELECT c.cluster, acmetrace.percentiles(acmetrace.rollup(acmetrace.queue_sketch(c.cluster, q.type)) FILTER (WHERE q.type <> 'all'), '{0.5,0.99}') AS p,
       md5((acmetrace.rollup(acmetrace.queue_sketch(c.cluster, q.type)) FILTER (WHERE q.type <> 'all'))::text) AS sketch_md5
  FROM acmetrace.clusters c, LATERAL acmetrace.queue_percentiles(c.cluster) q
 GROUP BY c.cluster
 ORDER BY c.cluster COLLATE "C";
SELECT * FROM acmetrace.v_queue_percentiles ORDER BY cluster COLLATE "C", type COLLATE "C" NULLS FIRST;
