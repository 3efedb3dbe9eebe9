/*
 * gbdt.c: gradient-boosted regression trees on histogram bins (gbdt.h).
 *
 * Each round fits one tree to the residuals, level by level: one pass over
 * the rows per level sums residuals and counts per (node, feature, bin),
 * and each node takes the split of largest gain
 *     GL^2/(NL+lambda) + GR^2/(NR+lambda) - G^2/(N+lambda)
 * over the bin edges, trying missing values on either side.  Leaves hold
 * learning_rate * G/(N+lambda).
 */
#include "gbdt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "num.h"
#include "hex.h"


const char *
at_gbdt_check_params(const at_gbdt_params *p)
{
	if (p->rounds < 1 || p->rounds > AT_GBDT_MAX_ROUNDS)
		return "rounds must be between 1 and 10000";
	if (p->depth < 1 || p->depth > AT_GBDT_MAX_DEPTH)
		return "depth must be between 1 and 10";
	if (!(p->learning_rate > 0 && p->learning_rate <= 1))
		return "learning_rate must be above 0 and at most 1";
	if (p->min_leaf < 1)
		return "min_leaf must be at least 1";
	if (p->bins < 2 || p->bins > AT_GBDT_MAX_BINS - 1)
		return "bins must be between 2 and 254";
	return NULL;
}

/* ---- the canonical row order: by y, then x feature by feature (NaN last) ---- */

static int
cmp_val(double a, double b)
{
	bool		na = isnan(a),
				nb = isnan(b);

	if (na || nb)
		return na - nb;
	return (a > b) - (a < b);
}

static int
cmp_row(const at_gbdt_rows *r, int64_t i, int64_t j)
{
	int			c = cmp_val(r->y[i], r->y[j]);

	for (int32_t f = 0; c == 0 && f < r->nfeatures; f++)
		c = cmp_val(r->x[i * r->nfeatures + f], r->x[j * r->nfeatures + f]);
	return c;
}

/* Bottom-up merge sort of idx (tmp: scratch of n), stable and deterministic. */
static void
sort_rows(const at_gbdt_rows *r, int64_t *idx, int64_t *tmp, int64_t n)
{
	for (int64_t w = 1; w < n; w *= 2)
	{
		for (int64_t lo = 0; lo < n; lo += 2 * w)
		{
			int64_t		mid = lo + w < n ? lo + w : n,
						hi = lo + 2 * w < n ? lo + 2 * w : n,
						a = lo,
						b = mid,
						k = lo;

			while (a < mid && b < hi)
				tmp[k++] = cmp_row(r, idx[b], idx[a]) < 0 ? idx[b++] : idx[a++];
			while (a < mid)
				tmp[k++] = idx[a++];
			while (b < hi)
				tmp[k++] = idx[b++];
		}
		memcpy(idx, tmp, (size_t) n * sizeof(int64_t));
	}
}

/* ---- training ---- */

/* A histogram slot's residual sum and rows, side by side: one cache line per update. */
typedef struct hist_cell
{
	double		g;
	int64_t		n;
} hist_cell;

typedef struct trainer
{
	at_mem_fn	mem;
	void	   *ctx;
	int64_t		n;
	int32_t		d;
	int32_t		nb;				/* histogram slots per feature: bins + missing */
	uint8_t    *bin;			/* n * d, row-major; a missing value is slot nb - 1 */
	double	   *cuts;			/* d * (bins - 1): edge b of feature f: x <= edge is bin <= b */
	int32_t    *ncuts;
	double	   *resid;
	int32_t    *slot;			/* each row's node of the level being grown, -1: in a leaf */
	hist_cell  *hist;			/* per (node, feature, slot) */
	at_gbdt_node *nodes;
	uint32_t	nnodes,
				cap;
} trainer;

static void
trainer_free(trainer *t)
{
	void	   *p[] = {t->bin, t->cuts, t->ncuts, t->resid, t->slot, t->hist, t->nodes};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (p[i] != NULL)
			t->mem(t->ctx, p[i], 0);
}

