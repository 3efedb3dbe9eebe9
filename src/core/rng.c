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

/*
 * Acklam's rational approximation (relative error 1.2e-9), then one Halley
 * step on erfc, which brings it to about machine precision.
 */
double
at_normal_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
	1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
	6.680131188771972e+01, -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
	-2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
	3.754408661907416e+00};
	double		q,
				x,
				e,
				u;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -HUGE_VAL;
	if (p == 1)
		return HUGE_VAL;
	if (p < 0.02425)
	{
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	else if (p <= 1 - 0.02425)
	{
		double		r;

		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
			(((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	else
	{
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	e = 0.5 * erfc(-x / sqrt(2)) - p;
	u = e * 2.5066282746310002 * exp(x * x / 2);	/* sqrt(2 pi) */
	return x - u / (1 + x * u / 2);
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
