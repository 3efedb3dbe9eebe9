/*
 * bins.c: bins, thresholds and their serialized form (see bins.h).
 */
#include "bins.h"

#include "bytes.h"
#include "hex.h"
#include "num.h"
#include "samples.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *
at_bins_check_equal(double lo, double hi, int64_t nbins)
{
	if (!isfinite(lo) || !isfinite(hi))
		return "lo and hi must be finite";
	if (!(lo < hi))
		return "lo must be less than hi";
	if (nbins < 1 || nbins > AT_BINS_MAX_SLOTS - 2)
		return "nbins must be between 1 and 1000000";
	return NULL;
}

const char *
at_bins_check_edges(const double *e, int64_t n)
{
	if (n < 2 || n > AT_BINS_MAX_SLOTS - 1)
		return "need between 2 and 1000001 edges";
	for (int64_t i = 0; i < n; i++)
	{
		if (!isfinite(e[i]))
			return "edges must be finite";
		if (i > 0 && !(e[i - 1] < e[i]))
			return "edges must be strictly increasing";
	}
	return NULL;
}

const char *
at_bins_check_thresholds(const double *t, int64_t n)
{
	if (n < 1 || n > AT_BINS_MAX_THRESHOLDS)
		return "need between 1 and 1000000 thresholds";
	for (int64_t i = 0; i < n; i++)
		if (isnan(t[i]))
			return "thresholds must not be NaN";
	return NULL;
}

int32_t
at_bins_equal_slot(double v, double lo, double hi, int32_t nbins)
{
	double		q;
	int32_t		r;

	if (v < lo)
		return 0;
	if (v > hi)
		return nbins + 1;
	if (v == hi)
		return nbins;			/* the last bin is closed on the right */
	/* width_bucket's arithmetic (PostgreSQL 15, float.c) */
	if (!isinf(hi - lo))
		q = (v - lo) / (hi - lo);
	else
		q = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
	r = (int32_t) (nbins * q);
	if (r >= nbins)
		r = nbins - 1;
	return r + 1;
}

