/*
 * sketch.c: the relative-error quantile sketch (see sketch.h).
 */
#include "sketch.h"

#include "bytes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded bucket indexes beyond this are nonsense (real ones stay < 2^19). */
#define INDEX_LIMIT (1 << 24)

#define HAS_BUCKETS(sk) ((sk)->first <= (sk)->last)

int
at_sk_error_ok(double alpha)
{
	return alpha >= AT_SK_MIN_ERROR && alpha <= AT_SK_MAX_ERROR;
}

void
at_sk_init(at_sketch *sk, double alpha, at_mem_fn mem, void *mem_ctx)
{
	memset(sk, 0, sizeof(*sk));
	sk->alpha = alpha;
	sk->gamma = (1.0 + alpha) / (1.0 - alpha);
	sk->ln_gamma = log1p(2.0 * alpha / (1.0 - alpha));
	sk->inv_ln_gamma = 1.0 / sk->ln_gamma;
	sk->integral = 1;
	sk->first = 1;
	sk->last = 0;
	sk->mem = mem;
	sk->mem_ctx = mem_ctx;
}

static void
drop_cum(at_sketch *sk)
{
	if (sk->cum)
		sk->mem(sk->mem_ctx, sk->cum, 0);
	sk->cum = NULL;
}

void
at_sk_free(at_sketch *sk)
{
	drop_cum(sk);
	if (sk->counts)
		sk->mem(sk->mem_ctx, sk->counts, 0);
	sk->counts = NULL;
	sk->cap = 0;
}

int32_t
at_sk_index(const at_sketch *sk, double x)
{
	return (int32_t) ceil(log(x) * sk->inv_ln_gamma);
}

/*
 * Make room for buckets nlo..nhi (which include the occupied range).  The
 * array is the span rounded up to 64 buckets, so a state's size follows
 * from its span alone: 8 bytes x 64 x ceil(span / 64).  The slack goes on
 * the side that grows.
 */
static at_sk_err
reserve(at_sketch *sk, int32_t nlo, int32_t nhi, int growing_down)
{
	int64_t		span = (int64_t) nhi - nlo + 1;
	int64_t		newcap, extra, below;
	uint64_t   *counts;

	if (sk->counts && nlo >= sk->lo && (int64_t) nhi - sk->lo < (int64_t) sk->cap)
		return AT_SK_OK;
	if (span > AT_SK_MAX_BUCKETS)
		return AT_SK_ESPAN;
	newcap = (span + 63) / 64 * 64;
	extra = newcap - span;
	if (!HAS_BUCKETS(sk))
		below = extra / 2;
	else if (growing_down)
		below = extra;
	else
		below = 0;
	counts = sk->mem(sk->mem_ctx, NULL, (size_t) newcap * sizeof(uint64_t));
	if (counts == NULL)
		return AT_SK_ENOMEM;
	if (HAS_BUCKETS(sk))
		memcpy(counts + (sk->first - (nlo - below)), sk->counts + (sk->first - sk->lo),
			   (size_t) (sk->last - sk->first + 1) * sizeof(uint64_t));
	if (sk->counts)
		sk->mem(sk->mem_ctx, sk->counts, 0);
	sk->counts = counts;
	sk->lo = (int32_t) (nlo - below);
	sk->cap = (uint32_t) newcap;
	return AT_SK_OK;
}

/* Add c values to bucket i (no change to count, zeros, min, max, sum). */
static at_sk_err
add_bucket(at_sketch *sk, int32_t i, uint64_t c)
{
	if (!(sk->counts && i >= sk->lo && (int64_t) i - sk->lo < (int64_t) sk->cap))
	{
		int32_t		nlo = HAS_BUCKETS(sk) && sk->first < i ? sk->first : i;
		int32_t		nhi = HAS_BUCKETS(sk) && sk->last > i ? sk->last : i;
		at_sk_err	e = reserve(sk, nlo, nhi, HAS_BUCKETS(sk) && i < sk->first);

		if (e != AT_SK_OK)
			return e;
	}
	sk->counts[i - sk->lo] += c;
	if (!HAS_BUCKETS(sk))
		sk->first = sk->last = i;
	else if (i < sk->first)
		sk->first = i;
	else if (i > sk->last)
		sk->last = i;
	return AT_SK_OK;
}

