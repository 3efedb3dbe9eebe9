-- The loader of Prometheus's samples (src/prometheus_load.c) on
-- acmetrace.prometheus_samples, and the counts of its last load.

CREATE FUNCTION acmetrace_internal.prometheus_load()
RETURNS trigger
AS 'MODULE_PATHNAME', 'acmetrace_prometheus_load'
LANGUAGE C;

CREATE TRIGGER load_begin BEFORE INSERT ON acmetrace.prometheus_samples
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.prometheus_load();
CREATE TRIGGER load_line BEFORE INSERT ON acmetrace.prometheus_samples
    FOR EACH ROW EXECUTE FUNCTION acmetrace_internal.prometheus_load();
CREATE TRIGGER load_end AFTER INSERT ON acmetrace.prometheus_samples
    FOR EACH STATEMENT EXECUTE FUNCTION acmetrace_internal.prometheus_load();

-- Counts of the session's last load of Prometheus samples, for
-- acmetrace-sync and psql users (COPY reports only the lines).  A load that
-- fails or is rolled back leaves the previous counts.
CREATE FUNCTION acmetrace_internal.prometheus_last_load()
RETURNS TABLE (lines bigint, series bigint, samples bigint, stored bigint, duplicates bigint, skipped bigint)
LANGUAGE sql STABLE
AS $$
    SELECT a[1]::bigint, a[2]::bigint, a[3]::bigint, a[4]::bigint, a[5]::bigint, a[6]::bigint
      FROM (SELECT pg_catalog.string_to_array(
                     nullif(pg_catalog.current_setting('acmetrace_internal.prometheus_last_load', true), ''), ',') AS a) s
     WHERE a IS NOT NULL
$$;
COMMENT ON FUNCTION acmetrace_internal.prometheus_last_load() IS
  'Lines (control lines included), series, samples read, stored, duplicates (already stored with the same value) and skipped (NaN or infinite, as the !end lines count them) of the session''s last committed or current load into acmetrace.prometheus_samples; no row if there was none.';
