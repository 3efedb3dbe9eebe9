/*
 * test_rng.c: the generator against the published reference streams
 * (a seed names one data set everywhere), and its distributions.
 */
#include <math.h>

#include "rng.h"
#include "tap.h"

/* published outputs of xoshiro256** from the state {1, 2, 3, 4} */
static const uint64_t xoshiro_1234[10] = {
	UINT64_C(11520), UINT64_C(0), UINT64_C(1509978240), UINT64_C(1215971899390074240),
	UINT64_C(1216172134540287360), UINT64_C(607988272756665600), UINT64_C(16172922978634559625),
	UINT64_C(8476171486693032832), UINT64_C(10595114339597558777), UINT64_C(2904607092377533576)
};

static void
test_streams(void)
{
	at_rng		r = {{1, 2, 3, 4}},
				a,
				b;
	int			same = 1,
				differ = 0;

	for (int i = 0; i < 10; i++)
		same &= at_rng_next(&r) == xoshiro_1234[i];
	CHECK(same, "xoshiro256** from {1, 2, 3, 4}: the reference's first 10 outputs");
	/* splitmix64 from 0 (the seed's first word): its reference first output */
	at_rng_seed(&r, 0);
	CHECK(r.s[0] == UINT64_C(0xE220A8397B1DCDAF), "splitmix64 from 0: first word %016llx",
		  (unsigned long long) r.s[0]);
	at_rng_seed(&a, 42);
	at_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		same &= at_rng_next(&a) == at_rng_next(&b);
	at_rng_seed(&b, 43);
	for (int i = 0; i < 1000; i++)
		differ += at_rng_next(&a) != at_rng_next(&b);
	CHECK(same && differ == 1000, "one seed, one stream; the next seed another (%d of 1000 differ)", differ);
}

static void
test_distributions(void)
{
	enum
	{
		N = 200000
	};
	at_rng		r;
	double		su = 0,
				sn = 0,
				sn2 = 0,
				se = 0,
				lo = 1,
				hi = 0;
	const double w[5] = {0, 3, 0, 1, 0};
	long		picks[5] = {0};

	at_rng_seed(&r, 7);
	for (int i = 0; i < N; i++)
	{
		double		u = at_rng_uniform(&r),
					z = at_rng_normal(&r);

		su += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		sn += z;
		sn2 += z * z;
		se += at_rng_exponential(&r, 30);
		picks[at_rng_pick(&r, w, 5)]++;
	}
	/* bounds at about 5 standard errors */
	CHECK(lo > 0 && hi < 1 && fabs(su / N - 0.5) < 0.0035, "uniform in (0, 1): mean %.4f, min %.2g, max %.6f",
		  su / N, lo, hi);
	CHECK(fabs(sn / N) < 0.012 && fabs(sn2 / N - 1) < 0.02, "normal: mean %.4f, variance %.4f", sn / N,
		  sn2 / N);
	CHECK(fabs(se / N - 30) < 0.35, "exponential of mean 30: mean %.3f", se / N);
	CHECK(picks[0] == 0 && picks[2] == 0 && picks[4] == 0 && fabs((double) picks[1] / N - 0.75) < 0.005,
		  "pick by weight: zero weights never, 3:1 as %ld:%ld", picks[1], picks[3]);
}

/* at_normal_quantile against known values and as the inverse of the normal CDF */
static void
test_normal_quantile(void)
{
	double		worst = 0;

	CHECK(at_normal_quantile(0.5) == 0 || fabs(at_normal_quantile(0.5)) < 1e-15, "quantile at 0.5 is 0: %.3g",
		  at_normal_quantile(0.5));
	CHECK(fabs(at_normal_quantile(0.975) - 1.959963984540054) < 1e-12 &&
		  fabs(at_normal_quantile(0.001) + 3.090232306167814) < 1e-12,
		  "quantiles at 0.975 and 0.001: %.15f, %.15f", at_normal_quantile(0.975), at_normal_quantile(0.001));
	for (int i = 1; i < 10000; i++)
	{
		double		p = i / 10000.0,
					x = at_normal_quantile(p),
					back = 0.5 * erfc(-x / sqrt(2));

		if (fabs(back - p) > worst)
			worst = fabs(back - p);
	}
	CHECK(worst < 1e-14, "CDF(quantile(p)) = p over 1e-4 .. 0.9999: largest error %.3g", worst);
	CHECK(isinf(at_normal_quantile(0)) && at_normal_quantile(0) < 0 && isinf(at_normal_quantile(1)) &&
		  isnan(at_normal_quantile(-0.1)) && isnan(at_normal_quantile(NAN)) && isnan(at_normal_quantile(1.5)),
		  "quantile at 0, 1 and outside [0, 1]: -inf, inf, NaN");
}

void
test_rng(void)
{
	test_streams();
	test_distributions();
	test_normal_quantile();
}