/*
 * Bucket indexes of the integers below SMALL at the default error, built on
 * first use: trace delays are whole seconds, mostly small, and a table
 * lookup is cheaper than log().  The table holds what at_sk_index gives, so
 * answers are the same either way.
 */
#define SMALL AT_SK_SMALL
static int32_t small_index[SMALL];
static int	small_ready = 0;
const int32_t *at_sk_small_index = NULL;

static void
fill_small_table(void)
{
	at_sketch	d;

	at_sk_init(&d, AT_SK_DEFAULT_ERROR, NULL, NULL);
	for (int k = 1; k < SMALL; k++)
		small_index[k] = at_sk_index(&d, (double) k);
	small_ready = 1;
	at_sk_small_index = small_index;
}

at_sk_err
at_sk_add(at_sketch *sk, double x)
{
	int			whole;

	if (!(x >= 0))
		return isnan(x) ? AT_SK_ENONFINITE : AT_SK_ENEGATIVE;
	if (isinf(x))
		return AT_SK_ENONFINITE;
	if (sk->count == UINT64_MAX)
		return AT_SK_EOVERFLOW;
	if (isinf(sk->sum + x))
		return AT_SK_ESUM;
	/* every double from 2^53 up is an integer; below, truncation tells */
	whole = x >= 9007199254740992.0 || x == (double) (int64_t) x;
	if (x == 0)
	{
		x = 0.0;				/* -0 too */
		sk->zeros++;
	}
	else
	{
		int32_t		i;

		if (whole && x < SMALL && sk->alpha == AT_SK_DEFAULT_ERROR)
		{
			if (!small_ready)
				fill_small_table();
			i = small_index[(int) x];
		}
		else
			i = at_sk_index(sk, x);
		/* the common case: the bucket is already in the array */
		if (sk->counts && (uint32_t) (i - sk->lo) < sk->cap && HAS_BUCKETS(sk))
		{
			sk->counts[i - sk->lo]++;
			if (i < sk->first)
				sk->first = i;
			else if (i > sk->last)
				sk->last = i;
		}
		else
		{
			at_sk_err	e = add_bucket(sk, i, 1);

			if (e != AT_SK_OK)
				return e;
		}
	}
	if (sk->count == 0)
		sk->min = sk->max = x;
	else if (x < sk->min)
		sk->min = x;
	else if (x > sk->max)
		sk->max = x;
	sk->sum += x;
	sk->count++;
	if (!whole)
		sk->integral = 0;
	if (sk->cum)
		drop_cum(sk);
	return AT_SK_OK;
}

/*
 * One add, then n - 1 more of the same bucket: the result equals n calls of
 * at_sk_add (the sum of a whole number n times is exact).
 */
at_sk_err
at_sk_add_n(at_sketch *sk, double x, uint64_t n)
{
	at_sk_err	e;

	if (n == 0)
		return AT_SK_OK;
	if (sk->count > UINT64_MAX - n)
		return AT_SK_EOVERFLOW;
	if (x >= 0 && isinf(sk->sum + x * (double) n))
		return AT_SK_ESUM;
	e = at_sk_add(sk, x);
	if (e != AT_SK_OK || n == 1)
		return e;
	if (x == 0)
		sk->zeros += n - 1;
	else
		sk->counts[at_sk_index(sk, x) - sk->lo] += n - 1;
	sk->count += n - 1;
	sk->sum += x * (double) (n - 1);
	return AT_SK_OK;
}