/* Bin edges of each feature: at most bins-1 distinct quantiles of its present values. */
static bool
make_bins(trainer *t, const at_gbdt_rows *r)
{
	int32_t		bins = r->params.bins;
	double	   *v = t->mem(t->ctx, NULL, (size_t) t->n * sizeof(double));

	if (v == NULL)
		return false;
	for (int32_t f = 0; f < t->d; f++)
	{
		int64_t		m = 0;
		double	   *c = t->cuts + (size_t) f * (bins - 1);
		int32_t		nc = 0;

		for (int64_t i = 0; i < t->n; i++)
			if (!isnan(r->x[i * t->d + f]))
				v[m++] = r->x[i * t->d + f];
		qsort(v, (size_t) m, sizeof(double), at_cmp_double);
		{
			int64_t		distinct = m > 0 ? 1 : 0;

			for (int64_t i = 1; i < m; i++)
				distinct += v[i] != v[i - 1];
			if (distinct <= bins)
			{
				/* few distinct values: an edge at each but the largest */
				for (int64_t i = 0; i + 1 < m; i++)
					if (v[i] != v[i + 1])
						c[nc++] = v[i];
			}
			else
				for (int32_t k = 1; k < bins; k++)
				{
					double		e = v[(m * k) / bins];

					/* x <= e goes left; an edge at the largest value splits nothing */
					if (e >= v[m - 1])
						break;
					if (nc > 0 && e <= c[nc - 1])
						continue;
					c[nc++] = e;
				}
		}
		t->ncuts[f] = nc;
		for (int64_t i = 0; i < t->n; i++)
		{
			double		x = r->x[i * t->d + f];
			uint8_t		b;

			if (isnan(x))
				b = (uint8_t) (t->nb - 1);
			else
			{
				int32_t		lo = 0,
							hi = nc;

				/* the first edge >= x */
				while (lo < hi)
				{
					int32_t		mid = (lo + hi) / 2;

					if (c[mid] < x)
						lo = mid + 1;
					else
						hi = mid;
				}
				b = (uint8_t) lo;
			}
			t->bin[(size_t) i * t->d + f] = b;
		}
	}
	t->mem(t->ctx, v, 0);
	return true;
}

static int64_t
new_node(trainer *t)
{
	if (t->nnodes == t->cap)
	{
		uint32_t	cap = t->cap ? t->cap * 2 : 256;
		at_gbdt_node *p = at_mem_grow(t->mem, t->ctx, t->nodes, t->cap * sizeof(at_gbdt_node),
									  (size_t) cap * sizeof(at_gbdt_node));

		if (p == NULL)
			return -1;
		t->nodes = p;
		t->cap = cap;
	}
	memset(&t->nodes[t->nnodes], 0, sizeof(at_gbdt_node));
	t->nodes[t->nnodes].feature = -1;
	return t->nnodes++;
}

typedef struct level_node
{
	uint32_t	node;			/* its index in t->nodes */
	double		g;				/* sum of residuals */
	int64_t		n;
} level_node;

/*
 * One tree, grown level by level, added to pred.  cur/next: scratch of
 * 2^depth level nodes each.  False: out of memory.
 */
