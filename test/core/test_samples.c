/*
 * test_samples.c: the sample block codec: round trips bit for bit, the
 * iterators, slices and sums against decode and simple references, sizes,
 * sorting and merging, and the check against truncated and mutated blocks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "samples.h"
#include "tap.h"

#define T0		((int64_t) 741484800000000)	/* 2023-07-01 00:00:00 UTC */
#define STEP	((int64_t) 15000000)

static int
same(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

static int64_t
sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* sum of integers as text with scale decimals: magnitudes in base 10^9 limbs */
static void
ref_sum_text(const int64_t *m, int32_t n, int scale, char *out)
{
	uint64_t	pos[4] = {0},
				neg[4] = {0},
			   *big,
			   *small,
				d[4];
	char		digits[64];
	int			nd = 0,
				sign,
				cmp = 0;

	for (int32_t i = 0; i < n; i++)
	{
		uint64_t   *acc = m[i] < 0 ? neg : pos;
		uint64_t	a = m[i] < 0 ? (uint64_t) 0 - (uint64_t) m[i] : (uint64_t) m[i];

		acc[0] += a % 1000000000;
		acc[1] += a / 1000000000;
		for (int k = 0; k < 3; k++)
		{
			acc[k + 1] += acc[k] / 1000000000;
			acc[k] %= 1000000000;
		}
	}
	for (int k = 3; k >= 0 && cmp == 0; k--)
		cmp = pos[k] > neg[k] ? 1 : pos[k] < neg[k] ? -1 : 0;
	sign = cmp < 0;
	big = sign ? neg : pos;
	small = sign ? pos : neg;
	for (int k = 0, borrow = 0; k < 4; k++)
	{
		int64_t		x = (int64_t) big[k] - (int64_t) small[k] - borrow;

		borrow = x < 0;
		d[k] = (uint64_t) (x < 0 ? x + 1000000000 : x);
	}
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < 9; j++)
		{
			digits[nd++] = (char) ('0' + d[k] % 10);
			d[k] /= 10;
		}
	while (nd > scale + 1 && digits[nd - 1] == '0')
		nd--;
	if (sign)
		*out++ = '-';
	while (nd > 0)
	{
		*out++ = digits[--nd];
		if (nd == scale && nd > 0)
			*out++ = '.';
	}
	*out = '\0';
}

/*
 * Encodes, then checks every reader against the input: check and info,
 * decode, both iterators, sum, slices at a few windows.  Returns the
 * encoded size, or 0 after a failed CHECK.
 */