at_sk_err
at_sk_merge(at_sketch *dst, const at_sketch *src)
{
	if (dst->alpha != src->alpha)
		return AT_SK_EALPHA;
	if (src->count == 0)
		return AT_SK_OK;
	if (dst->count > UINT64_MAX - src->count)
		return AT_SK_EOVERFLOW;
	if (isinf(dst->sum + src->sum))
		return AT_SK_ESUM;
	if (HAS_BUCKETS(src))
	{
		int32_t		nlo = src->first,
					nhi = src->last;
		at_sk_err	e;

		if (HAS_BUCKETS(dst))
		{
			nlo = dst->first < nlo ? dst->first : nlo;
			nhi = dst->last > nhi ? dst->last : nhi;
		}
		e = reserve(dst, nlo, nhi, HAS_BUCKETS(dst) && src->first < dst->first);
		if (e != AT_SK_OK)
			return e;
		for (int32_t i = src->first; i <= src->last; i++)
			dst->counts[i - dst->lo] += src->counts[i - src->lo];
		/* nlo..nhi already spans both */
		dst->first = nlo;
		dst->last = nhi;
	}
	dst->min = dst->count == 0 || src->min < dst->min ? src->min : dst->min;
	dst->max = dst->count == 0 || src->max > dst->max ? src->max : dst->max;
	dst->zeros += src->zeros;
	dst->sum += src->sum;
	dst->count += src->count;
	dst->integral = dst->integral && src->integral;
	drop_cum(dst);
	return AT_SK_OK;
}

at_sk_err
at_sk_prepare(at_sketch *sk)
{
	uint64_t	acc = 0;

	if (sk->cum || !HAS_BUCKETS(sk))
		return AT_SK_OK;
	sk->cum = sk->mem(sk->mem_ctx, NULL, (size_t) (sk->last - sk->first + 1) * sizeof(uint64_t));
	if (sk->cum == NULL)
		return AT_SK_ENOMEM;
	for (int32_t i = sk->first; i <= sk->last; i++)
	{
		acc += sk->counts[i - sk->lo];
		sk->cum[i - sk->first] = acc;
	}
	return AT_SK_OK;
}

/* Values in buckets first..i. */
static uint64_t
through(const at_sketch *sk, int32_t i)
{
	uint64_t	acc = 0;

	if (i < sk->first)
		return 0;
	if (i > sk->last)
		i = sk->last;
	if (sk->cum)
		return sk->cum[i - sk->first];
	for (int32_t k = sk->first; k <= i; k++)
		acc += sk->counts[k - sk->lo];
	return acc;
}

/*
 * 1 and *k if bucket i holds exactly one integer >= 1.  Only narrow buckets
 * (under 2 wide) are searched; the candidates are tested with the same
 * index function that placed the values, so rounding cannot mislead.
 */
static int
unique_integer(const at_sketch *sk, int32_t i, double *k)
{
	double		lo = exp((double) (i - 1) * sk->ln_gamma);
	double		hi = exp((double) i * sk->ln_gamma);
	double		a, b;
	int			found = 0;

	if (!(hi - lo < 2.0))
		return 0;
	a = floor(lo) - 1.0;
	b = ceil(hi) + 1.0;
	if (a < 1.0)
		a = 1.0;
	for (double j = a; j <= b; j += 1.0)
		if (at_sk_index(sk, j) == i)
		{
			found++;
			*k = j;
		}
	return found == 1;
}

static double
bucket_value(const at_sketch *sk, int32_t i)
{
	double		v = 2.0 * exp((double) i * sk->ln_gamma) / (sk->gamma + 1.0);
	double		k;

	if (sk->integral && unique_integer(sk, i, &k))
		v = k;
	if (v < sk->min)
		v = sk->min;
	if (v > sk->max)
		v = sk->max;
	return v;
}

int
at_sk_quantile(const at_sketch *sk, double q, double *out)
{
	double		rd;
	uint64_t	r;
	int32_t		i;

	if (sk->count == 0)
		return 0;
	/* the same arithmetic as percentile_disc */
	rd = ceil(q * (double) sk->count);
	if (!(rd >= 1.0))
		r = 1;
	else if (rd >= (double) sk->count)
		r = sk->count;
	else
		r = (uint64_t) rd;
	if (r <= sk->zeros || !HAS_BUCKETS(sk))
	{
		*out = 0.0;
		return 1;
	}
	if (r == sk->count || r == 1)
	{
		/* the largest or (no zeros, as r > zeros) the smallest: exact */
		*out = r == sk->count ? sk->max : sk->min;
		return 1;
	}
	r -= sk->zeros;
	if (sk->cum)
	{
		size_t		a = 0,
					b = (size_t) (sk->last - sk->first);

		while (a < b)			/* first k with cum[k] >= r */
		{
			size_t		m = a + (b - a) / 2;

			if (sk->cum[m] >= r)
				b = m;
			else
				a = m + 1;
		}
		i = sk->first + (int32_t) a;
	}
	else
	{
		uint64_t	acc = 0;

		for (i = sk->first; i < sk->last; i++)
		{
			acc += sk->counts[i - sk->lo];
			if (acc >= r)
				break;
		}
	}
	*out = bucket_value(sk, i);
	return 1;
}