static bool
grow_tree(trainer *t, const at_gbdt_params *p, level_node *cur, level_node *next, double *pred)
{
	int32_t		ncur = 1,
				nslots = t->d * t->nb;
	int64_t		root = new_node(t);
	double		g = 0;

	if (root < 0)
		return false;
	for (int64_t i = 0; i < t->n; i++)
	{
		t->slot[i] = 0;
		g += t->resid[i];
	}
	cur[0].node = (uint32_t) root;
	cur[0].g = g;
	cur[0].n = t->n;
	for (int32_t level = 0; ncur > 0; level++)
	{
		int32_t		nnext = 0;
		int32_t		split_f[1 << AT_GBDT_MAX_DEPTH];
		int32_t		split_b[1 << AT_GBDT_MAX_DEPTH];
		uint8_t		split_ml[1 << AT_GBDT_MAX_DEPTH];

		if (level < p->depth)
		{
			memset(t->hist, 0, (size_t) ncur * nslots * sizeof(hist_cell));
			/*
			 * Row by row, every feature of the row: each (node, feature,
			 * slot) still sums its rows in row order, so the sums are the
			 * same bits as feature by feature, with a row's slot and
			 * residual read once and its features' sums independent.
			 */
			for (int64_t i = 0; i < t->n; i++)
			{
				int32_t		s = t->slot[i];
				const uint8_t *bi = t->bin + (size_t) i * t->d;
				double		r = t->resid[i];
				hist_cell  *hc;

				if (s < 0)
					continue;
				hc = t->hist + (size_t) s * nslots;
				for (int32_t f = 0; f < t->d; f++)
				{
					hist_cell  *c = hc + (size_t) f * t->nb + bi[f];

					c->g += r;
					c->n++;
				}
			}
		}
		for (int32_t a = 0; a < ncur; a++)
		{
			level_node *ln = &cur[a];
			double		best = 0,
						parent = ln->g * ln->g / (ln->n + AT_GBDT_LAMBDA);
			int32_t		bf = -1,
						bb = -1;
			uint8_t		bml = 0;

			if (level < p->depth && ln->n >= 2 * (int64_t) p->min_leaf)
				for (int32_t f = 0; f < t->d; f++)
				{
					const hist_cell *hc = t->hist + (size_t) a * nslots + (size_t) f * t->nb;
					double		gm = hc[t->nb - 1].g,
								gl = 0;
					int64_t		nm = hc[t->nb - 1].n,
								nl = 0;

					for (int32_t b = 0; b < t->ncuts[f]; b++)
					{
						gl += hc[b].g;
						nl += hc[b].n;
						for (int ml = 1; ml >= 0; ml--)
						{
							double		gL = gl + (ml ? gm : 0),
										gR = ln->g - gL;
							int64_t		nL = nl + (ml ? nm : 0),
										nR = ln->n - nL;
							double		gain;

							if (nL < p->min_leaf || nR < p->min_leaf)
								continue;
							gain = gL * gL / (nL + AT_GBDT_LAMBDA) + gR * gR / (nR + AT_GBDT_LAMBDA) - parent;
							if (gain > best * (1 + 1e-12) + 1e-12)
							{
								best = gain;
								bf = f;
								bb = b;
								bml = (uint8_t) ml;
							}
							if (nm == 0)
								break;	/* no missing values: one side is as good as the other */
						}
					}
				}
			split_f[a] = bf;
			split_b[a] = bb;
			split_ml[a] = bml;
			if (bf < 0)
			{
				/* a leaf */
				at_gbdt_node *nd = &t->nodes[ln->node];

				nd->feature = -1;
				nd->x = p->learning_rate * ln->g / (ln->n + AT_GBDT_LAMBDA);
			}
			else
			{
				int64_t		l = new_node(t),
							rr = l < 0 ? -1 : new_node(t);
				at_gbdt_node *nd;

				if (rr < 0)
					return false;
				nd = &t->nodes[ln->node];
				nd->feature = bf;
				nd->x = t->cuts[(size_t) bf * (p->bins - 1) + bb];
				nd->missing_left = bml;
				nd->left = (uint32_t) l;
				nd->right = (uint32_t) rr;
				next[nnext].node = (uint32_t) l;
				next[nnext].g = 0;
				next[nnext].n = 0;
				next[nnext + 1].node = (uint32_t) rr;
				next[nnext + 1].g = 0;
				next[nnext + 1].n = 0;
				cur[a].node = (uint32_t) nnext;	/* from here: its left child's index in next */
				nnext += 2;
			}
		}
		/* rows move to a child, or take their leaf's value */
		for (int64_t i = 0; i < t->n; i++)
		{
			int32_t		s = t->slot[i];

			if (s < 0)
				continue;
			if (split_f[s] < 0)
			{
				/* the leaf: cur[s].node still names it */
				double		v = t->nodes[cur[s].node].x;

				pred[i] += v;
				t->resid[i] -= v;
				t->slot[i] = -1;
			}
			else
			{
				uint8_t		b = t->bin[(size_t) i * t->d + split_f[s]];
				bool		left = b == t->nb - 1 ? split_ml[s] : b <= split_b[s];
				int32_t		c = (int32_t) cur[s].node + (left ? 0 : 1);

				t->slot[i] = c;
				next[c].g += t->resid[i];
				next[c].n++;
			}
		}
		memcpy(cur, next, (size_t) nnext * sizeof(level_node));
		ncur = nnext;
	}
	return true;
}

