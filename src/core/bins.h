/*
 * bins.h: counting values into bins and below thresholds, as plain C.
 *
 * Four kinds of state share one layout and one serialized form:
 *   AT_BINS_EQUAL  equal-width bins over [lo, hi]: slot 0 holds values below
 *                  lo, slots 1..n the bins (each closed on the left, the last
 *                  also on the right, so hi falls in bin n), slot n+1 values
 *                  above hi.  Inside, the bin is PostgreSQL's width_bucket.
 *   AT_BINS_EDGES  bins between sorted edges e0 < ... < ek: slot 0 below e0,
 *                  slot i for [e(i-1), e(i)) (the last closed: [e(k-1), ek]),
 *                  slot k+1 above ek.
 *   AT_BINS_CDF    thresholds (any order, repeats allowed): values are
 *                  counted into slots between the sorted distinct thresholds
 *                  t0 < ... < t(m-1): slot j holds t(j-1) < v <= t(j), slot m
 *                  the values above all; the CDF at t(j) is slots 0..j.
 *   AT_BINS_WCDF   the same, summing a weight per slot as well.
 * NaN values are never counted (the caller skips them, as pandas' dropna).
 */
#ifndef ACMETRACE_BINS_H
#define ACMETRACE_BINS_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#define AT_BINS_VERSION		1
#define AT_BINS_MAX_SLOTS	1000002		/* a million bins, plus under/overflow */
#define AT_BINS_MAX_THRESHOLDS 1000000
#define AT_BINS_HEADER		32

typedef enum at_bins_kind
{
	AT_BINS_EQUAL = 1,
	AT_BINS_EDGES = 2,
	AT_BINS_CDF = 3,
	AT_BINS_WCDF = 4
} at_bins_kind;

typedef struct at_bins
{
	at_bins_kind kind;
	int32_t		nslots;
	double		lo;				/* EQUAL */
	double		hi;
	int32_t		nbins;
	int32_t		nparams;		/* EDGES: the edges; CDF/WCDF: sorted distinct thresholds */
	double	   *params;
	int32_t		nin;			/* CDF/WCDF: the thresholds as given, for the answer's order */
	double	   *in;
	int64_t	   *counts;			/* nslots */
	double	   *weights;		/* WCDF: nslots */
	int64_t		n;				/* values counted */
	double		wtotal;			/* WCDF: their weight */
} at_bins;

/* NULL if lo, hi, nbins are usable for AT_BINS_EQUAL, else a message. */
extern const char *at_bins_check_equal(double lo, double hi, int64_t nbins);

/* NULL if e[0..n) are usable edges (n >= 2, finite, strictly increasing). */
extern const char *at_bins_check_edges(const double *e, int64_t n);

/* NULL if t[0..n) are usable thresholds (1 <= n, no NaN). */
extern const char *at_bins_check_thresholds(const double *t, int64_t n);

/* Slot of v (not NaN) among equal-width bins: 0..nbins+1. */
extern int32_t at_bins_equal_slot(double v, double lo, double hi, int32_t nbins);

/* Slot of v among edges e[0..n): 0..n. */
extern int32_t at_bins_edges_slot(double v, const double *e, int32_t n);

/* Number of t[0..n) below v (t sorted): the CDF slot of v, 0..n. */
extern int32_t at_bins_cdf_slot(double v, const double *t, int32_t n);

/*
 * Set up a state (arrays from mem; 0 on success, -1 if out of memory).
 * EQUAL: lo, hi, nbins; EDGES: the edges; CDF/WCDF: the thresholds as
 * given (sorted and deduplicated here).  Arguments must have been checked.
 */
extern int	at_bins_init(at_bins *h, at_bins_kind kind, double lo, double hi, int32_t nbins,
						 const double *vals, int32_t nvals, at_mem_fn mem, void *ctx);
extern void at_bins_free(at_bins *h, at_mem_fn mem, void *ctx);

/* The slot of v (not NaN) in h. */
static inline int32_t
at_bins_slot(const at_bins *h, double v)
{
	switch (h->kind)
	{
		case AT_BINS_EQUAL:
			return at_bins_equal_slot(v, h->lo, h->hi, h->nbins);
		case AT_BINS_EDGES:
			return at_bins_edges_slot(v, h->params, h->nparams);
		default:
			return at_bins_cdf_slot(v, h->params, h->nparams);
	}
}

/* Count v (not NaN) with weight w (WCDF only). */
static inline void
at_bins_add(at_bins *h, double v, double w)
{
	int32_t		s = at_bins_slot(h, v);

	h->counts[s]++;
	h->n++;
	if (h->kind == AT_BINS_WCDF)
	{
		h->weights[s] += w;
		h->wtotal += w;
	}
}

/*
 * counts[slot[m[i] - lo]] += 1 for i < n (slot: a table of slots by
 * integer value, each m[i] - lo inside it), with striped counters: the
 * same slot hit twice in a row would wait on its own last increment.
 */