static size_t
roundtrip(const char *name, const int64_t *ts, const double *v, int32_t n, int want_scale)
{
	unsigned char *b = malloc(at_samples_encode_bound(n)),
			   *s = malloc(at_samples_encode_bound(n));
	int64_t    *dts = malloc(sizeof(int64_t) * (size_t) n),
			   *m = malloc(sizeof(int64_t) * (size_t) n);
	double	   *dv = malloc(sizeof(double) * (size_t) n);
	size_t		len = at_samples_encode(ts, v, n, b);
	at_samples_info info;
	const char *msg = at_samples_check(b, len, &info);
	int			ok = 1,
				got;
	double		mn = v[0],
				mx = v[0];
	char		sum[64],
				ref[80];

	for (int32_t i = 1; i < n; i++)
	{
		if (v[i] < mn)
			mn = v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	CHECK(msg == NULL && len <= at_samples_encode_bound(n), "%s: %d samples in %zu bytes, valid (%s)", name, n, len,
		  msg ? msg : "ok");
	if (msg != NULL)
		goto done;
	CHECK(info.n == n && info.first_ts == ts[0] && info.last_ts == ts[n - 1] && same(info.min, mn) &&
		  same(info.max, mx) && (want_scale == -2 || info.scale == want_scale),
		  "%s: header (scale %d, want %d)", name, info.scale, want_scale);
	at_samples_decode(b, len, dts, dv);
	for (int32_t i = 0; i < n; i++)
		ok &= dts[i] == ts[i] && same(dv[i], v[i]);
	CHECK(ok, "%s: decodes bit for bit", name);

	/* the iterators: constants expand to the same values */
	{
		at_samples_iter it;
		double		cv[AT_SAMPLES_CHUNK];
		int64_t		cm[AT_SAMPLES_CHUNK];
		int32_t		at = 0;
		int			constant,
					good = 1,
					nconst = 0;

		at_samples_iter_init(&it, b, len);
		while ((got = at_samples_iter_next(&it, cv, &constant)) > 0)
		{
			for (int i = 0; i < got; i++)
				good &= same(v[at + i], constant ? cv[0] : cv[i]);
			if (constant)
				for (int i = 1; i < got; i++)
					good &= same(v[at + i], v[at]);
			nconst += constant;
			at += got;
		}
		CHECK(good && at == n, "%s: iter_next gives every value (%d constant chunks)", name, nconst);
		if (info.scale >= 0)
		{
			at = 0;
			good = 1;
			at_samples_iter_init(&it, b, len);
			while ((got = at_samples_iter_next_scaled(&it, cm, &constant)) > 0)
			{
				for (int i = 0; i < got; i++)
				{
					m[at + i] = constant ? cm[0] : cm[i];
					good &= same((double) m[at + i] / p10[info.scale], v[at + i]) && llabs(m[at + i]) < (1LL << 53);
				}
				at += got;
			}
			CHECK(good && at == n, "%s: iter_next_scaled gives m with m / 10^%d the value", name, info.scale);
			ref_sum_text(m, n, info.scale, ref);
			CHECK(at_samples_sum_text(b, len, sum, sizeof(sum)) == 0 && strcmp(sum, ref) == 0,
				  "%s: sum %s (reference %s)", name, sum, ref);
		}
		else
			CHECK(at_samples_sum_text(b, len, sum, sizeof(sum)) == -1, "%s: raw doubles have no exact sum", name);
	}

	/* slices equal decode and filter */
	{
		uint64_t	span = (uint64_t) ts[n - 1] - (uint64_t) ts[0];
		int64_t		a3 = ts[0] + (int64_t) (span / 3),
					a2 = ts[0] + (int64_t) (span / 2),
					a100 = ts[0] + (int64_t) (span / 100);
		int64_t		w[][2] = {
			{ts[0], sat(ts[n - 1], 1)}, {INT64_MIN, INT64_MAX}, {ts[0], ts[0]}, {sat(ts[0], -1), ts[0]},
			{sat(ts[n - 1], 1), INT64_MAX}, {ts[0], sat(ts[0], 1)}, {ts[n - 1], sat(ts[n - 1], 1)},
			{a3, a2}, {a2, sat(a2, 1)}, {a100, sat(a100, STEP * 10)}, {ts[n / 2], ts[n / 2]},
			{ts[n / 2], sat(ts[n / 2], 1)}, {sat(ts[n / 3], 1), ts[(2 * n) / 3]}, {ts[n - 1], ts[0]}
		};
		int			good = 1;

		for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
		{
			int32_t		ns,
						want = 0,
						first = -1;
			size_t		slen = at_samples_slice(b, len, w[k][0], w[k][1], s, &ns);

			for (int32_t i = 0; i < n; i++)
				if (ts[i] >= w[k][0] && ts[i] < w[k][1])
				{
					if (first < 0)
						first = i;
					want++;
				}
			if (ns != want || (want == 0) != (slen == 0))
			{
				good = 0;
				continue;
			}
			if (want == 0)
				continue;
			if (at_samples_check(s, slen, NULL) != NULL)
			{
				good = 0;
				continue;
			}
			at_samples_decode(s, slen, dts, dv);
			for (int32_t i = 0; i < want; i++)
				good &= dts[i] == ts[first + i] && same(dv[i], v[first + i]);
		}
		CHECK(good, "%s: slices equal decode and filter", name);
	}
done:
	free(b);
	free(s);
	free(dts);
	free(m);
	free(dv);
	return msg == NULL ? len : 0;
}

static void
regular_times(int64_t *ts, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		ts[i] = T0 + STEP * i;
}

/* 15 s steps with about 1% gaps of 1 to 3 missing steps */
static void
gappy_times(at_rng *r, int64_t *ts, int32_t n)
{
	int64_t		t = T0;

	for (int32_t i = 0; i < n; i++)
	{
		if (i > 0 && at_rng_next(r) % 100 == 0)
			t += STEP * (int64_t) (1 + at_rng_next(r) % 3);
		ts[i] = t;
		t += STEP;
	}
}

/* utilization: long idle runs of 0, busy runs of noisy 85..100 */
static void
polarized(at_rng *r, double *v, int32_t n)
{
	int			busy = 0;

	for (int32_t i = 0; i < n; i++)
	{
		if (at_rng_next(r) % 240 == 0)
			busy = !busy;
		v[i] = busy ? 85 + (double) (at_rng_next(r) % 16) : 0;
	}
}

static void
test_values(void)
{
	enum
	{
		N = 5760
	};
	int64_t    *ts = malloc(sizeof(int64_t) * N);
	double	   *v = malloc(sizeof(double) * N);
	at_rng		r;
	size_t		len;

	at_rng_seed(&r, 19);
	regular_times(ts, N);

	for (int i = 0; i < N; i++)
		v[i] = (double) (at_rng_next(&r) % 101);
	roundtrip("integers 0..100", ts, v, N, 0);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 1001) / 10;
	roundtrip("one decimal", ts, v, N, 1);
	for (int i = 0; i < N; i++)
		v[i] = (double) ((int64_t) (at_rng_next(&r) % 200001) - 100000) / 1000;
	roundtrip("three decimals, negative too", ts, v, N, 3);
	for (int i = 0; i < N; i++)
		v[i] = i % 7 == 3 ? 2.5 : (double) (i % 13);
	roundtrip("integers, then a half raises the scale", ts, v, N, 1);
	for (int i = 0; i < N; i++)
		v[i] = -(double) (i % 50) - 1000;
	roundtrip("negative integers", ts, v, N, 0);
	for (int i = 0; i < N; i++)
		v[i] = i == 77 ? -0.0 : 1;
	roundtrip("-0.0 forces raw doubles", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = 0.0;
	len = roundtrip("all zero", ts, v, N, 0);
	CHECK(len == 48 + 4 + 4 + 45 * 2,
		  "all zero: %zu bytes (header, 4-byte step, 4 bytes of counts, 45 two-byte constant chunks)", len);
	{
		/* the counts: one value, 0, N times */
		unsigned char *b = malloc(at_samples_encode_bound(N));
		int64_t		cm[AT_SAMPLES_COUNTS_MAX],
					cc[AT_SAMPLES_COUNTS_MAX];
		size_t		blen = at_samples_encode(ts, v, N, b);
		int			k = at_samples_counts(b, cm, cc);

		CHECK(k == 1 && cm[0] == 0 && cc[0] == N, "all zero: counts say %d value(s), 0 x %d", k, N);
		/* a count that does not match the values is refused */
		b[48 + 4 + 3]++;
		CHECK(at_samples_check(b, blen, NULL) != NULL, "all zero: a changed count is refused");
		for (int i = 0; i < N; i++)
			v[i] = i % 101;
		blen = at_samples_encode(ts, v, N, b);
		k = at_samples_counts(b, cm, cc);
		CHECK(k == 101 && cm[0] == 0 && cm[100] == 100 && cc[0] == (N + 100) / 101 && at_samples_check(b, blen, NULL) == NULL,
			  "0..100: counts of 101 values, the block checks");
		for (int i = 0; i < N; i++)
			v[i] = i % 300;
		blen = at_samples_encode(ts, v, N, b);
		CHECK(at_samples_counts(b, cm, cc) == 0 && at_samples_check(b, blen, NULL) == NULL,
			  "300 distinct values: no counts, the block checks");
		for (int i = 0; i < N; i++)
			v[i] = i % 2 ? 5000 : 0;
		blen = at_samples_encode(ts, v, N, b);
		CHECK(at_samples_counts(b, cm, cc) == 0 && at_samples_check(b, blen, NULL) == NULL,
			  "a range wider than the counting window: no counts");
		free(b);
		for (int i = 0; i < N; i++)
			v[i] = 0.0;
	}
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 1e300 : -1e300;
	roundtrip("huge", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 3 ? 1e-300 : 4.9e-324;
	roundtrip("tiny and denormal", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 0.1 : 1e-20;
	roundtrip("mixed: 1e-20 needs more than 15 decimals", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = 0.1 + 0.2 * (i % 2);
	roundtrip("0.1 + 0.2 is not 0.3", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 9007199254740991.0 : -9007199254740991.0;
	roundtrip("+-(2^53 - 1)", ts, v, N, 0);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 9007199254740992.0 : 1;
	roundtrip("2^53 is raw", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 3 == 0 ? 900719925474099.0 : i % 3 == 1 ? -900719925474099.0 : 0.5;
	roundtrip("(2^53 - 1) / 10 and 0.5: scale 1 just fits", ts, v, N, 1);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 900719925474100.0 : 0.5;
	roundtrip("2^53 / 10 and 0.5: raw", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 1e15 : 0.5;
	roundtrip("1e15 and 0.5: 1e16 passes 2^53", ts, v, N, -1);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 900719925474099.1 : 3;
	roundtrip("2^53 / 10 at one decimal", ts, v, N, -2);
	for (int i = 0; i < N; i++)
		v[i] = (double) (i % 5) / 1e15;
	roundtrip("scale 15", ts, v, N, 15);
	for (int i = 0; i < N; i++)
		v[i] = i < N / 2 ? 7 : (double) i / 1e15;
	roundtrip("the last values raise the scale", ts, v, N, -2);
	/* 38.38 is exact at 2 decimals, but round(38.38 * 10^14) / 10^14 is not 38.38 */
	for (int i = 0; i < N; i++)
		v[i] = i % 3 == 0 ? 38.38 : i % 3 == 1 ? 4.19 : (double) (i % 100) / 1e14;
	roundtrip("38.38 at scale 14: m from its own scale, times 10^12", ts, v, N, 14);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? 4416214725061.07 : 0.001;
	roundtrip("0.001 then 4416214725061.07: exact at 2, not by rounding at 3", ts, v, N, 3);
	/* near 2^53 the rounded product can miss m by one or two */
	for (int i = 0; i < N; i++)
		v[i] = i % 3 == 0 ? 4352026517.984406 : i % 3 == 1 ? -4352026517.984406 : (double) i;
	roundtrip("|m| past 2^51: a neighbour of the rounded product (scale 6)", ts, v, N, 6);
	for (int i = 0; i < N; i++)
		v[i] = i % 2 ? -44190111703.77438 : 0.5;
	roundtrip("|m| past 2^51: a neighbour of the rounded product (scale 5)", ts, v, N, 5);
	for (int i = 0; i < N; i++)
		v[i] = (double) (T0 / 1000000 + 15 * i);
	roundtrip("a counter: delta-coded", ts, v, N, 0);

	/* sizes of the typical series */
	gappy_times(&r, ts, N);
	polarized(&r, v, N);
	len = roundtrip("polarized utilization, 1% gaps", ts, v, N, 0);
	CHECK(len <= 1.5 * N, "polarized utilization, 1%% gaps: %.3f bytes/sample (at most 1.5)", (double) len / N);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 100001) / 1000;
	len = roundtrip("three-decimal noise 0..100, 1% gaps", ts, v, N, 3);
	CHECK(len <= 3.0 * N, "three-decimal noise 0..100: %.3f bytes/sample (at most 3)", (double) len / N);
	free(ts);
	free(v);
}

static void
test_times(void)
{
	enum
	{
		N = 5760
	};
	int64_t    *ts = malloc(sizeof(int64_t) * N);
	double	   *v = malloc(sizeof(double) * N);
	unsigned char *b = malloc(at_samples_encode_bound(N));
	at_rng		r;
	uint32_t	tsize;

	at_rng_seed(&r, 20);
	for (int i = 0; i < N; i++)
		v[i] = (double) (i % 3);

	regular_times(ts, N);
	at_samples_encode(ts, v, N, b);
	tsize = (uint32_t) b[40] | (uint32_t) b[41] << 8;
	CHECK(tsize <= 4 && (b[1] & 3) == AT_SAMPLES_T_REGULAR, "dense day: %u bytes of time", tsize);
	roundtrip("dense day", ts, v, N, 0);

	gappy_times(&r, ts, N);
	at_samples_encode(ts, v, N, b);
	tsize = (uint32_t) b[40] | (uint32_t) b[41] << 8;
	CHECK(tsize < 0.2 * N / 4 && (b[1] & 3) == AT_SAMPLES_T_GAPS, "1%% gaps: %.4f bytes/sample of time",
		  (double) tsize / N);
	roundtrip("1% gaps", ts, v, N, 0);

	/* every step a gap, some large */
	for (int i = 0; i < N; i++)
		ts[i] = T0 + STEP * ((int64_t) i * 2 + (i % 100 == 0 ? (int64_t) 1 << 30 : 0) * (i > 0));
	for (int i = 1; i < N; i++)
		if (ts[i] <= ts[i - 1])
			ts[i] = ts[i - 1] + STEP;
	roundtrip("many gaps", ts, v, N, 0);

	/* jitter: not whole steps, delta-of-deltas */
	ts[0] = T0;
	for (int i = 1; i < N; i++)
		ts[i] = ts[i - 1] + STEP + (int64_t) (at_rng_next(&r) % 2001) - 1000;
	at_samples_encode(ts, v, N, b);
	CHECK((b[1] & 3) == AT_SAMPLES_T_DOD, "jittered times: delta-of-deltas");
	roundtrip("jittered times", ts, v, N, 0);

	/* no common step at all */
	ts[0] = -T0;
	for (int i = 1; i < N; i++)
		ts[i] = ts[i - 1] + 1 + (int64_t) (at_rng_next(&r) % 1000000007);
	roundtrip("random steps, negative times", ts, v, N, 0);

	/* the ends of int64: steps past INT64_MAX wrap in the codec, not in the times */
	{
		int64_t		e[] = {INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX - 2, INT64_MAX};
		double		ev[] = {1, 2, 3, 4, 5, 6};

		roundtrip("times at the ends of int64", e, ev, 6, 0);
		roundtrip("two times INT64_MIN, INT64_MAX", (int64_t[]) {INT64_MIN, INT64_MAX}, ev, 2, 0);
		roundtrip("regular across the whole range", (int64_t[]) {INT64_MIN, -1, INT64_MAX - 1}, ev, 3, 0);
	}
	roundtrip("one sample", (int64_t[]) {T0}, (double[]) {42.5}, 1, 1);
	roundtrip("one raw sample", (int64_t[]) {-5}, (double[]) {-0.0}, 1, -1);
	roundtrip("two samples", (int64_t[]) {0, 1}, (double[]) {1, 1}, 2, 0);

	/* chunk boundaries */
	{
		static const int32_t sizes[] = {1, 2, 7, 8, 9, 127, 128, 129, 255, 256, 257, 5760};
		char		name[64];

		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		{
			gappy_times(&r, ts, sizes[k]);
			for (int i = 0; i < sizes[k]; i++)
				v[i] = (double) (at_rng_next(&r) % 1000) / 100;
			snprintf(name, sizeof(name), "n = %d, two decimals", sizes[k]);
			roundtrip(name, ts, v, sizes[k], -2);
			for (int i = 0; i < sizes[k]; i++)
				v[i] = i < 128 ? 5 : (double) i;
			snprintf(name, sizeof(name), "n = %d, constant first chunk", sizes[k]);
			roundtrip(name, ts, v, sizes[k], 0);
		}
	}
	free(ts);
	free(v);
	free(b);
}

/* every width 1..55 in both codings, and one large block */
static void
test_widths(void)
{
	enum
	{
		N = 1000
	};
	int64_t		ts[N];
	double		v[N];
	at_rng		r;
	int			good = 1;

	at_rng_seed(&r, 21);
	regular_times(ts, N);
	for (int w = 1; w <= 53; w++)
	{
		uint64_t	mask = ((uint64_t) 1 << w) - 1;
		char		name[64];

		/* frame of reference: values spread over w bits, signed at the top */
		for (int i = 0; i < N; i++)
			v[i] = (double) ((int64_t) (at_rng_next(&r) & mask) - (w == 53 ? (int64_t) mask / 2 : 0));
		snprintf(name, sizeof(name), "width %d", w);
		good &= roundtrip(name, ts, v, N, 0) > 0;
		/* a ramp with w-bit noise in its steps: delta-coded */
		v[0] = 0;
		for (int i = 1; i < N; i++)
			v[i] = v[i - 1] + (double) (at_rng_next(&r) & (mask >> (w > 40 ? 12 : 0)));
		if (fabs(v[N - 1]) < 9007199254740992.0)
		{
			snprintf(name, sizeof(name), "width %d ramp", w);
			good &= roundtrip(name, ts, v, N, 0) > 0;
		}
	}
	CHECK(good, "every width round trips");

	{
		int32_t		n = 300000;
		int64_t    *bt = malloc(sizeof(int64_t) * (size_t) n);
		double	   *bv = malloc(sizeof(double) * (size_t) n);

		gappy_times(&r, bt, n);
		for (int32_t i = 0; i < n; i++)
			bv[i] = i % 1000 < 300 ? 0 : (double) (at_rng_next(&r) % 100000) / 1000;
		roundtrip("300,000 samples", bt, bv, n, 3);
		free(bt);
		free(bv);
	}
}

static void
test_sum(void)
{
	unsigned char b[4096];
	char		out[64];
	int64_t		ts[4] = {1, 2, 3, 4};
	size_t		len;

	len = at_samples_encode(ts, (double[]) {12.345}, 1, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "12.345") == 0, "sum 12.345: %s", out);
	len = at_samples_encode(ts, (double[]) {-0.05}, 1, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "-0.05") == 0, "sum -0.05: %s", out);
	len = at_samples_encode(ts, (double[]) {0.25, -0.25}, 2, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "0.00") == 0, "sum 0.00: %s", out);
	len = at_samples_encode(ts, (double[]) {3, 4, -10}, 3, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "-3") == 0, "sum -3: %s", out);
	len = at_samples_encode(ts, (double[]) {1e-15, 2e-15}, 2, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "0.000000000000003") == 0,
		  "sum 0.000000000000003: %s", out);
	len = at_samples_encode(ts, (double[]) {0.1, 0.2}, 2, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "0.3") == 0,
		  "sum 0.1 + 0.2 is exactly 0.3: %s", out);
	len = at_samples_encode(ts, (double[]) {9007199254740991.0, 9007199254740991.0, 9007199254740991.0}, 3, b);
	CHECK(at_samples_sum_text(b, len, out, sizeof(out)) == 0 && strcmp(out, "27021597764222973") == 0,
		  "sum 3 (2^53 - 1): %s", out);
	len = at_samples_encode(ts, (double[]) {12.345}, 1, b);
	CHECK(at_samples_sum_text(b, len, out, 4) == 0 && strcmp(out, "12.") == 0, "a short buffer is cut: %s", out);

	/* past 2^64: 2^20 values of 2^53 - 1, and the same negative */
	{
		int32_t		n = 1 << 20;
		int64_t    *bt = malloc(sizeof(int64_t) * (size_t) n);
		double	   *bv = malloc(sizeof(double) * (size_t) n);
		unsigned char *bb = malloc(at_samples_encode_bound(n));

		regular_times(bt, n);
		for (int32_t i = 0; i < n; i++)
			bv[i] = 900719925474099.1;
		len = at_samples_encode(bt, bv, n, bb);
		CHECK(at_samples_sum_text(bb, len, out, sizeof(out)) == 0 && strcmp(out, "944473296573928937881.6") == 0,
			  "sum past 2^64: %s", out);
		for (int32_t i = 0; i < n; i++)
			bv[i] = i % 2 ? -9007199254740991.0 : -9007199254740990.0;
		len = at_samples_encode(bt, bv, n, bb);
		CHECK(at_samples_sum_text(bb, len, out, sizeof(out)) == 0 && strcmp(out, "-9444732965739288854528") == 0,
			  "negative sum past 2^64: %s", out);
		free(bt);
		free(bv);
		free(bb);
	}
}

