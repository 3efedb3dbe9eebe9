/* test_value_counts.c: exact distributions against sorted arrays; at_sk_add_n against repeated adds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sketch.h"
#include "tap.h"
#include "value_counts.h"

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* percentile_cont over a sorted array, as PostgreSQL computes it. */
static double
brute_cont(const double *v, int64_t n, double q)
{
	int64_t		f = (int64_t) floor(q * (n - 1)),
				c = (int64_t) ceil(q * (n - 1));

	return f == c ? v[f] : v[f] + ((q * (n - 1)) - f) * (v[c] - v[f]);
}

/* Counts over the values 0..D-1 as a distribution (zero counts left out). */
#define D 40
static size_t
to_vc(const int64_t *c, double *vals, int64_t *counts)
{
	size_t		k = 0;

	for (int v = 0; v < D; v++)
		if (c[v] != 0)
		{
			vals[k] = v;
			counts[k++] = c[v];
		}
	return k;
}

/* at_vc_merge against adding count arrays; a count below 0 is refused. */
static void
test_vc_merge(void)
{
	at_rng		r;
	int			bad = 0,
				refused = 0,
				negative = 0;

	at_rng_seed(&r, 33);
	for (int it = 0; it < 2000; it++)
	{
		int64_t		a[D] = {0},
					d[D] = {0},
					want[D],
					oc[2 * D],
					ac[D],
					dc[D];
		double		av[D],
					dv[D],
					ov[2 * D];
		size_t		n,
					m;
		long		k;
		int			neg = 0;

		for (int v = 0; v < D; v++)
		{
			if (at_rng_uniform(&r) < 0.4)
				a[v] = 1 + (int64_t) (at_rng_uniform(&r) * 5);
			if (at_rng_uniform(&r) < 0.3)
				d[v] = a[v] > 0 && at_rng_uniform(&r) < 0.5 ? -(int64_t) (at_rng_uniform(&r) * (a[v] + 1))
					: (int64_t) (at_rng_uniform(&r) * 4);
			if (it % 10 == 0 && v == it % D)
				d[v] = -a[v] - 1;	/* below 0 */
			want[v] = a[v] + d[v];
			neg |= want[v] < 0;
		}
		n = to_vc(a, av, ac);
		m = to_vc(d, dv, dc);
		if (it % 7 == 0 && m > 0 && dv[0] == 0)
			dv[0] = -0.0;		/* -0 is 0 */
		k = at_vc_merge(av, ac, n, dv, dc, m, ov, oc);
		negative += neg;
		if (neg)
		{
			refused += k == -1;
			continue;
		}
		{
			double		wv[D];
			int64_t		wc[D];
			size_t		wk = to_vc(want, wv, wc);

			if ((size_t) k != wk)
				bad++;
			else
				for (size_t i = 0; i < wk; i++)
					if (ov[i] != wv[i] || oc[i] != wc[i] || signbit(ov[i]))
						bad++;
		}
	}
	CHECK(bad == 0, "vc_merge: 2000 random merges equal adding the counts (%d wrong)", bad);
	CHECK(negative > 0 && refused == negative, "vc_merge: a count below 0 is refused (%d of %d)", refused, negative);
}

void
test_value_counts(void)
{
	at_rng		r;
	int			bad = 0,
				badcnt = 0;
	static const double qs[] = {0, 0.25, 0.5, 0.75, 0.9, 0.99, 1, 0.3333};

	at_rng_seed(&r, 21);
	for (int it = 0; it < 300; it++)
	{
		int64_t		n = 1 + (int64_t) (at_rng_uniform(&r) * 2000);
		double	   *v = malloc(sizeof(double) * n);
		double	   *vals = malloc(sizeof(double) * n);
		int64_t    *counts = malloc(sizeof(int64_t) * n);
		uint64_t   *cum = malloc(sizeof(uint64_t) * n);
		size_t		k = 0,
					where;

		for (int64_t i = 0; i < n; i++)
			v[i] = it % 2 ? floor(at_rng_uniform(&r) * 50) : at_rng_uniform(&r) * 1e4;
		qsort(v, n, sizeof(double), cmp_double);
		for (int64_t i = 0; i < n; i++)
		{
			if (k > 0 && vals[k - 1] == v[i])
				counts[k - 1]++;
			else
			{
				vals[k] = v[i];
				counts[k++] = 1;
			}
		}
		if (at_vc_check(vals, counts, k, &where) != NULL || at_vc_prefix(counts, k, cum) != (uint64_t) n)
			bad++;
		for (size_t j = 0; j < sizeof(qs) / sizeof(qs[0]); j++)
			if (at_vc_percentile_cont(vals, cum, k, qs[j]) != brute_cont(v, n, qs[j]))
				bad++;
		for (int t = 0; t < 20; t++)
		{
			double		x = t % 4 == 0 ? v[(int64_t) (at_rng_uniform(&r) * n)] : at_rng_uniform(&r) * 1e4 - 10;
			uint64_t	le = 0,
						lt = 0;

			for (int64_t i = 0; i < n; i++)
			{
				le += v[i] <= x;
				lt += v[i] < x;
			}
			if (at_vc_count_at(vals, cum, k, x, 0) != le || at_vc_count_at(vals, cum, k, x, 1) != lt)
				badcnt++;
		}
		free(v);
		free(vals);
		free(counts);
		free(cum);
	}
	CHECK(bad == 0, "300 random distributions: percentile_cont at 8 fractions equals the sorted array's");
	CHECK(badcnt == 0, "6,000 thresholds: counts at and below equal brute force");

	{
		double		vals[] = {1, 2, 2};
		int64_t		counts[] = {1, 1, 1};
		double		nanv[] = {1, NAN};
		int64_t		zero[] = {1, 0};
		size_t		where;

		CHECK(at_vc_check(vals, counts, 3, &where) != NULL && where == 2, "repeated value refused at its element");
		CHECK(at_vc_check(nanv, counts, 2, &where) != NULL, "NaN value refused");
		CHECK(at_vc_check(vals, zero, 2, &where) != NULL && where == 1, "zero count refused");
	}

	{
		at_sketch	a,
					b;
		unsigned char *ea,
				   *eb;
		size_t		na,
					nb;
		static const double xs[] = {0, 1, 7, 7.5, 120, 86400, 1e7};
		static const uint64_t ns[] = {3, 1, 1000, 2, 17, 5, 1};

		at_sk_init(&a, AT_SK_DEFAULT_ERROR, tap_mem, NULL);
		at_sk_init(&b, AT_SK_DEFAULT_ERROR, tap_mem, NULL);
		for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		{
			at_sk_add_n(&a, xs[i], ns[i]);
			for (uint64_t j = 0; j < ns[i]; j++)
				at_sk_add(&b, xs[i]);
		}
		ea = malloc(at_sk_encoded_bound(&a));
		eb = malloc(at_sk_encoded_bound(&b));
		na = at_sk_encode(&a, ea);
		nb = at_sk_encode(&b, eb);
		CHECK(na == nb && memcmp(ea, eb, na) == 0, "at_sk_add_n encodes the same bytes as repeated at_sk_add");
		free(ea);
		free(eb);
		at_sk_free(&a);
		at_sk_free(&b);
	}
	test_vc_merge();
}
