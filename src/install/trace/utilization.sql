-- Utilization samples: wide files streamed into compressed per-series
-- blocks (src/utilization_load.c), one row per metric, cluster, series and
-- UTC day, with the block's summaries beside it.  toast_tuple_target: a
-- row of up to a page stays in the heap (a day of GPU_UTIL is 2 to 3 kB,
-- three rows a page, its values entropy-coded when that is smaller), since
-- fetching a block from TOAST costs more than decoding it.  The hour_*
-- columns summarize each UTC hour of the block (src/utilization_fns.c), so
-- acmetrace.v_hourly_utilization adds them up without decoding a sample;
-- the trigger hours (src/install/surface/utilization.sql) writes them
-- whenever a block is inserted or its samples change.

-- Per UTC hour of a day block (1..24): samples, exact sum, min and max.
CREATE FUNCTION acmetrace_internal.samples_hours(s acmetrace.samples, day date,
    OUT n integer[], OUT sum numeric[], OUT min double precision[], OUT max double precision[])
AS 'MODULE_PATHNAME', 'acmetrace_samples_hours'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.samples_hours(acmetrace.samples, date) IS
  'Per UTC hour of the day block (hours 0..23 as elements 1..24): samples, exact sum, min and max (NULL for an hour without samples); a sample outside the day is an error.';

CREATE TABLE acmetrace.utilization_blocks (
    metric   text NOT NULL CONSTRAINT metric_is_upper_case CHECK (metric ~ '^[A-Z][A-Z0-9_]*$'),
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
    hour_n   integer[] NOT NULL,
    hour_sum numeric[] NOT NULL,
    hour_min double precision[] NOT NULL,
    hour_max double precision[] NOT NULL,
    PRIMARY KEY (metric, cluster, day, series)
) WITH (toast_tuple_target = 8160);
COMMENT ON TABLE acmetrace.utilization_blocks IS
  'Utilization samples, one row per metric, cluster, UTC day and series (server, GPU, or Philly machine/GPU): the day''s samples compressed (acmetrace.samples) and their count, min, max, exact sum and first and last time. The key stores each sample once.';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_n IS
  'Samples in each UTC hour of the day, hours 0..23 as elements 1..24 (written by the trigger from samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_sum IS
  'Exact sum of the values of each UTC hour (NULL for an hour without samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_min IS
  'Smallest value of each UTC hour (NULL for an hour without samples).';
COMMENT ON COLUMN acmetrace.utilization_blocks.hour_max IS
  'Largest value of each UTC hour (NULL for an hour without samples).';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization_blocks', '');

-- The hours of every metric and cluster across all its series, so that
-- acmetrace.v_hourly_utilization reads a few rows per hour whatever the
-- number of GPUs.  Kept by the statement triggers day_hours_* on
-- utilization_blocks (src/install/surface/utilization.sql) from the hour_*
-- columns of the blocks a statement wrote; not dumped: restoring the blocks
-- fills it again.
CREATE TABLE acmetrace.utilization_hours (
    metric   text NOT NULL,
    cluster  text NOT NULL,
    bucket   timestamptz NOT NULL,
    series   integer NOT NULL,
    samples  bigint NOT NULL,
    sum      numeric NOT NULL,
    min      double precision NOT NULL,
    max      double precision NOT NULL,
    PRIMARY KEY (metric, cluster, bucket)
);
CREATE INDEX utilization_hours_cluster ON acmetrace.utilization_hours (cluster, bucket);
COMMENT ON TABLE acmetrace.utilization_hours IS
  'Per metric, cluster and UTC hour with samples (bucket, its start): series with samples, samples, exact sum, min and max across all series, kept from the hour_* columns of acmetrace.utilization_blocks by statement triggers.';

CREATE UNLOGGED TABLE acmetrace.utilization_lines (line text);
COMMENT ON TABLE acmetrace.utilization_lines IS
  'COPY target for wide utilization files, one line per row: each line is streamed into acmetrace.utilization_blocks as it arrives (always empty).';
