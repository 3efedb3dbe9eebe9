/*
 * glue.h: helpers shared by the fmgr glue files.
 */
#ifndef ACMETRACE_GLUE_H
#define ACMETRACE_GLUE_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"

/* Unix seconds to TimestampTz (no range check: callers pass sane times). */
static inline TimestampTz
at_unix_to_timestamptz(int64 unix_s)
{
	return (TimestampTz) ((unix_s - ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)) * USECS_PER_SEC);
}

/* The aggregate's memory context; ERROR if fn is called outside an aggregate. */
static inline MemoryContext
at_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fn)));
	return cxt;
}

#endif
