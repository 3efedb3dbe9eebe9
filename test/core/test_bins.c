/* test_bins.c: bins and CDF states against brute force; the serial and text forms. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bins.h"
#include "rng.h"
#include "samples.h"
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

/* bins_state's text form: v1: and the serialized bytes in hexadecimal. */
static void
test_text(void)
{
	at_bins		h,
				back,
				copy;
	size_t		pos;
	const char *msg;
	char	   *t,
			   *u;
	size_t		n;

	at_bins_init(&h, AT_BINS_EQUAL, 0, 10, 2, NULL, 0, tap_mem, NULL);
	at_bins_add(&h, 1, 0);
	at_bins_add(&h, 11, 0);
	n = at_bins_text_size(&h);
	t = malloc(n);
	at_bins_format(&h, t);
	CHECK(strlen(t) + 1 == n && strcmp(t, "v1:"
									   "01010000" "00000004" "00000002" "00000000"
									   "0000000000000002" "0000000000000000"
									   "0000000000000000" "4024000000000000"
									   "0000000000000000" "0000000000000001"
									   "0000000000000000" "0000000000000001") == 0,
		  "bins(x, 0, 10, 2) over {1, 11}: %s", t);
	msg = at_bins_parse(&back, t, strlen(t), tap_mem, NULL, &pos);
	CHECK(msg == NULL && at_bins_same_shape(&back, &h) && back.n == 2 && back.counts[1] == 1 && back.counts[3] == 1,
		  "its text reads back (%s)", msg ? msg : "ok");
	if (msg == NULL)
		at_bins_free(&back, tap_mem, NULL);
	/* upper-case digits read too */
	u = malloc(strlen(t) + 1);
	memcpy(u, t, strlen(t) + 1);
	for (char *c = u + 3; *c; c++)
		if (*c >= 'a' && *c <= 'f')
			*c = (char) (*c - 'a' + 'A');
	msg = at_bins_parse(&back, u, strlen(u), tap_mem, NULL, &pos);
	CHECK(msg == NULL, "upper-case hexadecimal reads");
	if (msg == NULL)
		at_bins_free(&back, tap_mem, NULL);
	{
		static const struct
		{
			const char *text;
			size_t		pos;
		}			bad[] = {
			{"", 0}, {"v1", 0}, {"V1:00", 0}, {"v2:00", 0}, {" v1:", 0}, {"v1:0", 4},
			{"v1:0g", 4}, {"v1: 0", 3}, {"v1:", 3}, {"v1:0101", 3},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			msg = at_bins_parse(&back, bad[i].text, strlen(bad[i].text), tap_mem, NULL, &pos);
			CHECK(msg != NULL && pos == bad[i].pos && back.counts == NULL,
				  "'%s' refused at %zu (%s, at %zu)", bad[i].text, bad[i].pos, msg ? msg : "accepted", pos);
			if (msg == NULL)
				at_bins_free(&back, tap_mem, NULL);
		}
	}
	/* trailing characters and a wrong count are the decoder's to refuse */
	{
		size_t		l = strlen(t);
		char	   *w = malloc(l + 3);

		memcpy(w, t, l);
		memcpy(w + l, "00", 3);
		CHECK(at_bins_parse(&back, w, l + 2, tap_mem, NULL, &pos) != NULL, "a byte too many refused");
		memcpy(w, t, l + 1);
		w[l - 1] = '2';			/* the above-hi count 2: counts add to 3, n is 2 */
		CHECK(at_bins_parse(&back, w, l, tap_mem, NULL, &pos) != NULL, "counts that do not add up refused");
		free(w);
	}
	pos = (size_t) at_bins_copy(&copy, &h, tap_mem, NULL);	/* CHECK evaluates its condition twice */
	CHECK(pos == 0 && at_bins_same_shape(&copy, &h) && copy.n == h.n &&
		  memcmp(copy.counts, h.counts, (size_t) h.nslots * sizeof(int64_t)) == 0, "copy");
	at_bins_free(&copy, tap_mem, NULL);
	free(u);
	free(t);
	at_bins_free(&h, tap_mem, NULL);

	/* every kind through text and back, weights included */
	for (int k = AT_BINS_EQUAL; k <= AT_BINS_WCDF; k++)
	{
		static const double v[] = {3, -1, 0.5, 2, 2},
					e[] = {-1, 0.5, 2};
		const char *m;

		at_bins_init(&h, (at_bins_kind) k, -1, 4, 5, k == AT_BINS_EDGES ? e : v, k == AT_BINS_EDGES ? 3 : 5,
					 tap_mem, NULL);
		for (int i = 0; i < 50; i++)
			at_bins_add(&h, i / 10.0 - 1.5, i % 3);
		t = malloc(at_bins_text_size(&h));
		at_bins_format(&h, t);
		m = at_bins_parse(&back, t, strlen(t), tap_mem, NULL, &pos);
		CHECK(m == NULL && at_bins_same_shape(&back, &h) && back.n == 50 && back.wtotal == h.wtotal &&
			  memcmp(back.counts, h.counts, (size_t) h.nslots * sizeof(int64_t)) == 0 &&
			  (k != AT_BINS_WCDF || memcmp(back.weights, h.weights, (size_t) h.nslots * sizeof(double)) == 0),
			  "kind %d: text round trip (%s)", k, m ? m : "ok");
		if (m == NULL)
		{
			char	   *t2 = malloc(at_bins_text_size(&back));

			at_bins_format(&back, t2);
			CHECK(strcmp(t, t2) == 0, "kind %d: the same text again", k);
			free(t2);
			at_bins_free(&back, tap_mem, NULL);
		}
		free(t);
		at_bins_free(&h, tap_mem, NULL);
	}
}

