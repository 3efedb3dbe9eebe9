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

-- Every block written (the loaders' inserts and merges, or by hand) gets
-- the hour summaries of its samples.
CREATE FUNCTION acmetrace_internal.utilization_block_hours()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT h.n, h.sum, h.min, h.max INTO NEW.hour_n, NEW.hour_sum, NEW.hour_min, NEW.hour_max
      FROM acmetrace_internal.samples_hours(NEW.samples, NEW.day) h;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_block_hours() IS
  'Row trigger on acmetrace.utilization_blocks: writes the hour_* columns from the block''s samples.';
CREATE TRIGGER hours BEFORE INSERT OR UPDATE OF samples, day ON acmetrace.utilization_blocks
    FOR EACH ROW EXECUTE FUNCTION acmetrace_internal.utilization_block_hours();

-- Hourly statistics per metric and cluster from the blocks' hour summaries.
-- An hour is partial when it holds the first or the last sample of its
-- metric and cluster: checked only for the hour that holds the first (last)
-- sample of one of its blocks, and there first for an earlier (later) day,
-- so a window reads the index a few times, not every block.
CREATE VIEW acmetrace.v_hourly_utilization AS
SELECT g.metric, g.cluster, g.bucket, g.series, g.samples, round(g.sum / g.samples, 2) AS mean, g.min, g.max,
       (g.bucket = date_trunc('hour', g.first_ts, 'UTC')
        AND NOT EXISTS (SELECT 1 FROM acmetrace.utilization_blocks x
                         WHERE x.metric = g.metric AND x.cluster = g.cluster AND x.day < g.day)
        AND NOT EXISTS (SELECT 1 FROM acmetrace.utilization_blocks x
                         WHERE x.metric = g.metric AND x.cluster = g.cluster AND x.day = g.day
                           AND x.first_ts < g.bucket))
       OR
       (g.bucket = date_trunc('hour', g.last_ts, 'UTC')
        AND NOT EXISTS (SELECT 1 FROM acmetrace.utilization_blocks x
                         WHERE x.metric = g.metric AND x.cluster = g.cluster AND x.day > g.day)
        AND NOT EXISTS (SELECT 1 FROM acmetrace.utilization_blocks x
                         WHERE x.metric = g.metric AND x.cluster = g.cluster AND x.day = g.day
                           AND x.last_ts >= g.bucket + interval '1 hour')) AS partial
  FROM (SELECT b.metric, b.cluster, b.day, (b.day + h.off) AT TIME ZONE 'UTC' AS bucket,
               count(*) AS series, sum(h.n)::bigint AS samples, sum(h.sum) AS sum,
               min(h.min) AS min, max(h.max) AS max, min(b.first_ts) AS first_ts, max(b.last_ts) AS last_ts
          FROM acmetrace.utilization_blocks b
          -- a block's hours with samples, as scalars (OFFSET 0: taken out of
          -- the arrays before grouping, which then never sorts the arrays)
         CROSS JOIN LATERAL (
               SELECT v.off, b.hour_n[v.i] AS n, b.hour_sum[v.i] AS sum, b.hour_min[v.i] AS min,
                      b.hour_max[v.i] AS max
                 FROM (VALUES (1, interval '0 h'), (2, interval '1 h'), (3, interval '2 h'), (4, interval '3 h'),
                              (5, interval '4 h'), (6, interval '5 h'), (7, interval '6 h'), (8, interval '7 h'),
                              (9, interval '8 h'), (10, interval '9 h'), (11, interval '10 h'), (12, interval '11 h'),
                              (13, interval '12 h'), (14, interval '13 h'), (15, interval '14 h'), (16, interval '15 h'),
                              (17, interval '16 h'), (18, interval '17 h'), (19, interval '18 h'), (20, interval '19 h'),
                              (21, interval '20 h'), (22, interval '21 h'), (23, interval '22 h'),
                              (24, interval '23 h')) v(i, off)
                WHERE b.hour_n[v.i] > 0
               OFFSET 0) h
         GROUP BY b.metric, b.cluster, b.day, h.off) g;
COMMENT ON VIEW acmetrace.v_hourly_utilization IS
  'Per metric, cluster and UTC hour (bucket, its start): series with samples, samples, mean (exact, rounded to 2 decimals), min and max, from the hour summaries of acmetrace.utilization_blocks without decoding a sample; partial: the hour holds the first or last sample of the metric and cluster.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.metric IS 'The metric (GPU_UTIL, SM_ACTIVE, ...).';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.cluster IS 'The cluster.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.bucket IS 'Start of the UTC hour.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.series IS 'Series (GPUs) with samples in the hour.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.samples IS 'Samples in the hour.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.mean IS 'Mean of the hour''s samples, exact, rounded to 2 decimals.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.min IS 'Smallest sample of the hour.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.max IS 'Largest sample of the hour.';
COMMENT ON COLUMN acmetrace.v_hourly_utilization.partial IS
  'The hour holds the first or the last sample of the metric and cluster: it is not fully covered.';