static void
test_sort_merge(void)
{
	int64_t		dups = 0;
	at_samples_conflict c;
	int32_t		n;

	{
		int64_t		ts[] = {1, 2, 3};
		double		v[] = {1, 2, 3};

		n = 3;
		CHECK(at_samples_sort_dedup(ts, v, &n, &dups, &c) == 0 && n == 3 && dups == 0, "sorted: untouched");
	}
	{
		int64_t		ts[] = {5, 1, 3, 1, 5, 2, 5};
		double		v[] = {50, 10, 30, 10, 50, 20, 50};

		n = 7;
		CHECK(at_samples_sort_dedup(ts, v, &n, &dups, &c) == 0 && n == 4 && dups == 3 && ts[0] == 1 && ts[1] == 2 &&
			  ts[2] == 3 && ts[3] == 5 && v[0] == 10 && v[1] == 20 && v[2] == 30 && v[3] == 50,
			  "unsorted with repeats: sorted, 3 dups");
	}
	{
		int64_t		ts[] = {2, 1, 2, 2};
		double		v[] = {-0.0, 1, 0.0, 0.0};

		n = 4;
		dups = 0;
		CHECK(at_samples_sort_dedup(ts, v, &n, &dups, &c) == 0 && n == 2 && dups == 2 && same(v[1], -0.0),
			  "0.0 equals -0.0: the first met is kept (stable)");
	}
	{
		int64_t		ts[] = {1, 1, 1};
		double		v[] = {3, 3, 3};

		n = 3;
		dups = 0;
		CHECK(at_samples_sort_dedup(ts, v, &n, &dups, &c) == 0 && n == 1 && dups == 2, "non-decreasing: dups only");
	}
	{
		int64_t		ts[] = {9, 4, 7, 4, 4};
		double		v[] = {1, 2, 3, 2, 5};

		n = 5;
		CHECK(at_samples_sort_dedup(ts, v, &n, &dups, &c) == -1 && c.ts == 4 && c.old_value == 2 &&
			  c.new_value == 5 && n == 5, "conflict: ts 4, old 2 (earlier), new 5");
	}

	/* stability and agreement with a simple reference on random runs */
	{
		enum
		{
			N = 20000
		};
		int64_t    *ts = malloc(sizeof(int64_t) * N),
				   *ts2 = malloc(sizeof(int64_t) * N);
		double	   *v = malloc(sizeof(double) * N),
				   *v2 = malloc(sizeof(double) * N);
		at_rng		r;
		int			good = 1;

		at_rng_seed(&r, 22);
		for (int round = 0; round < 4; round++)
		{
			int64_t		d = 0;
			int32_t		nn = N,
						k = 0;

			for (int i = 0; i < N; i++)
			{
				/* round 0: random; 1: sorted with a few swaps; 2: two runs; 3: reversed */
				ts[i] = round == 0 ? (int64_t) (at_rng_next(&r) % 5000) : round == 3 ? N - i : i / 2;
				v[i] = (double) ts[i];
			}
			if (round == 1)
				for (int i = 0; i < 50; i++)
				{
					int			a = (int) (at_rng_next(&r) % N),
								b = (int) (at_rng_next(&r) % N);
					int64_t		t = ts[a];

					ts[a] = ts[b];
					ts[b] = t;
				}
			if (round == 2)
				for (int i = 0; i < N; i++)
					ts[i] = i < N / 2 ? 2 * i : 2 * (i - N / 2) + 1;

			/*
			 * every value is 0, the first met of each time -0.0: a stable
			 * sort keeps only -0.0; the reference is a counting sort
			 */
			{
				static int64_t seen[20001];

				memset(seen, 0, sizeof(seen));
				for (int i = 0; i < N; i++)
					v[i] = seen[ts[i]]++ == 0 ? -0.0 : 0.0;
				for (int64_t t = 0; t <= 20000; t++)
					if (seen[t])
					{
						ts2[k] = t;
						v2[k++] = -0.0;
					}
			}
			if (at_samples_sort_dedup(ts, v, &nn, &d, &c) != 0 || nn != k || d != N - k)
				good = 0;
			else
				for (int i = 0; i < k; i++)
					good &= ts[i] == ts2[i] && same(v[i], v2[i]);
		}
		CHECK(good, "random, nearly sorted, two runs, reversed: sorted stably, repeats counted");
		free(ts);
		free(ts2);
		free(v);
		free(v2);
	}

	{
		int64_t		a[] = {1, 3, 5, 7},
					b[] = {2, 3, 6, 7, 8},
					ot[9];
		double		va[] = {1, 3, 5, -0.0},
					vb[] = {2, 3, 6, 0.0, 8},
					ov[9];
		int32_t		k;

		dups = 0;
		k = at_samples_merge(a, va, 4, b, vb, 5, ot, ov, &dups, &c);
		CHECK(k == 7 && dups == 2 && ot[0] == 1 && ot[1] == 2 && ot[2] == 3 && ot[3] == 5 && ot[4] == 6 && ot[5] == 7 &&
			  ot[6] == 8 && same(ov[5], -0.0), "merge: 7 samples, 2 dups, a's -0.0 kept");
		vb[1] = 4;
		CHECK(at_samples_merge(a, va, 4, b, vb, 5, ot, ov, &dups, &c) == -1 && c.ts == 3 && c.old_value == 3 &&
			  c.new_value == 4, "merge conflict: ts 3, old from a");
		CHECK(at_samples_merge(a, va, 0, b, vb, 5, ot, ov, &dups, &c) == 5 && at_samples_merge(a, va, 4, b, vb, 0, ot, ov, &dups, &c) == 4,
			  "merge with an empty run");
	}
}

