/*
 * sketch.h: a relative-error quantile sketch (log-bucketed histogram, the
 * DDSketch scheme), as plain C.
 *
 * With relative error a and gamma = (1 + a) / (1 - a), a value x > 0 falls
 * in bucket i = ceil(log_gamma(x)), which covers (gamma^(i-1), gamma^i].
 * The bucket answers with 2 gamma^i / (gamma + 1), which is within a
 * relative error a of every value in it; so the answer for a rank is within
 * a of the value that has that rank.  Zero has its own exact count.
 * Answers are clamped to the exact [min, max], and when every value is an
 * integer and a bucket holds just one integer, that integer is the answer:
 * small integers (below about 1/a) come back exactly.
 *
 * Buckets are a dense array of 8-byte counts over the occupied index range
 * rounded up to 64, at most AT_SK_MAX_BUCKETS long (128 KiB), whatever the
 * number of values: 1,843 buckets (14.8 KiB) cover 1 to 10^8 at a = 0.005,
 * and the serialized form (varints) is a few KiB.  Negative, NaN and
 * infinite values are refused.
 *
 * Memory comes from a caller-supplied function, so the PostgreSQL glue can
 * use memory contexts and the tests plain malloc.
 */
#ifndef ACMETRACE_SKETCH_H
#define ACMETRACE_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#define AT_SK_VERSION		1
#define AT_SK_MIN_ERROR		0.001
#define AT_SK_MAX_ERROR		0.25
#define AT_SK_DEFAULT_ERROR	0.005
#define AT_SK_MAX_BUCKETS	16384

/* Serialized header: version, flags, 2 zero bytes, then 6 x 8 bytes, u32. */
#define AT_SK_HEADER		56
#define AT_SK_FLAG_INTEGRAL	0x01
#define AT_SK_FLAGS_KNOWN	0x01

typedef struct at_sketch
{
	double		alpha;			/* relative error */
	double		gamma;			/* (1 + alpha) / (1 - alpha) */
	double		ln_gamma;
	double		inv_ln_gamma;
	uint64_t	count;			/* all values, zeros included */
	uint64_t	zeros;
	double		min;			/* exact; 0 when count = 0 */
	double		max;
	double		sum;
	int			integral;		/* every value so far is an integer */
	int32_t		first;			/* occupied bucket range, when count > zeros */
	int32_t		last;
	int32_t		lo;				/* bucket index of counts[0] */
	uint32_t	cap;
	uint64_t   *counts;
	uint64_t   *cum;			/* prefix sums after at_sk_prepare, else NULL */
	at_mem_fn mem;
	void	   *mem_ctx;
} at_sketch;

typedef enum at_sk_err
{
	AT_SK_OK = 0,
	AT_SK_ENEGATIVE,			/* value < 0 */
	AT_SK_ENONFINITE,			/* NaN or infinity */
	AT_SK_ESPAN,				/* more than AT_SK_MAX_BUCKETS buckets */
	AT_SK_ENOMEM,
	AT_SK_EALPHA,				/* merging sketches of different errors */
	AT_SK_EOVERFLOW,			/* a count passed 2^64 - 1 */
	AT_SK_ESUM					/* the sum of the values passed DBL_MAX */
} at_sk_err;

/* 1 if alpha is an accepted relative error. */
extern int	at_sk_error_ok(double alpha);

/* An empty sketch; alpha must pass at_sk_error_ok. */
extern void at_sk_init(at_sketch *sk, double alpha, at_mem_fn mem, void *mem_ctx);

/* Frees the bucket arrays. */
extern void at_sk_free(at_sketch *sk);

extern int32_t at_sk_index(const at_sketch *sk, double x);

extern at_sk_err at_sk_add(at_sketch *sk, double x);

/*
 * Buckets of the whole numbers below AT_SK_SMALL at the default error, as
 * at_sk_index gives them; NULL until at_sk_add first needs it.
 */
#define AT_SK_SMALL 4096
extern const int32_t *at_sk_small_index;

/*
 * at_sk_add, with the common case of trace delays inline: 0, or a whole
 * number of seconds whose bucket lies inside the occupied range.  Anything
 * else goes to at_sk_add, so the result is the same.
 */
static inline at_sk_err
at_sk_add_fast(at_sketch *sk, double x)
{
	if (sk->count > 0 && sk->count < UINT64_MAX - 1 && sk->cum == NULL && sk->sum < 1e300)
	{
		if (x == 0)
		{
			sk->zeros++;
			sk->count++;
			sk->min = 0.0;		/* -0 too */
			return AT_SK_OK;
		}
		if (x >= 1 && x < AT_SK_SMALL && at_sk_small_index != NULL &&
			sk->alpha == AT_SK_DEFAULT_ERROR && x == (double) (int32_t) x)
		{
			int32_t		i = at_sk_small_index[(int32_t) x];

			if (i >= sk->first && i <= sk->last)
			{
				sk->counts[i - sk->lo]++;
				if (x < sk->min)
					sk->min = x;
				else if (x > sk->max)
					sk->max = x;
				sk->sum += x;
				sk->count++;
				return AT_SK_OK;
			}
		}
	}
	return at_sk_add(sk, x);
}

/* n copies of x (a summary's value count); on error sk is unchanged. */
extern at_sk_err at_sk_add_n(at_sketch *sk, double x, uint64_t n);

/* dst += src (src unchanged); on error dst is unchanged. */
extern at_sk_err at_sk_merge(at_sketch *dst, const at_sketch *src);

/* Builds the prefix sums that make rank and quantile queries O(log n). */
extern at_sk_err at_sk_prepare(at_sketch *sk);

/*
 * The value of rank ceil(q * count) (rank 1 for q = 0), as percentile_disc
 * picks it; q in [0, 1].  0 if the sketch is empty, else 1 and *out.
 */
extern int	at_sk_quantile(const at_sketch *sk, double q, double *out);

/*
 * Fraction of values <= x, counting the whole bucket x falls in: at least
 * the true fraction, at most the true fraction at x * gamma.  Exact for
 * x < min, x >= max, x = 0, and for buckets holding one integer when every
 * value is an integer.  -1 if the sketch is empty.
 */
extern double at_sk_rank(const at_sketch *sk, double x);

/* Serialized form (big-endian, varint buckets): size bound, and writer. */
extern size_t at_sk_encoded_bound(const at_sketch *sk);
extern size_t at_sk_encode(const at_sketch *sk, unsigned char *buf);
/* Exactly the bytes at_sk_encode writes. */
extern size_t at_sk_encoded_size(const at_sketch *sk);

/*
 * Reads a serialized sketch into sk (initialized by this call with mem);
 * NULL on success, else a message.  Every field is checked (at_sk_check).
 */
extern const char *at_sk_decode(at_sketch *sk, const unsigned char *buf, size_t len,
								at_mem_fn mem, void *mem_ctx);

/*
 * Text form, e.g. "v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1
 * b=249:1,+51:1": bucket index:count, then +index step:count.  at_sk_format
 * writes at most size bytes (with the NUL) and returns the full length.
 */
extern size_t at_sk_format(const at_sketch *sk, char *buf, size_t size);
extern const char *at_sk_parse(at_sketch *sk, const char *s, at_mem_fn mem, void *mem_ctx,
							   size_t *err_pos);

/* NULL if the fields are consistent, else a message. */
extern const char *at_sk_check(const at_sketch *sk);

extern const char *at_sk_strerror(at_sk_err e);

#endif
