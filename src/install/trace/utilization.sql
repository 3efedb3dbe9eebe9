-- Utilization samples: wide files loaded through acmetrace.unpivot.

-- value and ts first: aggregates over millions of samples then read them at
-- fixed offsets, without walking the text columns.
CREATE TABLE acmetrace.utilization (
    value   double precision NOT NULL,
    ts      timestamptz NOT NULL,
    metric  text NOT NULL,
    cluster text NOT NULL,
    series  text NOT NULL
);
COMMENT ON TABLE acmetrace.utilization IS
  'Utilization samples as long rows: one per metric, cluster, time and series (server, GPU, or Philly machine/GPU). Empty, NA and NaN cells have no row.';
SELECT pg_catalog.pg_extension_config_dump('acmetrace.utilization', '');

CREATE UNLOGGED TABLE acmetrace.utilization_lines (line text);
COMMENT ON TABLE acmetrace.utilization_lines IS
  'COPY target for wide utilization files, one line per row (always empty: rows move to acmetrace.utilization).';

CREATE FUNCTION acmetrace._load_utilization()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    metric text := nullif(current_setting('acmetrace.metric', true), '');
    cl     text := nullif(current_setting('acmetrace.cluster', true), '');
    hdr    text;
    key    text;
BEGIN
    IF metric IS NULL OR metric !~ '^[A-Za-z][A-Za-z0-9_]*$' THEN
        RAISE EXCEPTION 'set acmetrace.metric to the metric this file holds (got %)', coalesce(quote_literal(metric), 'nothing')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'For example SET acmetrace.metric = ''NODE_CPU_UTILIZATION''; names are letters, digits and _.';
    END IF;
    IF cl IS NULL OR cl !~ '^[a-z][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'set acmetrace.cluster to the cluster this file describes (got %)', coalesce(quote_literal(cl), 'nothing')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'For example SET acmetrace.cluster = ''seren''; names are lower case letters, digits and _.';
    END IF;
    -- The transition table keeps COPY's order: its first row is the header.
    SELECT n.line INTO hdr FROM new_rows n LIMIT 1;
    IF hdr IS NULL OR lower(split_part(hdr, ',', 1)) NOT IN ('time', '"time"') THEN
        RAISE EXCEPTION 'the first line must be the header (Time,...), got "%"', left(hdr, 60)
            USING ERRCODE = 'bad_copy_file_format',
                  HINT = 'Copy the whole file, header included, in one \copy.';
    END IF;
    -- Philly's cluster_gpu_util has a row per machine and time: its second
    -- column, machineId, is the key of the series (m29/gpu0_util, ...).
    IF split_part(hdr, ',', 2) = 'machineId' THEN
        key := 'machineId';
    END IF;
    INSERT INTO acmetrace.utilization (metric, cluster, ts, series, value)
    SELECT metric, cl, u.ts, u.series, u.value
      FROM new_rows n, acmetrace.unpivot(hdr, n.line, key) u
     WHERE n.line IS DISTINCT FROM hdr AND n.line <> '';
    DELETE FROM acmetrace.utilization_lines;
    RETURN NULL;
END
$$;

CREATE TRIGGER load_into_utilization AFTER INSERT ON acmetrace.utilization_lines
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace._load_utilization();