/*
 * Counting integers by a slot table (striped counters for few slots, a
 * plain loop for many or few values) gives the plain loop's counts, added
 * to what the counts held.
 */
static void
test_count_slots(void)
{
	at_rng		r;
	int			bad = 0,
				runs = 0;

	at_rng_seed(&r, 12);
	for (int32_t nslots = 1; nslots <= 130; nslots += nslots < 70 ? 3 : 29)
		for (int32_t n = 0; n <= 300; n += n < 40 ? 1 : 37)
		{
			int32_t		slot[200];
			int64_t		m[300],
						lo = (int64_t) (at_rng_next(&r) % 1000) - 500,
						got[130],
						want[130];

			for (int j = 0; j < 200; j++)
				slot[j] = (int32_t) (at_rng_next(&r) % (uint64_t) nslots);
			for (int32_t i = 0; i < n; i++)
				/* runs of one slot as often as not: the stripes' case */
				m[i] = lo + (i > 0 && at_rng_next(&r) % 2 ? m[i - 1] - lo : (int64_t) (at_rng_next(&r) % 200));
			for (int32_t k = 0; k < nslots; k++)
				got[k] = want[k] = k * 7;
			for (int32_t i = 0; i < n; i++)
				want[slot[m[i] - lo]]++;
			at_bins_count_slots(got, nslots, slot, lo, m, n);
			bad += memcmp(got, want, sizeof(int64_t) * (size_t) nslots) != 0;
			runs++;
		}
	CHECK(bad == 0 && runs > 1000, "counting by a slot table = the plain loop: %d bad of %d", bad, runs);
}

/* ---- samples blocks ---- */

#define BLOCK_N 3000

/* values of shape k: 3-decimal percents; few integers; raw doubles; integers too far apart; runs of one value */
static double
block_value(at_rng *r, int shape, int32_t i, double prev)
{
	switch (shape)
	{
		case 0:
			return (double) (int64_t) (at_rng_next(r) % 100001) / 1000;
		case 1:
			return (double) (at_rng_next(r) % 101);
		case 2:
			return at_rng_uniform(r) * 100;
		case 3:
			return (double) (int64_t) (at_rng_next(r) % 3) * 4e6 + (double) (at_rng_next(r) % 10);
		default:
			return i % 200 < 150 && i > 0 ? prev : (double) ((int64_t) (at_rng_next(r) % 2001) * 5 - 500) / 100;
	}
}

/* A new block of n samples of shape (caller frees *ts, *v and the block). */
static unsigned char *
make_block(at_rng *r, int shape, int32_t n, int64_t **ts, double **v, size_t *len)
{
	unsigned char *b = malloc(at_samples_encode_bound(n));

	*ts = malloc(sizeof(int64_t) * (size_t) n);
	*v = malloc(sizeof(double) * (size_t) n);
	for (int32_t i = 0; i < n; i++)
	{
		(*ts)[i] = 741484800000000 + (int64_t) i * 15000000;
		(*v)[i] = block_value(r, shape, i, i > 0 ? (*v)[i - 1] : 0);
	}
	*len = at_samples_encode(*ts, *v, n, b);
	return b;
}

