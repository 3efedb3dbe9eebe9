/* test_sketch.c: the relative-error quantile sketch against exact answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sketch.h"
#include "tap.h"

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* percentile_disc over sorted v[0..n) */
static double
disc(const double *v, size_t n, double q)
{
	double		rd = ceil(q * (double) n);
	size_t		r = rd < 1 ? 1 : rd >= (double) n ? n : (size_t) rd;

	return v[r - 1];
}

static const double qgrid_extra[] = {0.999, 1.0};

/* Worst relative error over q = 0, 0.01, ..., 0.99, 0.999, 1 (-1 if an exact 0 is missed). */
static double
worst_error(const at_sketch *sk, const double *sorted, size_t n)
{
	double		worst = 0;

	for (int k = 0; k < 102; k++)
	{
		double		q = k < 100 ? k / 100.0 : qgrid_extra[k - 100];
		double		want = disc(sorted, n, q),
					got;

		if (!at_sk_quantile(sk, q, &got))
			return -1;
		if (want == 0)
		{
			if (got != 0)
				return -1;
			continue;
		}
		if (fabs(got - want) / want > worst)
			worst = fabs(got - want) / want;
	}
	return worst;
}

typedef enum
{
	D_LOGNORMAL, D_SMALL_INT, D_EQUAL, D_TWO_CLUSTERS, D_POW10, D_ZEROS, D_HUGE, D_UNIFORM, D_NKINDS
} dist;

static const char *const dist_name[] = {
	"lognormal", "small integers", "all equal", "two far-apart clusters", "powers of ten",
	"mostly zeros", "0 and 10^9", "uniform (0, 1)"
};

static double
draw(at_rng *r, dist d)
{
	switch (d)
	{
		case D_LOGNORMAL:
			return floor(exp(6 + 3 * at_rng_normal(r)));
		case D_SMALL_INT:
			return (double) (at_rng_next(r) % 120);
		case D_EQUAL:
			return 3600;
		case D_TWO_CLUSTERS:
			return at_rng_uniform(r) < 0.5 ? 1 + at_rng_next(r) % 3 : 1e8 + (double) (at_rng_next(r) % 1000);
		case D_POW10:
			return pow(10, (double) (at_rng_next(r) % 10));
		case D_ZEROS:
			return at_rng_uniform(r) < 0.8 ? 0 : 1 + at_rng_next(r) % 100000;
		case D_HUGE:
			return at_rng_uniform(r) < 0.3 ? 0 : 1e9;
		case D_UNIFORM:
			return at_rng_uniform(r);
		default:
			return 0;
	}
}

static void
test_accuracy(void)
{
	static const double alphas[] = {0.005, 0.001, 0.01, 0.05, 0.25};
	at_rng		r;
	int			bad = 0,
				runs = 0;
	double		worst_all = 0;

	at_rng_seed(&r, 2024);
	for (int d = 0; d < D_NKINDS; d++)
		for (int a = 0; a < 5; a++)
			for (int rep = 0; rep < 4; rep++)
			{
				size_t		n = 1 + at_rng_next(&r) % 5000;
				double	   *v = malloc(n * sizeof(double));
				at_sketch	sk;
				double		w1,
							w2;

				at_sk_init(&sk, alphas[a], tap_mem, NULL);
				for (size_t i = 0; i < n; i++)
				{
					v[i] = draw(&r, (dist) d);
					if (at_sk_add(&sk, v[i]) != AT_SK_OK)
						bad++;
				}
				qsort(v, n, sizeof(double), cmp_double);
				w1 = worst_error(&sk, v, n);	/* linear scan */
				at_sk_prepare(&sk);
				w2 = worst_error(&sk, v, n);	/* prefix sums */
				runs++;
				if (w1 < 0 || w2 < 0 || w1 != w2 || w1 > alphas[a] * (1 + 1e-12))
				{
					bad++;
					printf("# %s alpha %g n %zu: worst %g / %g\n", dist_name[d], alphas[a], n, w1, w2);
				}
				if (alphas[a] == 0.005 && w1 > worst_all)
					worst_all = w1;
				if (sk.count != n || sk.min != v[0] || sk.max != v[n - 1])
					bad++;
				at_sk_free(&sk);
				free(v);
			}
	CHECK(bad == 0, "%d datasets (8 shapes x 5 errors): every quantile within the error of percentile_disc "
		  "(worst at 0.005: %.5f)", runs, worst_all);
}