int32_t
at_bins_edges_slot(double v, const double *e, int32_t n)
{
	int32_t		a = 1,
				b = n - 1;

	if (v < e[0])
		return 0;
	if (v > e[n - 1])
		return n;
	if (v == e[n - 1])
		return n - 1;
	/* edges <= v, which is at least 1 and at most n - 1 here */
	while (a < b)
	{
		int32_t		m = a + (b - a) / 2;

		if (e[m] <= v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int32_t
at_bins_cdf_slot(double v, const double *t, int32_t n)
{
	int32_t		a = 0,
				b = n;

	while (a < b)				/* thresholds below v */
	{
		int32_t		m = a + (b - a) / 2;

		if (t[m] < v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Sorted distinct copy of t[0..n) into out; returns how many. */
static int32_t
sorted_distinct(const double *t, int32_t n, double *out)
{
	int32_t		m = 0;

	memcpy(out, t, (size_t) n * sizeof(double));
	qsort(out, (size_t) n, sizeof(double), at_cmp_double);
	for (int32_t i = 0; i < n; i++)
		if (m == 0 || out[m - 1] != out[i])
			out[m++] = out[i] == 0 ? 0.0 : out[i];	/* -0 and 0 are one threshold */
	return m;
}

int
at_bins_init(at_bins *h, at_bins_kind kind, double lo, double hi, int32_t nbins,
			 const double *vals, int32_t nvals, at_mem_fn mem, void *ctx)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	switch (kind)
	{
		case AT_BINS_EQUAL:
			h->lo = lo;
			h->hi = hi;
			h->nbins = nbins;
			h->nslots = nbins + 2;
			break;
		case AT_BINS_EDGES:
			h->params = mem(ctx, NULL, (size_t) nvals * sizeof(double));
			if (!h->params)
				return -1;
			memcpy(h->params, vals, (size_t) nvals * sizeof(double));
			h->nparams = nvals;
			h->nslots = nvals + 1;
			break;
		case AT_BINS_CDF:
		case AT_BINS_WCDF:
			h->params = mem(ctx, NULL, (size_t) nvals * sizeof(double));
			h->in = mem(ctx, NULL, (size_t) nvals * sizeof(double));
			if (!h->params || !h->in)
				return -1;
			memcpy(h->in, vals, (size_t) nvals * sizeof(double));
			h->nin = nvals;
			h->nparams = sorted_distinct(vals, nvals, h->params);
			h->nslots = h->nparams + 1;
			break;
	}
	h->counts = mem(ctx, NULL, (size_t) h->nslots * sizeof(int64_t));
	if (!h->counts)
		return -1;
	if (kind == AT_BINS_WCDF)
	{
		h->weights = mem(ctx, NULL, (size_t) h->nslots * sizeof(double));
		if (!h->weights)
			return -1;
	}
	return 0;
}

void
at_bins_free(at_bins *h, at_mem_fn mem, void *ctx)
{
	if (h->params)
		mem(ctx, h->params, 0);
	if (h->in)
		mem(ctx, h->in, 0);
	if (h->counts)
		mem(ctx, h->counts, 0);
	if (h->weights)
		mem(ctx, h->weights, 0);
	h->params = h->in = h->weights = NULL;
	h->counts = NULL;
}

int
at_bins_same_shape(const at_bins *a, const at_bins *b)
{
	if (a->kind != b->kind || a->nslots != b->nslots || a->nparams != b->nparams || a->nin != b->nin)
		return 0;
	if (a->kind == AT_BINS_EQUAL)
		return a->lo == b->lo && a->hi == b->hi && a->nbins == b->nbins;
	if (memcmp(a->params, b->params, (size_t) a->nparams * sizeof(double)) != 0)
		return 0;
	return a->nin == 0 || memcmp(a->in, b->in, (size_t) a->nin * sizeof(double)) == 0;
}

int
at_bins_copy(at_bins *dst, const at_bins *src, at_mem_fn mem, void *ctx)
{
	if (at_bins_init(dst, src->kind, src->lo, src->hi, src->nbins,
					 src->kind == AT_BINS_EDGES ? src->params : src->in,
					 src->kind == AT_BINS_EDGES ? src->nparams : src->nin, mem, ctx) != 0)
	{
		at_bins_free(dst, mem, ctx);
		return -1;
	}
	memcpy(dst->counts, src->counts, (size_t) src->nslots * sizeof(int64_t));
	if (src->kind == AT_BINS_WCDF)
		memcpy(dst->weights, src->weights, (size_t) src->nslots * sizeof(double));
	dst->n = src->n;
	dst->wtotal = src->wtotal;
	return 0;
}

int
at_bins_merge(at_bins *dst, const at_bins *src)
{
	if (dst->n > INT64_MAX - src->n)
		return -1;
	/* each total is finite, their sum need not be */
	if (dst->kind == AT_BINS_WCDF && isinf(dst->wtotal + src->wtotal))
		return -2;
	for (int32_t s = 0; s < dst->nslots; s++)
		dst->counts[s] += src->counts[s];	/* each <= its n: no overflow */
	dst->n += src->n;
	if (dst->kind == AT_BINS_WCDF)
	{
		for (int32_t s = 0; s < dst->nslots; s++)
			dst->weights[s] += src->weights[s];
		dst->wtotal += src->wtotal;
	}
	return 0;
}

/*
 * 1, or 0.5 for weights totalling over DBL_MAX / 2.  A weight is taken only
 * while the total stays finite, but the addition can round the total down
 * to DBL_MAX, and the slots, summed in another order, can then pass it and
 * overflow: halved, they cannot.  Sane weights are not scaled at all.
 */
static double
weight_scale(const at_bins *h)
{
	return h->kind == AT_BINS_WCDF && h->wtotal > DBL_MAX / 2 ? 0.5 : 1.0;
}

void
at_bins_cdf(const at_bins *h, double *out, double *scratch)
{
	int64_t		c = 0;
	double		w = 0;
	double		sc = weight_scale(h);

	/* cumulative count (or weight) through each distinct threshold */
	for (int32_t j = 0; j < h->nparams; j++)
	{
		if (h->kind == AT_BINS_WCDF)
			scratch[j] = (w += h->weights[j] * sc);
		else
			scratch[j] = (double) (c += h->counts[j]);
	}
	for (int32_t i = 0; i < h->nin; i++)
	{
		int32_t		j = at_bins_cdf_slot(h->in[i], h->params, h->nparams);	/* params[j] == in[i] */

		/* the notebook's len(v <= x) / len(v) * 100, in that order */
		out[i] = scratch[j] / (h->kind == AT_BINS_WCDF ? h->wtotal * sc : (double) h->n) * 100;
	}
}

/* ---- serialized form: big-endian header, then 8-byte fields ---- */

size_t
at_bins_encoded_size(const at_bins *h)
{
	size_t		nparams = h->kind == AT_BINS_EQUAL ? 2 : (size_t) h->nparams;

	return AT_BINS_HEADER + 8 * (nparams + (size_t) h->nin + (size_t) h->nslots) +
		(h->kind == AT_BINS_WCDF ? 8 * (size_t) h->nslots : 0);
}

void
at_bins_encode(const at_bins *h, unsigned char *buf)
{
	unsigned char *p = buf + AT_BINS_HEADER;

	buf[0] = AT_BINS_VERSION;
	buf[1] = (unsigned char) h->kind;
	buf[2] = buf[3] = 0;
	at_put_u32(buf + 4, (uint32_t) h->nslots);
	at_put_u32(buf + 8, (uint32_t) (h->kind == AT_BINS_EQUAL ? 2 : h->nparams));
	at_put_u32(buf + 12, (uint32_t) h->nin);
	at_put_u64(buf + 16, (uint64_t) h->n);
	at_put_double(buf + 24, h->wtotal);
	if (h->kind == AT_BINS_EQUAL)
	{
		at_put_double(p, h->lo);
		at_put_double(p + 8, h->hi);
		p += 16;
	}
	else
		for (int32_t i = 0; i < h->nparams; i++, p += 8)
			at_put_double(p, h->params[i]);
	for (int32_t i = 0; i < h->nin; i++, p += 8)
		at_put_double(p, h->in[i]);
	for (int32_t s = 0; s < h->nslots; s++, p += 8)
		at_put_u64(p, (uint64_t) h->counts[s]);
	if (h->kind == AT_BINS_WCDF)
		for (int32_t s = 0; s < h->nslots; s++, p += 8)
			at_put_double(p, h->weights[s]);
}

const char *
at_bins_decode(at_bins *h, const unsigned char *buf, size_t len, at_mem_fn mem, void *ctx)
{
	uint32_t	nslots,
				nparams,
				nin;
	int			kind;
	size_t		need;
	const unsigned char *p;
	double	   *vals = NULL;
	const char *msg = NULL;
	int64_t		total = 0;

	memset(h, 0, sizeof(*h));
	if (len < AT_BINS_HEADER)
		return "value is shorter than the header";
	if (buf[0] != AT_BINS_VERSION)
		return "unsupported version";
	kind = buf[1];
	if (kind < AT_BINS_EQUAL || kind > AT_BINS_WCDF)
		return "unknown kind";
	if (buf[2] != 0 || buf[3] != 0)
		return "reserved bytes are not zero";
	nslots = at_get_u32(buf + 4);
	nparams = at_get_u32(buf + 8);
	nin = at_get_u32(buf + 12);
	if (nslots < 2 || nslots > AT_BINS_MAX_SLOTS || nparams > AT_BINS_MAX_SLOTS ||
		nin > AT_BINS_MAX_THRESHOLDS)
		return "sizes out of range";
	need = AT_BINS_HEADER + 8 * ((size_t) nparams + nin + nslots) + (kind == AT_BINS_WCDF ? 8 * (size_t) nslots : 0);
	if (len != need)
		return "length does not match the header's sizes";
	p = buf + AT_BINS_HEADER;

	/* the parameters, checked as the SQL arguments are */
	vals = mem(ctx, NULL, (size_t) (nparams + nin + 1) * sizeof(double));
	if (!vals)
		return "out of memory";
	for (uint32_t i = 0; i < nparams + nin; i++, p += 8)
		vals[i] = at_get_double(p);
	switch (kind)
	{
		case AT_BINS_EQUAL:
			if (nparams != 2 || nin != 0)
				msg = "equal-width bins have two parameters";
			else if ((msg = at_bins_check_equal(vals[0], vals[1], (int64_t) nslots - 2)) == NULL &&
					 at_bins_init(h, AT_BINS_EQUAL, vals[0], vals[1], (int32_t) nslots - 2, NULL, 0, mem, ctx) != 0)
				msg = "out of memory";
			break;
		case AT_BINS_EDGES:
			if (nin != 0 || nslots != nparams + 1)
				msg = "edges and slots do not match";
			else if ((msg = at_bins_check_edges(vals, nparams)) == NULL &&
					 at_bins_init(h, AT_BINS_EDGES, 0, 0, 0, vals, (int32_t) nparams, mem, ctx) != 0)
				msg = "out of memory";
			break;
		default:
			if ((msg = at_bins_check_thresholds(vals + nparams, nin)) == NULL)
			{
				if (at_bins_init(h, (at_bins_kind) kind, 0, 0, 0, vals + nparams, (int32_t) nin, mem, ctx) != 0)
					msg = "out of memory";
				else if ((uint32_t) h->nparams != nparams || (uint32_t) h->nslots != nslots ||
						 memcmp(h->params, vals, (size_t) nparams * sizeof(double)) != 0)
					msg = "the sorted thresholds do not match the given ones";
			}
			break;
	}
	mem(ctx, vals, 0);
	if (msg == NULL)
	{
		h->n = (int64_t) at_get_u64(buf + 16);
		h->wtotal = at_get_double(buf + 24);
		for (uint32_t s = 0; s < nslots; s++, p += 8)
		{
			h->counts[s] = (int64_t) at_get_u64(p);
			if (h->counts[s] < 0 || total > INT64_MAX - h->counts[s])
				msg = "a count is negative or the counts overflow";
			else
				total += h->counts[s];
		}
		if (msg == NULL && (h->n < 0 || total != h->n))
			msg = "the counts do not add up to n";
		if (msg == NULL && kind == AT_BINS_WCDF)
		{
			for (uint32_t s = 0; s < nslots; s++, p += 8)
			{
				h->weights[s] = at_get_double(p);
				if (!isfinite(h->weights[s]) || h->weights[s] < 0 || signbit(h->weights[s]))
					msg = "weights must be finite and not negative";
			}
			if (!isfinite(h->wtotal) || h->wtotal < 0 || signbit(h->wtotal))
				msg = "the total weight must be finite and not negative";
			else
			{
				/* summed in another order, so allow for rounding (and see weight_scale) */
				double		ws = 0,
							sc = weight_scale(h);

				for (uint32_t s = 0; s < nslots; s++)
					ws += h->weights[s] * sc;
				if (fabs(ws - h->wtotal * sc) > 1e-9 * h->wtotal * sc)
					msg = "the weights do not add up to the total weight";
			}
		}
		else if (msg == NULL && (h->wtotal != 0 || signbit(h->wtotal)))
			msg = "an unweighted state has a total weight";
	}
	if (msg != NULL)
		at_bins_free(h, mem, ctx);
	return msg;
}

/* ---- text form: "v1:" and the serialized form in hexadecimal ---- */

size_t
at_bins_text_size(const at_bins *h)
{
	return strlen(AT_BINS_TEXT_PREFIX) + 2 * at_bins_encoded_size(h) + 1;
}

void
at_bins_format(const at_bins *h, char *out)
{
	size_t		k = strlen(AT_BINS_TEXT_PREFIX),
				n = at_bins_encoded_size(h);
	/* the bytes go into the back half of out and are expanded in place */
	unsigned char *b = (unsigned char *) out + k + n;

	at_bins_encode(h, b);
	memcpy(out, AT_BINS_TEXT_PREFIX, k);
	at_hex_write(out + k, b, n);
	out[k + 2 * n] = '\0';
}

const char *
at_bins_parse(at_bins *h, const char *s, size_t len, at_mem_fn mem, void *ctx, size_t *pos)
{
	size_t		k = strlen(AT_BINS_TEXT_PREFIX),
				nbytes;
	unsigned char *b;
	const char *msg;

	memset(h, 0, sizeof(*h));
	*pos = 0;
	if (len < k || memcmp(s, AT_BINS_TEXT_PREFIX, k) != 0)
	{
		size_t		d = 1;

		/* name a later version (v<digits>:) as such, not as garbage */
		while (d < len && s[d] >= '0' && s[d] <= '9')
			d++;
		if (len > 0 && s[0] == 'v' && d > 1 && d < len && s[d] == ':')
			return "unsupported text version (this version reads v1:)";
		return "a bins_state starts with v1:";
	}
	if ((len - k) % 2 != 0)
	{
		*pos = len;
		return "odd number of hexadecimal digits";
	}
	for (size_t i = k; i < len; i++)
		if (at_hex_value(s[i], 1) < 0)
		{
			*pos = i;
			return "not a hexadecimal digit";
		}
	*pos = k;
	nbytes = (len - k) / 2;
	if (nbytes < AT_BINS_HEADER)
		return "value is shorter than the header";	/* and mem takes no 0-byte request */
	b = mem(ctx, NULL, nbytes);
	if (!b)
		return "out of memory";
	for (size_t i = 0; i < nbytes; i++)
		b[i] = (unsigned char) (at_hex_value(s[k + 2 * i], 1) << 4 | at_hex_value(s[k + 2 * i + 1], 1));
	msg = at_bins_decode(h, b, nbytes, mem, ctx);
	mem(ctx, b, 0);
	return msg;
}

#define STRIPE_SLOTS 64

void
at_bins_count_slots(int64_t *counts, int32_t nslots, const int32_t *slot, int64_t lo,
					const int64_t *m, int32_t n)
{
	/* c[4 s + j]: slot s's count in stripe j; int32: n is an int32_t */
	int32_t		c[4 * STRIPE_SLOTS];
	int32_t		i = 0;

	if (nslots > STRIPE_SLOTS || n < 32)
	{
		for (; i < n; i++)
			counts[slot[m[i] - lo]]++;
		return;
	}
	memset(c, 0, sizeof(int32_t) * 4 * (size_t) nslots);
	for (; i + 4 <= n; i += 4)
	{
		c[4 * slot[m[i] - lo]]++;
		c[4 * slot[m[i + 1] - lo] + 1]++;
		c[4 * slot[m[i + 2] - lo] + 2]++;
		c[4 * slot[m[i + 3] - lo] + 3]++;
	}
	for (; i < n; i++)
		c[4 * slot[m[i] - lo]]++;
	for (int32_t s = 0; s < nslots; s++)
		counts[s] += (int64_t) c[4 * s] + c[4 * s + 1] + c[4 * s + 2] + c[4 * s + 3];
}

/* ---- samples blocks ---- */

const int32_t *
at_bins_slot_table(const at_bins *h, at_bins_slots *t, int32_t scale, int64_t mlo, int64_t mhi,
				   at_mem_fn mem, void *ctx)
{
	int64_t		lo = mlo,
				hi = mhi;
	int			same = t->slot_of != NULL && t->scale == scale;
	int64_t		thi = t->lo + t->n - 1;

	if (same && mlo >= t->lo && mhi <= thi)
		return t->slot_of;
	/* widen to the old table's range when the union stays small */
	if (same && (hi > thi ? hi : thi) - (lo < t->lo ? lo : t->lo) < AT_BINS_SLOT_TABLE_MAX)
	{
		lo = lo < t->lo ? lo : t->lo;
		hi = hi > thi ? hi : thi;
	}
	if (hi - lo >= AT_BINS_SLOT_TABLE_MAX)
		return NULL;
	at_bins_slots_free(t, mem, ctx);
	t->slot_of = mem(ctx, NULL, sizeof(int32_t) * (size_t) (hi - lo + 1));
	if (t->slot_of == NULL)
		return NULL;
	for (int64_t m = lo; m <= hi; m++)
		t->slot_of[m - lo] = at_bins_slot(h, (double) m / at_p10[scale]);
	t->lo = lo;
	t->n = (int32_t) (hi - lo + 1);
	t->scale = scale;
	return t->slot_of;
}

void
at_bins_slots_free(at_bins_slots *t, at_mem_fn mem, void *ctx)
{
	if (t->slot_of != NULL)
		mem(ctx, t->slot_of, 0);
	t->slot_of = NULL;
}

void
at_bins_add_values(at_bins *h, const double *v, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		at_bins_add(h, v[i], 0);
}

int
at_bins_add_scaled(at_bins *h, at_bins_slots *t, const int64_t *m, int32_t n, int32_t scale,
				   int64_t mlo, int64_t mhi, at_mem_fn mem, void *ctx)
{
	const int32_t *table = at_bins_slot_table(h, t, scale, mlo, mhi, mem, ctx);

	if (table == NULL)
		return -1;
	at_bins_count_slots(h->counts, h->nslots, table, t->lo, m, n);
	h->n += n;
	return 0;
}

/* A block of few distinct values stores their counts: 1 if it had them. */
static int
add_value_counts(at_bins *h, const unsigned char *buf, int32_t scale, int32_t n)
{
	int64_t		cm[AT_SAMPLES_COUNTS_MAX],
				cc[AT_SAMPLES_COUNTS_MAX];
	int			nc = at_samples_counts(buf, cm, cc);

	for (int i = 0; i < nc; i++)
		h->counts[at_bins_slot(h, (double) cm[i] / at_p10[scale])] += cc[i];
	if (nc > 0)
		h->n += n;
	return nc > 0;
}

void
at_bins_add_block(at_bins *h, at_bins_slots *t, const unsigned char *buf, size_t len,
				  at_mem_fn mem, void *ctx)
{
	at_samples_info info;
	at_samples_iter it;
	const int32_t *table = NULL;
	int			k,
				constant;

	at_samples_info_read(buf, &info);
	if (info.scale >= 0 && add_value_counts(h, buf, info.scale, info.n))
		return;
	at_samples_iter_init(&it, buf, len);
	if (info.scale >= 0)
	{
		int64_t		mlo,
					mhi;

		at_samples_int_bounds(&info, &mlo, &mhi);
		table = at_bins_slot_table(h, t, info.scale, mlo, mhi, mem, ctx);
	}
	if (table != NULL)
	{
		int64_t		m[AT_SAMPLES_CHUNK];

		while ((k = at_samples_iter_next_scaled(&it, m, &constant)) > 0)
		{
			if (constant)
				h->counts[table[m[0] - t->lo]] += k;
			else
				at_bins_count_slots(h->counts, h->nslots, table, t->lo, m, k);
			h->n += k;
		}
		return;
	}
	{
		double		v[AT_SAMPLES_CHUNK];

		while ((k = at_samples_iter_next(&it, v, &constant)) > 0)
		{
			if (constant)
			{
				h->counts[at_bins_slot(h, v[0])] += k;
				h->n += k;
			}
			else
				at_bins_add_values(h, v, k);
		}
	}
}
