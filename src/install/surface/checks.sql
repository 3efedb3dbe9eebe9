-- The checks and errors of the public functions (src/checks.c), and the
-- rounding every analysis applies to what a person reads.

-- Raises an error at the level of the user's call: no context lines naming
-- the helpers it passed through.  Returns boolean so SQL bodies can call it
-- in an expression; it never returns.  STABLE, so that a check on the
-- arguments alone is a one-time filter, evaluated even when no row is read.
CREATE FUNCTION acmetrace_internal.raise(sqlstate text, message text, hint text DEFAULT NULL, detail text DEFAULT NULL)
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_raise'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.raise(text, text, text, text) IS
  'Raises ERROR with SQLSTATE sqlstate, message, hint and detail, without context lines.';

-- The one check behind every "cluster is not loaded": true, or 42704 with a
-- hint listing the loaded clusters.  NULL cluster (every cluster): true.
-- With a metric: a cluster holding samples of that metric.  In an SQL
-- body it is a one-time filter, evaluated once per call.
CREATE FUNCTION acmetrace_internal.known_cluster(cluster text, metric text DEFAULT NULL)
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_known_cluster'
LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION acmetrace_internal.known_cluster(text, text) IS
  'True when cluster is NULL or loaded (with metric: holds samples of metric); otherwise ERROR 42704 naming the loaded clusters.';

-- A cluster that must be given: NULL is 22004.
CREATE FUNCTION acmetrace_internal.one_cluster(cluster text, fn text)
RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
AS $$
#variable_conflict use_column
BEGIN
    RETURN (
SELECT CASE WHEN cluster IS NULL
            THEN acmetrace_internal.raise('22004', fn || ' needs a cluster, not NULL',
                                          'SELECT cluster FROM acmetrace.clusters lists the loaded clusters.')
            ELSE acmetrace_internal.known_cluster(cluster) END
    );
END
$$;
COMMENT ON FUNCTION acmetrace_internal.one_cluster(text, text) IS
  'known_cluster for functions of one cluster: a NULL cluster is ERROR 22004 naming the function fn.';

-- Percentile fractions: not NULL, each NULL or in [0, 1] (checked before
-- any row is read, so an unused percentiles column cannot hide a bad one).
CREATE FUNCTION acmetrace_internal.check_fractions(fractions double precision[])
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE WHEN fractions IS NULL
            THEN acmetrace_internal.raise('22004', 'fractions must not be NULL', 'Pass e.g. ''{0.5,0.9,0.99}''.')
            ELSE coalesce((SELECT acmetrace_internal.raise('22003', format('percentile value %s is not between 0 and 1', f),
                                                           'Fractions are 0..1: 0.9 is the 90th percentile.')
                             FROM unnest(fractions) f WHERE NOT (f >= 0 AND f <= 1) LIMIT 1), true) END
$$;
COMMENT ON FUNCTION acmetrace_internal.check_fractions(double precision[]) IS
  'True when fractions is an array of NULLs and values in [0, 1]; otherwise ERROR 22004 (NULL array) or 22003.';

-- The zone a cluster's published timestamps are written in; 42704 if the
-- cluster is not loaded.
CREATE FUNCTION acmetrace_internal.cluster_zone(cluster text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
BEGIN
    -- checked apart: on Citus a check inside the query would run on a worker
    PERFORM acmetrace_internal.one_cluster(cluster_zone.cluster, 'this function');
    RETURN (SELECT c.time_zone FROM acmetrace.clusters c WHERE c.cluster = cluster_zone.cluster);
END
$$;
COMMENT ON FUNCTION acmetrace_internal.cluster_zone(text) IS
  'The time zone of a loaded cluster (acmetrace.clusters.time_zone); ERROR 42704 if it is not loaded.';

-- numpy's round(x, d): rint(x * 10^d) / 10^d (PostgreSQL's round(float8) is rint).
CREATE FUNCTION acmetrace_internal.round_to(x double precision, digits integer)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN digits IS NULL THEN x ELSE round(x * 10.0::float8 ^ digits) / 10.0::float8 ^ digits END $$;
COMMENT ON FUNCTION acmetrace_internal.round_to(double precision, integer) IS
  'Rounds like numpy.round: rint(x * 10^digits) / 10^digits, ties to even; NULL digits returns x.';

-- Shares: percent of the whole, 2 decimals (NULL for an empty whole).
CREATE FUNCTION acmetrace_internal.pct(part numeric, whole numeric)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT round(100 * part / nullif(whole, 0), 2) $$;
COMMENT ON FUNCTION acmetrace_internal.pct(numeric, numeric) IS
  '100 * part / whole rounded to 2 decimals; NULL when whole is 0 or NULL.';

-- Seconds (and other measures) for people: 3 significant digits, whole
-- units from 100 up, no trailing zeros (171.5767 -> 172, 5.234 -> 5.23,
-- 12345.6 -> 12346, 13.0 -> 13).
CREATE FUNCTION acmetrace_internal.sig3(x double precision)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE WHEN x IS NULL OR x = 0 OR x IN ('Infinity', '-Infinity', 'NaN') THEN x::numeric
            ELSE trim_scale(round(x::numeric, greatest(0, 2 - floor(log(abs(x)))::integer))) END
$$;
COMMENT ON FUNCTION acmetrace_internal.sig3(double precision) IS
  'x as numeric with 3 significant digits, but never fewer than its whole units (x >= 100 is rounded to an integer), without trailing zeros.';

-- A job analysis's window [since, until) on submit_time: NULL leaves a side
-- open; an empty or reversed window is 22023.
CREATE FUNCTION acmetrace_internal.check_window(since timestamptz, until timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN since >= until
                THEN acmetrace_internal.raise('22023', format('since must be before until, not %s and %s', since, until),
                                              'The window is [since, until): jobs submitted at or after since and before until; NULL leaves that side open.')
                ELSE true END
$$;
COMMENT ON FUNCTION acmetrace_internal.check_window(timestamptz, timestamptz) IS
  'True when [since, until) is a window (either may be NULL: open); otherwise ERROR 22023.';
