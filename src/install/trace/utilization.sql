-- Utilization samples: wide files streamed into compressed per-series
-- blocks (src/utilization_load.c), one row per metric, cluster, series and
-- UTC day, with the block's summaries beside it.  toast_tuple_target: a
-- row of up to a page stays in the heap (a day of GPU_UTIL is about 4 kB),
-- since fetching a block from TOAST costs more than decoding it.

CREATE TABLE acmetrace.utilization_blocks (
    metric   text NOT NULL,
    cluster  text NOT NULL,
    day      date NOT NULL,
    series   text NOT NULL,
    n        integer NOT NULL CHECK (n > 0),
    min      double precision NOT NULL,
    max      double precision NOT NULL,
    sum      numeric NOT NULL,
    first_ts timestamptz NOT NULL,
    last_ts  timestamptz NOT NULL,
    samples  acmetrace.samples NOT NULL,
    PRIMARY KEY (metric, cluster, day, series)
) WITH (toast_tuple_target = 8160);
COMMENT ON TABLE acmetrace.utilization_blocks IS
  'Utilization samples, one row per metric, cluster, UTC day and series (server, GPU, or Philly machine/GPU): the day''s samples compressed (acmetrace.samples) and their count, min, max, exact sum and first and last time. The key stores each sample once.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization_blocks', '');

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

CREATE UNLOGGED TABLE acmetrace.utilization_lines (line text);
COMMENT ON TABLE acmetrace.utilization_lines IS
  'COPY target for wide utilization files, one line per row: each line is streamed into acmetrace.utilization_blocks as it arrives (always empty).';

CREATE FUNCTION acmetrace._utilization_load()
RETURNS trigger
AS 'MODULE_PATHNAME', 'acmetrace_utilization_load'
LANGUAGE C;

CREATE TRIGGER load_begin BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._utilization_load();
CREATE TRIGGER load_line BEFORE INSERT ON acmetrace.utilization_lines
    FOR EACH ROW EXECUTE FUNCTION acmetrace._utilization_load();
CREATE TRIGGER load_end AFTER INSERT ON acmetrace.utilization_lines
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._utilization_load();