int
at_gbdt_train(at_gbdt_rows *r, at_mem_fn mem, void *ctx, at_gbdt_tick_fn tick, void *tick_arg, at_gbdt *out)
{
	trainer		t;
	int64_t		n = r->n;
	int32_t		d = r->nfeatures,
				width = 1 << r->params.depth;
	int64_t    *idx = NULL,
			   *tmp = NULL;
	double	   *pred = NULL,
				sum = 0,
				se = 0;
	level_node *cur = NULL,
			   *next = NULL;
	uint32_t   *roots = NULL;
	bool		ok = false;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	t.mem = mem;
	t.ctx = ctx;
	t.n = n;
	t.d = d;
	t.nb = r->params.bins + 1;

	/* the canonical order, applied to the rows in place */
	idx = mem(ctx, NULL, (size_t) n * sizeof(int64_t));
	tmp = idx ? mem(ctx, NULL, (size_t) (n > d + 1 ? n : d + 1) * sizeof(int64_t)) : NULL;
	if (tmp == NULL)
		goto done;
	for (int64_t i = 0; i < n; i++)
		idx[i] = i;
	sort_rows(r, idx, tmp, n);
	{
		/* permute by cycles: row i takes row idx[i] */
		double	   *row = (double *) tmp;

		for (int64_t i = 0; i < n; i++)
		{
			int64_t		j,
						k;

			if (idx[i] < 0)
				continue;
			memcpy(row, r->x + i * d, (size_t) d * sizeof(double));
			row[d] = r->y[i];
			for (j = i;; j = k)
			{
				k = idx[j];
				idx[j] = -1;
				if (k == i)
					break;
				memcpy(r->x + j * d, r->x + k * d, (size_t) d * sizeof(double));
				r->y[j] = r->y[k];
			}
			memcpy(r->x + j * d, row, (size_t) d * sizeof(double));
			r->y[j] = row[d];
		}
	}

	t.bin = mem(ctx, NULL, (size_t) n * d);
	t.cuts = mem(ctx, NULL, (size_t) d * (r->params.bins - 1) * sizeof(double));
	t.ncuts = mem(ctx, NULL, (size_t) d * sizeof(int32_t));
	t.resid = mem(ctx, NULL, (size_t) n * sizeof(double));
	t.slot = mem(ctx, NULL, (size_t) n * sizeof(int32_t));
	t.hist = mem(ctx, NULL, (size_t) width / 2 * d * t.nb * sizeof(hist_cell));
	pred = mem(ctx, NULL, (size_t) n * sizeof(double));
	cur = mem(ctx, NULL, (size_t) width * sizeof(level_node));
	next = mem(ctx, NULL, (size_t) width * sizeof(level_node));
	roots = mem(ctx, NULL, (size_t) r->params.rounds * sizeof(uint32_t));
	if (!t.bin || !t.cuts || !t.ncuts || !t.resid || !t.slot || !t.hist || !pred || !cur || !next || !roots)
		goto done;
	if (!make_bins(&t, r))
		goto done;

	for (int64_t i = 0; i < n; i++)
		sum += r->y[i];
	out->base = sum / n;
	for (int64_t i = 0; i < n; i++)
	{
		pred[i] = out->base;
		t.resid[i] = r->y[i] - out->base;
	}
	for (int32_t k = 0; k < r->params.rounds; k++)
	{
		if (tick)
			tick(tick_arg);
		roots[k] = t.nnodes;
		if (!grow_tree(&t, &r->params, cur, next, pred))
			goto done;
	}
	for (int64_t i = 0; i < n; i++)
		se += (r->y[i] - pred[i]) * (r->y[i] - pred[i]);
	out->params = r->params;
	out->nfeatures = d;
	out->ntrees = r->params.rounds;
	out->nnodes = t.nnodes;
	out->rows = n;
	out->train_rmse = sqrt(se / n);
	out->roots = roots;
	out->nodes = t.nodes;
	t.nodes = NULL;
	roots = NULL;
	ok = true;
done:
	trainer_free(&t);
	if (idx)
		mem(ctx, idx, 0);
	if (tmp)
		mem(ctx, tmp, 0);
	if (pred)
		mem(ctx, pred, 0);
	if (cur)
		mem(ctx, cur, 0);
	if (next)
		mem(ctx, next, 0);
	if (roots)
		mem(ctx, roots, 0);
	if (!ok)
		memset(out, 0, sizeof(*out));
	return ok ? 0 : -2;
}

double
at_gbdt_predict(const at_gbdt *m, const double *x)
{
	double		s = m->base;

	for (int32_t k = 0; k < m->ntrees; k++)
	{
		const at_gbdt_node *nd = &m->nodes[m->roots[k]];

		while (nd->feature >= 0)
		{
			double		v = x[nd->feature];
			bool		left = isnan(v) ? nd->missing_left : v <= nd->x;

			nd = &m->nodes[left ? nd->left : nd->right];
		}
		s += nd->x;
	}
	return s;
}

/* ---- serialized forms ---- */