static void
put32(unsigned char *p, uint32_t v)
{
	for (int k = 0; k < 4; k++, v >>= 8)
		p[k] = (unsigned char) v;
}

/*
 * A block that passes the check must decode consistently: times strictly
 * increasing from first to last, values finite within min..max, the
 * iterators and the sum and a slice agreeing with decode.
 */
static int
consistent(const unsigned char *b, size_t len)
{
	at_samples_info info;
	int64_t    *ts;
	double	   *v,
				cv[AT_SAMPLES_CHUNK];
	int64_t		cm[AT_SAMPLES_CHUNK];
	at_samples_iter it;
	int			ok = 1,
				got,
				constant;
	int32_t		at = 0;
	char		sum[64];
	unsigned char *s;
	int32_t		ns;

	if (at_samples_check(b, len, &info) != NULL)
		return 1;
	ts = malloc(sizeof(int64_t) * (size_t) info.n);
	v = malloc(sizeof(double) * (size_t) info.n);
	at_samples_decode(b, len, ts, v);
	ok &= ts[0] == info.first_ts && ts[info.n - 1] == info.last_ts;
	for (int32_t i = 0; i < info.n; i++)
		ok &= (i == 0 || ts[i] > ts[i - 1]) && isfinite(v[i]) && v[i] >= info.min && v[i] <= info.max;
	at_samples_iter_init(&it, b, len);
	while ((got = at_samples_iter_next(&it, cv, &constant)) > 0)
	{
		for (int i = 0; i < got; i++)
			ok &= same(v[at + i], constant ? cv[0] : cv[i]);
		at += got;
	}
	ok &= at == info.n;
	if (info.scale >= 0)
	{
		at = 0;
		at_samples_iter_init(&it, b, len);
		while ((got = at_samples_iter_next_scaled(&it, cm, &constant)) > 0)
		{
			for (int i = 0; i < got; i++)
				ok &= same((double) (constant ? cm[0] : cm[i]) / p10[info.scale], v[at + i]);
			at += got;
		}
	}
	ok &= at_samples_sum_text(b, len, sum, sizeof(sum)) == (info.scale >= 0 ? 0 : -1);
	s = malloc(at_samples_encode_bound(info.n));
	ok &= at_samples_slice(b, len, ts[info.n / 2], INT64_MAX, s, &ns) > 0 && ns == info.n - info.n / 2;
	free(s);
	free(ts);
	free(v);
	return ok;
}

