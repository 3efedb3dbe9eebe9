/*
 * fuzz_samples_decode.c: acmetrace.samples, the compressed sample block:
 * at_samples_check and every reader it guards, and the text form.
 *
 * Every input is used twice:
 *  - as the bytes of a block: at_samples_check accepts or refuses them,
 *    and "v1:" and their lower-case hexadecimal parse (at_samples_parse)
 *    with the same verdict and message, while upper case is refused.  An
 *    accepted block decodes to times strictly increasing from first to
 *    last and finite values whose first-met min and max are the header's;
 *    both iterators give the decoded values (constant chunks expanded),
 *    m / 10^scale being the value bit for bit with |m| < 2^53; the sum
 *    text equals an __int128 reference; slices at a few windows equal
 *    decode and filter; and the decoded samples encode again into a valid
 *    block that decodes to the same bits;
 *  - as text for at_samples_parse: an error points inside the text; an
 *    accepted text is "v1:" and lower-case digit pairs that
 *    at_samples_format writes back exactly, and its bytes get the checks
 *    above.
 */
#include "fuzz_common.h"
#include "samples.h"

/* the reference sum: __int128 and plain digit arithmetic */
static void
ref_sum(const int64_t *m, int32_t n, int scale, char *out)
{
	__int128	s = 0;
	unsigned __int128 a;
	char		d[64];
	int			nd = 0;

	for (int32_t i = 0; i < n; i++)
		s += m[i];
	a = s < 0 ? -(unsigned __int128) s : (unsigned __int128) s;
	do
	{
		d[nd++] = (char) ('0' + (int) (a % 10));
		a /= 10;
	} while (a != 0);
	while (nd <= scale)
		d[nd++] = '0';
	if (s < 0)
		*out++ = '-';
	while (nd > 0)
	{
		*out++ = d[--nd];
		if (nd == scale && nd > 0)
			*out++ = '.';
	}
	*out = '\0';
}

static void
check_slice(const unsigned char *b, size_t len, const int64_t *ts, const double *v, int32_t n, int64_t from,
			int64_t to)
{
	unsigned char *s = malloc(at_samples_encode_bound(n));
	int32_t		ns,
				first = -1,
				want = 0;
	size_t		slen = at_samples_slice(b, len, from, to, s, &ns);

	for (int32_t i = 0; i < n; i++)
		if (ts[i] >= from && ts[i] < to)
		{
			if (first < 0)
				first = i;
			want++;
		}
	FUZZ_CHECK(ns == want && (slen == 0) == (want == 0), "slice [%lld, %lld): %d samples, want %d",
			   (long long) from, (long long) to, ns, want);
	if (want > 0)
	{
		int64_t    *sts = malloc(sizeof(int64_t) * (size_t) want);
		double	   *sv = malloc(sizeof(double) * (size_t) want);
		const char *msg = at_samples_check(s, slen, NULL);

		FUZZ_CHECK(msg == NULL, "slice refused: %s", msg);
		at_samples_decode(s, slen, sts, sv);
		for (int32_t i = 0; i < want; i++)
			FUZZ_CHECK(sts[i] == ts[first + i] && fuzz_same_double(sv[i], v[first + i]),
					   "slice sample %d differs", i);
		free(sts);
		free(sv);
	}
	free(s);
}

