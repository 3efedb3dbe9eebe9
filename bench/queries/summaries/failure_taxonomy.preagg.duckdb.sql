-- DuckDB over its pre-aggregates (preagg.duckdb.sql, classified_jobs and job_rollup): acmetrace.failure_taxonomy():
-- the classified jobs per (category, reason); the failed jobs nobody classified are job_rollup's failed jobs less
-- the classified ones among them.  Each row's jobs, sums and counts, then the raw form's arithmetic.
WITH a AS (
    SELECT cluster, category, reason, count(*) AS n, sum(gpu_num) AS sg, count(gpu_num) AS ng,
           sum(duration) AS sd, count(duration) AS nd, sum(duration * gpu_num) AS t
      FROM classified_jobs GROUP BY ALL
    UNION ALL
    SELECT f.cluster, NULL, NULL, f.n - coalesce(x.n, 0), f.sg - coalesce(x.sg, 0), f.ng - coalesce(x.ng, 0),
           f.sd - coalesce(x.sd, 0), f.nd - coalesce(x.nd, 0), coalesce(f.t, 0) - coalesce(x.t, 0)
      FROM (SELECT cluster, sum(n) AS n, sum(gpu_num * n) AS sg, coalesce(sum(n) FILTER (WHERE gpu_num IS NOT NULL), 0) AS ng,
                   sum(ds) AS sd, sum(dn) AS nd, sum(dg) AS t
              FROM job_rollup WHERE final_state = 'FAILED' GROUP BY cluster) f
      LEFT JOIN (SELECT cluster, count(*) AS n, sum(gpu_num) AS sg, count(gpu_num) AS ng, sum(duration) AS sd,
                        count(duration) AS nd, sum(duration * gpu_num) AS t
                   FROM classified_jobs WHERE final_state = 'FAILED' GROUP BY cluster) x USING (cluster)
     WHERE f.n - coalesce(x.n, 0) > 0)
SELECT cluster, category, reason, n, round_dec(sg / ng, 2), sig3(sd / nd), round_dec(coalesce(t, 0) / 3600, 2),
       round(100 * coalesce(t, 0) / sum(coalesce(t, 0)) OVER (PARTITION BY cluster), 2)
  FROM a ORDER BY cluster, category IS NULL, coalesce(t, 0) DESC
