/*
 * glue.h: helpers shared by the fmgr glue files.
 */
#ifndef ACMETRACE_GLUE_H
#define ACMETRACE_GLUE_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/*
 * An error raised on purpose at the level of the user's call, without the
 * context lines of the SQL functions it passed through (src/checks.c).
 */
extern void at_raise_plain(int sqlstate, const char *msg, const char *detail, const char *hint) pg_attribute_noreturn();

/* Unix seconds to TimestampTz (no range check: callers pass sane times). */
static inline TimestampTz
at_unix_to_timestamptz(int64 unix_s)
{
	return (TimestampTz) ((unix_s - ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)) * USECS_PER_SEC);
}

/* TimestampTz to Unix seconds, floored (times before 1970 and fractions round the same way). */
static inline int64
at_timestamptz_to_unix(TimestampTz t)
{
	int64		s = t / USECS_PER_SEC - (t % USECS_PER_SEC < 0 ? 1 : 0);

	return s + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
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

/*
 * Aggregate states that are real types (so parallel workers, postgres_fdw
 * and Citus can ship partial states through the type's own I/O) are kept as
 * expanded objects (utils/expandeddatum.h): the transition function builds
 * one in a context of its own under the aggregate's context, updates it in
 * place and returns its read-write pointer, which nodeAgg adopts without a
 * copy.  The flat form is written only when the value leaves the aggregate.
 *
 * at_eo_new: a zeroed object of size bytes (an ExpandedObjectHeader first)
 * with the given methods, in a new context under parent.
 */
static inline void *
at_eo_new(MemoryContext parent, const ExpandedObjectMethods *methods, Size size, const char *name)
{
	/* name must be a string constant, as for AllocSetContextCreate */
	MemoryContext cxt = AllocSetContextCreateInternal(parent, name, ALLOCSET_SMALL_SIZES);
	ExpandedObjectHeader *eoh = MemoryContextAllocZero(cxt, size);

	EOH_init_header(eoh, methods, cxt);
	return eoh;
}

/* at_eo_new under the aggregate's context (ERROR outside an aggregate). */
#define at_agg_eo_new(fcinfo, fn, methods, type, name) \
	((type *) at_eo_new(at_agg_context((fcinfo), (fn)), (methods), sizeof(type), (name)))

/*
 * The fn_extra cache of a function that reads an argument once for many
 * calls: size zeroed bytes under fn_mcxt (which lives as long as the plan)
 * whose first field is a context of its own for what is read; a cache that
 * is there already gets that context reset, for a new argument.
 */
static inline void *
at_fn_cache_renew(FunctionCallInfo fcinfo, Size size, const char *name,
				  Size minsize, Size initsize, Size maxsize)
{
	MemoryContext *c = (MemoryContext *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, size);
		/* name must be a string constant, as for AllocSetContextCreate */
		*c = AllocSetContextCreateInternal(fcinfo->flinfo->fn_mcxt, name, minsize, initsize, maxsize);
		fcinfo->flinfo->fn_extra = c;
	}
	else
		MemoryContextReset(*c);
	return c;
}

/* A core routine's allocation failed. */
static inline void
pg_attribute_noreturn()
at_no_memory(void)
{
	ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/*
 * Argument argno as one of our read-write expanded objects of these
 * methods, or NULL when it is NULL, flat, read-only or of another kind (the
 * caller then builds a new object from it).
 */
static inline void *
at_eo_rw(FunctionCallInfo fcinfo, int argno, const ExpandedObjectMethods *methods)
{
	Pointer		p;

	if (PG_ARGISNULL(argno))
		return NULL;
	p = DatumGetPointer(PG_GETARG_DATUM(argno));
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(p))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(PointerGetDatum(p));

		if (eoh->eoh_methods == methods)
			return eoh;
	}
	return NULL;
}

/*
 * The error of a header text[0..len) that at_header_parse (src/core/unpivot.h)
 * refused with status, for unpivot (with its key_column key) or the loader
 * (src/unpivot_fns.c).
 */
struct at_header;
extern void unpivot_header_error(int status, const struct at_header *h, const char *text, int len,
								 const char *key, bool loader) pg_attribute_noreturn();

/*
 * Each row of an open SPI cursor, fetched 10,000 at a time, handed to
 * row(tuple, descriptor, arg), interruptible between rows; then the cursor
 * is closed.  row must not run SPI itself (SPI_tuptable is the batch's).
 */
static inline void
at_spi_each_row(Portal portal, void (*row) (HeapTuple tup, TupleDesc td, void *arg), void *arg)
{
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			CHECK_FOR_INTERRUPTS();
			row(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, arg);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
}

/* A job's recorded times, as a row of acmetrace.jobs holds them. */
typedef struct at_job_times
{
	TimestampTz submit;			/* never NULL (the scans ask for it) */
	TimestampTz start;			/* when has_start */
	TimestampTz end;			/* when has_end */
	bool		has_start;
	bool		has_end;
} at_job_times;

/* Columns col .. col + 2 (submit_time, start_time, end_time) into t; false if one is infinite. */
static inline bool
at_job_times_get(HeapTuple tup, TupleDesc td, int col, at_job_times *t)
{
	bool		isnull;

	t->submit = DatumGetTimestampTz(SPI_getbinval(tup, td, col, &isnull));
	t->start = DatumGetTimestampTz(SPI_getbinval(tup, td, col + 1, &isnull));
	t->has_start = !isnull;
	t->end = DatumGetTimestampTz(SPI_getbinval(tup, td, col + 2, &isnull));
	t->has_end = !isnull;
	return !TIMESTAMP_NOT_FINITE(t->submit) && !(t->has_start && TIMESTAMP_NOT_FINITE(t->start)) &&
		!(t->has_end && TIMESTAMP_NOT_FINITE(t->end));
}

/* An acmetrace setting's value, NULL when empty (settings.c). */
extern char *at_setting(const char *name);

/*
 * An entry point that released install scripts still name (PostgreSQL looks
 * each symbol up when an older version is installed before its update
 * scripts run) but that this version no longer implements: calling it, from
 * an older version's SQL not yet updated, is an error naming the fix.
 */
#define AT_REMOVED_ENTRY_POINT(sym, what, version) \
PG_FUNCTION_INFO_V1(sym); \
Datum \
sym(PG_FUNCTION_ARGS) \
{ \
	ereport(ERROR, \
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED), \
			 errmsg("%s was removed in acmetrace %s", what, version), \
			 errhint("The extension's SQL is older than its library: run ALTER EXTENSION acmetrace UPDATE."))); \
	PG_RETURN_NULL(); \
}

/*
 * A pg_tz's offset at t, for the core's at_zone (src/core/summary.h's
 * at_zone_lookup_fn; arg is the pg_tz): src/summary_scan.c.
 */
extern void at_pg_zone_lookup(void *arg, int64_t t, int64_t unix_s, int64_t *off_s, int64_t *next_unix_s,
							  int *has_next);

#endif
