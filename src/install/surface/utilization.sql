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

-- The hours of acmetrace.utilization_hours as the blocks give them: the
-- definition the statement triggers below keep, and what they rebuild a day
-- from when a change cannot be added (conditions on metric, cluster and day
-- reach the blocks' primary key).
CREATE VIEW acmetrace_internal.utilization_hours_of_blocks WITH (security_invoker = true) AS
SELECT b.metric, b.cluster, b.day, (b.day + (u.i - 1) * interval '1 hour') AT TIME ZONE 'UTC' AS bucket,
       count(*)::integer AS series, sum(u.n)::bigint AS samples, sum(u.s) AS sum, min(u.mn) AS min, max(u.mx) AS max
  FROM acmetrace.utilization_blocks b
 CROSS JOIN LATERAL unnest(b.hour_n, b.hour_sum, b.hour_min, b.hour_max) WITH ORDINALITY u(n, s, mn, mx, i)
 WHERE u.n > 0
 GROUP BY b.metric, b.cluster, b.day, u.i;
COMMENT ON VIEW acmetrace_internal.utilization_hours_of_blocks IS
  'The rows of acmetrace.utilization_hours computed from the hour_* columns of acmetrace.utilization_blocks, with their UTC day.';

-- What a statement changed of a block: its key and hours.
CREATE TYPE acmetrace_internal.block_hours AS (metric text, cluster text, day date, hour_n integer[],
    hour_sum numeric[], hour_min double precision[], hour_max double precision[]);
COMMENT ON TYPE acmetrace_internal.block_hours IS
  'The key and hour_* columns of a block of acmetrace.utilization_blocks a statement wrote or removed.';

-- Adds the blocks a statement wrote and takes away those it removed (an
-- update is both).  An hour's count, series and sum are exact differences;
-- its min and max can only be combined when no removed block's value can be
-- lost (every removed min has an added one at most as small, the same for
-- max), which holds for inserts and for the loaders' merges (a block only
-- gains samples).  Any other day (deletes, hand-written shrinking updates)
-- is rebuilt from its blocks.  The per-(metric, cluster) advisory lock the
-- loaders hold (src/utilization_store.c) serializes this upkeep, so a
-- rebuild never misses another writer's committed delta.
CREATE FUNCTION acmetrace_internal.utilization_hours_apply(added acmetrace_internal.block_hours[],
                                                           removed acmetrace_internal.block_hours[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    d record;
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock((pg_catalog.hashtext(k.metric)::bigint << 32)
                                             | (pg_catalog.hashtext(k.cluster)::bigint & 4294967295))
       FROM (SELECT DISTINCT c.metric, c.cluster FROM unnest(added || removed) c ORDER BY 1, 2) k;
    -- days whose changes add up: counted in
    INSERT INTO acmetrace.utilization_hours AS h (metric, cluster, bucket, series, samples, sum, min, max)
    SELECT x.metric, x.cluster, x.bucket, x.series, x.samples, x.sum, x.min, x.max
      FROM (SELECT t.*, bool_and(t.grows) OVER (PARTITION BY t.metric, t.cluster, t.day) AS day_grows
              FROM acmetrace_internal.utilization_hours_delta(added, removed) t) x
     WHERE x.day_grows
    ON CONFLICT (metric, cluster, bucket) DO UPDATE
       SET series = h.series + excluded.series, samples = h.samples + excluded.samples, sum = h.sum + excluded.sum,
           min = least(h.min, excluded.min), max = greatest(h.max, excluded.max);
    IF cardinality(removed) = 0 THEN
        RETURN;  -- inserts only: every day adds up
    END IF;
    -- the others: rebuilt from their blocks
    FOR d IN SELECT DISTINCT t.metric, t.cluster, t.day
               FROM acmetrace_internal.utilization_hours_delta(added, removed) t WHERE NOT t.grows LOOP
        DELETE FROM acmetrace.utilization_hours h
         WHERE h.metric = d.metric AND h.cluster = d.cluster
           AND h.bucket >= d.day::timestamp AT TIME ZONE 'UTC' AND h.bucket < (d.day + 1)::timestamp AT TIME ZONE 'UTC';
        -- (utilization_hours_of_blocks' query, inline: a loader role may
        -- read the blocks without a grant on the internal view)
        INSERT INTO acmetrace.utilization_hours (metric, cluster, bucket, series, samples, sum, min, max)
        SELECT b.metric, b.cluster, (b.day + (u.i - 1) * interval '1 hour') AT TIME ZONE 'UTC',
               count(*), sum(u.n), sum(u.s), min(u.mn), max(u.mx)
          FROM acmetrace.utilization_blocks b
         CROSS JOIN LATERAL unnest(b.hour_n, b.hour_sum, b.hour_min, b.hour_max) WITH ORDINALITY u(n, s, mn, mx, i)
         WHERE b.metric = d.metric AND b.cluster = d.cluster AND b.day = d.day AND u.n > 0
         GROUP BY b.metric, b.cluster, b.day, u.i;
    END LOOP;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_hours_apply(acmetrace_internal.block_hours[], acmetrace_internal.block_hours[]) IS
  'Keeps acmetrace.utilization_hours after a statement on acmetrace.utilization_blocks: adds the written blocks'' hours and takes away the removed ones'', rebuilding from the blocks a day whose min or max may be lost.';

-- Per changed hour of a statement: the differences of series, samples and
-- sum, the added blocks' min and max, and whether min and max can be
-- combined with the stored ones (grows).
CREATE FUNCTION acmetrace_internal.utilization_hours_delta(added acmetrace_internal.block_hours[],
                                                           removed acmetrace_internal.block_hours[])
RETURNS TABLE (metric text, cluster text, day date, bucket timestamptz, series integer, samples bigint, sum numeric,
               min double precision, max double precision, grows boolean)
LANGUAGE sql STABLE
AS $$
SELECT c.metric, c.cluster, c.day, (c.day + (u.i - 1) * interval '1 hour') AT TIME ZONE 'UTC',
       sum(c.sign)::integer, sum(c.sign * u.n)::bigint, sum(c.sign * u.s),
       min(u.mn) FILTER (WHERE c.sign > 0), max(u.mx) FILTER (WHERE c.sign > 0),
       (min(u.mn) FILTER (WHERE c.sign < 0) IS NULL
        OR min(u.mn) FILTER (WHERE c.sign > 0) <= min(u.mn) FILTER (WHERE c.sign < 0)) IS TRUE
       AND (max(u.mx) FILTER (WHERE c.sign < 0) IS NULL
        OR max(u.mx) FILTER (WHERE c.sign > 0) >= max(u.mx) FILTER (WHERE c.sign < 0)) IS TRUE
  FROM (SELECT a.*, 1 AS sign FROM unnest(added) a
        UNION ALL
        SELECT r.*, -1 FROM unnest(removed) r) c
 CROSS JOIN LATERAL unnest(c.hour_n, c.hour_sum, c.hour_min, c.hour_max) WITH ORDINALITY u(n, s, mn, mx, i)
 WHERE u.n > 0
 GROUP BY c.metric, c.cluster, c.day, u.i
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_hours_delta(acmetrace_internal.block_hours[], acmetrace_internal.block_hours[]) IS
  'Per UTC hour a statement on acmetrace.utilization_blocks changed: the differences of series, samples and sum, the added min and max, and whether they combine with the stored ones.';

-- The statement triggers (one per event: a transition table is per event).
CREATE FUNCTION acmetrace_internal.utilization_hours_keep()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM acmetrace_internal.utilization_hours_apply(
            ARRAY(SELECT (b.metric, b.cluster, b.day, b.hour_n, b.hour_sum, b.hour_min, b.hour_max)::acmetrace_internal.block_hours
                    FROM new_blocks b), '{}');
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM acmetrace_internal.utilization_hours_apply(
            ARRAY(SELECT (b.metric, b.cluster, b.day, b.hour_n, b.hour_sum, b.hour_min, b.hour_max)::acmetrace_internal.block_hours
                    FROM new_blocks b),
            ARRAY(SELECT (b.metric, b.cluster, b.day, b.hour_n, b.hour_sum, b.hour_min, b.hour_max)::acmetrace_internal.block_hours
                    FROM old_blocks b));
    ELSE
        PERFORM acmetrace_internal.utilization_hours_apply('{}',
            ARRAY(SELECT (b.metric, b.cluster, b.day, b.hour_n, b.hour_sum, b.hour_min, b.hour_max)::acmetrace_internal.block_hours
                    FROM old_blocks b));
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_hours_keep() IS
  'Statement trigger on acmetrace.utilization_blocks (insert, update, delete): keeps acmetrace.utilization_hours from the transition tables.';
CREATE TRIGGER hours_insert AFTER INSERT ON acmetrace.utilization_blocks REFERENCING NEW TABLE AS new_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_hours_keep();
CREATE TRIGGER hours_update AFTER UPDATE ON acmetrace.utilization_blocks
    REFERENCING OLD TABLE AS old_blocks NEW TABLE AS new_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_hours_keep();
CREATE TRIGGER hours_delete AFTER DELETE ON acmetrace.utilization_blocks REFERENCING OLD TABLE AS old_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_hours_keep();

-- TRUNCATE fires no delete trigger: the rollup goes with the blocks.
CREATE FUNCTION acmetrace_internal.utilization_hours_truncate()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    TRUNCATE acmetrace.utilization_hours;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION acmetrace_internal.utilization_hours_truncate() IS
  'Statement trigger on acmetrace.utilization_blocks: a TRUNCATE of the blocks empties acmetrace.utilization_hours.';
CREATE TRIGGER hours_truncate AFTER TRUNCATE ON acmetrace.utilization_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.utilization_hours_truncate();

-- Hourly statistics per metric and cluster from acmetrace.utilization_hours:
-- a window reads its hours through the index, whatever the number of
-- series.  An hour is partial when it is the first or the last hour of its
-- metric and cluster (two index probes).
CREATE VIEW acmetrace.v_hourly_utilization AS
SELECT h.metric, h.cluster, h.bucket, h.series::bigint AS series, h.samples, round(h.sum / h.samples, 2) AS mean,
       h.min, h.max,
       NOT EXISTS (SELECT 1 FROM acmetrace.utilization_hours x
                    WHERE x.metric = h.metric AND x.cluster = h.cluster AND x.bucket < h.bucket)
       OR NOT EXISTS (SELECT 1 FROM acmetrace.utilization_hours x
                       WHERE x.metric = h.metric AND x.cluster = h.cluster AND x.bucket > h.bucket) AS partial
  FROM acmetrace.utilization_hours h;
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
