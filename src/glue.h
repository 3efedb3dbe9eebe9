/*
 * glue.h: helpers shared by the fmgr glue files.
 */
#ifndef ACMETRACE_GLUE_H
#define ACMETRACE_GLUE_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/memutils.h"

/* Unix seconds to TimestampTz (no range check: callers pass sane times). */
static inline TimestampTz
at_unix_to_timestamptz(int64 unix_s)
{
	return (TimestampTz) ((unix_s - ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)) * USECS_PER_SEC);
}

/*
 * The core's allocator (src/core/mem.h) over a MemoryContext: size 0 frees,
 * NULL ptr allocates zeroed memory (errors out rather than return NULL).
 * Huge: occupancy_agg's event lists may pass 1 GB.
 */
static inline void *
at_cxt_mem(void *ctx, void *ptr, size_t size)
{
	if (size == 0)
	{
		pfree(ptr);
		return NULL;
	}
	return MemoryContextAllocExtended((MemoryContext) ctx, size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
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