/* Every reader of an accepted block. */
static void
exercise(const unsigned char *b, size_t len, const at_samples_info *info)
{
	int32_t		n = info->n;
	int64_t    *ts = malloc(sizeof(int64_t) * (size_t) n),
			   *m = malloc(sizeof(int64_t) * (size_t) n),
				cm[AT_SAMPLES_CHUNK];
	double	   *v = malloc(sizeof(double) * (size_t) n),
				cv[AT_SAMPLES_CHUNK],
				mn,
				mx;
	unsigned char *again = malloc(at_samples_encode_bound(n));
	at_samples_iter it;
	at_samples_info info2;
	int32_t		at = 0;
	int			got,
				constant;
	char		sum[64],
				ref[64];
	size_t		len2;
	const char *msg;

	FUZZ_CHECK(n >= 1 && n <= AT_SAMPLES_MAX && info->scale >= -1 && info->scale <= AT_SAMPLES_MAX_SCALE,
			   "header out of range: n %d scale %d", n, info->scale);
	at_samples_decode(b, len, ts, v);
	FUZZ_CHECK(ts[0] == info->first_ts && ts[n - 1] == info->last_ts, "first or last time differs");
	mn = mx = v[0];
	for (int32_t i = 0; i < n; i++)
	{
		FUZZ_CHECK(i == 0 || ts[i] > ts[i - 1], "times not increasing at %d", i);
		FUZZ_CHECK(isfinite(v[i]), "value %d not finite", i);
		if (v[i] < mn)
			mn = v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	FUZZ_CHECK(fuzz_same_double(mn, info->min) && fuzz_same_double(mx, info->max), "min or max differs");

	/* decode with either array alone */
	{
		int64_t    *ts2 = malloc(sizeof(int64_t) * (size_t) n);
		double	   *v2 = malloc(sizeof(double) * (size_t) n);

		at_samples_decode(b, len, ts2, NULL);
		at_samples_decode(b, len, NULL, v2);
		FUZZ_CHECK(memcmp(ts, ts2, sizeof(int64_t) * (size_t) n) == 0 &&
				   memcmp(v, v2, sizeof(double) * (size_t) n) == 0, "decode of one array differs");
		free(ts2);
		free(v2);
	}

	at_samples_iter_init(&it, b, len);
	while ((got = at_samples_iter_next(&it, cv, &constant)) > 0)
	{
		FUZZ_CHECK(got <= AT_SAMPLES_CHUNK && at + got <= n, "iter_next: %d values at %d", got, at);
		for (int i = 0; i < got; i++)
			FUZZ_CHECK(fuzz_same_double(constant ? cv[0] : cv[i], v[at + i]), "iter_next value %d", at + i);
		at += got;
	}
	FUZZ_CHECK(at == n, "iter_next gave %d of %d", at, n);

	if (info->scale >= 0)
	{
		at = 0;
		at_samples_iter_init(&it, b, len);
		while ((got = at_samples_iter_next_scaled(&it, cm, &constant)) > 0)
		{
			FUZZ_CHECK(got <= AT_SAMPLES_CHUNK && at + got <= n, "iter_next_scaled: %d values at %d", got, at);
			for (int i = 0; i < got; i++)
			{
				m[at + i] = constant ? cm[0] : cm[i];
				FUZZ_CHECK(m[at + i] < ((int64_t) 1 << 53) && m[at + i] > -((int64_t) 1 << 53) &&
						   fuzz_same_double((double) m[at + i] / at_p10[info->scale], v[at + i]),
						   "m %lld at %d is not the value", (long long) m[at + i], at + i);
			}
			at += got;
		}
		FUZZ_CHECK(at == n, "iter_next_scaled gave %d of %d", at, n);
		{
			/* the value counts, when present, are the integers' */
			static int64_t km[AT_SAMPLES_COUNTS_MAX],
						kc[AT_SAMPLES_COUNTS_MAX];
			int			k = at_samples_counts(b, km, kc);
			int64_t		total = 0;

			for (int i = 0; i < k; i++)
			{
				int64_t		seen = 0;

				FUZZ_CHECK(i == 0 || km[i] > km[i - 1], "counted values not increasing at %d", i);
				for (int j = 0; j < n; j++)
					seen += m[j] == km[i];
				FUZZ_CHECK(seen == kc[i], "value %lld counted %lld times, present %lld", (long long) km[i],
						   (long long) kc[i], (long long) seen);
				total += kc[i];
			}
			FUZZ_CHECK(k == 0 || total == n, "counts add up to %lld of %d", (long long) total, n);
		}
		ref_sum(m, n, info->scale, ref);
		FUZZ_CHECK(at_samples_sum_text(b, len, sum, sizeof(sum)) == 0 && strcmp(sum, ref) == 0,
				   "sum %s, reference %s", sum, ref);
	}
	else
		FUZZ_CHECK(at_samples_sum_text(b, len, sum, sizeof(sum)) == -1, "raw doubles summed");

	/* windows: everything, nothing, single samples, thirds, edges */
	check_slice(b, len, ts, v, n, INT64_MIN, INT64_MAX);
	check_slice(b, len, ts, v, n, ts[0], ts[n - 1]);
	check_slice(b, len, ts, v, n, ts[n / 2], ts[n / 2]);
	if (ts[n / 2] < INT64_MAX)
		check_slice(b, len, ts, v, n, ts[n / 2], ts[n / 2] + 1);
	check_slice(b, len, ts, v, n, ts[n / 3], ts[(2 * n) / 3]);
	if (ts[n - 1] < INT64_MAX)
		check_slice(b, len, ts, v, n, ts[n - 1] + 1, INT64_MAX);
	if (ts[0] > INT64_MIN)
		check_slice(b, len, ts, v, n, ts[0] - 1, ts[n / 4] > INT64_MIN ? ts[n / 4] - 1 : ts[n / 4]);

	/* encode again: valid, the same samples bit for bit, at most the bound */
	len2 = at_samples_encode(ts, v, n, again);
	msg = at_samples_check(again, len2, &info2);
	FUZZ_CHECK(msg == NULL && len2 <= at_samples_encode_bound(n), "re-encoded block refused: %s", msg ? msg : "too long");
	FUZZ_CHECK(info2.n == n && fuzz_same_double(info2.min, mn) && fuzz_same_double(info2.max, mx),
			   "re-encoded header differs");
	{
		int64_t    *ts2 = malloc(sizeof(int64_t) * (size_t) n);
		double	   *v2 = malloc(sizeof(double) * (size_t) n);

		at_samples_decode(again, len2, ts2, v2);
		for (int32_t i = 0; i < n; i++)
			FUZZ_CHECK(ts2[i] == ts[i] && fuzz_same_double(v2[i], v[i]), "re-encoded sample %d differs", i);
		free(ts2);
		free(v2);
	}
	free(again);
	free(ts);
	free(m);
	free(v);
}

static void
as_bytes(const uint8_t *data, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char	   *t = malloc(3 + 2 * size + 1);
	unsigned char *back = malloc(size + 1);
	at_samples_info info;
	const char *ma = at_samples_check(data, size, &info),
			   *mb;
	size_t		outlen,
				pos;
	int			upper = 0;

	memcpy(t, "v1:", 3);
	for (size_t i = 0; i < size; i++)
	{
		t[3 + 2 * i] = hex[data[i] >> 4];
		t[3 + 2 * i + 1] = hex[data[i] & 15];
	}
	t[3 + 2 * size] = '\0';
	mb = at_samples_parse(t, 3 + 2 * size, back, &outlen, &pos);
	FUZZ_CHECK((ma == NULL) == (mb == NULL) && (ma == NULL || strcmp(ma, mb) == 0),
			   "bytes: %s, their text: %s", ma ? ma : "accepted", mb ? mb : "accepted");
	FUZZ_CHECK(outlen == size && memcmp(back, data, size) == 0, "the text read other bytes");
	for (size_t i = 3; i < 3 + 2 * size; i++)
		if (t[i] >= 'a' && t[i] <= 'f')
		{
			t[i] = (char) (t[i] - 'a' + 'A');
			upper = 1;
			break;
		}
	if (upper)
		FUZZ_CHECK(at_samples_parse(t, 3 + 2 * size, back, &outlen, &pos) != NULL, "upper case accepted");
	if (ma == NULL)
		exercise(data, size, &info);
	free(t);
	free(back);
}

static void
as_text(const uint8_t *data, size_t size)
{
	unsigned char *out = malloc(size / 2 + 1);
	size_t		outlen = 0,
				pos = (size_t) -1;
	const char *msg = at_samples_parse((const char *) data, size, out, &outlen, &pos);

	if (msg != NULL)
		FUZZ_CHECK(pos <= size, "error position %zu past the %zu-byte text", pos, size);
	else
	{
		char	   *t = malloc(at_samples_text_size(outlen));
		at_samples_info info;

		FUZZ_CHECK(size >= 3 && memcmp(data, "v1:", 3) == 0 && outlen == (size - 3) / 2 && size % 2 == 1,
				   "accepted without v1: and digit pairs");
		at_samples_format(out, outlen, t);
		FUZZ_CHECK(strlen(t) + 1 == at_samples_text_size(outlen) && strlen(t) == size && memcmp(t, data, size) == 0,
				   "formatted to other text");
		FUZZ_CHECK(at_samples_check(out, outlen, &info) == NULL, "parsed bytes refused by the check");
		exercise(out, outlen, &info);
		free(t);
	}
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_bytes(data, size);
	as_text(data, size);
	return 0;
}
