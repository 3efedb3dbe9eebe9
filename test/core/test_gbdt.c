/*
 * test_gbdt.c: the boosted trees learn a planted rule, beat a per-type
 * median on held-out rows, give the same model for any row order, learn
 * where missing values go, predict a constant target as that constant,
 * survive every allocation failing, and their decoders refuse every
 * damaged form; the defaults, the features' check and combining rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbdt.h"
#include "rng.h"
#include "tap.h"

enum
{
	NF = 4
};

/* Row i of the planted rule: log run = user effect + type effect + noise; feature 3 is noise. */
static double
planted_row(at_rng *r, double *x)
{
	int			user = (int) (at_rng_uniform(r) * 40),
				type = (int) (at_rng_uniform(r) * 3);
	static const double type_effect[3] = {3.4, 6.4, 9.1};

	x[0] = user;
	x[1] = type;
	x[2] = floor(at_rng_uniform(r) * 8);	/* GPUs: no effect */
	x[3] = at_rng_uniform(r);
	return type_effect[type] + ((user * 7) % 11) * 0.35 + 0.1 * at_rng_normal(r);
}

static at_gbdt_params
params(int rounds, int depth)
{
	at_gbdt_params p;

	p.rounds = rounds;
	p.depth = depth;
	p.learning_rate = 0.3;
	p.min_leaf = 5;
	p.bins = 64;
	return p;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static void
test_planted(void)
{
	enum
	{
		N = 6000, TEST = 2000
	};
	at_gbdt_params p = params(60, 4);
	at_gbdt_rows rows;
	at_gbdt		m;
	at_rng		r;
	static double tx[TEST][NF],
				ty[TEST],
				per_type[3][N];
	int			nt[3] = {0, 0, 0};
	double		x[NF],
				med[3];
	int			within_model = 0,
				within_median = 0,
				rc;

	at_rng_seed(&r, 7);
	at_gbdt_rows_init(&rows, &p, NF);
	for (int i = 0; i < N; i++)
	{
		double		y = planted_row(&r, x);

		at_gbdt_rows_add(&rows, x, y, tap_mem, NULL);
		per_type[(int) x[1]][nt[(int) x[1]]++] = y;
	}
	for (int t = 0; t < 3; t++)
	{
		qsort(per_type[t], nt[t], sizeof(double), cmp_double);
		med[t] = per_type[t][nt[t] / 2];
	}
	rc = at_gbdt_train(&rows, tap_mem, NULL, NULL, NULL, &m);
	CHECK(rc == 0, "gbdt: trains on 6,000 planted rows");
	CHECK(m.ntrees == 60 && m.nfeatures == NF && m.rows == N, "gbdt: 60 trees of 4 features, 6,000 rows");
	CHECK(m.train_rmse < 0.2, "gbdt: training error %.3f below 0.2 (noise 0.1)", m.train_rmse);
	for (int i = 0; i < TEST; i++)
		ty[i] = planted_row(&r, tx[i]);
	for (int i = 0; i < TEST; i++)
	{
		within_model += fabs(at_gbdt_predict(&m, tx[i]) - ty[i]) <= log(2);
		within_median += fabs(med[(int) tx[i][1]] - ty[i]) <= log(2);
	}
	CHECK(within_model > 0.95 * TEST, "gbdt: %d of %d held-out rows within 2x", within_model, TEST);
	CHECK(within_model - within_median > 0.10 * TEST,
		  "gbdt: beats the per-type median by more than 10 points (%d against %d)", within_model, within_median);
	at_gbdt_free(&m, tap_mem, NULL);
	at_gbdt_rows_free(&rows, tap_mem, NULL);
}

/* The same rows in two orders give byte-identical models. */
static void
test_order(void)
{
	enum
	{
		N = 3000
	};
	at_gbdt_params p = params(20, 5);
	at_gbdt_rows a,
				b;
	at_gbdt		ma,
				mb;
	at_rng		r;
	static double xs[N][NF],
				ys[N];
	unsigned char *ea,
			   *eb;
	bool		same;

	at_rng_seed(&r, 11);
	for (int i = 0; i < N; i++)
	{
		ys[i] = planted_row(&r, xs[i]);
		if (i % 13 == 0)
			xs[i][2] = NAN;
	}
	at_gbdt_rows_init(&a, &p, NF);
	at_gbdt_rows_init(&b, &p, NF);
	for (int i = 0; i < N; i++)
		at_gbdt_rows_add(&a, xs[i], ys[i], tap_mem, NULL);
	/* b: a stride permutation, as another scan order would give */
	for (int i = 0; i < N; i++)
	{
		int			k = (int) (((long) i * 1237) % N);

		at_gbdt_rows_add(&b, xs[k], ys[k], tap_mem, NULL);
	}
	at_gbdt_train(&a, tap_mem, NULL, NULL, NULL, &ma);
	at_gbdt_train(&b, tap_mem, NULL, NULL, NULL, &mb);
	ea = malloc(at_gbdt_encoded_size(&ma));
	eb = malloc(at_gbdt_encoded_size(&mb));
	at_gbdt_encode(&ma, ea);
	at_gbdt_encode(&mb, eb);
	same = at_gbdt_encoded_size(&ma) == at_gbdt_encoded_size(&mb) &&
		memcmp(ea, eb, at_gbdt_encoded_size(&ma)) == 0;
	CHECK(same, "gbdt: rows in another order give the same model, byte for byte");
	free(ea);
	free(eb);
	at_gbdt_free(&ma, tap_mem, NULL);
	at_gbdt_free(&mb, tap_mem, NULL);
	at_gbdt_rows_free(&a, tap_mem, NULL);
	at_gbdt_rows_free(&b, tap_mem, NULL);
}

static void
count_tick(void *arg)
{
	(*(int *) arg)++;
}

/* Missing values carry the signal: they must go to their own side. */
static void
test_missing_and_constant(void)
{
	at_gbdt_params p = params(30, 2);
	at_gbdt_rows rows;
	at_gbdt		m;
	double		x[1],
				lo[1] = {1},
				miss[1] = {NAN},
				hi[1] = {9};
	bool		leaves_only = true;
	int			ticks = 0;

	p.min_leaf = 1;
	at_gbdt_rows_init(&rows, &p, 1);
	for (int i = 0; i < 300; i++)
	{
		x[0] = i % 3 == 0 ? NAN : (i % 3 == 1 ? 1 : 9);
		at_gbdt_rows_add(&rows, x, i % 3 == 0 ? 5.0 : (i % 3 == 1 ? 1.0 : 2.0), tap_mem, NULL);
	}
	at_gbdt_train(&rows, tap_mem, NULL, NULL, NULL, &m);
	CHECK(fabs(at_gbdt_predict(&m, lo) - 1) < 0.05 && fabs(at_gbdt_predict(&m, hi) - 2) < 0.05 &&
		  fabs(at_gbdt_predict(&m, miss) - 5) < 0.05,
		  "gbdt: a missing feature gets its own value (%.3f %.3f %.3f)",
		  at_gbdt_predict(&m, lo), at_gbdt_predict(&m, hi), at_gbdt_predict(&m, miss));
	at_gbdt_free(&m, tap_mem, NULL);
	at_gbdt_rows_free(&rows, tap_mem, NULL);

	at_gbdt_rows_init(&rows, &p, 1);
	for (int i = 0; i < 100; i++)
	{
		x[0] = i;
		at_gbdt_rows_add(&rows, x, 4.25, tap_mem, NULL);
	}
	at_gbdt_train(&rows, tap_mem, NULL, count_tick, &ticks, &m);
	CHECK(ticks == 30, "gbdt: the tick runs before each of the 30 trees (%d)", ticks);
	for (uint32_t i = 0; i < m.nnodes; i++)
		leaves_only &= m.nodes[i].feature < 0 && m.nodes[i].x == 0;
	CHECK(leaves_only && m.nnodes == 30 && at_gbdt_predict(&m, lo) == 4.25 && m.train_rmse == 0,
		  "gbdt: a constant target gives 30 single-leaf trees predicting it");
	at_gbdt_free(&m, tap_mem, NULL);
	at_gbdt_rows_free(&rows, tap_mem, NULL);

	/* one row */
	at_gbdt_rows_init(&rows, &p, 1);
	at_gbdt_rows_add(&rows, lo, -3, tap_mem, NULL);
	leaves_only = at_gbdt_train(&rows, tap_mem, NULL, NULL, NULL, &m) == 0 && at_gbdt_predict(&m, hi) == -3;
	CHECK(leaves_only, "gbdt: one row is a model predicting its target");
	at_gbdt_free(&m, tap_mem, NULL);
	at_gbdt_rows_free(&rows, tap_mem, NULL);
}

/* Every allocation failing in turn: -2, nothing leaked. */
static void
test_oom(void)
{
	at_gbdt_params p = params(3, 3);
	bool		ok = true;
	int			k;

	for (k = 1; k < 200; k++)
	{
		tap_counted c = {0, k, 0};
		at_gbdt_rows rows;
		at_gbdt		m;
		at_rng		r;
		double		x[NF];
		bool		added = true;
		int			rc;

		at_rng_seed(&r, 3);
		at_gbdt_rows_init(&rows, &p, NF);
		for (int i = 0; i < 500 && added; i++)
		{
			double		y = planted_row(&r, x);

			added = at_gbdt_rows_add(&rows, x, y, tap_counted_mem, &c);
		}
		rc = added ? at_gbdt_train(&rows, tap_counted_mem, &c, NULL, NULL, &m) : -2;
		if (rc == 0)
			at_gbdt_free(&m, tap_counted_mem, &c);
		at_gbdt_rows_free(&rows, tap_counted_mem, &c);
		ok &= c.live == 0;
		if (rc == 0 && c.calls < k)
			break;				/* every allocation has had its turn to fail */
	}
	CHECK(ok && k < 200, "gbdt: every allocation failing in turn (%d) leaks nothing", k);
}

static void
test_decode(void)
{
	at_gbdt_params p = params(4, 2);
	at_gbdt_rows rows,
				back;
	at_gbdt		m,
				d;
	at_rng		r;
	double		x[NF];
	size_t		n,
				rn;
	unsigned char *e,
			   *bad,
			   *re;
	bool		prefixes = true,
				same = true;
	char	   *txt;
	unsigned char *tb;
	size_t		tlen,
				pos;

	at_rng_seed(&r, 5);
	at_gbdt_rows_init(&rows, &p, NF);
	for (int i = 0; i < 400; i++)
	{
		double		y = planted_row(&r, x);

		at_gbdt_rows_add(&rows, x, y, tap_mem, NULL);
	}
	/* the rows' own form first (training reorders them) */
	rn = at_gbdt_rows_encoded_size(&rows);
	re = malloc(rn);
	at_gbdt_rows_encode(&rows, re);
	same = at_gbdt_rows_decode(&back, re, rn, tap_mem, NULL) == NULL && back.n == 400 &&
		memcmp(back.x, rows.x, 400 * NF * sizeof(double)) == 0 && memcmp(back.y, rows.y, 400 * sizeof(double)) == 0;
	CHECK(same, "gbdt rows: decode(encode) gives the rows back");
	same = at_gbdt_rows_merge(&back, &rows, tap_mem, NULL) && back.n == 800 &&
		memcmp(back.y + 400, rows.y, 400 * sizeof(double)) == 0;
	CHECK(same, "gbdt rows: merge appends");
	at_gbdt_rows_free(&back, tap_mem, NULL);
	re[0] = 2;
	CHECK(at_gbdt_rows_decode(&back, re, rn, tap_mem, NULL) != NULL, "gbdt rows: version 2 refused");
	re[0] = 1;
	CHECK(at_gbdt_rows_decode(&back, re, rn - 8, tap_mem, NULL) != NULL, "gbdt rows: a short value refused");
	memset(re + rn - 8, 0xff, 8);	/* a NaN target */
	CHECK(at_gbdt_rows_decode(&back, re, rn, tap_mem, NULL) != NULL, "gbdt rows: a NaN target refused");
	free(re);

	at_gbdt_train(&rows, tap_mem, NULL, NULL, NULL, &m);
	n = at_gbdt_encoded_size(&m);
	e = malloc(n);
	bad = malloc(n);
	at_gbdt_encode(&m, e);
	same = at_gbdt_decode(&d, e, n, tap_mem, NULL) == NULL;
	CHECK(same, "gbdt: a model's encoding decodes");
	for (int i = 0; i < 50; i++)
	{
		planted_row(&r, x);
		same &= at_gbdt_predict(&d, x) == at_gbdt_predict(&m, x);
	}
	CHECK(same, "gbdt: the decoded model predicts the same");
	at_gbdt_free(&d, tap_mem, NULL);
	for (size_t k = 0; k < n; k++)
		prefixes &= at_gbdt_decode(&d, e, k, tap_mem, NULL) != NULL && d.nodes == NULL;
	CHECK(prefixes, "gbdt: every proper prefix of a model is refused");

	/* text form */
	txt = malloc(3 + 2 * n + 1);
	at_gbdt_hex(e, n, txt);
	same = at_gbdt_unhex(txt, strlen(txt), &tb, &tlen, tap_mem, NULL, &pos) == NULL && tlen == n &&
		memcmp(tb, e, n) == 0;
	CHECK(same, "gbdt: v1:<hex> gives the bytes back");
	free(tb);
	CHECK(at_gbdt_unhex("v2:00", 5, &tb, &tlen, tap_mem, NULL, &pos) != NULL &&
		  strstr(at_gbdt_unhex("v2:00", 5, &tb, &tlen, tap_mem, NULL, &pos), "version") != NULL,
		  "gbdt: a later text version is named as such");
	CHECK(at_gbdt_unhex("v1:0g", 5, &tb, &tlen, tap_mem, NULL, &pos) != NULL && pos == 4,
		  "gbdt: a bad digit is refused at its place");
	free(txt);

	/* damaged fields */
#define DAMAGED(what, off, val) do { \
		memcpy(bad, e, n); bad[off] = (unsigned char) (val); \
		CHECK(at_gbdt_decode(&d, bad, n, tap_mem, NULL) != NULL, "gbdt: %s refused", what); \
	} while (0)
	DAMAGED("version 2", 0, 2);
	DAMAGED("a reserved byte", 1, 1);
	DAMAGED("zero features", 3, 0);
	DAMAGED("depth 0", 13, 0);
	DAMAGED("bins 255", 15, 255);
	{
		size_t		node0 = AT_GBDT_HEADER + 4 * (size_t) m.ntrees;

		/* the first tree's root is a split (the planted rule has signal) */
		CHECK(m.nodes[0].feature >= 0, "gbdt: the first tree splits");
		DAMAGED("a split past the last feature", node0 + 3, NF);
		DAMAGED("a child before its parent", node0 + 7, 0);
		DAMAGED("a child in another tree", node0 + 11, 0xff);
		DAMAGED("a missing side of 2", node0 + 20, 2);
		memcpy(bad, e, n);
		memset(bad + node0 + 12, 0xff, 8);
		CHECK(at_gbdt_decode(&d, bad, n, tap_mem, NULL) != NULL, "gbdt: a NaN threshold refused");
		memcpy(bad, e, n);
		bad[AT_GBDT_HEADER + 7] = 0;	/* the second root at 0 */
		CHECK(at_gbdt_decode(&d, bad, n, tap_mem, NULL) != NULL, "gbdt: roots out of order refused");
	}
#undef DAMAGED
	free(e);
	free(bad);
	at_gbdt_free(&m, tap_mem, NULL);
	at_gbdt_rows_free(&rows, tap_mem, NULL);
}

