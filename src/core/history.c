/*
 * history.c: the users'-history duration predictor.  See history.h.
 *
 * Jobs that have not ended yet wait in a min-heap on their end; a
 * prediction at t first folds every job ended by t into its five groups.
 * A group keeps the logs of its last `window` run times in a ring and
 * their sum, so a prediction is exp(sum / n).  Groups are found through
 * one open-addressing table keyed by (level, user, type, GPUs).
 */
#include <math.h>
#include <string.h>

#include "history.h"

typedef struct ended
{
	int64_t		end;
	at_history_key key;
	double		log_run;
} ended;

#define HEAP_PREFIX ended
#define HEAP_ELEM ended
#define HEAP_LESS(a, b) ((a)->end < (b)->end)
#include "heap.h"

typedef struct group
{
	at_history_key key;
	int32_t		level;
	int32_t		n;				/* runs in the ring, <= window */
	int32_t		pos;			/* the oldest */
	double		sum;
	int64_t		ring;			/* offset of its window in logs */
} group;

struct at_history
{
	at_mem_fn	mem;
	void	   *ctx;
	int			window;
	ended_heap	pending;
	group	   *groups;
	int64_t		ngroups;
	int64_t		groups_cap;
	double	   *logs;			/* window entries per group */
	int32_t    *table;			/* group index + 1 */
	int64_t		table_size;		/* a power of two, over twice ngroups */
};

uint64_t
at_history_hash(const char *s, size_t len)
{
	uint64_t	h = UINT64_C(1469598103934665603);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char) s[i]) * UINT64_C(1099511628211);
	return h ? h : 1;
}

/* The key of level l: the parts that level ignores zeroed. */
static at_history_key
level_key(const at_history_key *k, int l)
{
	at_history_key g = {0, 0, -1};

	if (l <= 2)
		g.user = k->user;
	if (l <= 1 || l == 3)
		g.type = k->type;
	if (l == 0)
		g.gpus = k->gpus;
	return g;
}

static uint64_t
key_hash(const at_history_key *k, int l)
{
	uint64_t	h = k->user * UINT64_C(0x9e3779b97f4a7c15) ^ k->type * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		((uint64_t) (uint32_t) k->gpus << 8 | (uint64_t) l) * UINT64_C(0x165667b19e3779f9);

	return h ^ (h >> 31);
}

static bool
key_eq(const group *g, const at_history_key *k, int l)
{
	return g->level == l && g->key.user == k->user && g->key.type == k->type && g->key.gpus == k->gpus;
}

/* The group of (k, l), or -1; with create, a new empty one (-2: out of memory). */
static int64_t
find(at_history *h, const at_history_key *k, int l, bool create)
{
	uint64_t	m = (uint64_t) h->table_size - 1,
				i = key_hash(k, l) & m;

	for (;; i = (i + 1) & m)
	{
		int32_t		e = h->table[i];

		if (e == 0)
			break;
		if (key_eq(&h->groups[e - 1], k, l))
			return e - 1;
	}
	if (!create)
		return -1;
	if (h->ngroups == INT32_MAX - 1)
		return -2;
	if (h->ngroups == h->groups_cap)
	{
		int64_t		cap = h->groups_cap * 2;
		group	   *g = at_mem_grow(h->mem, h->ctx, h->groups, sizeof(group) * (size_t) h->ngroups,
									sizeof(group) * (size_t) cap);
		double	   *lg;

		if (g == NULL)
			return -2;
		h->groups = g;
		lg = at_mem_grow(h->mem, h->ctx, h->logs, sizeof(double) * (size_t) (h->ngroups * h->window),
						 sizeof(double) * (size_t) (cap * h->window));
		if (lg == NULL)
			return -2;
		h->logs = lg;
		h->groups_cap = cap;
	}
	if (2 * (h->ngroups + 1) > h->table_size)
	{
		int64_t		size = h->table_size * 2;
		int32_t    *t = h->mem(h->ctx, NULL, sizeof(int32_t) * (size_t) size);

		if (t == NULL)
			return -2;
		for (int64_t gi = 0; gi < h->ngroups; gi++)
		{
			uint64_t	j = key_hash(&h->groups[gi].key, h->groups[gi].level) & (uint64_t) (size - 1);

			while (t[j] != 0)
				j = (j + 1) & (uint64_t) (size - 1);
			t[j] = (int32_t) gi + 1;
		}
		h->mem(h->ctx, h->table, 0);
		h->table = t;
		h->table_size = size;
		m = (uint64_t) size - 1;
		for (i = key_hash(k, l) & m; h->table[i] != 0; i = (i + 1) & m)
			;
	}
	memset(&h->groups[h->ngroups], 0, sizeof(group));
	h->groups[h->ngroups].key = *k;
	h->groups[h->ngroups].level = l;
	h->groups[h->ngroups].ring = h->ngroups * h->window;
	h->table[i] = (int32_t) h->ngroups + 1;
	return h->ngroups++;
}