static void
put_f64(unsigned char *p, double v)
{
	uint64_t	u;

	memcpy(&u, &v, sizeof(u));
	at_put_u64(p, u);
}

static double
get_f64(const unsigned char *p)
{
	uint64_t	u = at_get_u64(p);
	double		v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

static void
put_u16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) (v >> 8);
	p[1] = (unsigned char) v;
}

static uint32_t
get_u16(const unsigned char *p)
{
	return ((uint32_t) p[0] << 8) | p[1];
}

/* The parameters' 16 bytes: depth u16, bins u16, min_leaf u32, learning_rate f64 (rounds apart). */
static void
put_params(unsigned char *p, const at_gbdt_params *pr)
{
	put_u16(p, (uint32_t) pr->depth);
	put_u16(p + 2, (uint32_t) pr->bins);
	at_put_u32(p + 4, (uint32_t) pr->min_leaf);
	put_f64(p + 8, pr->learning_rate);
}

static void
get_params(const unsigned char *p, at_gbdt_params *pr)
{
	pr->depth = (int32_t) get_u16(p);
	pr->bins = (int32_t) get_u16(p + 2);
	pr->min_leaf = (int32_t) (at_get_u32(p + 4) & 0x7fffffff);
	if (at_get_u32(p + 4) > 0x7fffffff)
		pr->min_leaf = 0;		/* refused by at_gbdt_check_params */
	pr->learning_rate = get_f64(p + 8);
}

/*
 * Model, AT_GBDT_HEADER bytes then the roots and the nodes:
 *   0 version u8 (1), 1 reserved u8 (0), 2 nfeatures u16, 4 ntrees u32,
 *   8 nnodes u32, 12 params (16 bytes), 28 rows u64,
 *   36 base f64, 44 train_rmse f64, 52 reserved u64 (0);
 *   roots u32 x ntrees; nodes: feature u32 (0xffffffff a leaf), left u32,
 *   right u32, x f64, missing_left u8.
 */
size_t
at_gbdt_encoded_size(const at_gbdt *m)
{
	return AT_GBDT_HEADER + (size_t) m->ntrees * 4 + (size_t) m->nnodes * AT_GBDT_NODE_SIZE;
}

void
at_gbdt_encode(const at_gbdt *m, unsigned char *out)
{
	unsigned char *p;

	memset(out, 0, AT_GBDT_HEADER);
	out[0] = AT_GBDT_VERSION;
	put_u16(out + 2, (uint32_t) m->nfeatures);
	at_put_u32(out + 4, (uint32_t) m->ntrees);
	at_put_u32(out + 8, m->nnodes);
	put_params(out + 12, &m->params);
	at_put_u64(out + 28, (uint64_t) m->rows);
	put_f64(out + 36, m->base);
	put_f64(out + 44, m->train_rmse);
	p = out + AT_GBDT_HEADER;
	for (int32_t k = 0; k < m->ntrees; k++, p += 4)
		at_put_u32(p, m->roots[k]);
	for (uint32_t i = 0; i < m->nnodes; i++, p += AT_GBDT_NODE_SIZE)
	{
		const at_gbdt_node *nd = &m->nodes[i];

		at_put_u32(p, nd->feature < 0 ? 0xffffffffu : (uint32_t) nd->feature);
		at_put_u32(p + 4, nd->left);
		at_put_u32(p + 8, nd->right);
		put_f64(p + 12, nd->x);
		p[20] = nd->missing_left;
	}
}

void
at_gbdt_free(at_gbdt *m, at_mem_fn mem, void *ctx)
{
	if (m->roots)
		mem(ctx, m->roots, 0);
	if (m->nodes)
		mem(ctx, m->nodes, 0);
	memset(m, 0, sizeof(*m));
}

