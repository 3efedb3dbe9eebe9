-- Utilization: the long-row views over the blocks and the loader
-- (triggers.sql attaches it).

-- The long rows of releases before 0.4.0, for SQL written against them.
CREATE VIEW acmetrace.utilization AS
SELECT u.value, u.ts, b.metric, b.cluster, b.series
  FROM acmetrace.utilization_blocks b
 CROSS JOIN LATERAL acmetrace.unnest(b.samples) u;
COMMENT ON VIEW acmetrace.utilization IS
  'Utilization samples as long rows (value, ts, metric, cluster, series), decoded from acmetrace.utilization_blocks: filters on metric, cluster and series skip whole blocks; aggregates over blocks (acmetrace.bins(samples, ...)) avoid the rows altogether.';

-- Per-series statistics straight from the block summaries.
CREATE VIEW acmetrace.utilization_series AS
SELECT b.metric, b.cluster, b.series, sum(b.n)::bigint AS samples,
       (sum(b.sum) / sum(b.n))::double precision AS mean,
       min(b.min) AS min, max(b.max) AS max,
       min(b.first_ts) AS first_ts, max(b.last_ts) AS last_ts
  FROM acmetrace.utilization_blocks b
 GROUP BY b.metric, b.cluster, b.series;
COMMENT ON VIEW acmetrace.utilization_series IS
  'Per series: samples, exact mean (numeric sum / count, rounded once to float8), min, max, first and last time, from the block summaries without decoding a sample.';

CREATE FUNCTION acmetrace_internal.utilization_load()
RETURNS trigger
AS 'MODULE_PATHNAME', 'acmetrace_utilization_load'
LANGUAGE C;
