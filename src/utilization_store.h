/*
 * utilization_store.h: writing the wide-file loader's blocks
 * (utilization_store.c), for utilization_load.c.
 */
#ifndef ACMETRACE_UTILIZATION_STORE_H
#define ACMETRACE_UTILIZATION_STORE_H

#include "postgres.h"

#include "utilization.h"

/* Where a load writes its blocks, and what it counted. */
typedef struct util_store
{
	const char *metric;
	const char *cluster;
	MemoryContext cxt;			/* for writing one block, reset after */
	int64		dups;			/* samples already stored (or repeated) */
	int64		blocks;			/* blocks written */
} util_store;

/*
 * Writes b's open block to acmetrace.utilization_blocks, merged with the
 * block stored for its day, and empties it.
 */
extern void util_store_block(util_store *st, at_series *b);

/* The error of a series with more than AT_SAMPLES_MAX samples in one day. */
extern void util_day_full(const char *series) pg_attribute_noreturn();

#endif
