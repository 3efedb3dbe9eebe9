/*
 * fuzz_sketch.h: checks both sketch harnesses run on every sketch the core
 * accepts (parsed from text or decoded from bytes).
 */
#ifndef ACMETRACE_FUZZ_SKETCH_H
#define ACMETRACE_FUZZ_SKETCH_H

#include "fuzz_common.h"
#include "sketch.h"

#define HAS_BUCKETS(sk) ((sk)->first <= (sk)->last)

/* Same fields, same bucket counts (the arrays' slack may differ). */
static int
sk_equal(const at_sketch *a, const at_sketch *b)
{
	if (!fuzz_same_double(a->alpha, b->alpha) || a->count != b->count || a->zeros != b->zeros ||
		!fuzz_same_double(a->min, b->min) || !fuzz_same_double(a->max, b->max) ||
		!fuzz_same_double(a->sum, b->sum) || a->integral != b->integral)
		return 0;
	if (HAS_BUCKETS(a) != HAS_BUCKETS(b))
		return 0;
	if (!HAS_BUCKETS(a))
		return 1;
	if (a->first != b->first || a->last != b->last)
		return 0;
	for (int32_t i = a->first; i <= a->last; i++)
		if (a->counts[i - a->lo] != b->counts[i - b->lo])
			return 0;
	return 1;
}

/* The occupied range lies in the array, and its ends are not empty. */
static void
sk_layout(const at_sketch *sk)
{
	if (!HAS_BUCKETS(sk))
		return;
	FUZZ_CHECK(sk->counts != NULL && sk->first >= sk->lo &&
			   (int64_t) sk->last - sk->lo < (int64_t) sk->cap, "buckets %d..%d outside the array %d+%u",
			   sk->first, sk->last, sk->lo, sk->cap);
	FUZZ_CHECK(sk->counts[sk->first - sk->lo] != 0 && sk->counts[sk->last - sk->lo] != 0,
			   "an end of the occupied range is empty");
}

/* The text form, re-parsed, gives the same sketch and the same text. */
static void
sk_text_roundtrip(const at_sketch *sk)
{
	size_t		n = at_sk_format(sk, NULL, 0),
				pos = 0;
	char	   *t = malloc(n + 1),
			   *t2;
	at_sketch	back;
	const char *msg;

	FUZZ_CHECK(at_sk_format(sk, t, n + 1) == n && strlen(t) == n, "format length");
	/* a short buffer is cut and still terminated, never overrun */
	if (n > 0)
	{
		char	   *cut = malloc(n / 2 + 1);

		FUZZ_CHECK(at_sk_format(sk, cut, n / 2 + 1) == n && strlen(cut) == n / 2 &&
				   memcmp(cut, t, n / 2) == 0, "format into a short buffer");
		free(cut);
	}
	msg = at_sk_parse(&back, t, fuzz_mem, &fuzz_live, &pos);
	FUZZ_CHECK(msg == NULL, "own text \"%s\" rejected: %s at %zu", t, msg, pos);
	FUZZ_CHECK(sk_equal(sk, &back), "text \"%s\" re-parses to another sketch", t);
	t2 = malloc(n + 1);
	FUZZ_CHECK(at_sk_format(&back, t2, n + 1) == n && strcmp(t, t2) == 0, "text not stable: \"%s\" vs \"%s\"", t, t2);
	free(t2);
	free(t);
	at_sk_free(&back);
}

