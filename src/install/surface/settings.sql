-- The loaders read acmetrace.cluster, acmetrace.metric and
-- acmetrace.time_zone through this one reader (src/settings.c): calling it
-- loads the library, which registers the settings, so a misspelt setting
-- made earlier in the session is reported rather than ignored.
CREATE FUNCTION acmetrace_internal.setting(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'acmetrace_setting'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.setting(text) IS
  'The value of acmetrace.cluster, acmetrace.metric or acmetrace.time_zone; NULL when empty.';

CREATE FUNCTION acmetrace_internal.use_summaries()
RETURNS boolean
AS 'MODULE_PATHNAME', 'acmetrace_use_summaries'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION acmetrace_internal.use_summaries() IS
  'acmetrace.summaries: true when the analyses answer from the summaries, false when they scan acmetrace.jobs.';