double
at_sk_rank(const at_sketch *sk, double x)
{
	int32_t		i;
	uint64_t	le;
	double		k;

	if (sk->count == 0)
		return -1.0;
	if (isnan(x))
		return 1.0;				/* NaN sorts above every number */
	if (x < sk->min)
		return 0.0;
	if (x >= sk->max)
		return 1.0;
	if (x <= 0 || !HAS_BUCKETS(sk))
		return (double) sk->zeros / (double) sk->count;
	i = at_sk_index(sk, x);
	le = through(sk, i - 1);
	if (i >= sk->first && i <= sk->last &&
		!(sk->integral && unique_integer(sk, i, &k) && k > x))
		le += sk->counts[i - sk->lo];
	return (double) (sk->zeros + le) / (double) sk->count;
}

/* ---- serialized form ---- */

static uint32_t
nonempty(const at_sketch *sk)
{
	uint32_t	n = 0;

	if (HAS_BUCKETS(sk))
		for (int32_t i = sk->first; i <= sk->last; i++)
			n += sk->counts[i - sk->lo] != 0;
	return n;
}

size_t
at_sk_encoded_bound(const at_sketch *sk)
{
	size_t		span = HAS_BUCKETS(sk) ? (size_t) (sk->last - sk->first + 1) : 0;

	return AT_SK_HEADER + span * (5 + 10);
}

/* Mirrors at_sk_encode without writing: the expanded state's flat size. */
size_t
at_sk_encoded_size(const at_sketch *sk)
{
	size_t		n = AT_SK_HEADER;
	int32_t		prev = 0;
	int			started = 0;

	if (HAS_BUCKETS(sk))
		for (int32_t i = sk->first; i <= sk->last; i++)
		{
			uint64_t	c = sk->counts[i - sk->lo];

			if (c == 0)
				continue;
			if (!started)
				n += at_varint_len(at_zigzag((uint64_t) (int64_t) i));
			else
				n += at_varint_len((uint64_t) (i - prev));
			n += at_varint_len(c);
			prev = i;
			started = 1;
		}
	return n;
}

size_t
at_sk_encode(const at_sketch *sk, unsigned char *buf)
{
	unsigned char *p = buf + AT_SK_HEADER;
	int32_t		prev = 0;
	int			started = 0;

	buf[0] = AT_SK_VERSION;
	buf[1] = sk->integral ? AT_SK_FLAG_INTEGRAL : 0;
	buf[2] = buf[3] = 0;
	at_put_double(buf + 4, sk->alpha);
	at_put_u64(buf + 12, sk->count);
	at_put_u64(buf + 20, sk->zeros);
	at_put_double(buf + 28, sk->min);
	at_put_double(buf + 36, sk->max);
	at_put_double(buf + 44, sk->sum);
	buf[52] = buf[53] = buf[54] = buf[55] = 0;
	if (HAS_BUCKETS(sk))
	{
		uint32_t	nb = nonempty(sk);

		at_put_u32(buf + 52, nb);
		for (int32_t i = sk->first; i <= sk->last; i++)
		{
			uint64_t	c = sk->counts[i - sk->lo];

			if (c == 0)
				continue;
			if (!started)		/* zigzag: small magnitudes stay short */
				p = at_varint_put(p, at_zigzag((uint64_t) (int64_t) i));
			else
				p = at_varint_put(p, (uint64_t) (i - prev));
			p = at_varint_put(p, c);
			prev = i;
			started = 1;
		}
	}
	return (size_t) (p - buf);
}