static void
test_small_integers(void)
{
	at_sketch	sk;
	double		v[400];
	int			exact = 1,
				le10 = 0;

	at_sk_init(&sk, 0.005, tap_mem, NULL);
	for (int i = 0; i < 400; i++)
	{
		v[i] = (double) ((i * 37) % 150);
		at_sk_add(&sk, v[i]);
	}
	qsort(v, 400, sizeof(double), cmp_double);
	for (int k = 0; k <= 100; k++)
	{
		double		got;

		at_sk_quantile(&sk, k / 100.0, &got);
		if (got != disc(v, 400, k / 100.0) && disc(v, 400, k / 100.0) < 100)
			exact = 0;
	}
	CHECK(exact, "integers below 100 come back exactly at 0.005");
	for (int i = 0; i < 400; i++)
		le10 += v[i] <= 10;
	CHECK(at_sk_rank(&sk, 10) == le10 / 400.0, "rank_of(10) is exact for integers (%g)", at_sk_rank(&sk, 10));
	CHECK(at_sk_rank(&sk, 9.5) == at_sk_rank(&sk, 9), "rank_of(9.5) counts values <= 9 only");
	at_sk_add(&sk, 2.5);
	at_sk_quantile(&sk, 0.5, &v[0]);
	CHECK(!sk.integral, "a fraction clears the integer flag");
	at_sk_free(&sk);
}

static void
test_rank(void)
{
	at_rng		r;
	int			bad = 0;

	at_rng_seed(&r, 77);
	for (int rep = 0; rep < 20; rep++)
	{
		size_t		n = 1 + at_rng_next(&r) % 3000;
		double	   *v = malloc(n * sizeof(double));
		at_sketch	sk;

		at_sk_init(&sk, rep % 2 ? 0.01 : 0.005, tap_mem, NULL);
		for (size_t i = 0; i < n; i++)
		{
			v[i] = draw(&r, (dist) (rep % D_NKINDS));
			at_sk_add(&sk, v[i]);
		}
		qsort(v, n, sizeof(double), cmp_double);
		if (rep % 3 == 0)
			at_sk_prepare(&sk);
		for (int t = 0; t < 200; t++)
		{
			double		x = t < 100 ? v[at_rng_next(&r) % n] : draw(&r, (dist) (rep % D_NKINDS)) * at_rng_uniform(&r) * 2;
			size_t		le = 0,
						le_hi = 0;
			double		got = at_sk_rank(&sk, x);

			for (size_t i = 0; i < n; i++)
			{
				le += v[i] <= x;
				le_hi += v[i] <= x * sk.gamma;
			}
			if (got < (double) le / n - 1e-12 || got > (double) le_hi / n + 1e-12)
			{
				bad++;
				printf("# rank_of(%g) = %g, true %g..%g\n", x, got, (double) le / n, (double) le_hi / n);
			}
		}
		if (at_sk_rank(&sk, v[0] / 2) != (v[0] > 0 ? 0.0 : at_sk_rank(&sk, 0)) || at_sk_rank(&sk, v[n - 1]) != 1.0)
			bad++;
		at_sk_free(&sk);
		free(v);
	}
	CHECK(bad == 0, "rank_of lies between the true fraction at x and at x * gamma (4,000 probes)");
}