static void
init_kind(at_bins *h, int kind)
{
	static const double e[] = {-1, 0, 0.5, 10, 33.3, 50, 99.999, 100, 4e6};
	static const double t[] = {90, 0, 10.001, 50, 50, 100, -3, 4000000};

	if (kind == AT_BINS_EQUAL)
		at_bins_init(h, AT_BINS_EQUAL, 0, 100, 10, NULL, 0, tap_mem, NULL);
	else if (kind == AT_BINS_EDGES)
		at_bins_init(h, AT_BINS_EDGES, 0, 0, 0, e, 9, tap_mem, NULL);
	else
		at_bins_init(h, AT_BINS_CDF, 0, 0, 0, t, 8, tap_mem, NULL);
}

static int
same_counts(const at_bins *a, const at_bins *b)
{
	return a->n == b->n && memcmp(a->counts, b->counts, sizeof(int64_t) * (size_t) a->nslots) == 0;
}

/*
 * Counting a block (by its value counts, a slot table or value by value)
 * and a window of its integers count what decoding and at_bins_add count;
 * one table serves block after block, widened or rebuilt.
 */
static void
test_blocks(void)
{
	at_rng		r;
	int			bad = 0,
				runs = 0,
				tabled = 0,
				counted = 0;

	at_rng_seed(&r, 32);
	for (int kind = AT_BINS_EQUAL; kind <= AT_BINS_CDF; kind++)
	{
		at_bins		got,
					want;
		at_bins_slots slots = {0};

		init_kind(&got, kind);
		init_kind(&want, kind);
		for (int round = 0; round < 3; round++)
			for (int shape = 0; shape < 5; shape++)
			{
				int64_t    *ts;
				double	   *v;
				size_t		len;
				int32_t		n = 1 + (int32_t) (at_rng_next(&r) % BLOCK_N);
				unsigned char *b = make_block(&r, shape, n, &ts, &v, &len);
				int64_t		cm[AT_SAMPLES_COUNTS_MAX],
							cc[AT_SAMPLES_COUNTS_MAX];

				counted += at_samples_counts(b, cm, cc) > 0;
				at_bins_add_block(&got, &slots, b, len, tap_mem, NULL);
				at_samples_decode(b, len, NULL, v);
				at_bins_add_values(&want, v, n);
				{
					at_samples_info info;
					int64_t		mlo,
								mhi;

					at_samples_info_read(b, &info);
					if (info.scale >= 0 && at_samples_counts(b, cm, cc) == 0)
					{
						at_samples_int_bounds(&info, &mlo, &mhi);
						tabled += mhi - mlo < AT_BINS_SLOT_TABLE_MAX;
					}
				}
				bad += !same_counts(&got, &want);
				runs++;
				free(ts);
				free(v);
				free(b);
			}
		at_bins_slots_free(&slots, tap_mem, NULL);
		at_bins_free(&got, tap_mem, NULL);
		at_bins_free(&want, tap_mem, NULL);
	}
	CHECK(bad == 0 && runs == 45 && tabled > 10 && counted > 3,
		  "blocks counted (%d by a table, %d by their value counts) = decoded and added: %d bad of %d", tabled,
		  counted, bad, runs);
}

