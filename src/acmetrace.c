/*
 * acmetrace.c: module entry point.
 *
 * Only fmgr glue lives in src/; the algorithms are in src/core/, which
 * includes no PostgreSQL header and is unit-tested in plain C.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "glue.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(acmetrace_version);

Datum
acmetrace_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(ACMETRACE_VERSION));
}

/* Entry points of released install scripts that this version no longer has. */
AT_REMOVED_ENTRY_POINT(acmetrace_queue_sketches, "acmetrace._queue_sketches", "0.4.0")