/* gbdt_train's defaults, the infinite features it refuses, and states combined or refused. */
static void
test_driver(void)
{
	at_gbdt_params p,
				q;
	at_gbdt_rows a,
				b;
	const double fine[3] = {1, NAN, -2},
				inf[4] = {1, NAN, -INFINITY, INFINITY};
	double		x[NF] = {1, 2, 3, 4};
	tap_counted c = {0, 0, 0};
	bool		ok;

	at_gbdt_params_default(&p);
	CHECK(p.rounds == 100 && p.depth == 6 && p.learning_rate == 0.1 && p.min_leaf == 20 && p.bins == 64 &&
		  at_gbdt_check_params(&p) == NULL, "gbdt: the defaults, 100 rounds of depth 6 at 0.1, are valid");
	CHECK(at_gbdt_first_infinite(fine, 3) == -1 && at_gbdt_first_infinite(inf, 4) == 2 &&
		  at_gbdt_first_infinite(inf + 3, 1) == 0 && at_gbdt_first_infinite(inf, 0) == -1,
		  "gbdt: the first infinite feature found, NaN is missing");

	at_gbdt_rows_init(&a, &p, NF);
	at_gbdt_rows_init(&b, &p, NF);
	for (int i = 0; i < 3; i++)
		at_gbdt_rows_add(&a, x, i, tap_mem, NULL);
	at_gbdt_rows_add(&b, x, 9, tap_mem, NULL);
	ok = at_gbdt_rows_combine(&a, &b, 4, tap_mem, NULL) == AT_GBDT_COMBINED && a.n == 4 && a.y[3] == 9;
	ok = ok && at_gbdt_rows_combine(&a, &b, 4, tap_mem, NULL) == AT_GBDT_COMBINE_TOO_MANY && a.n == 4;
	CHECK(ok, "gbdt: rows combined up to the limit, refused past it");
	at_gbdt_rows_free(&b, tap_mem, NULL);
	q = p;
	q.depth = 5;
	at_gbdt_rows_init(&b, &q, NF);
	ok = at_gbdt_rows_combine(&a, &b, 100, tap_mem, NULL) == AT_GBDT_COMBINE_OTHER;
	at_gbdt_rows_init(&b, &p, NF - 1);
	ok = ok && at_gbdt_rows_combine(&a, &b, 100, tap_mem, NULL) == AT_GBDT_COMBINE_OTHER && a.n == 4;
	CHECK(ok, "gbdt: rows of other parameters or features refused");
	at_gbdt_rows_init(&b, &p, NF);
	c.fail_at = 1;
	ok = at_gbdt_rows_combine(&b, &a, 100, tap_counted_mem, &c) == AT_GBDT_COMBINE_NOMEM && b.n == 0 && c.live == 0;
	CHECK(ok, "gbdt: rows combined out of memory: nothing kept");
	at_gbdt_rows_free(&a, tap_mem, NULL);
}

void
test_gbdt(void)
{
	test_driver();
	test_planted();
	test_order();
	test_missing_and_constant();
	test_oom();
	test_decode();
}
