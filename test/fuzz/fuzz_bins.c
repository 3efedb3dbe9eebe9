/*
 * fuzz_bins.c: the bins and CDF argument checks and the state reader.
 *
 * Every input is used twice:
 *  - as arrays for the argument checks, as the SQL functions get them:
 *    doubles from bytes 1.. (any bits: NaN, infinities, -0, denormals,
 *    huge), and counts that are negative, zero, huge or just right
 *    (byte 0 chooses).  at_bins_check_equal / _edges / _thresholds must
 *    agree with their documented rules; arguments that pass must set up a
 *    state whose slot functions agree with brute force, that counts the
 *    values, gives CDFs in [0, 100], and serializes to bytes that
 *    at_bins_decode reads back and re-encodes byte for byte;
 *  - as a serialized state for at_bins_decode (bins' deserialize,
 *    src/bins_type.c).  An accepted state re-encodes to the very same
 *    bytes, has the shape combine rebuilds from it, merges into a copy,
 *    and answers slots and at_bins_cdf in range.
 */
#include <float.h>

#include "fuzz_common.h"
#include "bins.h"

#define MAX_STATE_SLOTS 512		/* past this, check the slots without a state */

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static int
all_finite(const double *v, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/*
 * Sorted probes: up to 24 of the numbers (not NaN) of v[0..n), spread over
 * it, each with its neighbours, and the ends of the doubles.
 */
static double *
probe_values(const double *v, size_t n, size_t *np)
{
	double	   *p = malloc((4 * 24 + 6) * sizeof(double));
	size_t		k = 0,
				step = n / 24 + 1;

	for (size_t i = 0; i < n; i += step)
		if (!isnan(v[i]))
		{
			p[k++] = v[i];
			p[k++] = nextafter(v[i], -INFINITY);
			p[k++] = nextafter(v[i], INFINITY);
			p[k++] = v[i] / 2;
		}
	p[k++] = 0;
	p[k++] = -0.0;
	p[k++] = INFINITY;
	p[k++] = -INFINITY;
	p[k++] = DBL_MAX;
	p[k++] = -DBL_MAX;
	qsort(p, k, sizeof(double), cmp_double);
	*np = k;
	return p;
}

typedef struct cdf_point
{
	double		at;
	double		pct;
} cdf_point;

static int
cmp_point(const void *a, const void *b)
{
	return cmp_double(&((const cdf_point *) a)->at, &((const cdf_point *) b)->at);
}

/* The CDF in range and monotone in the thresholds; needs n > 0 (wtotal > 0). */
static void
check_cdf(const at_bins *h)
{
	double	   *out = malloc((size_t) h->nin * sizeof(double)),
			   *scratch = malloc((size_t) h->nparams * sizeof(double));
	cdf_point  *pt = malloc((size_t) h->nin * sizeof(cdf_point));

	at_bins_cdf(h, out, scratch);
	for (int32_t i = 0; i < h->nin; i++)
	{
		FUZZ_CHECK(out[i] >= 0 && out[i] <= 100 * (1 + 1e-9), "CDF %g at threshold %g", out[i], h->in[i]);
		pt[i].at = h->in[i];
		pt[i].pct = out[i];
	}
	qsort(pt, (size_t) h->nin, sizeof(cdf_point), cmp_point);
	for (int32_t i = 1; i < h->nin; i++)
		FUZZ_CHECK(pt[i].at == pt[i - 1].at ? pt[i].pct == pt[i - 1].pct : pt[i].pct >= pt[i - 1].pct,
				   "CDF not monotone: %g at %g, then %g at %g", pt[i - 1].pct, pt[i - 1].at, pt[i].pct, pt[i].at);
	free(pt);
	free(out);
	free(scratch);
}

/* Encode, decode, re-encode: the same bytes; the copy has the same shape. */
static void
roundtrip(const at_bins *h)
{
	size_t		n = at_bins_encoded_size(h);
	unsigned char *b = malloc(n),
			   *b2 = malloc(n);
	at_bins		back;
	const char *msg;

	at_bins_encode(h, b);
	msg = at_bins_decode(&back, b, n, fuzz_mem, &fuzz_live);
	FUZZ_CHECK(msg == NULL, "own state (kind %d, %d slots, n %lld) rejected: %s", (int) h->kind, h->nslots,
			   (long long) h->n, msg);
	FUZZ_CHECK(at_bins_same_shape(h, &back) && at_bins_encoded_size(&back) == n, "decoded to another shape");
	at_bins_encode(&back, b2);
	FUZZ_CHECK(memcmp(b, b2, n) == 0, "state not re-encoded the same");
	at_bins_free(&back, fuzz_mem, &fuzz_live);
	free(b);
	free(b2);
}

/* Count the numbers among vals (weights from them too), then the checks above. */
static void
count_values(at_bins *h, const double *vals, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		double		w = fabs(vals[(i + 1) % n]);

		if (isnan(vals[i]))
			continue;			/* the glue skips NaN */
		if (h->kind == AT_BINS_WCDF && (!isfinite(w) || isinf(h->wtotal + w)))
			continue;			/* the glue refuses these weights */
		at_bins_add(h, vals[i], w);
	}
	{
		int64_t		total = 0;

		for (int32_t s = 0; s < h->nslots; s++)
			total += h->counts[s];
		FUZZ_CHECK(total == h->n, "slots hold %lld of %lld values", (long long) total, (long long) h->n);
	}
	if ((h->kind == AT_BINS_CDF && h->n > 0) || (h->kind == AT_BINS_WCDF && h->n > 0 && h->wtotal > 0))
		check_cdf(h);
	roundtrip(h);
}