const char *
at_gbdt_decode(at_gbdt *m, const unsigned char *b, size_t len, at_mem_fn mem, void *ctx)
{
	const unsigned char *p;
	const char *msg;
	uint64_t	rows;
	uint32_t	ntrees,
				nnodes;

	memset(m, 0, sizeof(*m));
	if (len < AT_GBDT_HEADER)
		return "value is shorter than the header";
	if (b[0] != AT_GBDT_VERSION)
		return "unsupported version (this version reads version 1)";
	if (b[1] != 0 || at_get_u64(b + 52) != 0)
		return "reserved bytes are not zero";
	m->nfeatures = (int32_t) get_u16(b + 2);
	if (m->nfeatures < 1 || m->nfeatures > AT_GBDT_MAX_FEATURES)
		return "number of features out of range";
	ntrees = at_get_u32(b + 4);
	nnodes = at_get_u32(b + 8);
	get_params(b + 12, &m->params);
	m->params.rounds = ntrees > AT_GBDT_MAX_ROUNDS ? 0 : (int32_t) ntrees;
	if ((msg = at_gbdt_check_params(&m->params)) != NULL)
		return msg;
	rows = at_get_u64(b + 28);
	if (rows < 1 || rows > (uint64_t) INT64_MAX)
		return "number of training rows out of range";
	m->rows = (int64_t) rows;
	m->base = get_f64(b + 36);
	m->train_rmse = get_f64(b + 44);
	if (!isfinite(m->base) || !isfinite(m->train_rmse) || m->train_rmse < 0)
		return "base or training error is not a finite number";
	/* each tree has 1 .. 2^(depth+1)-1 nodes */
	if (nnodes < ntrees || (uint64_t) nnodes > (uint64_t) ntrees * ((2u << m->params.depth) - 1))
		return "number of nodes does not fit the trees";
	if (len != AT_GBDT_HEADER + (size_t) ntrees * 4 + (size_t) nnodes * AT_GBDT_NODE_SIZE)
		return "length does not match the numbers of trees and nodes";
	m->ntrees = (int32_t) ntrees;
	m->nnodes = nnodes;
	m->roots = mem(ctx, NULL, (size_t) ntrees * sizeof(uint32_t));
	m->nodes = m->roots ? mem(ctx, NULL, (size_t) nnodes * sizeof(at_gbdt_node)) : NULL;
	if (m->nodes == NULL)
	{
		msg = "out of memory";
		goto bad;
	}
	p = b + AT_GBDT_HEADER;
	for (uint32_t k = 0; k < ntrees; k++, p += 4)
	{
		m->roots[k] = at_get_u32(p);
		if (k == 0 ? m->roots[k] != 0 : m->roots[k] <= m->roots[k - 1])
		{
			msg = "tree roots are not in increasing order from 0";
			goto bad;
		}
		if (m->roots[k] >= nnodes)
		{
			msg = "a tree root is past the last node";
			goto bad;
		}
	}
	for (uint32_t k = 0; k < ntrees; k++)
	{
		uint32_t	lo = m->roots[k],
					hi = k + 1 < ntrees ? m->roots[k + 1] : nnodes;

		if (hi - lo > (2u << m->params.depth) - 1)
		{
			msg = "a tree has more nodes than its depth allows";
			goto bad;
		}
		for (uint32_t i = lo; i < hi; i++, p += AT_GBDT_NODE_SIZE)
		{
			at_gbdt_node *nd = &m->nodes[i];
			uint32_t	f = at_get_u32(p);

			nd->left = at_get_u32(p + 4);
			nd->right = at_get_u32(p + 8);
			nd->x = get_f64(p + 12);
			nd->missing_left = p[20];
			if (!isfinite(nd->x))
			{
				msg = "a threshold or leaf value is not a finite number";
				goto bad;
			}
			if (f == 0xffffffffu)
			{
				nd->feature = -1;
				if (nd->left != 0 || nd->right != 0 || nd->missing_left != 0)
				{
					msg = "a leaf has children";
					goto bad;
				}
				continue;
			}
			if (f >= (uint32_t) m->nfeatures)
			{
				msg = "a split names a feature past the last";
				goto bad;
			}
			nd->feature = (int32_t) f;
			if (nd->missing_left > 1)
			{
				msg = "a split's missing-value side is not 0 or 1";
				goto bad;
			}
			/* children after their parent, inside its tree: every path ends */
			if (nd->left <= i || nd->left >= hi || nd->right <= i || nd->right >= hi || nd->left == nd->right)
			{
				msg = "a split's children are not later nodes of its tree";
				goto bad;
			}
		}
	}
	return NULL;
bad:
	at_gbdt_free(m, mem, ctx);
	return msg;
}

/* ---- training rows ---- */

void
at_gbdt_rows_init(at_gbdt_rows *r, const at_gbdt_params *p, int32_t nfeatures)
{
	memset(r, 0, sizeof(*r));
	r->params = *p;
	r->nfeatures = nfeatures;
}

