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

/*
 * Per-hour summaries of one UTC day block (acmetrace.utilization_blocks'
 * hour_* columns, which acmetrace.v_hourly_utilization aggregates without
 * decoding a sample): per hour its samples, min, max (the first value met
 * that is smallest, largest, under <, as the block's own min and max) and,
 * for a block of scaled integers (value = m / 10^scale), the exact sum of
 * the integers m as a 128-bit two's complement number (lo, hi); |sum| <
 * 2^24 * 2^53, so it never wraps.
 */
#define AT_HOURS 24
#define AT_USECS_PER_HOUR ((int64_t) 3600 * 1000000)

typedef struct at_hours
{
	int32_t		n[AT_HOURS];
	double		min[AT_HOURS];
	double		max[AT_HOURS];
	uint64_t	sum_lo[AT_HOURS];
	uint64_t	sum_hi[AT_HOURS];
} at_hours;

/*
 * The hours of n samples of the UTC day that starts at day_start (us):
 * values v[i], or, when m is not NULL, the integers m[i] of values
 * m[i] / 10^scale (0 <= scale <= AT_P10_MAX; v is then not read and the
 * sums are kept).  0, or -1 when a time is outside the day (h is then
 * incomplete).
 */
extern int	at_hours_of(at_hours *h, int64_t day_start, const int64_t *ts, const double *v,
						const int64_t *m, int scale, int32_t n);

/*
 * Hour's exact sum of a block of scale scale as decimal text ("-12.50",
 * scale digits after the point) into out[outlen] (64 bytes suffice).
 */
extern void at_hours_sum_text(const at_hours *h, int hour, int scale, char *out, size_t outlen);

#endif
