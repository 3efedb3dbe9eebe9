/*
 * value_counts.h: exact distributions as sorted (value, count) pairs, the
 * form the summaries keep per group (src/install/trace/summaries.sql).
 *
 * A distribution is two parallel arrays: distinct finite values in strictly
 * increasing order and their counts (each at least 1).  Percentiles follow
 * PostgreSQL's percentile_cont to the bit (rows at floor and ceil of
 * q * (n - 1), then lo + (pos - floor) * (hi - lo)), so a percentile read
 * from a summary equals the one a scan computes.
 */
#ifndef ACMETRACE_VALUE_COUNTS_H
#define ACMETRACE_VALUE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

/* NULL when the pair is a distribution, else what is wrong with it. */
extern const char *at_vc_check(const double *vals, const int64_t *counts, size_t n, size_t *bad);

/*
 * cum[i] = counts[0] + ... + counts[i]; returns the total.  The counts must
 * have passed at_vc_check; 0 on overflow (a total past 2^62).
 */
extern uint64_t at_vc_prefix(const int64_t *counts, size_t n, uint64_t *cum);

/* The value of 0-based row r (r < total). */
extern double at_vc_row(const double *vals, const uint64_t *cum, size_t n, uint64_t r);

/* percentile_cont(q) for q in [0, 1] over total >= 1 rows. */
extern double at_vc_percentile_cont(const double *vals, const uint64_t *cum, size_t n, double q);

/* Rows with value <= x (strict: < x). */
extern uint64_t at_vc_count_at(const double *vals, const uint64_t *cum, size_t n, double x, int strict);

/*
 * A distribution plus signed changes: the delta (dvals strictly increasing,
 * finite, dcounts nonzero; -0 is 0) merged into vals/counts, into out_vals
 * and out_counts (room for n + m), values whose count falls to 0 dropped.
 * Returns how many pairs were written, or -1 if a count would go below 0.
 */
extern long at_vc_merge(const double *vals, const int64_t *counts, size_t n,
						const double *dvals, const int64_t *dcounts, size_t m,
						double *out_vals, int64_t *out_counts);

#endif