/*
 * Every one-byte change of the block b (len bytes; past byte dense only
 * every 7th value) in m: refused by the check, or decoding consistently.
 * Counts both; 1 when no accepted change decodes inconsistently.
 */
static int
mutations_consistent(const unsigned char *b, size_t len, unsigned char *m, size_t dense, int *rejected, int *accepted)
{
	int			good = 1;

	for (size_t i = 0; i < len; i++)
		for (int x = 0; x < 256; x += (i < dense ? 1 : 7))
		{
			if (x == b[i])
				continue;
			memcpy(m, b, len);
			m[i] = (unsigned char) x;
			if (at_samples_check(m, len, NULL) != NULL)
				(*rejected)++;
			else
			{
				(*accepted)++;
				good &= consistent(m, len);
			}
		}
	return good;
}

static void
test_check(void)
{
	enum
	{
		N = 300
	};
	int64_t		ts[N];
	double		v[N];
	unsigned char b[20 * N + 100],
				m[20 * N + 100];
	at_rng		r;
	size_t		len;
	int			good;

	at_rng_seed(&r, 23);
	gappy_times(&r, ts, N);
	for (int i = 0; i < N; i++)
		v[i] = i < 130 ? 1.5 : (double) (at_rng_next(&r) % 1000) / 10;

	/* one block per time and value encoding */
	for (int kind = 0; kind < 4; kind++)
	{
		int			rejected = 0,
					accepted = 0;

		if (kind == 1)
			regular_times(ts, N);
		if (kind == 2)
			for (int i = 1; i < N; i++)
				ts[i] = ts[i - 1] + 1 + (int64_t) (at_rng_next(&r) % 100);
		if (kind == 3)
			v[7] = -0.0;
		/* raw doubles: 40 samples are as good as 300, and 8 times smaller */
		len = at_samples_encode(ts, v, kind == 3 ? 40 : N, b);
		CHECK(at_samples_check(b, len, NULL) == NULL, "kind %d: valid (%zu bytes, flags %d)", kind, len, b[1]);

		good = 1;
		for (size_t l = 0; l < len; l++)
			good &= at_samples_check(b, l, NULL) != NULL;
		CHECK(good, "kind %d: every truncation refused", kind);
		b[len] = 0;
		CHECK(at_samples_check(b, len + 1, NULL) != NULL, "kind %d: a trailing byte refused", kind);

		good = mutations_consistent(b, len, m, len, &rejected, &accepted);
		CHECK(good, "kind %d: every one-byte change refused (%d) or decoding consistently (%d)", kind, rejected,
			  accepted);
	}

	regular_times(ts, N);
	at_samples_encode(ts, v, N, b);
	memcpy(m, b, len);
	m[0] = 2;
	CHECK(at_samples_check(m, len, NULL) != NULL, "version 2 without a value code refused");
	memcpy(m, b, len);
	m[0] = 3;
	CHECK(at_samples_check(m, len, NULL) != NULL, "version 3 refused");
	memcpy(m, b, len);
	m[1] = 3;
	CHECK(at_samples_check(m, len, NULL) != NULL, "time encoding 3 refused");
	memcpy(m, b, len);
	m[1] |= 0x10;
	CHECK(at_samples_check(m, len, NULL) != NULL, "unknown flag refused");
	memcpy(m, b, len);
	m[2] = AT_SAMPLES_MAX_SCALE + 2;
	CHECK(at_samples_check(m, len, NULL) != NULL, "scale 16 refused");
	memcpy(m, b, len);
	m[3] = 1;
	CHECK(at_samples_check(m, len, NULL) != NULL, "reserved byte refused");
	memcpy(m, b, len);
	put32(m + 4, 0);
	CHECK(at_samples_check(m, len, NULL) != NULL, "n = 0 refused");
	memcpy(m, b, len);
	put32(m + 4, AT_SAMPLES_MAX + 1);
	CHECK(at_samples_check(m, len, NULL) != NULL, "n past AT_SAMPLES_MAX refused");
	memcpy(m, b, len);
	put32(m + 40, (uint32_t) len);
	CHECK(at_samples_check(m, len, NULL) != NULL, "time section past the end refused");
	CHECK(at_samples_check(b, 10, NULL) != NULL && at_samples_check(b, 0, NULL) != NULL, "short input refused");

	/* hand-made blocks: a width of 65, an |m| of 2^53 */
	{
		unsigned char h[64] = {0};
		at_samples_info info;
		uint64_t	two53 = (uint64_t) 1 << 53;
		double		d = 9007199254740992.0;

		h[0] = 1;
		h[1] = 0;
		h[2] = 1;				/* scale 0 */
		put32(h + 4, 1);
		memcpy(h + 24, &d, 8);
		memcpy(h + 32, &d, 8);
		/* a constant chunk: width 0, zz(2^53) = 2^54 as a varint */
		h[48] = 0;
		len = 49;
		{
			uint64_t	z = two53 << 1;

			while (z >= 0x80)
			{
				h[len++] = (unsigned char) (z | 0x80);
				z >>= 7;
			}
			h[len++] = (unsigned char) z;
		}
		CHECK(at_samples_check(h, len, &info) != NULL, "|m| = 2^53 refused");
		d = 0;
		memcpy(h + 24, &d, 8);
		memcpy(h + 32, &d, 8);
		h[49] = 0;
		CHECK(at_samples_check(h, 50, &info) == NULL && info.n == 1, "hand-made constant 0 accepted");
		h[48] = 65;
		CHECK(at_samples_check(h, 50, &info) != NULL, "width 65 refused");
		h[48] = 64;
		CHECK(at_samples_check(h, 50, &info) != NULL, "width 64 without its bytes refused");
		memset(h + 50, 0, 8);
		CHECK(at_samples_check(h, 58, &info) == NULL, "width 64 with its 8 bytes accepted");
		memset(h + 50, 0xff, 8);
		d = -1;
		memcpy(h + 24, &d, 8);
		memcpy(h + 32, &d, 8);
		CHECK(at_samples_check(h, 58, &info) == NULL && consistent(h, 58), "width 64: 0 + (2^64 - 1) wraps to -1");
		h[49] = 0x80;
		CHECK(at_samples_check(h, 50, &info) != NULL, "unterminated varint refused");
		memset(h + 49, 0xff, 9);
		h[58] = 0x02;
		CHECK(at_samples_check(h, 59, &info) != NULL, "varint past 64 bits refused");
	}
}

