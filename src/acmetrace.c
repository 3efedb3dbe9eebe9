/*
 * acmetrace.c: module entry point.
 *
 * Only fmgr glue lives in src/; the algorithms are in src/core/, which
 * includes no PostgreSQL header and is unit-tested in plain C.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(acmetrace_version);

Datum
acmetrace_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(ACMETRACE_VERSION));
}

/*
 * Entry points that released install scripts still name (PostgreSQL looks
 * each symbol up when an older version is installed before its update
 * scripts run) but that this version no longer implements.
 */
PG_FUNCTION_INFO_V1(acmetrace_queue_sketches);

/* acmetrace._queue_sketches (0.1.0-0.3.0); queue_percentiles is SQL since 0.4.0 */
Datum
acmetrace_queue_sketches(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("acmetrace._queue_sketches was removed in acmetrace 0.4.0"),
			 errhint("The extension's SQL is older than its library: run ALTER EXTENSION acmetrace UPDATE.")));
	PG_RETURN_NULL();
}
