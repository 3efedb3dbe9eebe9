-- The extension installs into schema acmetrace, its library matches its
-- SQL version, and every user-facing object is documented.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/test/regress_preamble.sql

SELECT extname, extversion, extnamespace::regnamespace AS schema, extrelocatable
  FROM pg_extension WHERE extname = 'acmetrace';
SELECT acmetrace.version() = extversion AS library_matches_sql
  FROM pg_extension WHERE extname = 'acmetrace';

-- Every member object, in a locale-independent order.
SELECT pg_describe_object(classid, objid, 0) COLLATE "C" AS member
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'acmetrace')
 ORDER BY 1;

-- Objects of the schema acmetrace without a COMMENT, whatever their name
-- (none expected): functions (type I/O and operator functions included) and
-- aggregates, tables and views, types, operators.  Internal helpers live in
-- acmetrace_internal.
SELECT p.oid::regprocedure AS undocumented
  FROM pg_proc p
 WHERE p.pronamespace = 'acmetrace'::regnamespace
   AND obj_description(p.oid, 'pg_proc') IS NULL;
SELECT c.relname AS undocumented_relation
  FROM pg_class c
 WHERE c.relnamespace = 'acmetrace'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND obj_description(c.oid, 'pg_class') IS NULL;
SELECT t.oid::regtype AS undocumented_type
  FROM pg_type t
 WHERE t.typnamespace = 'acmetrace'::regnamespace AND t.typcategory <> 'A'
   AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
   AND obj_description(t.oid, 'pg_type') IS NULL;
SELECT o.oid::regoperator AS undocumented_operator
  FROM pg_operator o
 WHERE o.oprnamespace = 'acmetrace'::regnamespace
   AND obj_description(o.oid, 'pg_operator') IS NULL;

-- No SECURITY DEFINER anywhere.
SELECT count(*) AS security_definer_functions
  FROM pg_proc WHERE pronamespace = 'acmetrace'::regnamespace AND prosecdef;

-- The tables holding user data are dumped by pg_dump.
SELECT extconfig::regclass[] AS dumped_tables
  FROM pg_extension WHERE extname = 'acmetrace';

DROP EXTENSION acmetrace;
DROP SCHEMA acmetrace;