static void
arrays(const uint8_t *data, size_t size)
{
	size_t		m = size > 1 ? (size - 1) / 8 : 0,
				np;
	double	   *v = malloc((m ? m : 1) * sizeof(double)),
			   *p;
	int64_t		nbins;
	static const int64_t odd_n[] = {INT64_MIN, -1, 0, 1, 2, 1000000, 1000001, 1000002, INT64_MAX};
	at_bins		h;

	for (size_t i = 0; i < m; i++)
		v[i] = fuzz_double(data + 1 + 8 * i);
	p = probe_values(v, m, &np);
	if (size > 0 && (data[0] & 0x80) && m >= 3)
		nbins = (int64_t) fuzz_be64(data + 17);
	else
		nbins = size > 0 ? (int64_t) (data[0] & 0x7f) - 4 : 0;

	/* equal-width bins: lo, hi = the first two doubles */
	if (m >= 2)
	{
		double		lo = v[0],
					hi = v[1];
		int			args_ok = isfinite(lo) && isfinite(hi) && lo < hi;

		for (size_t k = 0; k < sizeof(odd_n) / sizeof(odd_n[0]); k++)
			FUZZ_CHECK((at_bins_check_equal(lo, hi, odd_n[k]) == NULL) ==
					   (args_ok && odd_n[k] >= 1 && odd_n[k] <= 1000000), "check_equal(%g, %g, %lld)", lo, hi,
					   (long long) odd_n[k]);
		if (at_bins_check_equal(lo, hi, nbins) == NULL)
		{
			int32_t		nb = (int32_t) nbins,
						prev = 0;

			FUZZ_CHECK(args_ok && nbins >= 1 && nbins <= 1000000, "check_equal took %g, %g, %lld", lo, hi,
					   (long long) nbins);
			for (size_t i = 0; i < np; i++)
			{
				int32_t		s = at_bins_equal_slot(p[i], lo, hi, nb);

				FUZZ_CHECK(s >= 0 && s <= nb + 1, "slot %d of %d bins", s, nb);
				FUZZ_CHECK(p[i] < lo ? s == 0 : p[i] > hi ? s == nb + 1 : p[i] == hi ? s == nb : (s >= 1 && s <= nb),
						   "%.17g in [%.17g, %.17g] / %d: slot %d", p[i], lo, hi, nb, s);
				FUZZ_CHECK(s >= prev, "slots not monotone at %.17g", p[i]);
				prev = s;
			}
			if (nb <= MAX_STATE_SLOTS)
			{
				FUZZ_CHECK(at_bins_init(&h, AT_BINS_EQUAL, lo, hi, nb, NULL, 0, fuzz_mem, &fuzz_live) == 0, "init");
				count_values(&h, v, m);
				at_bins_free(&h, fuzz_mem, &fuzz_live);
			}
		}
	}

	/* edges: all the doubles, and counts that must be refused unread */
	{
		int			ok = m >= 2 && all_finite(v, (int64_t) m);

		for (size_t i = 1; ok && i < m; i++)
			ok = v[i - 1] < v[i];
		FUZZ_CHECK((at_bins_check_edges(v, (int64_t) m) == NULL) == ok, "check_edges of %zu", m);
		FUZZ_CHECK(at_bins_check_edges(v, -1) && at_bins_check_edges(v, INT64_MIN) &&
				   at_bins_check_edges(v, 1000002) && at_bins_check_edges(v, INT64_MAX), "odd edge counts");
		if (ok)
		{
			int32_t		n = (int32_t) m;

			for (size_t i = 0; i < np; i++)
			{
				int32_t		want = 0,
							s = at_bins_edges_slot(p[i], v, n);

				for (int32_t k = 0; k < n; k++)
					want += v[k] <= p[i];
				if (p[i] == v[n - 1])
					want = n - 1;
				else if (p[i] > v[n - 1])
					want = n;
				FUZZ_CHECK(s == want, "edges slot of %.17g: %d, brute force %d", p[i], s, want);
			}
			FUZZ_CHECK(at_bins_init(&h, AT_BINS_EDGES, 0, 0, 0, v, n, fuzz_mem, &fuzz_live) == 0, "init");
			count_values(&h, v, m);
			at_bins_free(&h, fuzz_mem, &fuzz_live);
		}
	}

	/* thresholds: all the doubles */
	{
		int			ok = m >= 1;

		for (size_t i = 0; i < m; i++)
			ok = ok && !isnan(v[i]);
		FUZZ_CHECK((at_bins_check_thresholds(v, (int64_t) m) == NULL) == ok, "check_thresholds of %zu", m);
		FUZZ_CHECK(at_bins_check_thresholds(v, -1) && at_bins_check_thresholds(v, 0) &&
				   at_bins_check_thresholds(v, 1000001) && at_bins_check_thresholds(v, INT64_MIN),
				   "odd threshold counts");
		if (ok)
			for (int kind = AT_BINS_CDF; kind <= AT_BINS_WCDF; kind++)
			{
				FUZZ_CHECK(at_bins_init(&h, (at_bins_kind) kind, 0, 0, 0, v, (int32_t) m, fuzz_mem, &fuzz_live) == 0,
						   "init");
				FUZZ_CHECK(h.nparams >= 1 && h.nparams <= (int32_t) m && h.nslots == h.nparams + 1, "%d thresholds",
						   h.nparams);
				for (int32_t j = 0; j < h.nparams; j++)
					FUZZ_CHECK((j == 0 || h.params[j - 1] < h.params[j]) && !fuzz_same_double(h.params[j], -0.0),
							   "thresholds not sorted, distinct, without -0");
				for (size_t i = 0; i < np; i++)
				{
					int32_t		want = 0,
								s = at_bins_cdf_slot(p[i], h.params, h.nparams);

					for (int32_t k = 0; k < h.nparams; k++)
						want += h.params[k] < p[i];
					FUZZ_CHECK(s == want, "CDF slot of %.17g: %d, brute force %d", p[i], s, want);
				}
				count_values(&h, v, m);
				at_bins_free(&h, fuzz_mem, &fuzz_live);
			}
	}
	free(p);
	free(v);
}