static void
test_merge(void)
{
	at_rng		r;
	at_sketch	whole,
				parts[5],
				sum,
				other;
	unsigned char *b1,
			   *b2;
	size_t		n1,
				n2;
	char		t1[64];
	int			ok = 0;
	at_sk_err	e1,
				e2;

	at_rng_seed(&r, 5);
	at_sk_init(&whole, 0.005, tap_mem, NULL);
	for (int p = 0; p < 5; p++)
		at_sk_init(&parts[p], 0.005, tap_mem, NULL);
	for (int i = 0; i < 20000; i++)
	{
		double		x = draw(&r, (dist) (i % 3 == 0 ? D_LOGNORMAL : D_TWO_CLUSTERS));

		at_sk_add(&whole, x);
		at_sk_add(&parts[at_rng_next(&r) % 5], x);
	}
	at_sk_init(&sum, 0.005, tap_mem, NULL);
	for (int p = 4; p >= 0; p--)
		ok += at_sk_merge(&sum, &parts[p]) == AT_SK_OK;
	CHECK(ok == 5, "5 parts merge");
	b1 = malloc(at_sk_encoded_bound(&whole));
	b2 = malloc(at_sk_encoded_bound(&sum));
	n1 = at_sk_encode(&whole, b1);
	n2 = at_sk_encode(&sum, b2);
	CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "5 merged parts encode byte for byte as the whole (%zu bytes)", n1);
	at_sk_init(&other, 0.01, tap_mem, NULL);
	at_sk_add(&other, 1);
	e1 = at_sk_merge(&sum, &other);
	e2 = at_sk_merge(&other, &sum);
	CHECK(e1 == AT_SK_EALPHA && e2 == AT_SK_EALPHA && other.count == 1 && sum.count == 20000,
		  "merging different errors is refused and changes nothing");
	at_sk_free(&other);
	at_sk_init(&other, 0.005, tap_mem, NULL);
	e1 = at_sk_merge(&other, &whole);
	e2 = at_sk_merge(&other, &parts[0]);
	CHECK(e1 == AT_SK_OK && e2 == AT_SK_OK && other.count == whole.count + parts[0].count &&
		  other.min == whole.min && other.max == whole.max, "merge into an empty sketch, then again");
	at_sk_format(&whole, t1, sizeof(t1));
	CHECK(strncmp(t1, "v1 err=0.005 n=20000 zeros=", 27) == 0, "text starts %s", t1);
	at_sk_free(&other);
	for (int p = 0; p < 5; p++)
		at_sk_free(&parts[p]);
	at_sk_free(&sum);
	at_sk_free(&whole);
	free(b1);
	free(b2);
}

static void
test_refusals(void)
{
	at_sketch	sk;
	double		q;
	at_sk_err	e[3];

	at_sk_init(&sk, 0.005, tap_mem, NULL);
	e[0] = at_sk_add(&sk, -1);
	e[1] = at_sk_add(&sk, NAN);
	e[2] = at_sk_add(&sk, INFINITY);
	CHECK(e[0] == AT_SK_ENEGATIVE && e[1] == AT_SK_ENONFINITE && e[2] == AT_SK_ENONFINITE && sk.count == 0,
		  "negative, NaN, infinity refused");
	CHECK(at_sk_quantile(&sk, 0.5, &q) == 0 && at_sk_rank(&sk, 1) == -1, "empty sketch has no quantile");
	e[0] = at_sk_add(&sk, -0.0);
	CHECK(e[0] == AT_SK_OK && sk.zeros == 1 && !signbit(sk.min), "-0 counts as 0");
	at_sk_free(&sk);
	at_sk_init(&sk, 0.001, tap_mem, NULL);
	e[0] = at_sk_add(&sk, 1e-300);
	e[1] = at_sk_add(&sk, 1e300);
	CHECK(e[0] == AT_SK_OK && e[1] == AT_SK_ESPAN && sk.count == 1,
		  "a span beyond %d buckets is refused", AT_SK_MAX_BUCKETS);
	at_sk_free(&sk);
	{
		at_sketch	a,
					b2;

		at_sk_init(&a, 0.005, tap_mem, NULL);
		at_sk_init(&b2, 0.005, tap_mem, NULL);
		e[0] = at_sk_add(&a, 1e308);
		e[1] = at_sk_add(&a, 1e308);
		e[2] = at_sk_add(&b2, 1e308);
		CHECK(e[0] == AT_SK_OK && e[1] == AT_SK_ESUM && a.count == 1 && isfinite(a.sum),
			  "a sum past DBL_MAX is refused, the sketch unchanged");
		e[0] = at_sk_merge(&a, &b2);
		CHECK(e[0] == AT_SK_ESUM && a.count == 1, "and so is a merge whose sum overflows");
		at_sk_free(&a);
		at_sk_free(&b2);
	}
	CHECK(!at_sk_error_ok(0.0005) && !at_sk_error_ok(0.3) && !at_sk_error_ok(NAN) && at_sk_error_ok(0.001),
		  "relative error range [%g, %g]", AT_SK_MIN_ERROR, AT_SK_MAX_ERROR);
}

