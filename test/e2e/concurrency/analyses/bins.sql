-- Bins and CDFs: the aggregates directly, bin_rows, and the paper's CDFs.
SELECT j.cluster,
       acmetrace.bins(j.wait_s, 0, 600, 12) AS wait_bins,
       acmetrace.bins_at(j.gpu_num, '{1,2,4,8,64,1024}') AS gpu_bins,
       acmetrace.cdf_at(j.run_s, acmetrace.powers_of_two(0, 21)) AS run_cdf,
       acmetrace.weighted_cdf_at(j.gpu_num, j.gpu_s, '{1,8,64,512}') AS gpu_time_cdf
  FROM acmetrace.jobs j
 GROUP BY j.cluster
 ORDER BY j.cluster COLLATE "C";
SELECT r.*
  FROM (SELECT acmetrace.bins(j.duration::float8, 0, 86400, 24) AS b FROM acmetrace.jobs j) s,
       LATERAL acmetrace.bin_rows(s.b, 0, 86400) r
 WHERE s.b IS NOT NULL
 ORDER BY r.bin;
SELECT * FROM acmetrace.duration_cdf(NULL, acmetrace.powers_of_two(0, 21))
 ORDER BY cluster COLLATE "C", type COLLATE "C" NULLS FIRST, duration_s;
SELECT * FROM acmetrace.queue_cdf(NULL, acmetrace.steps(0, 600, 30))
 ORDER BY cluster COLLATE "C", type COLLATE "C" NULLS FIRST, queue_s;
SELECT * FROM acmetrace.gpu_num_cdf(NULL, acmetrace.powers_of_two(0, 10))
 ORDER BY cluster COLLATE "C", gpu_num;
