/* test_bins.c: bins and CDF states against brute force; the serial form. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bins.h"
#include "rng.h"
#include "tap.h"

static void
test_slots(void)
{
	static const double e[] = {0, 1, 2, 4, 8};
	at_rng		r;
	int			bad = 0;

	CHECK(at_bins_equal_slot(-1, 0, 10, 5) == 0 && at_bins_equal_slot(0, 0, 10, 5) == 1 &&
		  at_bins_equal_slot(2, 0, 10, 5) == 2 && at_bins_equal_slot(10, 0, 10, 5) == 5 &&
		  at_bins_equal_slot(10.5, 0, 10, 5) == 6 && at_bins_equal_slot(INFINITY, 0, 10, 5) == 6 &&
		  at_bins_equal_slot(-INFINITY, 0, 10, 5) == 0, "equal bins: below, edges, hi closed, above");
	CHECK(at_bins_equal_slot(0, -1e308, 1e308, 4) == 3, "equal bins: a range wider than DBL_MAX");
	CHECK(at_bins_edges_slot(-1, e, 5) == 0 && at_bins_edges_slot(0, e, 5) == 1 && at_bins_edges_slot(1, e, 5) == 2 &&
		  at_bins_edges_slot(3.9, e, 5) == 3 && at_bins_edges_slot(8, e, 5) == 4 && at_bins_edges_slot(8.1, e, 5) == 5,
		  "edges: below, on each edge, last closed, above");
	at_rng_seed(&r, 8);
	for (int it = 0; it < 100000; it++)
	{
		double		v = (at_rng_uniform(&r) - 0.1) * 10;
		int32_t		want = 0,
					lt = 0;

		/* brute force: edges <= v, with the last edge closing the last bin */
		for (int k = 0; k < 5; k++)
			want += e[k] <= v;
		if (v == 8)
			want = 4;
		else if (v > 8)
			want = 5;
		for (int k = 0; k < 5; k++)
			lt += e[k] < v;
		if (at_bins_edges_slot(v, e, 5) != want || at_bins_cdf_slot(v, e, 5) != lt)
			bad++;
		/* equal bins of width 2 over [0, 10]: floor(v / 2) + 1 inside */
		if (v >= 0 && v < 10 && at_bins_equal_slot(v, 0, 10, 5) != (int32_t) floor(v / 2) + 1)
			bad++;
	}
	CHECK(bad == 0, "100,000 random values: slots equal brute force");
	CHECK(at_bins_check_equal(0, 0, 5) && at_bins_check_equal(0, 1, 0) && at_bins_check_equal(NAN, 1, 1) &&
		  at_bins_check_equal(0, INFINITY, 1) && !at_bins_check_equal(0, 1, 1), "equal-bin arguments checked");
	CHECK(at_bins_check_edges(e, 1) && at_bins_check_edges((const double[]) {1, 1}, 2) &&
		  at_bins_check_edges((const double[]) {1, NAN}, 2) && !at_bins_check_edges(e, 5), "edges checked");
	CHECK(at_bins_check_thresholds(e, 0) && at_bins_check_thresholds((const double[]) {NAN}, 1) &&
		  !at_bins_check_thresholds((const double[]) {3, 1, 1, INFINITY}, 4), "thresholds checked");
}

static void
test_cdf(void)
{
	static const double t[] = {8, 1, 2, 2, 0, -0.0, 1e9};
	at_bins		h,
				parts[3],
				sum;
	at_rng		r;
	double		v[5000],
				w[5000],
				out[7],
				scratch[7];
	int			bad = 0;

	at_rng_seed(&r, 12);
	at_bins_init(&h, AT_BINS_WCDF, 0, 0, 0, t, 7, tap_mem, NULL);
	at_bins_init(&sum, AT_BINS_WCDF, 0, 0, 0, t, 7, tap_mem, NULL);
	for (int p = 0; p < 3; p++)
		at_bins_init(&parts[p], AT_BINS_WCDF, 0, 0, 0, t, 7, tap_mem, NULL);
	CHECK(h.nparams == 5 && h.nslots == 6, "7 thresholds, 5 distinct (-0 is 0)");
	for (int i = 0; i < 5000; i++)
	{
		v[i] = floor(at_rng_uniform(&r) * 12) - 1;
		w[i] = floor(at_rng_uniform(&r) * 100);
		at_bins_add(&h, v[i], w[i]);
		at_bins_add(&parts[i % 3], v[i], w[i]);
	}
	at_bins_cdf(&h, out, scratch);
	for (int k = 0; k < 7; k++)
	{
		double		ws = 0,
					wt = 0;

		for (int i = 0; i < 5000; i++)
		{
			wt += w[i];
			ws += v[i] <= t[k] ? w[i] : 0;
		}
		if (out[k] != ws / wt * 100)
			bad++;
	}
	CHECK(bad == 0, "weighted CDF equals brute force at 7 thresholds in the given order");
	for (int p = 0; p < 3; p++)
		at_bins_merge(&sum, &parts[p]);
	CHECK(sum.n == h.n && memcmp(sum.counts, h.counts, 6 * sizeof(int64_t)) == 0 &&
		  memcmp(sum.weights, h.weights, 6 * sizeof(double)) == 0, "3 merged parts equal the whole");
	CHECK(at_bins_same_shape(&sum, &h), "same shape");
	for (int p = 0; p < 3; p++)
		at_bins_free(&parts[p], tap_mem, NULL);
	at_bins_free(&sum, tap_mem, NULL);
	at_bins_free(&h, tap_mem, NULL);
}