static void
test_memory_bound(void)
{
	at_sketch	sk;
	at_rng		r;
	unsigned char *b;
	size_t		n;

	at_rng_seed(&r, 9);
	at_sk_init(&sk, 0.005, tap_mem, NULL);
	for (int i = 0; i < 1000000; i++)
		at_sk_add(&sk, floor(pow(10, 8 * at_rng_uniform(&r))));
	b = malloc(at_sk_encoded_bound(&sk));
	n = at_sk_encode(&sk, b);
	CHECK(sk.last - sk.first + 1 <= 1850 && sk.cap == (uint32_t) (sk.last - sk.first + 64) / 64 * 64,
		  "10^6 values over 1..10^8: %d buckets, %u KiB of counts", sk.last - sk.first + 1, sk.cap * 8 / 1024);
	CHECK(n < 8192 && n == at_sk_encoded_size(&sk), "serialized in %zu bytes, as at_sk_encoded_size says", n);
	free(b);
	at_sk_free(&sk);
}

/* Encode/decode and format/parse round trips, then crafted and mutated input. */
static void
test_formats(void)
{
	at_rng		r;
	at_sketch	sk,
				back;
	unsigned char *b,
			   *m;
	size_t		n,
				len;
	char	   *t,
			   *t2;
	int			bad = 0,
				accepted = 0;
	const char *msg;
	size_t		pos;

	at_rng_seed(&r, 31);
	at_sk_init(&sk, 0.01, tap_mem, NULL);
	for (int i = 0; i < 3000; i++)
		at_sk_add(&sk, draw(&r, (dist) (i % D_NKINDS)));
	b = malloc(at_sk_encoded_bound(&sk));
	n = at_sk_encode(&sk, b);
	msg = at_sk_decode(&back, b, n, tap_mem, NULL);
	CHECK(msg == NULL && back.count == sk.count &&
		  back.sum == sk.sum && back.first == sk.first && back.last == sk.last, "binary round trip");
	len = at_sk_format(&sk, NULL, 0);
	t = malloc(len + 1);
	t2 = malloc(len + 1);
	CHECK(at_sk_format(&sk, t, len + 1) == len && strlen(t) == len, "text length is known in advance (%zu)", len);
	at_sk_format(&back, t2, len + 1);
	CHECK(strcmp(t, t2) == 0, "decoded value prints the same text");
	at_sk_free(&back);
	msg = at_sk_parse(&back, t, tap_mem, NULL, &pos);
	CHECK(msg == NULL, "text round trip parses (%s)", msg ? msg : "ok");
	at_sk_format(&back, t2, len + 1);
	CHECK(strcmp(t, t2) == 0 && back.sum == sk.sum, "and prints back the same");
	at_sk_free(&back);

	for (size_t cut = 0; cut < n; cut++)
		if (at_sk_decode(&back, b, cut, tap_mem, NULL) == NULL)
			bad++;
	CHECK(bad == 0, "every truncation of %zu bytes is refused", n);

	m = malloc(n + 8);
	for (int it = 0; it < 20000; it++)
	{
		size_t		mlen = n;
		int			edits = 1 + (int) (at_rng_next(&r) % 4);

		memcpy(m, b, n);
		for (int e = 0; e < edits; e++)
		{
			size_t		at = at_rng_next(&r) % mlen;

			switch (at_rng_next(&r) % 4)
			{
				case 0:
					m[at] ^= (unsigned char) (1u << (at_rng_next(&r) % 8));
					break;
				case 1:
					m[at] = (unsigned char) at_rng_next(&r);
					break;
				case 2:
					mlen = at + 1;
					break;
				default:
					m[at % AT_SK_HEADER] = (unsigned char) at_rng_next(&r);
					break;
			}
		}
		if (at_sk_decode(&back, m, mlen, tap_mem, NULL) == NULL)
		{
			double		q;

			accepted++;
			at_sk_prepare(&back);
			if (at_sk_check(&back) != NULL || !at_sk_quantile(&back, 0.5, &q) || !(q >= back.min && q <= back.max))
				bad++;
			at_sk_rank(&back, q);
			at_sk_free(&back);
		}
	}
	CHECK(bad == 0, "20,000 mutated binary values: refused, or accepted (%d) and consistent", accepted);

	accepted = 0;
	for (int it = 0; it < 20000; it++)
	{
		char	   *mt = malloc(len + 2);
		size_t		at = at_rng_next(&r) % len;
		static const char alphabet[] = "0123456789-+:,.e =vabnx\t";

		memcpy(mt, t, len + 1);
		if (at_rng_next(&r) % 3 == 0)
			mt[at] = '\0';
		else
			mt[at] = alphabet[at_rng_next(&r) % (sizeof(alphabet) - 1)];
		if (at_sk_parse(&back, mt, tap_mem, NULL, &pos) == NULL)
		{
			accepted++;
			if (at_sk_check(&back) != NULL)
				bad++;
			at_sk_free(&back);
		}
		else if (pos > len)
			bad++;
		free(mt);
	}
	CHECK(bad == 0, "20,000 mutated texts: refused at a position inside, or accepted (%d) and consistent", accepted);

	{
		static const char *const crafted[] = {
			"", "v2 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=",
			"v1 err=0.0001 n=0 zeros=0 min=0 max=0 sum=0 int=1 b=",
			"v1 err=nan n=0 zeros=0 min=0 max=0 sum=0 int=1 b=",
			"v1 err=0.005 n=1 zeros=0 min=0 max=0 sum=0 int=1 b=",
			"v1 err=0.005 n=2 zeros=0 min=1 max=1 sum=2 int=1 b=0:1",
			"v1 err=0.005 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1,+0:1",
			"v1 err=0.005 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:0",
			"v1 err=0.005 n=1 zeros=0 min=5 max=5 sum=5 int=1 b=0:1",
			"v1 err=0.005 n=2 zeros=0 min=1 max=1e300 sum=1 int=1 b=0:1,+16777216:1",
			"v1 err=0.005 n=18446744073709551615 zeros=18446744073709551615 min=0 max=1 sum=1 int=1 b=0:1",
			"v1 err=0.005 n=1 zeros=0 min=inf max=inf sum=1 int=1 b=0:1",
			"v1 err=0.005 n=1 zeros=0 min=1.5 max=1.5 sum=1.5 int=1 b=41:1",
			"v1 err=0.005 n=1 zeros=0 min=1 max=1 sum=-1 int=1 b=0:1",
			"v1 err=0.005 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1 x",
			"v1 err=0.005 n=-1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1",
			"v1 err=0.005 n=1 zeros=1 min=-0 max=-0 sum=-0 int=1 b=",
			"v1 err=0.005 n=0 zeros=0 min=0 max=0 sum=0 int=0 b=",
			"v1 err=0.005 n=2 zeros=0 min=5 max=1 sum=6 int=1 b=322:2",
		};
		int			refused = 0;

		for (size_t k = 0; k < sizeof(crafted) / sizeof(crafted[0]); k++)
		{
			if (at_sk_parse(&back, crafted[k], tap_mem, NULL, &pos) != NULL)
				refused++;
			else
			{
				printf("# accepted: %s\n", crafted[k]);
				at_sk_free(&back);
			}
		}
		CHECK(refused == (int) (sizeof(crafted) / sizeof(crafted[0])), "%d crafted texts refused", refused);
		msg = at_sk_parse(&back, "v1 err=0.005 n=2 zeros=1 min=0 max=5 sum=5 int=1 b=162:1", tap_mem, NULL, &pos);
		CHECK(msg == NULL, "zeros and one bucket: accepted (%s)", msg ? msg : "ok");
		at_sk_free(&back);
		msg = at_sk_parse(&back, "  v1 err=0.005 n=1 zeros=0 min=1 max=1 sum=1 int=1 b=0:1 ", tap_mem, NULL, &pos);
		CHECK(msg == NULL && back.count == 1, "surrounding spaces are fine");
		at_sk_free(&back);
	}
	free(m);
	free(t);
	free(t2);
	free(b);
	at_sk_free(&sk);
}