/* Polarized integers like GPU_UTIL (idle 0, busy 99/100, some between), no temporal structure. */
static double
polarized_one(at_rng *r)
{
	uint64_t	x = at_rng_next(r) % 100;

	return x < 40 ? 0 : x < 60 ? 100 : x < 75 ? 99 : (double) (1 + at_rng_next(r) % 98);
}

/* Decode, window and iterators of a valid block agree with the values it was made of. */
static int
round_trip(const int64_t *ts, const double *v, int32_t n, const unsigned char *b, size_t len)
{
	int64_t    *dts = malloc(sizeof(int64_t) * (size_t) n),
			   *wm = malloc(sizeof(int64_t) * (size_t) n);
	double	   *dv = malloc(sizeof(double) * (size_t) n);
	at_samples_info info;
	int			ok = at_samples_check(b, len, &info) == NULL && consistent(b, len);
	int32_t		w;

	at_samples_decode(b, len, dts, dv);
	for (int32_t i = 0; i < n; i++)
		ok &= dts[i] == ts[i] && same(dv[i], v[i]);
	/* windows cutting chunks in the middle, as values and as integers */
	for (int32_t a = 0; a < n; a += 197)
	{
		int32_t		e = a + 301 < n ? a + 301 : n;

		w = at_samples_window(b, len, ts[a], ts[e - 1] + 1, dts, dv, NULL);
		ok &= w == e - a;
		for (int32_t i = 0; ok && i < w; i++)
			ok &= dts[i] == ts[a + i] && same(dv[i], v[a + i]);
		if (info.scale < 0)
			continue;
		w = at_samples_window(b, len, ts[a], ts[e - 1] + 1, dts, NULL, wm);
		ok &= w == e - a;
		for (int32_t i = 0; ok && i < w; i++)
			ok &= same((double) wm[i] / p10[info.scale], v[a + i]);
	}
	free(dts);
	free(wm);
	free(dv);
	return ok;
}

/* Offset of the value section of a block. */
static size_t
values_at(const unsigned char *b)
{
	return 48 + ((size_t) b[40] | (size_t) b[41] << 8) + ((size_t) b[44] | (size_t) b[45] << 8);
}

