-- Wide CSV lines as long rows.
--
-- The published utilization files have one column per server or GPU (up to
-- 2,288 for per-GPU metrics, over the 1,600-column table limit), so their
-- lines are copied whole into a one-column table and unpivoted in C.

-- Not STRICT: a NULL key_column means none (a NULL header or line: no rows).
CREATE FUNCTION acmetrace.unpivot(header text, line text, key_column text DEFAULT NULL)
RETURNS TABLE (ts timestamptz, series text, value double precision)
AS 'MODULE_PATHNAME', 'acmetrace_unpivot'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION acmetrace.unpivot(text, text, text) IS
  'One line of a wide utilization CSV as (ts, series, value) rows, one per non-empty value cell; header is the file''s first line. key_column (e.g. Philly''s machineId) names the column that identifies the machine of a line: its cells are not values and series are named <key>/<column>. NULL header or line: no rows.';