/* The inline fast path must build the very same sketch as at_sk_add. */
static void
test_fast_path(void)
{
	at_rng		r;
	at_sketch	a,
				b;
	unsigned char *ba,
			   *bb;
	size_t		na,
				nb;
	int			bad = 0;

	at_rng_seed(&r, 99);
	at_sk_init(&a, 0.005, tap_mem, NULL);
	at_sk_init(&b, 0.005, tap_mem, NULL);
	for (int i = 0; i < 200000; i++)
	{
		double		x;

		switch (at_rng_next(&r) % 5)
		{
			case 0:
				x = i % 7 == 0 ? -0.0 : 0;
				break;
			case 1:
				x = (double) (at_rng_next(&r) % 5000);
				break;
			case 2:
				x = at_rng_uniform(&r) * 100;
				break;
			case 3:
				x = floor(exp(12 * at_rng_uniform(&r)));
				break;
			default:
				x = 1 + at_rng_next(&r) % 60;
				break;
		}
		if (at_sk_add(&a, x) != at_sk_add_fast(&b, x))
			bad++;
	}
	ba = malloc(at_sk_encoded_bound(&a));
	bb = malloc(at_sk_encoded_bound(&b));
	na = at_sk_encode(&a, ba);
	nb = at_sk_encode(&b, bb);
	CHECK(bad == 0 && na == nb && memcmp(ba, bb, na) == 0 && !signbit(b.min),
		  "200,000 values: the inline fast path builds the same sketch byte for byte");
	free(ba);
	free(bb);
	at_sk_free(&a);
	at_sk_free(&b);
}