static void
test_serial(void)
{
	static const double e[] = {0, 1, 2, 4, 8};
	at_bins		hs[4],
				back;
	at_rng		r;
	int			bad = 0,
				accepted = 0;

	at_rng_seed(&r, 5);
	at_bins_init(&hs[0], AT_BINS_EQUAL, 0, 100, 10, NULL, 0, tap_mem, NULL);
	at_bins_init(&hs[1], AT_BINS_EDGES, 0, 0, 0, e, 5, tap_mem, NULL);
	at_bins_init(&hs[2], AT_BINS_CDF, 0, 0, 0, (const double[]) {4, 2, 4}, 3, tap_mem, NULL);
	at_bins_init(&hs[3], AT_BINS_WCDF, 0, 0, 0, e, 5, tap_mem, NULL);
	for (int i = 0; i < 1000; i++)
		for (int k = 0; k < 4; k++)
			at_bins_add(&hs[k], at_rng_uniform(&r) * 120 - 10, 1 + i % 7);
	for (int k = 0; k < 4; k++)
	{
		size_t		n = at_bins_encoded_size(&hs[k]);
		unsigned char *b = malloc(n),
				   *m = malloc(n);
		const char *msg;
		int			trunc_ok = 1;

		at_bins_encode(&hs[k], b);
		msg = at_bins_decode(&back, b, n, tap_mem, NULL);
		CHECK(msg == NULL && at_bins_same_shape(&back, &hs[k]) && back.n == hs[k].n &&
			  memcmp(back.counts, hs[k].counts, hs[k].nslots * sizeof(int64_t)) == 0,
			  "kind %d: round trip (%zu bytes)", k + 1, n);
		if (msg == NULL)
			at_bins_free(&back, tap_mem, NULL);
		for (size_t cut = 0; cut < n; cut++)
			if (at_bins_decode(&back, b, cut, tap_mem, NULL) == NULL)
			{
				trunc_ok = 0;
				at_bins_free(&back, tap_mem, NULL);
			}
		CHECK(trunc_ok, "kind %d: every truncation refused", k + 1);
		for (int it = 0; it < 5000; it++)
		{
			memcpy(m, b, n);
			for (int e2 = 0; e2 < 1 + it % 3; e2++)
				m[at_rng_next(&r) % n] ^= (unsigned char) (1u << (at_rng_next(&r) % 8));
			if (at_bins_decode(&back, m, n, tap_mem, NULL) == NULL)
			{
				double	   *out = malloc((back.nin + 1) * sizeof(double)),
						   *scratch = malloc((back.nparams + 1) * sizeof(double));

				int64_t		c = 0,
							n0 = back.n;

				accepted++;
				for (int32_t s = 0; s < back.nslots; s++)
					c += back.counts[s];
				if (c != back.n)
					bad++;
				if (back.kind >= AT_BINS_CDF && back.n > 0 && (back.kind == AT_BINS_CDF || back.wtotal > 0))
				{
					at_bins_cdf(&back, out, scratch);
					for (int32_t i = 0; i < back.nin; i++)
						if (!(out[i] >= 0 && out[i] <= 100 * (1 + 1e-9)))
							bad++;
				}
				at_bins_add(&back, 3.0, 1.0);
				if (back.n != n0 + 1)
					bad++;
				free(out);
				free(scratch);
				at_bins_free(&back, tap_mem, NULL);
			}
		}
		free(b);
		free(m);
	}
	CHECK(bad == 0, "20,000 mutated states: refused, or accepted (%d) with counts adding up and CDFs within 0..100", accepted);
	for (int k = 0; k < 4; k++)
		at_bins_free(&hs[k], tap_mem, NULL);
}

/*
 * Fuzz regression (test/fuzz/corpus/bins/regress-wcdf-slots-past-dbl-max):
 * each weight leaves the total finite, as weighted_cdf_at checks, because
 * the additions round it down to DBL_MAX; the slots summed for the CDF, and
 * by the reader, passed it: the CDF was infinite and the state refused.
 */
static void
test_weights_at_dbl_max(void)
{
	at_bins		h,
				back;
	double		out[2],
				scratch[2];
	unsigned char *b;
	const char *msg;

	at_bins_init(&h, AT_BINS_WCDF, 0, 0, 0, (const double[]) {0, 1}, 2, tap_mem, NULL);
	at_bins_add(&h, 0, DBL_MAX);
	for (int i = 0; i < 6; i++)
		at_bins_add(&h, 1, 2.6e291);
	at_bins_cdf(&h, out, scratch);
	CHECK(h.wtotal == DBL_MAX && out[0] == 100 && out[1] >= 100 && out[1] <= 100 * (1 + 1e-9),
		  "weights summing past DBL_MAX: CDF %g, %g", out[0], out[1]);
	b = malloc(at_bins_encoded_size(&h));
	at_bins_encode(&h, b);
	msg = at_bins_decode(&back, b, at_bins_encoded_size(&h), tap_mem, NULL);
	CHECK(msg == NULL, "and their state reads back (%s)", msg ? msg : "ok");
	if (msg == NULL)
		at_bins_free(&back, tap_mem, NULL);
	free(b);
	{
		/* two finite totals whose sum is not: merge refuses, dst unchanged */
		at_bins	other;

		at_bins_init(&other, AT_BINS_WCDF, 0, 0, 0, (const double[]) {0, 1}, 2, tap_mem, NULL);
		at_bins_add(&other, 1, DBL_MAX);
		CHECK(at_bins_merge(&other, &h) == -2 && other.wtotal == DBL_MAX && other.n == 1,
			  "merging weights past DBL_MAX is refused (-2) and changes nothing");
		at_bins_free(&other, tap_mem, NULL);
	}
	at_bins_free(&h, tap_mem, NULL);
}

void
test_bins(void)
{
	test_slots();
	test_cdf();
	test_serial();
	test_weights_at_dbl_max();
}
