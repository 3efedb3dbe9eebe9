/*
 * rng.c: xoshiro256** (Blackman and Vigna), seeded with splitmix64.
 */
#include <math.h>

#include "hash.h"
#include "rng.h"

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void
at_rng_seed(at_rng *r, uint64_t seed)
{
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = at_hash_mix(seed += UINT64_C(0x9E3779B97F4A7C15));
}

uint64_t
at_rng_next(at_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double
at_rng_uniform(at_rng *r)
{
	/* 53 random bits, shifted off zero so log() is always finite */
	return ((double) (at_rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double
at_rng_normal(at_rng *r)
{
	/* Box-Muller; one value per call keeps the stream simple to reason about */
	double		u1 = at_rng_uniform(r);
	double		u2 = at_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double
at_rng_exponential(at_rng *r, double mean)
{
	return -mean * log(at_rng_uniform(r));
}

int
at_rng_pick(at_rng *r, const double *weights, int n)
{
	double		total = 0.0;
	double		x;
	int			i;
	int			last = 0;

	for (i = 0; i < n; i++)
	{
		total += weights[i];
		if (weights[i] > 0)
			last = i;
	}
	x = at_rng_uniform(r) * total;
	for (i = 0; i < last; i++)
	{
		if (x < weights[i])
			return i;
		x -= weights[i];
	}
	return last;				/* rounding never lands on a zero weight */
}
