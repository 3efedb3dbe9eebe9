-- acmetrace install script, assembled at build time from src/sql/*.sql.
\echo Use "CREATE EXTENSION acmetrace" to load this file. \quit
