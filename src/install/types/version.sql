-- The shared library's version.
CREATE FUNCTION acmetrace.version()
RETURNS text
AS 'MODULE_PATHNAME', 'acmetrace_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace.version() IS
  'Version of the loaded acmetrace shared library (equals the extension version when the install is consistent).';