static void
test_windows(void)
{
	at_rng		r;
	int			bad = 0,
				runs = 0,
				wide = 0;

	at_rng_seed(&r, 33);
	for (int it = 0; it < 60; it++)
	{
		int			shape = it % 5 == 2 ? 0 : it % 5;
		int64_t    *ts,
				   *wts,
				   *wm,
					mlo,
					mhi;
		double	   *v,
				   *wv;
		size_t		len;
		at_samples_info info;
		unsigned char *b = make_block(&r, shape, BLOCK_N, &ts, &v, &len);
		int64_t		from = ts[at_rng_next(&r) % BLOCK_N],
					to = from + (int64_t) (at_rng_next(&r) % 1000) * 15000000 + 1;
		int32_t		room = at_samples_window_room(b, from, to),
					n;
		at_bins		got,
					want;
		at_bins_slots slots = {0};

		at_samples_info_read(b, &info);
		wts = malloc(sizeof(int64_t) * (size_t) room);
		wm = malloc(sizeof(int64_t) * (size_t) room);
		wv = malloc(sizeof(double) * (size_t) room);
		n = at_samples_window(b, len, from, to, wts, NULL, wm);
		at_samples_window(b, len, from, to, wts, wv, NULL);
		at_samples_int_bounds(&info, &mlo, &mhi);
		init_kind(&got, AT_BINS_EQUAL + it % 3);
		init_kind(&want, AT_BINS_EQUAL + it % 3);
		if (at_bins_add_scaled(&got, &slots, wm, n, info.scale, mlo, mhi, tap_mem, NULL) != 0)
		{
			/* too wide for a table: nothing counted */
			wide++;
			bad += got.n != 0 || slots.slot_of != NULL;
			at_bins_add_values(&got, wv, n);
		}
		at_bins_add_values(&want, wv, n);
		bad += !same_counts(&got, &want);
		runs++;
		at_bins_slots_free(&slots, tap_mem, NULL);
		at_bins_free(&got, tap_mem, NULL);
		at_bins_free(&want, tap_mem, NULL);
		free(ts);
		free(v);
		free(b);
		free(wts);
		free(wm);
		free(wv);
	}
	CHECK(bad == 0 && wide >= 10 && wide < runs, "windows' integers counted by a table = their values: %d bad of %d (%d too wide)",
		  bad, runs, wide);
}

/* The table: reused inside, widened over a small union, NULL when too wide or out of memory. */
static void
test_slot_table(void)
{
	at_bins		h;
	at_bins_slots t = {0};
	tap_counted c = {0, 0, 0};
	const int32_t *a;
	int			ok;

	init_kind(&h, AT_BINS_EQUAL);
	a = at_bins_slot_table(&h, &t, 1, 0, 1000, tap_mem, NULL);
	ok = a != NULL && t.lo == 0 && t.n == 1001 && a[0] == 1 && a[999] == 10 && a[1000] == 10;
	ok &= at_bins_slot_table(&h, &t, 1, 10, 20, tap_mem, NULL) == a;
	a = at_bins_slot_table(&h, &t, 1, -50, 500, tap_mem, NULL);
	ok &= a != NULL && t.lo == -50 && t.n == 1051 && a[0] == 0 && a[50] == 1;
	a = at_bins_slot_table(&h, &t, 2, 0, 10000, tap_mem, NULL);
	ok &= a != NULL && t.lo == 0 && t.n == 10001 && t.scale == 2 && a[10000] == 10 && a[5000] == 6;
	ok &= at_bins_slot_table(&h, &t, 2, 0, AT_BINS_SLOT_TABLE_MAX, tap_mem, NULL) == NULL && t.slot_of != NULL;
	a = at_bins_slot_table(&h, &t, 2, AT_BINS_SLOT_TABLE_MAX, AT_BINS_SLOT_TABLE_MAX + 10, tap_mem, NULL);
	ok &= a != NULL && t.lo == AT_BINS_SLOT_TABLE_MAX && t.n == 11;
	at_bins_slots_free(&t, tap_mem, NULL);
	c.fail_at = 1;
	ok &= at_bins_slot_table(&h, &t, 0, 0, 100, tap_counted_mem, &c) == NULL && t.slot_of == NULL && c.live == 0;
	CHECK(ok, "slot table: reused, widened, rebuilt, refused when too wide, NULL out of memory");
	{
		/* without memory for a table a block is counted value by value */
		at_rng		r;
		int64_t    *ts;
		double	   *v;
		size_t		len;
		unsigned char *b;
		at_bins		want;

		at_rng_seed(&r, 35);
		b = make_block(&r, 0, BLOCK_N, &ts, &v, &len);
		init_kind(&want, AT_BINS_EQUAL);
		at_bins_add_values(&want, v, BLOCK_N);
		c.calls = 0;
		at_bins_add_block(&h, &t, b, len, tap_counted_mem, &c);
		CHECK(same_counts(&h, &want) && t.slot_of == NULL && c.live == 0,
			  "a block counted without memory for a table = its values counted");
		at_bins_free(&want, tap_mem, NULL);
		free(ts);
		free(v);
		free(b);
	}
	at_bins_free(&h, tap_mem, NULL);
}

void
test_bins(void)
{
	test_slots();
	test_count_slots();
	test_blocks();
	test_windows();
	test_slot_table();
	test_cdf();
	test_serial();
	test_weights_at_dbl_max();
	test_text();
}