/*
 * at_sk_encoded_size (the expanded aggregate state's flat size) is exactly
 * what at_sk_encode writes: empty, zeros only, negative bucket indices,
 * one bucket, and wide spans with long varints.
 */
static void
test_encoded_size(void)
{
	static const double sets[][6] = {
		{-1},
		{0, 0, -1},
		{1e-300, 0.5, 0.001, -1},
		{42, -1},
		{1, 1e8, 1e15, 3.5, 0, -1},
	};
	int			bad = 0;

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
		for (int k = 0; k < 3; k++)
		{
			at_sketch	sk;
			unsigned char *b;
			size_t		n;

			at_sk_init(&sk, k == 0 ? 0.005 : k == 1 ? 0.001 : 0.25, tap_mem, NULL);
			for (int i = 0; sets[s][i] >= 0; i++)
				for (int rep = 0; rep < (i + 1) * 300; rep++)	/* counts past one varint byte */
					at_sk_add(&sk, sets[s][i]);
			b = malloc(at_sk_encoded_bound(&sk));
			n = at_sk_encode(&sk, b);
			if (n != at_sk_encoded_size(&sk) || n > at_sk_encoded_bound(&sk))
				bad++;
			free(b);
			at_sk_free(&sk);
		}
	CHECK(bad == 0, "at_sk_encoded_size equals the bytes at_sk_encode writes (15 sketches)");
}

void
test_sketch(void)
{
	test_fast_path();
	test_accuracy();
	test_small_integers();
	test_rank();
	test_merge();
	test_refusals();
	test_memory_bound();
	test_formats();
	test_encoded_size();
}