/* encode(sk) decodes to the same sketch, and encodes to the same bytes. */
static void
sk_binary_roundtrip(const at_sketch *sk)
{
	size_t		bound = at_sk_encoded_bound(sk),
				n,
				n2;
	unsigned char *b = malloc(bound),
			   *b2;
	at_sketch	back;
	const char *msg;

	n = at_sk_encode(sk, b);
	FUZZ_CHECK(n <= bound && n >= AT_SK_HEADER, "encoded %zu bytes, bound %zu", n, bound);
	/* the expanded aggregate state's flat size */
	FUZZ_CHECK(n == at_sk_encoded_size(sk), "encoded %zu bytes, at_sk_encoded_size %zu", n, at_sk_encoded_size(sk));
	msg = at_sk_decode(&back, b, n, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(msg == NULL, "own encoding rejected: %s", msg);
	FUZZ_CHECK(sk_equal(sk, &back), "encoding decodes to another sketch");
	b2 = malloc(at_sk_encoded_bound(&back));
	n2 = at_sk_encode(&back, b2);
	FUZZ_CHECK(n2 == n && memcmp(b, b2, n) == 0, "encoding not canonical");
	free(b2);
	free(b);
	at_sk_free(&back);
}

static const double sk_qgrid[] = {
	0, 1e-300, 0.001, 0.01, 0.05, 0.1, 0.25, 0.3333333333333333, 0.5, 0.75, 0.9, 0.95,
	0.99, 0.999, 0.9999999999999999, 1
};
#define SK_NQ (sizeof(sk_qgrid) / sizeof(sk_qgrid[0]))
#define SK_NX 49

/*
 * Quantiles and ranks: in range, monotone, and the same with and without
 * the prefix sums (the accessors prepare, the aggregates do not).  extra
 * are rank points from the input.  Leaves sk prepared.
 */
static void
sk_queries(at_sketch *sk, const double *extra, int nextra)
{
	double		qv[SK_NQ],
				xs[SK_NX + 16],
				rv[SK_NX + 16];
	int			nx = 0;
	static const double odd_q[] = {-1, -0.0, 2, INFINITY, -INFINITY, NAN};

	/* rank points: the ends, bucket boundaries, the input's values, odd ones */
	xs[nx++] = 0;
	xs[nx++] = sk->min;
	xs[nx++] = sk->max;
	xs[nx++] = nextafter(sk->min, INFINITY);
	xs[nx++] = nextafter(sk->max, -INFINITY);
	xs[nx++] = (sk->min + sk->max) / 2;
	xs[nx++] = -1;
	xs[nx++] = INFINITY;
	xs[nx++] = -INFINITY;
	xs[nx++] = NAN;
	xs[nx++] = 1;
	if (HAS_BUCKETS(sk))
		for (int k = 0; k < 16; k++)
		{
			int32_t		i = sk->first + (int32_t) ((int64_t) (sk->last - sk->first) * k / 15);

			xs[nx++] = exp((double) i * sk->ln_gamma);
			xs[nx++] = nextafter(exp((double) i * sk->ln_gamma), INFINITY);
		}
	for (int k = 0; k < nextra && nx < SK_NX; k++)
		xs[nx++] = extra[k];

	for (int pass = 0; pass < 2; pass++)
	{
		for (size_t k = 0; k < SK_NQ; k++)
		{
			double		v = -1;
			int			got = at_sk_quantile(sk, sk_qgrid[k], &v);

			FUZZ_CHECK(got == (sk->count > 0), "quantile answered %d for %llu values", got,
					   (unsigned long long) sk->count);
			if (!got)
				continue;
			FUZZ_CHECK(v >= sk->min && v <= sk->max, "quantile(%g) = %.17g outside [%.17g, %.17g]",
					   sk_qgrid[k], v, sk->min, sk->max);
			FUZZ_CHECK(k == 0 || v >= qv[k - 1], "quantile not monotone at q = %g", sk_qgrid[k]);
			FUZZ_CHECK(pass == 0 || fuzz_same_double(v, qv[k]), "quantile(%g) differs once prepared",
					   sk_qgrid[k]);
			qv[k] = v;
		}
		for (size_t k = 0; k < sizeof(odd_q) / sizeof(odd_q[0]); k++)
		{
			double		v = -1;

			if (at_sk_quantile(sk, odd_q[k], &v))
				FUZZ_CHECK(v >= sk->min && v <= sk->max, "quantile(%g) = %g out of range", odd_q[k], v);
		}
		for (int k = 0; k < nx; k++)
		{
			double		r = at_sk_rank(sk, xs[k]);

			if (sk->count == 0)
				FUZZ_CHECK(r == -1.0, "rank of an empty sketch");
			else
				FUZZ_CHECK(r >= 0 && r <= 1, "rank(%.17g) = %g", xs[k], r);
			FUZZ_CHECK(pass == 0 || fuzz_same_double(r, rv[k]), "rank(%.17g) differs once prepared", xs[k]);
			rv[k] = r;
		}
		/* monotone over the points that are numbers */
		for (int a = 0; a < nx && sk->count > 0; a++)
			for (int b = 0; b < nx; b++)
				if (xs[a] < xs[b])
					FUZZ_CHECK(rv[a] <= rv[b], "rank(%.17g) = %.17g > rank(%.17g) = %.17g",
							   xs[a], rv[a], xs[b], rv[b]);
		if (pass == 0)
			FUZZ_CHECK(at_sk_prepare(sk) == AT_SK_OK, "prepare failed");
	}
}

/*
 * Merging: into an empty sketch twice (combine does that), and a sketch
 * with itself.  The result doubles every count, or the merge refuses.
 */
static void
sk_merges(const at_sketch *sk, const unsigned char *enc, size_t enclen)
{
	at_sketch	d,
				self;
	at_sk_err	e;
	const char *msg;

	at_sk_init(&d, sk->alpha, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(at_sk_merge(&d, sk) == AT_SK_OK, "merge into an empty sketch");
	FUZZ_CHECK(sk_equal(&d, sk), "merge into an empty sketch is a copy");
	e = at_sk_merge(&d, sk);
	if (e == AT_SK_OK)
	{
		FUZZ_CHECK(d.count == 2 * sk->count && d.zeros == 2 * sk->zeros, "doubled counts");
		if (HAS_BUCKETS(sk))
			for (int32_t i = sk->first; i <= sk->last; i++)
				FUZZ_CHECK(d.counts[i - d.lo] == 2 * sk->counts[i - sk->lo], "doubled bucket %d", i);
		msg = at_sk_check(&d);
		FUZZ_CHECK(msg == NULL, "doubled sketch fails the check: %s", msg);
		sk_queries(&d, NULL, 0);
	}
	else
	{
		FUZZ_CHECK(e == AT_SK_EOVERFLOW || e == AT_SK_ESUM, "merge: %s", at_sk_strerror(e));
		FUZZ_CHECK(sk_equal(&d, sk), "a refused merge changed the sketch");
	}
	at_sk_free(&d);

	/* the same with the very same sketch as source and destination */
	msg = at_sk_decode(&self, enc, enclen, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(msg == NULL, "re-decode: %s", msg);
	e = at_sk_merge(&self, &self);
	if (e == AT_SK_OK)
		FUZZ_CHECK(self.count == 2 * sk->count && at_sk_check(&self) == NULL, "self merge");
	at_sk_free(&self);

	/* a different relative error is refused, whatever the sketches hold */
	at_sk_init(&d, sk->alpha == AT_SK_DEFAULT_ERROR ? 0.01 : AT_SK_DEFAULT_ERROR, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(at_sk_merge(&d, sk) == AT_SK_EALPHA, "merge of different errors");
	at_sk_free(&d);
}

/*
 * rollup and combine merge sketches with different contents: merged either
 * way round, the result is the same and passes the check.  other holds
 * the values vals, added as the aggregate adds them.
 */
static void
sk_merge_other(const at_sketch *sk, const unsigned char *enc, size_t enclen, const double *vals, int nvals)
{
	at_sketch	other,
				a,
				b;
	at_sk_err	ea,
				eb;
	const char *msg;

	at_sk_init(&other, sk->alpha, fuzz_mem, &fuzz_live);
	for (int k = 0; k < nvals; k++)
		(void) at_sk_add(&other, vals[k]);
	FUZZ_CHECK(at_sk_check(&other) == NULL, "a sketch of added values fails the check");
	msg = at_sk_decode(&a, enc, enclen, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(msg == NULL, "re-decode: %s", msg);
	ea = at_sk_merge(&a, &other);
	at_sk_init(&b, sk->alpha, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(at_sk_merge(&b, &other) == AT_SK_OK, "copy of the added values");
	eb = at_sk_merge(&b, sk);
	FUZZ_CHECK(ea == eb, "merge refused one way only: %s, %s", at_sk_strerror(ea), at_sk_strerror(eb));
	if (ea == AT_SK_OK)
	{
		msg = at_sk_check(&a);
		FUZZ_CHECK(msg == NULL, "merged sketch fails the check: %s", msg);
		FUZZ_CHECK(sk_equal(&a, &b), "merge depends on the order");
		FUZZ_CHECK(a.count == sk->count + other.count, "merged count");
	}
	else
		FUZZ_CHECK(sk_equal(&a, sk), "a refused merge changed the sketch");
	at_sk_free(&a);
	at_sk_free(&b);
	at_sk_free(&other);
}

/* Adding values to an accepted sketch keeps it consistent (rollup adds). */
static void
sk_adds(const at_sketch *sk, const unsigned char *enc, size_t enclen, const double *vals, int nvals)
{
	at_sketch	a;
	const char *msg = at_sk_decode(&a, enc, enclen, fuzz_mem, &fuzz_live);

	static const double odd[] = {-1, -0.0, NAN, INFINITY, 1e-320, 1.7976931348623157e308, 0.5, 3, 0};

	FUZZ_CHECK(msg == NULL, "re-decode: %s", msg);
	(void) sk;
	for (int k = 0; k < nvals + (int) (sizeof(odd) / sizeof(odd[0])); k++)
	{
		double		x = k < nvals ? vals[k] : odd[k - nvals];
		uint64_t	before = a.count;
		at_sk_err	e = k % 2 ? at_sk_add_fast(&a, x) : at_sk_add(&a, x);

		if (e == AT_SK_OK)
			FUZZ_CHECK(a.count == before + 1, "add did not count");
		else
			FUZZ_CHECK(a.count == before, "a refused add counted: %s", at_sk_strerror(e));
		msg = at_sk_check(&a);
		FUZZ_CHECK(msg == NULL, "after adding %.17g: %s", x, msg);
	}
	sk_layout(&a);
	at_sk_free(&a);
}

/* Everything above, on a sketch the core accepted; frees nothing of sk. */
static void
sk_exercise(at_sketch *sk, const double *vals, int nvals)
{
	const char *msg = at_sk_check(sk);
	size_t		bound = at_sk_encoded_bound(sk),
				n;
	unsigned char *enc = malloc(bound);

	FUZZ_CHECK(msg == NULL, "accepted sketch fails the check: %s", msg);
	sk_layout(sk);
	n = at_sk_encode(sk, enc);
	sk_text_roundtrip(sk);
	sk_binary_roundtrip(sk);
	sk_merges(sk, enc, n);
	sk_merge_other(sk, enc, n, vals, nvals);
	sk_adds(sk, enc, n, vals, nvals);
	sk_queries(sk, vals, nvals);
	free(enc);
}

#endif
