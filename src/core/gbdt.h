/*
 * gbdt.h: gradient-boosted regression trees (squared loss), trained on
 * histogram bins of the features, and their versioned serialized form.
 *
 * Training is deterministic: the rows are put in one canonical order
 * first, so the same multiset of rows gives the same model whatever order
 * a scan, a parallel plan or a combine handed them over in.  A missing
 * feature (NaN) goes to the side of each split that suits the training
 * rows best.
 *
 * Two serialized forms, both "v1" (first byte 1), big-endian:
 *   at_gbdt       the model (acmetrace.gbdt);
 *   at_gbdt_rows  the training rows gathered by the aggregate
 *                 (acmetrace.gbdt_state), with the parameters.
 * Every decoder checks each field and refuses anything else.
 *
 * Plain C; memory through at_mem_fn.
 */
#ifndef ACMETRACE_GBDT_H
#define ACMETRACE_GBDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#define AT_GBDT_VERSION 1
#define AT_GBDT_MAX_FEATURES 256
#define AT_GBDT_MAX_DEPTH 10
#define AT_GBDT_MAX_ROUNDS 10000
#define AT_GBDT_MAX_BINS 255
#define AT_GBDT_LAMBDA 1.0		/* L2 penalty on leaf values */
#define AT_GBDT_HEADER 60
#define AT_GBDT_NODE_SIZE 21
#define AT_GBDT_ROWS_HEADER 32

typedef struct at_gbdt_params
{
	int32_t		rounds;			/* trees, 1 .. AT_GBDT_MAX_ROUNDS */
	int32_t		depth;			/* splits from root to leaf, 1 .. AT_GBDT_MAX_DEPTH */
	double		learning_rate;	/* each tree's shrinkage, (0, 1] */
	int32_t		min_leaf;		/* training rows a leaf needs, >= 1 */
	int32_t		bins;			/* histogram bins per feature, 2 .. AT_GBDT_MAX_BINS - 1 (255 marks a missing value) */
} at_gbdt_params;

typedef struct at_gbdt_node
{
	int32_t		feature;		/* the feature split on; -1: a leaf */
	uint32_t	left,			/* children (indexes into nodes, after this one) */
				right;
	double		x;				/* split: feature <= x goes left; leaf: its value */
	uint8_t		missing_left;	/* split: a missing feature goes left */
} at_gbdt_node;

typedef struct at_gbdt
{
	at_gbdt_params params;
	int32_t		nfeatures;
	int32_t		ntrees;			/* = params.rounds */
	uint32_t	nnodes;
	int64_t		rows;			/* rows trained on */
	double		base;			/* the mean target, before any tree */
	double		train_rmse;		/* root mean squared error on the training rows */
	uint32_t   *roots;			/* tree t is nodes[roots[t] .. roots[t+1]) */
	at_gbdt_node *nodes;
} at_gbdt;

/* The rows a training aggregate gathers: x row-major (NaN: missing). */
typedef struct at_gbdt_rows
{
	at_gbdt_params params;
	int32_t		nfeatures;
	int64_t		n,
				cap;
	double	   *x;				/* n * nfeatures */
	double	   *y;
} at_gbdt_rows;

/* gbdt_train's defaults: 100 rounds of depth 6 at 0.1, leaves of 20 rows or more, 64 bins. */
extern void at_gbdt_params_default(at_gbdt_params *p);

/* NULL, or why the parameters are out of range. */
extern const char *at_gbdt_check_params(const at_gbdt_params *p);

/* Called before each tree (may leave by longjmp: the glue checks for interrupts there). */
typedef void (*at_gbdt_tick_fn) (void *arg);

/*
 * Trains on the rows (n >= 1, every y finite, x finite or NaN) into out;
 * rows->x and rows->y are put in canonical order in place.  tick (may be
 * NULL) is called before each tree.  0, or -2 out of memory (out then
 * holds nothing).
 */
extern int	at_gbdt_train(at_gbdt_rows *rows, at_mem_fn mem, void *ctx, at_gbdt_tick_fn tick, void *tick_arg,
						  at_gbdt *out);

/* The index of the first infinite value of x[0 .. n), or -1 (NaN is a missing value, not infinite). */
extern int	at_gbdt_first_infinite(const double *x, int n);

/* The prediction for one row of m->nfeatures values (NaN: missing). */
extern double at_gbdt_predict(const at_gbdt *m, const double *x);

extern size_t at_gbdt_encoded_size(const at_gbdt *m);
extern void at_gbdt_encode(const at_gbdt *m, unsigned char *out);
/* NULL and m filled, or why the bytes are not a model (nothing kept). */
extern const char *at_gbdt_decode(at_gbdt *m, const unsigned char *b, size_t len, at_mem_fn mem, void *ctx);
extern void at_gbdt_free(at_gbdt *m, at_mem_fn mem, void *ctx);

/* ---- training rows ---- */

/* Empty rows of nfeatures features (1 .. AT_GBDT_MAX_FEATURES). */
extern void at_gbdt_rows_init(at_gbdt_rows *r, const at_gbdt_params *p, int32_t nfeatures);
/* Appends one row.  False: out of memory. */
extern bool at_gbdt_rows_add(at_gbdt_rows *r, const double *x, double y, at_mem_fn mem, void *ctx);
/* dst += src (same parameters and features, checked by the caller with at_gbdt_rows_same).  False: out of memory. */
extern bool at_gbdt_rows_merge(at_gbdt_rows *dst, const at_gbdt_rows *src, at_mem_fn mem, void *ctx);
extern bool at_gbdt_rows_same(const at_gbdt_rows *a, const at_gbdt_rows *b);

typedef enum at_gbdt_combine_status
{
	AT_GBDT_COMBINED = 0,
	AT_GBDT_COMBINE_OTHER,		/* other features or parameters (at_gbdt_rows_same) */
	AT_GBDT_COMBINE_TOO_MANY,	/* more than max_rows together */
	AT_GBDT_COMBINE_NOMEM
} at_gbdt_combine_status;

/* dst += src when they are alike and their rows together at most max_rows; else dst's rows unchanged. */
extern at_gbdt_combine_status at_gbdt_rows_combine(at_gbdt_rows *dst, const at_gbdt_rows *src, int64_t max_rows,
												   at_mem_fn mem, void *ctx);
/* Rows that fit one encoded state under limit bytes. */
extern int64_t at_gbdt_rows_max(int32_t nfeatures, size_t limit);
extern size_t at_gbdt_rows_encoded_size(const at_gbdt_rows *r);
extern void at_gbdt_rows_encode(const at_gbdt_rows *r, unsigned char *out);
extern const char *at_gbdt_rows_decode(at_gbdt_rows *r, const unsigned char *b, size_t len, at_mem_fn mem, void *ctx);
extern void at_gbdt_rows_free(at_gbdt_rows *r, at_mem_fn mem, void *ctx);

/* ---- the "v1:<hex>" text form of either (kind 'm' model, 'r' rows) ---- */

/* Bytes out of "v1:<hex>": NULL and *bytes (from mem) / *len, or why not; *pos: where. */
extern const char *at_gbdt_unhex(const char *s, size_t len, unsigned char **bytes, size_t *blen,
								 at_mem_fn mem, void *ctx, size_t *pos);
/* "v1:" and n bytes in hex, NUL-terminated, into out (3 + 2n + 1 bytes). */
extern void at_gbdt_hex(const unsigned char *b, size_t n, char *out);

#endif