static bool
rows_reserve(at_gbdt_rows *r, int64_t need, at_mem_fn mem, void *ctx)
{
	int64_t		cap;
	double	   *x,
			   *y;

	if (need <= r->cap)
		return true;
	cap = r->cap ? r->cap : 1024;
	while (cap < need)
		cap *= 2;
	x = at_mem_grow(mem, ctx, r->x, (size_t) r->n * r->nfeatures * sizeof(double),
					(size_t) cap * r->nfeatures * sizeof(double));
	if (x == NULL)
		return false;
	r->x = x;
	y = at_mem_grow(mem, ctx, r->y, (size_t) r->n * sizeof(double), (size_t) cap * sizeof(double));
	if (y == NULL)
		return false;
	r->y = y;
	r->cap = cap;
	return true;
}

bool
at_gbdt_rows_add(at_gbdt_rows *r, const double *x, double y, at_mem_fn mem, void *ctx)
{
	if (!rows_reserve(r, r->n + 1, mem, ctx))
		return false;
	memcpy(r->x + r->n * r->nfeatures, x, (size_t) r->nfeatures * sizeof(double));
	r->y[r->n++] = y;
	return true;
}

bool
at_gbdt_rows_same(const at_gbdt_rows *a, const at_gbdt_rows *b)
{
	return a->nfeatures == b->nfeatures && a->params.rounds == b->params.rounds &&
		a->params.depth == b->params.depth && a->params.bins == b->params.bins &&
		a->params.min_leaf == b->params.min_leaf && a->params.learning_rate == b->params.learning_rate;
}

bool
at_gbdt_rows_merge(at_gbdt_rows *dst, const at_gbdt_rows *src, at_mem_fn mem, void *ctx)
{
	if (src->n == 0)
		return true;
	if (!rows_reserve(dst, dst->n + src->n, mem, ctx))
		return false;
	memcpy(dst->x + dst->n * dst->nfeatures, src->x, (size_t) src->n * src->nfeatures * sizeof(double));
	memcpy(dst->y + dst->n, src->y, (size_t) src->n * sizeof(double));
	dst->n += src->n;
	return true;
}

int64_t
at_gbdt_rows_max(int32_t nfeatures, size_t limit)
{
	if (limit <= AT_GBDT_ROWS_HEADER)
		return 0;
	return (int64_t) ((limit - AT_GBDT_ROWS_HEADER) / (((size_t) nfeatures + 1) * 8));
}

/*
 * Rows, AT_GBDT_ROWS_HEADER bytes then x (n * nfeatures f64, row by row)
 * and y (n f64):
 *   0 version u8 (1), 1 reserved u8 (0), 2 nfeatures u16, 4 rounds u32,
 *   8 params (16 bytes), 24 n u64.
 */
size_t
at_gbdt_rows_encoded_size(const at_gbdt_rows *r)
{
	return AT_GBDT_ROWS_HEADER + (size_t) r->n * ((size_t) r->nfeatures + 1) * 8;
}

void
at_gbdt_rows_encode(const at_gbdt_rows *r, unsigned char *out)
{
	unsigned char *p = out + AT_GBDT_ROWS_HEADER;

	memset(out, 0, AT_GBDT_ROWS_HEADER);
	out[0] = AT_GBDT_VERSION;
	put_u16(out + 2, (uint32_t) r->nfeatures);
	at_put_u32(out + 4, (uint32_t) r->params.rounds);
	put_params(out + 8, &r->params);
	at_put_u64(out + 24, (uint64_t) r->n);
	for (int64_t i = 0; i < r->n * r->nfeatures; i++, p += 8)
		put_f64(p, r->x[i]);
	for (int64_t i = 0; i < r->n; i++, p += 8)
		put_f64(p, r->y[i]);
}

void
at_gbdt_rows_free(at_gbdt_rows *r, at_mem_fn mem, void *ctx)
{
	if (r->x)
		mem(ctx, r->x, 0);
	if (r->y)
		mem(ctx, r->y, 0);
	r->x = r->y = NULL;
	r->n = r->cap = 0;
}