static const char *
err_message(at_sk_err e)
{
	return at_sk_strerror(e);
}

const char *
at_sk_decode(at_sketch *sk, const unsigned char *buf, size_t len, at_mem_fn mem, void *mem_ctx)
{
	double		alpha;
	uint32_t	nb;
	const unsigned char *p = buf + AT_SK_HEADER,
			   *end = buf + len;
	int64_t		idx = 0;
	const char *msg = NULL;

	memset(sk, 0, sizeof(*sk));
	if (len < AT_SK_HEADER)
		return "value is shorter than the sketch header";
	if (buf[0] != AT_SK_VERSION)
		return "unsupported sketch version";
	if (buf[1] & ~AT_SK_FLAGS_KNOWN)
		return "unknown flag bits";
	if (buf[2] != 0 || buf[3] != 0)
		return "reserved bytes are not zero";
	alpha = at_get_double(buf + 4);
	if (!at_sk_error_ok(alpha))
		return "relative error is out of range";
	at_sk_init(sk, alpha, mem, mem_ctx);
	sk->integral = (buf[1] & AT_SK_FLAG_INTEGRAL) != 0;
	sk->count = at_get_u64(buf + 12);
	sk->zeros = at_get_u64(buf + 20);
	sk->min = at_get_double(buf + 28);
	sk->max = at_get_double(buf + 36);
	sk->sum = at_get_double(buf + 44);
	nb = at_get_u32(buf + 52);
	if (nb > AT_SK_MAX_BUCKETS)
		return "too many buckets";
	for (uint32_t k = 0; k < nb && msg == NULL; k++)
	{
		uint64_t	v,
					c;

		p = at_varint_check(p, end, &v);
		if (p == NULL)
		{
			msg = "truncated or overlong bucket index";
			break;
		}
		if (k == 0)
		{
			if (v > 2 * (uint64_t) INDEX_LIMIT)
			{
				msg = "bucket index is out of range";
				break;
			}
			idx = at_u2i(at_unzigzag(v));
		}
		else
		{
			if (v == 0)
			{
				msg = "bucket indexes are not strictly increasing";
				break;
			}
			/* a step this long would leave the range, whatever the start */
			if (v > 2 * (uint64_t) INDEX_LIMIT)
			{
				msg = "bucket index is out of range";
				break;
			}
			idx += (int64_t) v;
		}
		if (idx > INDEX_LIMIT || idx < -INDEX_LIMIT)
		{
			msg = "bucket index is out of range";
			break;
		}
		p = at_varint_check(p, end, &c);
		if (p == NULL)
		{
			msg = "truncated or overlong bucket count";
			break;
		}
		if (c == 0)
			msg = "a listed bucket is empty";
		else
		{
			at_sk_err	e = add_bucket(sk, (int32_t) idx, c);

			if (e != AT_SK_OK)
				msg = err_message(e);
		}
	}
	if (msg == NULL && p != end)
		msg = "trailing bytes after the buckets";
	if (msg == NULL)
		msg = at_sk_check(sk);
	if (msg != NULL)
		at_sk_free(sk);
	return msg;
}

/* ---- consistency ---- */

static int
is_integer(double x)
{
	return x == floor(x);
}

