/*
 * utilization.h: the wide-file loader's open blocks, as plain C.
 *
 * A series' open block gathers one UTC day of its samples, in file order,
 * until a sample of another day asks the caller to write it (the glue,
 * src/utilization_load.c, merges it with the stored block of that day).
 * A wide file has one series per value column; a keyed file (Philly's
 * machineId) one per key cell and column, "<key>/<column>", made at first
 * sight and kept in that order.  The Prometheus loader (src/prometheus_load.c)
 * finds its series by name, as a keyed file does.
 */
#ifndef ACMETRACE_UTILIZATION_H
#define ACMETRACE_UTILIZATION_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "summary.h"
#include "unpivot.h"

#define AT_SERIES_NAME_MAX 255

typedef struct at_series
{
	char		name[AT_SERIES_NAME_MAX + 1];
	int32_t		day;			/* the open block's day; n == 0: none */
	int32_t		n;
	int32_t		cap;
	int			sorted;			/* strictly increasing times so far */
	int64_t    *ts;
	double	   *v;
} at_series;

typedef struct at_series_set
{
	at_series **all;			/* every series, in the order first seen */
	size_t		nall;
	size_t		capall;
	at_series **by_col;			/* wide files: column -> its series; NULL: keyed */
	at_intern	names;			/* keyed files: "<key>/<column>" -> its index in all */
	int64_t		samples;		/* samples added */
	at_mem_fn	mem;
	void	   *ctx;
} at_series_set;

/*
 * The series of the file with header h: one per value column, or none yet
 * when h has a key column.  0 on out of memory.
 */
extern int	at_series_set_init(at_series_set *s, const at_header *h, at_mem_fn mem, void *ctx);
extern void at_series_set_free(at_series_set *s);

/* A set whose series are found by name (at_series_named): none yet.  0 on out of memory. */
extern int	at_series_set_init_named(at_series_set *s, at_mem_fn mem, void *ctx);

/*
 * The series named name (len bytes, no NUL among them) of a set made by
 * at_series_set_init_named or over a keyed header, made at first sight.
 * NULL with *too_long when len is over AT_SERIES_NAME_MAX, or NULL when out
 * of memory (the set is then only good for at_series_set_free).
 */
extern at_series *at_series_named(at_series_set *s, const char *name, size_t len, int *too_long);

/*
 * The series of value column col of h's split line.  NULL with *too_long
 * when "<key>/<column>" is over AT_SERIES_NAME_MAX bytes, or NULL when out
 * of memory (the set is then only good for at_series_set_free).
 */
extern at_series *at_series_of(at_series_set *s, const at_header *h, int col, int *too_long);

typedef enum at_add_status
{
	AT_ADD_OK = 0,
	AT_ADD_FLUSH,				/* a block of another day is open: write it, empty it, add again */
	AT_ADD_FULL,				/* more than AT_SAMPLES_MAX samples in one day */
	AT_ADD_NO_MEMORY
} at_add_status;

/* Adds (ts, v) of day to b's open block. */
extern at_add_status at_series_add(at_series_set *s, at_series *b, int32_t day, int64_t ts, double v);

/* b's block was written: empty it (keeping its room). */
extern void at_series_empty(at_series *b);

/* The day (floor) of a time in microseconds, from the same epoch. */
extern int32_t at_day_of(int64_t us);

#endif
