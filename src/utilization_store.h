/*
 * utilization_store.h: writing the loaders' blocks (utilization_store.c),
 * for utilization_load.c and prometheus_load.c.
 */
#ifndef ACMETRACE_UTILIZATION_STORE_H
#define ACMETRACE_UTILIZATION_STORE_H

#include "postgres.h"

#include "datatype/timestamp.h"

#include "utilization.h"

/* Where a load writes its blocks, and what it counted. */
typedef struct util_store
{
	const char *metric;
	const char *cluster;
	MemoryContext cxt;			/* for writing one block, reset after */
	int64		dups;			/* samples already stored (or repeated) */
	int64		blocks;			/* blocks written */
	/* the blocks util_store_flush writes, one per series and day */
	struct HTAB *pending;
	MemoryContext pending_cxt;
	int			npending;
	size_t		pending_bytes;
	/* whether the blocks are a Citus table: 0 not known yet, 1 no, 2 yes */
	int			distributed;
	/* the UTC days of the blocks flushed, for util_store_hours */
	bool		any_day;
	int32		day_lo;
	int32		day_hi;
} util_store;

/*
 * Waits for the other loads of (metric, cluster) to end, then holds them
 * off until this transaction ends: one lock for every loader of samples,
 * so their merges never interleave and never deadlock.
 */
extern void util_store_lock(const char *metric, const char *cluster);

/*
 * Adds b's open block to the blocks the next flush writes (merged with one
 * of its series and day there already), and empties it; flushes when many
 * wait.
 */
extern void util_store_block(util_store *st, at_series *b);

/*
 * Writes the waiting blocks to acmetrace.utilization_blocks in a statement
 * (the table's statement triggers fire once), each merged with the block
 * stored for its day in another.  A load calls it at its end.
 */
extern void util_store_flush(util_store *st);

/*
 * The end of a load: the last flush, then, when acmetrace.utilization_blocks
 * has no statement triggers (the distributed warehouse, acmetrace.distribute),
 * the hours of acmetrace.utilization_hours of the days the load wrote
 * rebuilt (distributed_store.c).
 */
extern void util_store_finish(util_store *st);
extern void util_store_hours(util_store *st);

/*
 * Whether acmetrace.utilization_blocks is a Citus table (asked once a load,
 * inside the caller's SPI connection).
 */
extern bool util_blocks_distributed(util_store *st);

/*
 * Adds (ts, v) to b's open block of set, writing the block first when it
 * holds another day.
 */
extern void util_store_add(util_store *st, at_series_set *set, at_series *b, TimestampTz ts, double v);

/*
 * The NOTICE at the end of a load: of set's samples, those stored and the
 * duplicates skipped, and its series (COPY into the loaders' tables counts
 * no rows: their triggers keep none).
 */
extern void util_store_report(const util_store *st, const at_series_set *set);

/* The error of a series with more than AT_SAMPLES_MAX samples in one day. */
extern void util_day_full(const char *series) pg_attribute_noreturn();

#endif