const char *
at_gbdt_rows_decode(at_gbdt_rows *r, const unsigned char *b, size_t len, at_mem_fn mem, void *ctx)
{
	at_gbdt_params p;
	const char *msg;
	uint64_t	n;
	uint32_t	rounds;
	int32_t		d;
	const unsigned char *q;

	memset(r, 0, sizeof(*r));
	if (len < AT_GBDT_ROWS_HEADER)
		return "value is shorter than the header";
	if (b[0] != AT_GBDT_VERSION)
		return "unsupported version (this version reads version 1)";
	if (b[1] != 0)
		return "reserved bytes are not zero";
	d = (int32_t) get_u16(b + 2);
	if (d < 1 || d > AT_GBDT_MAX_FEATURES)
		return "number of features out of range";
	rounds = at_get_u32(b + 4);
	get_params(b + 8, &p);
	p.rounds = rounds > AT_GBDT_MAX_ROUNDS ? 0 : (int32_t) rounds;
	if ((msg = at_gbdt_check_params(&p)) != NULL)
		return msg;
	n = at_get_u64(b + 24);
	if ((len - AT_GBDT_ROWS_HEADER) % (((size_t) d + 1) * 8) != 0 ||
		n != (len - AT_GBDT_ROWS_HEADER) / (((size_t) d + 1) * 8))
		return "length does not match the number of rows";
	at_gbdt_rows_init(r, &p, d);
	if (n > 0 && !rows_reserve(r, (int64_t) n, mem, ctx))
	{
		at_gbdt_rows_free(r, mem, ctx);
		return "out of memory";
	}
	q = b + AT_GBDT_ROWS_HEADER;
	for (uint64_t i = 0; i < n * (uint64_t) d; i++, q += 8)
	{
		r->x[i] = get_f64(q);
		if (isinf(r->x[i]))
		{
			at_gbdt_rows_free(r, mem, ctx);
			return "a feature is infinite";
		}
	}
	for (uint64_t i = 0; i < n; i++, q += 8)
	{
		r->y[i] = get_f64(q);
		if (!isfinite(r->y[i]))
		{
			at_gbdt_rows_free(r, mem, ctx);
			return "a target is not a finite number";
		}
	}
	r->n = (int64_t) n;
	return NULL;
}

/* ---- text ---- */

const char *
at_gbdt_unhex(const char *s, size_t len, unsigned char **bytes, size_t *blen, at_mem_fn mem, void *ctx, size_t *pos)
{
	unsigned char *b;

	*bytes = NULL;
	*blen = 0;
	*pos = 0;
	if (len < 3 || memcmp(s, "v1:", 3) != 0)
	{
		size_t		k = 1;

		while (k < len && s[k] >= '0' && s[k] <= '9')
			k++;
		if (len > 0 && s[0] == 'v' && k > 1 && k < len && s[k] == ':')
			return "unsupported text version (this version reads v1:)";
		return "the value starts with v1:";
	}
	if ((len - 3) % 2 != 0)
	{
		*pos = len;
		return "odd number of hexadecimal digits";
	}
	for (size_t i = 3; i < len; i++)
		if (at_hex_value(s[i], 1) < 0)
		{
			*pos = i;
			return "not a hexadecimal digit";
		}
	*pos = 3;
	if (len == 3)
		return "value is shorter than the header";
	b = mem(ctx, NULL, (len - 3) / 2);
	if (b == NULL)
		return "out of memory";
	for (size_t i = 0; i < (len - 3) / 2; i++)
		b[i] = (unsigned char) (at_hex_value(s[3 + 2 * i], 1) << 4 | at_hex_value(s[3 + 2 * i + 1], 1));
	*bytes = b;
	*blen = (len - 3) / 2;
	return NULL;
}

void
at_gbdt_hex(const unsigned char *b, size_t n, char *out)
{
	memcpy(out, "v1:", 3);
	at_hex_write(out + 3, b, n);
	out[3 + 2 * n] = '\0';
}

void
at_gbdt_params_default(at_gbdt_params *p)
{
	p->rounds = 100;
	p->depth = 6;
	p->learning_rate = 0.1;
	p->min_leaf = 20;
	p->bins = 64;
}

int
at_gbdt_first_infinite(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (isinf(x[i]))
			return i;
	return -1;
}

at_gbdt_combine_status
at_gbdt_rows_combine(at_gbdt_rows *dst, const at_gbdt_rows *src, int64_t max_rows, at_mem_fn mem, void *ctx)
{
	if (!at_gbdt_rows_same(dst, src))
		return AT_GBDT_COMBINE_OTHER;
	if (dst->n + src->n > max_rows)
		return AT_GBDT_COMBINE_TOO_MANY;
	return at_gbdt_rows_merge(dst, src, mem, ctx) ? AT_GBDT_COMBINED : AT_GBDT_COMBINE_NOMEM;
}
