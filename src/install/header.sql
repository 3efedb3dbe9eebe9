-- acmetrace install script, assembled at build time from the parts under
-- src/install/ in the order the Makefile's INSTALL_PARTS lists them.
\echo Use "CREATE EXTENSION acmetrace" to load this file. \quit
