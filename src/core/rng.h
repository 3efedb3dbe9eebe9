/*
 * rng.h: xoshiro256** pseudo-random numbers, seeded with splitmix64.
 * Deterministic across platforms, so a seed names one dataset everywhere.
 */
#ifndef ACMETRACE_RNG_H
#define ACMETRACE_RNG_H

#include <stdint.h>

typedef struct at_rng
{
	uint64_t	s[4];
} at_rng;

extern void at_rng_seed(at_rng *r, uint64_t seed);
extern uint64_t at_rng_next(at_rng *r);
extern double at_rng_uniform(at_rng *r);	/* in (0, 1) */
extern double at_rng_normal(at_rng *r);		/* standard normal */
extern double at_rng_exponential(at_rng *r, double mean);
extern int	at_rng_pick(at_rng *r, const double *weights, int n);	/* index by weight */

/* The standard normal's quantile at p in (0, 1); -/+HUGE_VAL at 0 and 1, NaN outside. */
extern double at_normal_quantile(double p);

#endif
