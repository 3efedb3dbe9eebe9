-- Helpers the DuckDB queries call, acmetrace's own rounding rules (src/install/surface/checks.sql), so
-- an answer can be compared with acmetrace's digit for digit.  Definitions only: bench/duckdb/tables.mjs
-- runs this file before the load, untimed.

-- acmetrace_internal.round_to: numpy's round, rint(x * 10^d) / 10^d in double precision, ties to even.
CREATE MACRO round_to(x, d) AS round_even(x * 10.0 ** d, 0) / 10.0 ** d;

-- A double rounded to d decimals as PostgreSQL rounds x::numeric: the decimal value (10 decimals are
-- ample for these measures), then ties away from zero (round(DOUBLE, d) would see 1.005 as 1.00499...).
CREATE MACRO round_dec(x, d) AS round(x::DECIMAL(38, 10), d);

-- acmetrace_internal.sig3: 3 significant digits, whole units from 100 up; rounded as round_dec (DuckDB
-- rounds a DECIMAL to a constant number of places only, so the place is a power of ten from a list).
-- 0, infinities and NULL pass through; sig3_ok(x) stands in for them where the other branch is evaluated too.
CREATE MACRO sig3_places(x) AS
    [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000]
        [1 + least(10, greatest(0, 2 - floor(log10(abs(x)))))::INTEGER];
CREATE MACRO sig3_ok(x) AS CASE WHEN x <> 0 AND isfinite(x) THEN x ELSE 1 END;
CREATE MACRO sig3(x) AS
    CASE WHEN x = 0 OR NOT isfinite(x) THEN x
         ELSE sign(x) * floor(abs(sig3_ok(x))::DECIMAL(38, 10) * sig3_places(sig3_ok(x)) + 0.5) / sig3_places(sig3_ok(x)) END;
