/*
 * generate_util.h: synthetic wide utilization files in the AcmeTrace layout
 * (Time, then one column per server or GPU, one line per 15 s sample).
 * Plain C, no PostgreSQL headers; the caller owns every buffer.
 */
#ifndef ACMETRACE_GENERATE_UTIL_H
#define ACMETRACE_GENERATE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* Formats Unix seconds as "YYYY-MM-DD HH:MM:SS+00:00" (26 bytes with NUL). */
extern void at_format_utc(int64_t unix_s, char out[26]);

/* Bytes a header or a line of `series` columns may need, NUL included. */
extern size_t at_util_line_size(int series);

/* "Time,10.140.0.0,10.140.0.1,..." ; returns the length written. */
extern size_t at_util_header(char *buf, int series);

/*
 * One sample line at unix_s.  Values are polarized like real GPU
 * utilization: each series is idle, busy or in between for an hour at a
 * time (decided from seed, series and hour), with noise inside.  A share
 * blank_share of cells is left empty.  Returns the length written.
 */
extern size_t at_util_line(char *buf, int series, int64_t unix_s, uint64_t seed,
						   double blank_share, at_rng *rng);

#endif
