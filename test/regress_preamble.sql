-- Included by every pg_regress suite: a fresh acmetrace, fixed settings,
-- and the fixtures directory as psql's working directory.
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS acmetrace CASCADE;
DROP SCHEMA IF EXISTS acmetrace CASCADE;
RESET client_min_messages;
CREATE EXTENSION acmetrace;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\cd :abs_srcdir/test/fixtures
