/*
 * fuzz_summary.c: the summaries' counting (summary.c) and their exact
 * distributions (value_counts.c).
 *
 * Every input is used three ways:
 *  - as (group, value) pairs, 9 bytes each (a group byte, a double with any
 *    bits; non-finite values are left out as the pass leaves them out):
 *    at_vmap's sorted entries must equal a brute-force count, and each
 *    group's run must pass at_vc_check, with percentiles and counts at
 *    thresholds equal to those over the sorted values;
 *  - as raw arrays (doubles, then int64 counts) for at_vc_check, which
 *    must accept exactly distinct increasing finite values with counts in
 *    [1, 2^52];
 *  - as strings (runs between 0 bytes) for at_intern: equal strings get one
 *    number, different ones different numbers, in the order first seen;
 *    and for at_decimal_parse, which must accept exactly an optional minus,
 *    digits with at most one point, at most 18 significant digits and 9
 *    after the point, and whose value at_roll_text must write back (the
 *    same text when it is in numeric_out's form).
 */
#include "fuzz_common.h"
#include "summary.h"
#include "value_counts.h"

#define MAX_PAIRS 4096

typedef struct pair
{
	uint64_t	g;
	double		v;
} pair;

static int
pair_cmp(const void *a, const void *b)
{
	const pair *x = a,
			   *y = b;

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static double
brute_cont(const double *v, int64_t n, double q)
{
	int64_t		f = (int64_t) floor(q * (n - 1)),
				c = (int64_t) ceil(q * (n - 1));

	return f == c ? v[f] : v[f] + ((q * (n - 1)) - f) * (v[c] - v[f]);
}

static void
pairs(const uint8_t *data, size_t size)
{
	at_vmap		m;
	pair	   *p = calloc(MAX_PAIRS + 1, sizeof(pair));
	at_vmap_entry *e;
	size_t		n = 0;

	FUZZ_CHECK(at_vmap_init(&m, fuzz_mem, &fuzz_live), "vmap init");
	for (size_t i = 0; i + 9 <= size && n < MAX_PAIRS; i += 9)
	{
		double		v = fuzz_double(data + i + 1);

		if (!isfinite(v))
			continue;
		if (v == 0)
			v = 0.0;
		p[n].g = data[i] % 7;
		p[n].v = v;
		FUZZ_CHECK(at_vmap_add(&m, p[n].g, v), "vmap add");
		n++;
	}
	qsort(p, n, sizeof(pair), pair_cmp);
	e = calloc(m.n + 1, sizeof(at_vmap_entry));
	at_vmap_sorted(&m, e);
	{
		size_t		k = 0;

		for (size_t i = 0; i < n;)
		{
			size_t		j = i;

			while (j < n && p[j].g == p[i].g && p[j].v == p[i].v)
				j++;
			FUZZ_CHECK(k < m.n && e[k].group == p[i].g && e[k].value == p[i].v && e[k].count == (int64_t) (j - i),
					   "entry %zu differs from brute force", k);
			k++;
			i = j;
		}
		FUZZ_CHECK(k == m.n, "%zu entries, brute force %zu", m.n, k);
	}
	/* each group: a distribution */
	for (size_t i = 0, pi = 0; i < m.n;)
	{
		size_t		j = i,
					cnt;
		double	   *vals;
		int64_t    *counts;
		uint64_t   *cum;
		size_t		bad;

		while (j < m.n && e[j].group == e[i].group)
			j++;
		cnt = j - i;
		vals = calloc(cnt, sizeof(double));
		counts = calloc(cnt, sizeof(int64_t));
		cum = calloc(cnt, sizeof(uint64_t));
		for (size_t k = 0; k < cnt; k++)
		{
			vals[k] = e[i + k].value;
			counts[k] = e[i + k].count;
		}
		FUZZ_CHECK(at_vc_check(vals, counts, cnt, &bad) == NULL, "a group's run is refused at %zu", bad);
		{
			uint64_t	total = at_vc_prefix(counts, cnt, cum);
			double	   *gv = calloc(total, sizeof(double));
			static const double qs[] = {0, 0.1, 0.5, 0.9, 0.99, 1};

			/* the group's values, sorted: p is sorted by (group, value) */
			for (uint64_t k = 0; k < total; k++)
				gv[k] = p[pi + k].v;
			for (size_t q = 0; q < sizeof(qs) / sizeof(qs[0]); q++)
				FUZZ_CHECK(at_vc_percentile_cont(vals, cum, cnt, qs[q]) == brute_cont(gv, (int64_t) total, qs[q]) ||
						   isnan(brute_cont(gv, (int64_t) total, qs[q])),
						   "percentile %g", qs[q]);
			for (uint64_t k = 0; k < total; k++)
			{
				uint64_t	le = 0,
							lt = 0;

				for (uint64_t t = 0; t < total; t++)
				{
					le += gv[t] <= gv[k];
					lt += gv[t] < gv[k];
				}
				FUZZ_CHECK(at_vc_count_at(vals, cum, cnt, gv[k], 0) == le &&
						   at_vc_count_at(vals, cum, cnt, gv[k], 1) == lt, "counts at %g", gv[k]);
				if (k > 64)
					break;
			}
			pi += total;
			free(gv);
		}
		free(vals);
		free(counts);
		free(cum);
		i = j;
	}
	free(e);
	free(p);
	at_vmap_free(&m);
}

static void
raw_arrays(const uint8_t *data, size_t size)
{
	size_t		n = size / 16,
				bad;
	double	   *vals = calloc(n + 1, sizeof(double));
	int64_t    *counts = calloc(n + 1, sizeof(int64_t));
	int			want = 1;

	for (size_t i = 0; i < n; i++)
	{
		vals[i] = fuzz_double(data + 8 * i);
		counts[i] = (int64_t) fuzz_be64(data + 8 * n + 8 * i);
		if (!isfinite(vals[i]) || (i > 0 && !(vals[i] > vals[i - 1])) ||
			counts[i] < 1 || counts[i] > ((int64_t) 1 << 52))
			want = 0;
	}
	FUZZ_CHECK((at_vc_check(vals, counts, n, &bad) == NULL) == want, "at_vc_check disagrees with its rules");
	if (want && n > 0)
	{
		uint64_t   *cum = calloc(n, sizeof(uint64_t));
		uint64_t	total = at_vc_prefix(counts, n, cum);

		if (total > 0)
		{
			double		v = at_vc_percentile_cont(vals, cum, n, 0.5);

			FUZZ_CHECK(isnan(v) || (v >= vals[0] && v <= vals[n - 1]) || isinf(vals[n - 1] - vals[0]),
					   "median outside [min, max]");
			FUZZ_CHECK(at_vc_count_at(vals, cum, n, vals[n - 1], 0) == total, "all at or below the max");
		}
		free(cum);
	}
	free(vals);
	free(counts);
}

/* at_decimal_parse's rules, counted independently. */
static int
decimal_ok(const char *s)
{
	int			points = 0,
				frac = 0,
				sig = 0;

	if (*s == '-')
		s++;
	for (; *s; s++)
	{
		if (*s == '.')
			points++;
		else if (*s < '0' || *s > '9')
			return 0;
		else
		{
			sig += sig > 0 || *s != '0';
			frac += points > 0;
		}
	}
	return points <= 1 && frac <= 9 && sig <= 18;
}

/* As numeric_out writes a value: no leading zeros, digits on both sides of a point, no "-0". */
static int
canonical(const char *s)
{
	const char *d = s + (*s == '-');
	const char *pt = strchr(d, '.');
	size_t		ilen = pt ? (size_t) (pt - d) : strlen(d);

	if (ilen == 0 || (ilen > 1 && d[0] == '0') || (pt && pt[1] == '\0'))
		return 0;
	/* "-0" and "-0.00" are not written: a negative value has a non-zero digit */
	return *s != '-' || strspn(d, "0.") < strlen(d);
}

static void
decimal(const char *s)
{
	at_decimal	d,
				back;
	int			ok = at_decimal_parse(s, &d);

	FUZZ_CHECK(ok == decimal_ok(s), "at_decimal_parse(\"%s\") is %d", s, ok);
	if (!ok)
		return;
	FUZZ_CHECK(d.scale >= 0 && d.scale <= 9 && d.mant > -INT64_C(1000000000000000000) &&
			   d.mant < INT64_C(1000000000000000000), "decimal out of range");
#ifdef AT_HAVE_INT128
	{
		char		buf[AT_ROLL_TEXT];
		at_int128	v = d.mant;
		const char *t;

		for (int k = d.scale; k < 9; k++)
			v *= 10;
		t = at_roll_text(buf, v, d.scale);
		FUZZ_CHECK(at_decimal_parse(t, &back) && back.mant == d.mant && back.scale == d.scale,
				   "\"%s\" written back as \"%s\"", s, t);
		FUZZ_CHECK(!canonical(s) || strcmp(s, t) == 0, "\"%s\" written back as \"%s\"", s, t);
	}
#endif
}

static void
strings(const uint8_t *data, size_t size)
{
	at_intern	t;
	size_t		start = 0;
	int32_t		ids[256];
	size_t		starts[256],
				lens[256];
	int			k = 0;

	FUZZ_CHECK(at_intern_init(&t, fuzz_mem, &fuzz_live), "intern init");
	for (size_t i = 0; i <= size && k < 256; i++)
	{
		if (i == size || data[i] == 0)
		{
			int32_t		id = at_intern_id(&t, (const char *) data + start, i - start);
			int32_t		want = -1;
			char	   *z = calloc(i - start + 1, 1);
			size_t		zlen;

			memcpy(z, data + start, i - start);
			decimal(z);
			free(z);
			FUZZ_CHECK(id < 0 || (at_intern_str(&t, id, &zlen) != NULL && zlen == i - start &&
								  memcmp(at_intern_str(&t, id, &zlen), data + start, zlen) == 0),
					   "string %d is not kept by its number", k);

			for (int j = 0; j < k && want < 0; j++)
				if (lens[j] == i - start && memcmp(data + starts[j], data + start, lens[j]) == 0)
					want = ids[j];
			if (want < 0)
			{
				int32_t		mx = -1;

				for (int j = 0; j < k; j++)
					mx = ids[j] > mx ? ids[j] : mx;
				want = mx + 1;
			}
			FUZZ_CHECK(id == want, "string %d got %d, expected %d", k, id, want);
			ids[k] = id;
			starts[k] = start;
			lens[k] = i - start;
			k++;
			start = i + 1;
		}
	}
	at_intern_free(&t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pairs(data, size);
	raw_arrays(data, size);
	strings(data, size);
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations left", fuzz_live);
	return 0;
}
