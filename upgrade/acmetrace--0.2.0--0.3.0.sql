-- acmetrace 0.2.0 -> 0.3.0.  test/e2e/upgrade.sh checks that 0.2.0 plus
-- this script gives the same catalog as a fresh 0.3.0 install.
\echo Use "ALTER EXTENSION acmetrace UPDATE TO '0.3.0'" to load this file. \quit

-- The sum of stored occupancies (shards, months, clusters): the same state,
-- each value entered as the jobs whose occupancy it is.
CREATE FUNCTION acmetrace._occupancy_rollup_trans(internal, acmetrace.occupancy)
RETURNS internal
AS 'MODULE_PATHNAME', 'acmetrace_occupancy_rollup_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE acmetrace.rollup(acmetrace.occupancy) (
    SFUNC = acmetrace._occupancy_rollup_trans,
    STYPE = internal,
    FINALFUNC = acmetrace._occupancy_final,
    COMBINEFUNC = acmetrace._occupancy_combine,
    SERIALFUNC = acmetrace._occupancy_serialize,
    DESERIALFUNC = acmetrace._occupancy_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE acmetrace.rollup(acmetrace.occupancy) IS
  'Sum of occupancies: GPUs allocated at each instant by all of them, exactly occupancy_agg over the union of their jobs. NULLs are skipped; no rows give the empty occupancy [].';
