/*
 * num.h: small numeric helpers of the core: the exact powers of ten of the
 * decimal scales (samples, the CSV values' fast parse) and the qsort order
 * of doubles.
 */
#ifndef ACMETRACE_NUM_H
#define ACMETRACE_NUM_H

/* 10^k, k = 0..AT_P10_MAX, each exact: (double) m / at_p10[k] rounds once */
#define AT_P10_MAX 15
static const double at_p10[AT_P10_MAX + 1] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
};

/* qsort's comparison of doubles, ascending (no NaN) */
static inline int
at_cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

#endif