static void
test_coded(void)
{
	enum
	{
		N = 5760
	};
	int64_t    *ts = malloc(sizeof(int64_t) * N);
	double	   *v = malloc(sizeof(double) * N);
	unsigned char *b = malloc(at_samples_encode_bound(N)),
			   *m = malloc(at_samples_encode_bound(N));
	at_rng		r;
	size_t		len,
				vs,
				nb;
	int			good,
				rejected = 0,
				accepted = 0;

	at_rng_seed(&r, 31);
	regular_times(ts, N);

	/* polarized integers: a code of 101 values, far below 7 bits a sample */
	for (int i = 0; i < N; i++)
		v[i] = polarized_one(&r);
	len = at_samples_encode(ts, v, N, b);
	CHECK(b[0] == 2 && len < N * 6 / 10, "polarized 0..100: version %d, %.2f bytes a sample (bit-packed: about 0.9)",
		  b[0], (double) len / N);
	CHECK(round_trip(ts, v, N, b, len), "polarized 0..100: decode, windows and iterators give every value back");

	/* 3 decimals with a third idle: buckets with raw low bits, 0 an exact value */
	for (int i = 0; i < N; i++)
		v[i] = at_rng_next(&r) % 3 == 0 ? 0 : (double) (at_rng_next(&r) % 100001) / 1000;
	len = at_samples_encode(ts, v, N, b);
	vs = values_at(b) + (b[values_at(b)] >= 0x80 ? 2 : 1) - 1;	/* T's varint: 1 or 2 bytes */
	CHECK(b[0] == 2 && b[vs + 1] == 9 && b[vs + 3] == 1 && len < 2 * N,
		  "3 decimals: version %d, raw bits %d, %d exact values, %.2f bytes a sample (bit-packed: 2.1)", b[0],
		  b[vs + 1], b[vs + 3], (double) len / N);
	CHECK(round_trip(ts, v, N, b, len), "3 decimals: decode, windows and iterators give every value back");

	/* negative and large integers, a raw part of many bits */
	for (int i = 0; i < N; i++)
		v[i] = i % 4 == 0 ? -5 : (double) ((int64_t) (at_rng_next(&r) % 4000000000000ULL) - 2000000000000LL);
	len = at_samples_encode(ts, v, N, b);
	CHECK(round_trip(ts, v, N, b, len), "wide signed integers (version %d): every value back", b[0]);

	/* smooth data gains nothing from a code: the plain version-1 block, as before */
	for (int i = 0; i < N; i++)
		v[i] = 50 + (i / 64) % 10;
	len = at_samples_encode(ts, v, N, b);
	CHECK(b[0] == 1 && round_trip(ts, v, N, b, len), "a slow staircase stays version 1 (%zu bytes)", len);
	/* and so does a block too small to pay for its code */
	for (int i = 0; i < 600; i++)
		v[i] = polarized_one(&r);
	len = at_samples_encode(ts, v, 600, b);
	CHECK(b[0] == 1 && round_trip(ts, v, 600, b, len), "600 samples stay version 1");

	/* a coded block of 1,200 samples: every truncation and one-byte change */
	for (int i = 0; i < 1200; i++)
		v[i] = (double) (at_rng_next(&r) % 4) * 33;
	len = at_samples_encode(ts, v, 1200, b);
	CHECK(b[0] == 2 && round_trip(ts, v, 1200, b, len), "1,200 values of 4 kinds: version 2 (%zu bytes)", len);
	good = 1;
	for (size_t l = 0; l < len; l++)
		good &= at_samples_check(b, l, NULL) != NULL;
	CHECK(good, "coded: every truncation refused");
	good = mutations_consistent(b, len, m, 120, &rejected, &accepted);
	CHECK(good && rejected > 0, "coded: every one-byte change refused (%d) or decoding consistently (%d)", rejected,
		  accepted);

	/*
	 * The value code's fields, one by one (T < 128, so the table starts at
	 * vs + 1): L, zz(base), E, B, the longest length M, the counts by
	 * length 1..M, then the symbols in code order as gaps.  Four values
	 * of 100 buckets, each a 2-bit code: M 2, counts 0 and 4, symbols 0,
	 * 33, 66, 99 as gaps 0, 32, 32, 32.
	 */
	vs = values_at(b);
	nb = b[vs + 4];
	CHECK(b[vs] == 11 && b[vs + 1] == 0 && b[vs + 2] == 0 && b[vs + 3] == 0 && nb == 100 && b[vs + 5] == 2 &&
		  b[vs + 6] == 0 && b[vs + 7] == 4 && b[vs + 8] == 0 && b[vs + 9] == 32 && b[vs + 11] == 32,
		  "layout: T 11, L 0, base 0, no exact values, %zu buckets, lengths up to 2, four 2-bit codes", nb);
	{
		/* one field changed at a time: each refused */
		static const struct
		{
			int			at;			/* from vs */
			int			byte;
			const char *what;
		}			bad_fields[] = {
			{1, AT_SAMPLES_CODE_RAW + 1, "raw bits past the most"},
			{3, AT_SAMPLES_CODE_EXACT + 1, "more exact values than the most"},
			{4, 0, "no buckets"},
			{5, 0, "a longest length of 0"},
			{5, AT_SAMPLES_CODE_MAXLEN + 1, "a longest length past 15"},
			{7, 3, "an incomplete code"},
			{6, 1, "an over-full code"},
			{11, 100, "a symbol past the last bucket"},
			{9, 0x80, "a symbol's varint running into the next"},
		};

		for (size_t f = 0; f < sizeof bad_fields / sizeof bad_fields[0]; f++)
		{
			memcpy(m, b, len);
			m[vs + bad_fields[f].at] = (unsigned char) bad_fields[f].byte;
			CHECK(at_samples_check(m, len, NULL) != NULL, "%s refused", bad_fields[f].what);
		}
	}
	{
		/* 0 half the time, 33 and 66 a quarter each: lengths 1, 2, 2 (gaps 0; 33, 32) */
		double	   *v3 = malloc(sizeof(double) * 1200);
		unsigned char *b3 = malloc(at_samples_encode_bound(1200));
		size_t		len3,
					vs3;

		for (int i = 0; i < 1200; i++)
			v3[i] = i % 2 ? 0 : (double) (1 + i / 2 % 2) * 33;
		len3 = at_samples_encode(ts, v3, 1200, b3);
		vs3 = values_at(b3);
		CHECK(b3[0] == 2 && b3[vs3 + 5] == 2 && b3[vs3 + 6] == 1 && b3[vs3 + 7] == 2 && b3[vs3 + 8] == 0 &&
			  b3[vs3 + 9] == 33 && b3[vs3 + 10] == 32 && round_trip(ts, v3, 1200, b3, len3), "lengths 1, 2, 2: layout and every value back");
		memcpy(m, b3, len3);
		m[vs3 + 9] = 0;
		CHECK(at_samples_check(m, len3, NULL) != NULL, "a symbol listed at two lengths refused");
		free(v3);
		free(b3);
	}
	{
		/*
		 * The first chunk: kind 0x7f, varint nbytes, varint h (the first
		 * half's bytes: 128 values, two 2-bit codes a value, 16 bytes a
		 * half), bits; nbytes or h one short or one long.
		 */
		size_t		c0 = vs + 1 + b[vs];

		CHECK(b[c0] == AT_SAMPLES_CHUNK_CODED && b[c0 + 1] == 32 && b[c0 + 2] == 16,
			  "the first chunk is coded: 32 bytes, 16 in its first half");
		const struct
		{
			size_t		at;
			int			byte;
			const char *what;
		}			bad[] = {
			{c0 + 2, b[c0 + 2] - 1, "a first half one byte short"},
			{c0 + 2, b[c0 + 2] + 1, "a first half one byte long"},
			{c0 + 2, 33, "a first half longer than the chunk"},
			{0, 1, "a coded chunk in a version-1 block"},
			{c0 + 1, b[c0 + 1] - 1, "a coded chunk one byte short"},
			{c0 + 1, b[c0 + 1] + 1, "a coded chunk one byte long"},
		};

		for (size_t f = 0; f < sizeof bad / sizeof bad[0]; f++)
		{
			memcpy(m, b, len);
			m[bad[f].at] = (unsigned char) bad[f].byte;
			CHECK(at_samples_check(m, len, NULL) != NULL, "%s refused", bad[f].what);
		}
	}
	{
		/* one distinct value: no code (a constant chunk is smaller) */
		for (int i = 0; i < N; i++)
			v[i] = 7;
		len = at_samples_encode(ts, v, N, b);
		CHECK(b[0] == 1 && len < 200, "constant: version 1, %zu bytes", len);
	}
	free(ts);
	free(v);
	free(b);
	free(m);
}

static void
test_text(void)
{
	int64_t		ts[] = {T0, T0 + STEP, T0 + 3 * STEP};
	double		v[] = {1.5, 2, -7.25};
	unsigned char b[512],
				back[512];
	char		t[1100];
	size_t		len = at_samples_encode(ts, v, 3, b),
				outlen,
				pos;
	const char *msg;

	CHECK(at_samples_text_size(len) == 3 + 2 * len + 1, "text size");
	at_samples_format(b, len, t);
	CHECK(strlen(t) == 3 + 2 * len && strncmp(t, "v1:", 3) == 0, "formatted: %.40s...", t);
	msg = at_samples_parse(t, strlen(t), back, &outlen, &pos);
	CHECK(msg == NULL && outlen == len && memcmp(back, b, len) == 0, "parses back to the same bytes");
	t[10] = 'A';
	msg = at_samples_parse(t, strlen(t), back, &outlen, &pos);
	CHECK(msg != NULL && pos == 10, "upper case refused at 10: %s", msg ? msg : "accepted");
	at_samples_format(b, len, t);
	msg = at_samples_parse(t, strlen(t) - 1, back, &outlen, &pos);
	CHECK(msg != NULL && pos == strlen(t) - 1, "odd digits refused at the end: %s", msg ? msg : "accepted");
	msg = at_samples_parse("v2:00", 5, back, &outlen, &pos);
	CHECK(msg != NULL && strstr(msg, "version") != NULL && pos == 0, "v2: %s", msg ? msg : "accepted");
	msg = at_samples_parse("xyz", 3, back, &outlen, &pos);
	CHECK(msg != NULL && pos == 0, "no prefix: %s", msg ? msg : "accepted");
	msg = at_samples_parse("v1:0001", 7, back, &outlen, &pos);
	CHECK(msg != NULL && pos == 3, "bad bytes refused at the first digit: %s", msg ? msg : "accepted");
	msg = at_samples_parse("v1: 00", 6, back, &outlen, &pos);
	CHECK(msg != NULL && pos == 3, "a space refused: %s", msg ? msg : "accepted");
}

static int
Max_int(int a, int b)
{
	return a > b ? a : b;
}

