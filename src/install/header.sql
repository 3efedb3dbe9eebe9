-- acmetrace install script, assembled at build time from the parts under
-- src/install/ in the order the Makefile's INSTALL_PARTS lists them.
\echo Use "CREATE EXTENSION acmetrace" to load this file. \quit

-- Helpers the public functions, aggregates and loaders call (aggregate
-- support, load triggers, checks) live out of the users' sight.  The
-- public functions run with the caller's rights and look them up by name,
-- so every role may use the schema; it holds no data.
CREATE SCHEMA acmetrace_internal;
COMMENT ON SCHEMA acmetrace_internal IS
  'Internal helpers of the acmetrace extension: not an API, may change in any release.';
GRANT USAGE ON SCHEMA acmetrace_internal TO PUBLIC;