const char *
at_sk_check(const at_sketch *sk)
{
	uint64_t	total = 0;

	if (!at_sk_error_ok(sk->alpha))
		return "relative error is out of range";
	/* -0 reads as 0, so each value has one canonical form */
	if (signbit(sk->min) || signbit(sk->max) || signbit(sk->sum))
		return "min, max and sum must not be negative (nor -0)";
	if (sk->count == 0)
	{
		if (sk->zeros != 0 || HAS_BUCKETS(sk) || sk->min != 0 || sk->max != 0 || sk->sum != 0 ||
			!sk->integral)
			return "an empty sketch must have no buckets, min, max and sum 0, and int=1";
		return NULL;
	}
	if (!isfinite(sk->min) || !isfinite(sk->max) || !isfinite(sk->sum))
		return "min, max and sum must be finite";
	if (!(sk->max >= sk->min))
		return "need min <= max";
	if (HAS_BUCKETS(sk))
		for (int32_t i = sk->first; i <= sk->last; i++)
		{
			uint64_t	c = sk->counts[i - sk->lo];

			if (total > UINT64_MAX - c)
				return "bucket counts overflow";
			total += c;
		}
	if (sk->zeros > sk->count || total != sk->count - sk->zeros)
		return "count is not zeros plus the bucket counts";
	if ((sk->zeros > 0) != (sk->min == 0))
		return "min must be 0 exactly when there are zeros";
	if (total == 0)
	{
		if (sk->max != 0)
			return "max must be 0 when there are no buckets";
	}
	else
	{
		/* one bucket of slack: another libm may round log() differently */
		int64_t		d;

		if (!(sk->max > 0))
			return "max does not fall in the last bucket";
		d = (int64_t) at_sk_index(sk, sk->max) - sk->last;
		if (d > 1 || d < -1)
			return "max does not fall in the last bucket";
		if (sk->zeros == 0)
		{
			d = (int64_t) at_sk_index(sk, sk->min) - sk->first;
			if (d > 1 || d < -1)
				return "min does not fall in the first bucket";
		}
	}
	if (sk->integral && (!is_integer(sk->min) || !is_integer(sk->max)))
		return "the integer flag is set but min or max is not an integer";
	return NULL;
}

const char *
at_sk_strerror(at_sk_err e)
{
	switch (e)
	{
		case AT_SK_OK:
			return "no error";
		case AT_SK_ENEGATIVE:
			return "negative value";
		case AT_SK_ENONFINITE:
			return "NaN or infinite value";
		case AT_SK_ESPAN:
			return "values span more buckets than a sketch holds";
		case AT_SK_ENOMEM:
			return "out of memory";
		case AT_SK_EALPHA:
			return "sketches have different relative errors";
		case AT_SK_EOVERFLOW:
			return "count overflows 64 bits";
		case AT_SK_ESUM:
			return "the sum of the values overflows float8";
	}
	return "unknown error";
}

/* ---- text form ---- */

typedef struct writer
{
	char	   *buf;
	size_t		size;
	size_t		len;
} writer;