extern void at_bins_count_slots(int64_t *counts, int32_t nslots, const int32_t *slot, int64_t lo,
								const int64_t *m, int32_t n);

/*
 * Counting the values of acmetrace.samples blocks (samples.h), as
 * at_bins_add would one by one, without weights.  A block of integers /
 * 10^scale (GPU_UTIL's 0..100 with 3 decimals) looks each integer's slot up
 * in a table, kept across blocks in at_bins_slots: entry m - lo is the slot
 * of (double) m / 10^scale, the value the block decodes to, so the counts
 * are the same.  The table is rebuilt (widened when the union stays under
 * AT_BINS_SLOT_TABLE_MAX) when a block's integers fall outside it.
 */
#define AT_BINS_SLOT_TABLE_MAX (1 << 20)

typedef struct at_bins_slots
{
	int32_t    *slot_of;		/* NULL until a table is built */
	int64_t		lo;
	int32_t		n;
	int32_t		scale;
} at_bins_slots;

/*
 * The table of h's slots for the integers mlo..mhi of scale (t's, or
 * rebuilt with memory from mem), or NULL when it would be too big or
 * memory ran out.
 */
extern const int32_t *at_bins_slot_table(const at_bins *h, at_bins_slots *t, int32_t scale,
										 int64_t mlo, int64_t mhi, at_mem_fn mem, void *ctx);
extern void at_bins_slots_free(at_bins_slots *t, at_mem_fn mem, void *ctx);

/* Counts v[0..n). */
extern void at_bins_add_values(at_bins *h, const double *v, int32_t n);

/*
 * Counts the values m[i] / 10^scale (i < n), each integer within mlo..mhi:
 * 0, or -1 (nothing counted) when no table covers them.
 */
extern int	at_bins_add_scaled(at_bins *h, at_bins_slots *t, const int64_t *m, int32_t n, int32_t scale,
							   int64_t mlo, int64_t mhi, at_mem_fn mem, void *ctx);

/*
 * Counts every value of a checked block: by its stored value counts when it
 * has them (no decoding), else chunk by chunk, a constant chunk costing one
 * slot, through t's table when one covers the block's integers.
 */
extern void at_bins_add_block(at_bins *h, at_bins_slots *t, const unsigned char *buf, size_t len,
							  at_mem_fn mem, void *ctx);

/* 1 if a and b have the same kind and parameters. */
extern int	at_bins_same_shape(const at_bins *a, const at_bins *b);

/* dst += src; -1 if a count, -2 if the total weight would overflow (dst unchanged). */
extern int	at_bins_merge(at_bins *dst, const at_bins *src);

/*
 * The percent CDF (or weighted CDF) at each threshold as given, into
 * out[nin]; scratch holds nparams doubles.  Needs n > 0 (wtotal > 0).
 */
extern void at_bins_cdf(const at_bins *h, double *out, double *scratch);

/* dst = a copy of src (arrays from mem; 0, or -1 if out of memory). */
extern int	at_bins_copy(at_bins *dst, const at_bins *src, at_mem_fn mem, void *ctx);

/*
 * Serialized form (the old aggregates' bytea partial state, and the bytes
 * of acmetrace.bins_state after its varlena header): size, writer, and the
 * one checked reader (NULL or a message; on a message h holds no arrays).
 * Big-endian; byte 0 is AT_BINS_VERSION, byte 1 the kind, 2..3 zero, then
 * u32 nslots, u32 nparams (2 for EQUAL: lo, hi), u32 nin, u64 n, f64
 * wtotal, and f64 params[nparams], in[nin], u64 counts[nslots], f64
 * weights[nslots] (WCDF only).  Everything is checked as the SQL arguments
 * are, and the counts (and weights) must add up to n (and wtotal).
 */
extern size_t at_bins_encoded_size(const at_bins *h);
extern void at_bins_encode(const at_bins *h, unsigned char *buf);
extern const char *at_bins_decode(at_bins *h, const unsigned char *buf, size_t len,
								  at_mem_fn mem, void *ctx);

/*
 * Text form of acmetrace.bins_state: "v1:" and the serialized form in
 * hexadecimal, nothing else (no spaces).  Written in lower case, read in
 * either; the bytes go through at_bins_decode, so text is checked exactly
 * as binary is.  The prefix versions the text form, byte 0 the state.
 */
#define AT_BINS_TEXT_PREFIX "v1:"

/* Bytes at_bins_format writes, the final NUL included. */
extern size_t at_bins_text_size(const at_bins *h);
extern void at_bins_format(const at_bins *h, char *out);

/* Reads s[0..len) (NULL or a message; *pos: where the text went wrong). */
extern const char *at_bins_parse(at_bins *h, const char *s, size_t len, at_mem_fn mem, void *ctx,
								 size_t *pos);

#endif