static void
state(const uint8_t *data, size_t size)
{
	at_bins		h,
				copy;
	const char *msg = at_bins_decode(&h, data, size, fuzz_mem, &fuzz_live);
	unsigned char *b;
	int64_t		total = 0;
	size_t		np;
	double	   *p;

	if (msg != NULL)
	{
		FUZZ_CHECK(h.counts == NULL && h.params == NULL && h.in == NULL && h.weights == NULL,
				   "a refused state left arrays behind");
		return;
	}
	FUZZ_CHECK(h.kind >= AT_BINS_EQUAL && h.kind <= AT_BINS_WCDF && h.nslots >= 2 &&
			   h.nslots <= AT_BINS_MAX_SLOTS && h.counts != NULL, "kind %d, %d slots", (int) h.kind, h.nslots);
	FUZZ_CHECK(h.kind == AT_BINS_EQUAL ? h.nslots == h.nbins + 2 : h.nslots == h.nparams + 1, "slots and parameters");
	FUZZ_CHECK((h.kind == AT_BINS_CDF || h.kind == AT_BINS_WCDF) == (h.nin > 0), "thresholds as given");
	for (int32_t s = 0; s < h.nslots; s++)
	{
		FUZZ_CHECK(h.counts[s] >= 0, "negative count");
		total += h.counts[s];
	}
	FUZZ_CHECK(total == h.n, "counts add to %lld, n is %lld", (long long) total, (long long) h.n);

	/* the very same bytes back */
	FUZZ_CHECK(at_bins_encoded_size(&h) == size, "encoded size %zu of a %zu byte state", at_bins_encoded_size(&h), size);
	b = malloc(size);
	at_bins_encode(&h, b);
	FUZZ_CHECK(memcmp(b, data, size) == 0, "state re-encodes to other bytes");
	free(b);

	/* slots of the parameters and their neighbours, in range */
	p = probe_values(h.kind == AT_BINS_EQUAL ? (const double[]) {h.lo, h.hi} : h.params,
					 h.kind == AT_BINS_EQUAL ? 2 : (size_t) h.nparams, &np);
	for (size_t i = 0; i < np; i++)
	{
		int32_t		s = h.kind == AT_BINS_EQUAL ? at_bins_equal_slot(p[i], h.lo, h.hi, h.nbins) :
			h.kind == AT_BINS_EDGES ? at_bins_edges_slot(p[i], h.params, h.nparams) :
			at_bins_cdf_slot(p[i], h.params, h.nparams);

		FUZZ_CHECK(s >= 0 && s < h.nslots, "slot %d of %d", s, h.nslots);
	}
	free(p);

	/* combine: a state of the same shape built from this one's arguments, merged into twice */
	FUZZ_CHECK(at_bins_init(&copy, h.kind, h.lo, h.hi, h.nbins, h.kind == AT_BINS_EDGES ? h.params : h.in,
							h.kind == AT_BINS_EDGES ? h.nparams : h.nin, fuzz_mem, &fuzz_live) == 0, "init");
	FUZZ_CHECK(at_bins_same_shape(&copy, &h), "combine would not take this state's shape");
	for (int round = 0; round < 2; round++)
	{
		int64_t		n_before = copy.n;

		double		w_before = copy.wtotal;
		int			rc = at_bins_merge(&copy, &h);

		if (rc != 0)
		{
			FUZZ_CHECK(copy.n == n_before && copy.wtotal == w_before, "a refused merge changed the state");
			FUZZ_CHECK(rc == -1 ? n_before > INT64_MAX - h.n
					   : h.kind == AT_BINS_WCDF && isinf(w_before + h.wtotal), "merge refused (%d) without overflow", rc);
			break;
		}
		FUZZ_CHECK(copy.n == n_before + h.n, "merge count");
	}
	if ((copy.kind == AT_BINS_CDF && copy.n > 0) || (copy.kind == AT_BINS_WCDF && copy.n > 0 && copy.wtotal > 0))
		check_cdf(&copy);
	at_bins_free(&copy, fuzz_mem, &fuzz_live);

	/* the final function */
	if ((h.kind == AT_BINS_CDF && h.n > 0) || (h.kind == AT_BINS_WCDF && h.n > 0 && h.wtotal > 0))
		check_cdf(&h);
	at_bins_free(&h, fuzz_mem, &fuzz_live);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	arrays(data, size);
	state(data, size);
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations leaked", fuzz_live);
	return 0;
}