static void
wr(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
wr(writer *w, const char *fmt, ...)
{
	va_list		ap;
	int			n;
	char	   *dst = w->len < w->size ? w->buf + w->len : NULL;

	va_start(ap, fmt);
	n = vsnprintf(dst, dst ? w->size - w->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->len += (size_t) n;
}

/* Shortest of %.15g..%.17g that reads back as the same double. */
static void
wr_double(writer *w, double d)
{
	char		tmp[40];

	for (int prec = 15; prec <= 17; prec++)
	{
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	wr(w, "%s", tmp);
}

size_t
at_sk_format(const at_sketch *sk, char *buf, size_t size)
{
	writer		w = {buf, size, 0};
	int32_t		prev = 0;
	int			started = 0;

	if (size > 0)
		buf[0] = '\0';
	wr(&w, "v%d err=", AT_SK_VERSION);
	wr_double(&w, sk->alpha);
	wr(&w, " n=%llu zeros=%llu min=", (unsigned long long) sk->count, (unsigned long long) sk->zeros);
	wr_double(&w, sk->min);
	wr(&w, " max=");
	wr_double(&w, sk->max);
	wr(&w, " sum=");
	wr_double(&w, sk->sum);
	wr(&w, " int=%d b=", sk->integral ? 1 : 0);
	if (HAS_BUCKETS(sk))
		for (int32_t i = sk->first; i <= sk->last; i++)
		{
			uint64_t	c = sk->counts[i - sk->lo];

			if (c == 0)
				continue;
			if (!started)
				wr(&w, "%d:%llu", (int) i, (unsigned long long) c);
			else
				wr(&w, ",+%d:%llu", (int) (i - prev), (unsigned long long) c);
			prev = i;
			started = 1;
		}
	return w.len;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int
expect(const char **p, const char *lit)
{
	size_t		n = strlen(lit);

	if (strncmp(*p, lit, n) != 0)
		return 0;
	*p += n;
	return 1;
}

static int
read_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t	v = 0;

	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
	{
		unsigned	d = (unsigned) (*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	*p = s;
	return 1;
}

static int
read_index(const char **p, int64_t *out)
{
	int			neg = 0;
	uint64_t	v;

	if (**p == '-')
	{
		neg = 1;
		(*p)++;
	}
	if (!read_u64(p, &v) || v > INDEX_LIMIT)
		return 0;
	*out = neg ? -(int64_t) v : (int64_t) v;
	return 1;
}

static int
read_double(const char **p, double *out)
{
	char	   *end;
	const char *s = *p;

	/* strtod would skip spaces and take "nan" and "inf"; numbers only */
	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
		return 0;
	*out = strtod(s, &end);
	if (end == s)
		return 0;
	*p = end;
	return 1;
}

const char *
at_sk_parse(at_sketch *sk, const char *s, at_mem_fn mem, void *mem_ctx, size_t *err_pos)
{
	const char *p = s;
	const char *msg = NULL;
	uint64_t	version,
				count,
				zeros,
				integral;
	double		alpha,
				min,
				max,
				sum;

	memset(sk, 0, sizeof(*sk));
	while (is_space(*p))
		p++;
#define FAIL(m) do { msg = (m); goto fail; } while (0)
	if (!expect(&p, "v") || !read_u64(&p, &version))
		FAIL("expected \"v1\" at the start");
	if (version != AT_SK_VERSION)
		FAIL("unsupported sketch version");
	if (!expect(&p, " err=") || !read_double(&p, &alpha))
		FAIL("expected \" err=<relative error>\"");
	if (!at_sk_error_ok(alpha))
		FAIL("relative error is out of range");
	at_sk_init(sk, alpha, mem, mem_ctx);
	if (!expect(&p, " n=") || !read_u64(&p, &count))
		FAIL("expected \" n=<count>\"");
	if (!expect(&p, " zeros=") || !read_u64(&p, &zeros))
		FAIL("expected \" zeros=<count>\"");
	if (!expect(&p, " min=") || !read_double(&p, &min))
		FAIL("expected \" min=<number>\"");
	if (!expect(&p, " max=") || !read_double(&p, &max))
		FAIL("expected \" max=<number>\"");
	if (!expect(&p, " sum=") || !read_double(&p, &sum))
		FAIL("expected \" sum=<number>\"");
	if (!expect(&p, " int=") || !read_u64(&p, &integral) || integral > 1)
		FAIL("expected \" int=0\" or \" int=1\"");
	if (!expect(&p, " b="))
		FAIL("expected \" b=<buckets>\"");
	sk->count = count;
	sk->zeros = zeros;
	sk->min = min;
	sk->max = max;
	sk->sum = sum;
	sk->integral = (int) integral;
	if (*p != '\0' && !is_space(*p))
	{
		int64_t		idx;
		int			nb = 0;

		if (!read_index(&p, &idx))
			FAIL("expected <bucket index>:<count>");
		for (;;)
		{
			uint64_t	c;
			at_sk_err	e;

			if (!expect(&p, ":") || !read_u64(&p, &c))
				FAIL("expected :<count> after a bucket index");
			if (c == 0)
				FAIL("a listed bucket is empty");
			if (++nb > AT_SK_MAX_BUCKETS)
				FAIL("too many buckets");
			e = add_bucket(sk, (int32_t) idx, c);
			if (e != AT_SK_OK)
				FAIL(err_message(e));
			if (!expect(&p, ","))
				break;
			{
				uint64_t	step;

				if (!expect(&p, "+") || !read_u64(&p, &step) || step == 0 || step > INDEX_LIMIT)
					FAIL("expected ,+<index step>:<count> with a step of at least 1");
				idx += (int64_t) step;
				if (idx > INDEX_LIMIT)
					FAIL("bucket index is out of range");
			}
		}
	}
	while (is_space(*p))
		p++;
	if (*p != '\0')
		FAIL("unexpected characters after the buckets");
#undef FAIL
	msg = at_sk_check(sk);
	if (msg == NULL)
		return NULL;
fail:
	if (err_pos)
		*err_pos = (size_t) (p - s);
	at_sk_free(sk);
	return msg;
}