/* a varint at *p (the block's own: trusted here) */
static uint64_t
test_varint(const unsigned char **p)
{
	uint64_t	x = 0;

	for (int sh = 0;; sh += 7)
	{
		unsigned char c = *(*p)++;

		x |= (uint64_t) (c & 0x7f) << sh;
		if (c < 0x80)
			return x;
	}
}

/* The longest code of a version-2 block's value code (its byte after B). */
static int
code_maxlen(const unsigned char *b)
{
	const unsigned char *p = b + values_at(b);
	int			ne;

	(void) test_varint(&p);		/* T */
	p++;						/* L */
	(void) test_varint(&p);		/* zz(base) */
	ne = *p++;
	for (int i = 0; i < ne; i++)
		(void) test_varint(&p);
	(void) test_varint(&p);		/* B */
	return *p;
}

/*
 * Coded chunks are two bit streams (halves); windows decode only the
 * halves they overlap, two side by side, with a small look-up table, and
 * whole blocks with a large one.  Both agree on every length mix, on
 * windows starting anywhere near a half's start and ending at a half's,
 * chunk's or the block's last value; and so do blocks with codes longer
 * than either table (another writer's: at_samples_encode_maxlen 15), which
 * decode the slow way.
 */
static void
test_halves(void)
{
	/* value weights: skewed (codes of 1..15 bits), flat (all long), two-bit-ish */
	static const int shapes = 4;
	at_rng		r;
	int			bad = 0,
				coded = 0,
				longest = 0,
				windows = 0;

	at_rng_seed(&r, 31);
	for (int maxlen = AT_SAMPLES_CODE_WRITE_MAXLEN; maxlen <= AT_SAMPLES_CODE_MAXLEN;
		 maxlen += AT_SAMPLES_CODE_MAXLEN - AT_SAMPLES_CODE_WRITE_MAXLEN)
		for (int shape = 0; shape < shapes; shape++)
			for (int32_t n = 1200; n <= 2900; n += 1700)
			{
				int64_t    *ts = malloc(sizeof(int64_t) * (size_t) n),
						   *wts = malloc(sizeof(int64_t) * (size_t) n),
						   *dts = malloc(sizeof(int64_t) * (size_t) n),
						   *wm = malloc(sizeof(int64_t) * (size_t) n);
				double	   *v = malloc(sizeof(double) * (size_t) n),
						   *dv = malloc(sizeof(double) * (size_t) n),
						   *wv = malloc(sizeof(double) * (size_t) n);
				unsigned char *b = malloc(at_samples_encode_bound(n));
				size_t		len;

				for (int32_t i = 0; i < n; i++)
				{
					uint64_t	x = at_rng_next(&r);

					ts[i] = T0 + STEP * i;
					switch (shape)
					{
						case 0:		/* geometric: 1, 2, 3 ... bit codes */
							v[i] = (double) (__builtin_ctzll(x | (UINT64_C(1) << 40)) * 37 % 101);
							break;
						case 1:		/* flat over 0..100: 6- and 7-bit codes, longer than the table */
							v[i] = (double) (x % 101);
							break;
						case 2:		/* polarized, as GPU_UTIL */
							v[i] = polarized_one(&r);
							break;
						default:	/* four values: 2-bit codes, many per look-up */
							v[i] = (double) (x % 4) * 33;
							break;
					}
				}
				len = at_samples_encode_maxlen(ts, v, n, b, maxlen);
				if (at_samples_check(b, len, NULL) != NULL)
				{
					bad++;
					continue;
				}
				coded += b[0] == AT_SAMPLES_VERSION;
				if (b[0] == AT_SAMPLES_VERSION)
					longest = Max_int(longest, code_maxlen(b));
				at_samples_decode(b, len, dts, dv);
				for (int32_t a = 0; a < n; a += (a % AT_SAMPLES_CHUNK_HALF) < 6 ? 1 : 29)
					for (int32_t e = a + 1; e <= n; e += e < a + 140 ? 1 : 131)
					{
						int32_t		w = at_samples_window(b, len, ts[a], ts[e - 1] + 1, wts, wv, NULL),
									w2 = at_samples_window(b, len, ts[a], ts[e - 1] + 1, wts, NULL, wm);

						windows++;
						if (w != e - a || w2 != e - a)
						{
							bad++;
							continue;
						}
						for (int32_t i = 0; i < w; i++)
							if (!same(wv[i], dv[a + i]) || !same(wv[i], v[a + i]) || (double) wm[i] != v[a + i])
							{
								bad++;
								break;
							}
					}
				free(ts);
				free(wts);
				free(dts);
				free(wm);
				free(v);
				free(dv);
				free(wv);
				free(b);
			}
	/* flat 0..100 codes at about 7 bits, what bit-packing takes: it may stay version 1 */
	CHECK(coded >= 2 * 2 * (shapes - 1), "raw-less value codes used: %d of %d blocks", coded, 2 * 2 * shapes);
	CHECK(longest > AT_SAMPLES_CODE_FAST, "codes longer than the whole-block table: %d bits", longest);
	CHECK(bad == 0 && windows > 10000, "windows by halves agree with whole-block decode: %d bad of %d", bad,
		  windows);
}

/* The integer bounds of a block contain each of its integers, one more each side. */
static void
test_int_bounds(void)
{
	at_rng		r;
	int			bad = 0,
				runs = 0;

	at_rng_seed(&r, 34);
	for (int it = 0; it < 200; it++)
	{
		int32_t		n = 1 + (int32_t) (at_rng_next(&r) % 500);
		int			scale = (int) (at_rng_next(&r) % 7);
		int64_t    *ts = malloc(sizeof(int64_t) * (size_t) n),
				   *m = malloc(sizeof(int64_t) * (size_t) n),
					lo = INT64_MAX,
					hi = INT64_MIN,
					mlo,
					mhi;
		double	   *v = malloc(sizeof(double) * (size_t) n);
		unsigned char *b = malloc(at_samples_encode_bound(n));
		at_samples_info info;
		at_samples_iter iter;
		int			k,
					constant;

		regular_times(ts, n);
		for (int32_t i = 0; i < n; i++)
			v[i] = (double) ((int64_t) (at_rng_next(&r) % 2000001) - 1000000) / p10[scale];
		at_samples_encode(ts, v, n, b);
		at_samples_info_read(b, &info);
		at_samples_iter_init(&iter, b, at_samples_encode_bound(n));
		for (int32_t done = 0; info.scale >= 0 && (k = at_samples_iter_next_scaled(&iter, m + done, &constant)) > 0; done += k)
			for (int i = 1; constant && i < k; i++)
				m[done + i] = m[done];
		for (int32_t i = 0; i < n && info.scale >= 0; i++)
		{
			lo = m[i] < lo ? m[i] : lo;
			hi = m[i] > hi ? m[i] : hi;
		}
		if (info.scale >= 0)
			at_samples_int_bounds(&info, &mlo, &mhi);
		bad += info.scale < 0 || mlo != lo - 1 || mhi != hi + 1;
		runs++;
		free(ts);
		free(m);
		free(v);
		free(b);
	}
	CHECK(bad == 0, "a block's integer bounds are its least and greatest integer, widened by one: %d bad of %d", bad, runs);
}

void
test_samples(void)
{
	test_values();
	test_times();
	test_widths();
	test_sum();
	test_sort_merge();
	test_check();
	test_coded();
	test_halves();
	test_text();
	test_int_bounds();
}