int
at_history_create(at_mem_fn mem, void *ctx, int window, at_history **out)
{
	at_history *h;

	*out = NULL;
	if (window < 1 || window > AT_HISTORY_MAX_WINDOW)
		return -1;
	h = mem(ctx, NULL, sizeof(at_history));
	if (h == NULL)
		return -2;
	h->mem = mem;
	h->ctx = ctx;
	h->window = window;
	h->groups_cap = 64;
	h->table_size = 256;
	h->groups = mem(ctx, NULL, sizeof(group) * 64);
	h->logs = mem(ctx, NULL, sizeof(double) * 64 * (size_t) window);
	h->table = mem(ctx, NULL, sizeof(int32_t) * 256);
	if (h->groups == NULL || h->logs == NULL || h->table == NULL)
	{
		at_history_destroy(h);
		return -2;
	}
	*out = h;
	return 0;
}

void
at_history_destroy(at_history *h)
{
	if (h == NULL)
		return;
	ended_heap_free(h->mem, h->ctx, &h->pending);
	if (h->groups)
		h->mem(h->ctx, h->groups, 0);
	if (h->logs)
		h->mem(h->ctx, h->logs, 0);
	if (h->table)
		h->mem(h->ctx, h->table, 0);
	h->mem(h->ctx, h, 0);
}

bool
at_history_ended(at_history *h, const at_history_key *k, int64_t end, double run)
{
	ended		e;

	e.end = end;
	e.key = *k;
	/* run times under a second count as one: log stays finite */
	e.log_run = log(run >= 1 ? run : 1);
	return ended_heap_push(h->mem, h->ctx, &h->pending, e);
}

/* Folds one ended job into its five groups. */
static bool
fold(at_history *h, const ended *e)
{
	for (int l = 0; l < AT_HISTORY_LEVELS; l++)
	{
		at_history_key k = level_key(&e->key, l);
		int64_t		gi = find(h, &k, l, true);
		group	   *g;
		double	   *ring;

		if (gi < 0)
			return false;
		g = &h->groups[gi];
		ring = h->logs + g->ring;
		if (g->n < h->window)
		{
			ring[(g->pos + g->n) % h->window] = e->log_run;
			g->n++;
		}
		else
		{
			g->sum -= ring[g->pos];
			ring[g->pos] = e->log_run;
			g->pos = (g->pos + 1) % h->window;
		}
		g->sum += e->log_run;
		/* recompute now and then, so rounding does not drift */
		if (g->pos == 0 && g->n == h->window)
		{
			g->sum = 0;
			for (int i = 0; i < g->n; i++)
				g->sum += ring[i];
		}
	}
	return true;
}

/* Folds every job ended by t. */
static bool
catch_up(at_history *h, int64_t t)
{
	while (h->pending.n > 0 && h->pending.h[0].end <= t)
	{
		ended		e = ended_heap_pop(&h->pending);

		if (!fold(h, &e))
			return false;
	}
	return true;
}

int
at_history_predict(at_history *h, const at_history_key *k, int64_t t, double *pred)
{
	if (!catch_up(h, t))
		return -2;
	for (int l = 0; l < AT_HISTORY_LEVELS; l++)
	{
		at_history_key lk = level_key(k, l);
		int64_t		gi = find(h, &lk, l, false);

		if (gi >= 0 && h->groups[gi].n > 0)
		{
			*pred = exp(h->groups[gi].sum / h->groups[gi].n);
			return l;
		}
	}
	return -1;
}

int
at_history_levels(at_history *h, const at_history_key *k, int64_t t,
				  double mean_log[AT_HISTORY_LEVELS], int32_t n[AT_HISTORY_LEVELS])
{
	if (!catch_up(h, t))
		return -2;
	for (int l = 0; l < AT_HISTORY_LEVELS; l++)
	{
		at_history_key lk = level_key(k, l);
		int64_t		gi = find(h, &lk, l, false);

		n[l] = gi >= 0 ? h->groups[gi].n : 0;
		mean_log[l] = n[l] > 0 ? h->groups[gi].sum / n[l] : NAN;
	}
	return 0;
}

int
at_history_features(at_history *h, const at_history_key *k, int64_t t, const double other[4],
					double f[AT_HISTORY_FEATURES])
{
	double		ml[AT_HISTORY_LEVELS];
	int32_t		n[AT_HISTORY_LEVELS];

	if (at_history_levels(h, k, t, ml, n) != 0)
		return -2;
	f[0] = (double) k->gpus;
	for (int c = 0; c < 4; c++)
		f[1 + c] = other[c];
	for (int l = 0; l < AT_HISTORY_LEVELS; l++)
		f[5 + l] = ml[l];
	for (int l = 0; l < AT_HISTORY_LEVELS - 1; l++)
		f[5 + AT_HISTORY_LEVELS + l] = (double) n[l];
	return 0;
}
