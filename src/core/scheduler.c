/*
 * scheduler.c: the cluster scheduler of scheduler.h.
 *
 * Pending jobs live in one ring per priority class, in key order and, for
 * equal keys, submit order (a job of a key lower than the last one's is
 * inserted in place; with one key, as in FCFS, every job is appended); a
 * job that starts or leaves from the middle is left as a dead entry (its
 * slot changed generation) and skipped, and a ring is compacted when most
 * of it is dead.  Running jobs are a min-heap on end time, patience deadlines
 * another (lazy: a deadline whose job has started is dropped when it comes
 * up).  Free GPUs are counted per node, and nodes are kept in buckets by
 * free count, so "does it fit" and best-fit placement cost O(gpus_per_node).
 *
 * The reserved start of a blocked head (EASY backfill) is found by walking
 * the running jobs in end order (a second heap over the first one's
 * indices), giving their GPUs back to their nodes, until the head fits: a
 * gang counts whole free nodes, so small jobs scattered over the nodes do
 * not make the reservation slip.
 */
#include <string.h>

#include "scheduler.h"

#define LIMIT_TIME	((int64_t) 1 << 50)	/* submit, in [0, LIMIT_TIME] (start -1 means never) */
#define LIMIT_SPAN	((int64_t) 1 << 40)	/* hold, patience: 34,000 years */

enum
{
	SLOT_FREE, SLOT_PENDING, SLOT_RUNNING
};

typedef struct slot
{
	at_sched_job job;
	int32_t    *node_list;		/* nodes held (multi-node jobs), else NULL */
	int32_t		one_node;		/* the node of a single-node job */
	uint32_t	gen;
	int32_t		next_free;
	uint8_t		state;
} slot;

typedef struct ref
{
	int64_t		t;				/* end, deadline, or in rings the job's key */
	int32_t		slot;
	uint32_t	gen;
} ref;

typedef struct ring
{
	ref		   *r;
	int64_t		head;			/* index of the first entry */
	int64_t		n;				/* entries, live or dead */
	int64_t		cap;
	int64_t		live;
} ring;

/* a decision not yet taken, with a copy of a multi-node job's nodes */
typedef struct out_entry
{
	at_sched_job job;
	int32_t    *nodes;			/* job.nodes entries if job.nodes > 1, else NULL */
} out_entry;

#define HEAP_PREFIX ref
#define HEAP_ELEM ref
#define HEAP_LESS(a, b) ((a)->t < (b)->t)
#include "heap.h"

struct at_sched
{
	at_mem_fn	mem;
	void	   *ctx;
	at_sched_config cfg;
	int64_t		events;			/* instants handled, for cfg.tick */
	int64_t		now;
	bool		finished;
	/* slots */
	slot	   *slots;
	int32_t		nslots;
	int32_t		free_slot;		/* -1: none */
	/* queues */
	ring		pending[AT_SCHED_PRIORITIES];
	ref_heap	running;
	ref_heap	deadlines;
	ref_heap	scratch;		/* indices into running, for the reservation walk */
	/* decisions not yet taken */
	out_entry  *out;
	int64_t		out_head;
	int64_t		out_n;
	int64_t		out_cap;
	int32_t    *taken_nodes;	/* the nodes of the job last taken (owned), or NULL */
	int32_t		taken_node;		/* ... of a single-node one */
	int32_t		taken_count;
	/* nodes, in two pools: 0 reserved, 1 shared */
	int32_t    *free;			/* free GPUs per node */
	int32_t    *pos;			/* a node's index in its bucket */
	int32_t    *bucket;			/* 2 x (gpus_per_node + 1) x nodes: nodes by pool and free count */
	int32_t    *bucket_n;		/* 2 x (gpus_per_node + 1) */
	int64_t		pool_free[2];
	int64_t		class_used[AT_SCHED_PRIORITIES];
	int32_t    *group_running;	/* 65536 counts, if group_limit */
	int64_t		free_total;
	int32_t    *shadow_free;	/* free GPUs per node in the reservation walk */
	int64_t		capacity;
};

static void *
grow(at_sched *s, void *old, size_t old_size, size_t new_size)
{
	return at_mem_grow(s->mem, s->ctx, old, old_size, new_size);
}

/* ---- heaps of refs on t (heap.h) ---- */

static bool
heap_push(at_sched *s, ref_heap *h, ref x)
{
	return ref_heap_push(s->mem, s->ctx, h, x);
}

#define heap_pop ref_heap_pop

/* ---- nodes ---- */

#define POOL(s, node) ((node) < (s)->cfg.reserved_nodes ? 0 : 1)
#define BUCKET_N(s, pool, c) ((s)->bucket_n[(pool) * ((s)->cfg.gpus_per_node + 1) + (c)])
#define BUCKET(s, pool, c) (&(s)->bucket[((int64_t) (pool) * ((s)->cfg.gpus_per_node + 1) + (c)) * (s)->cfg.nodes])

static void
node_move(at_sched *s, int32_t node, int32_t new_free)
{
	int			pool = POOL(s, node);
	int32_t		old = s->free[node];
	int32_t    *from = BUCKET(s, pool, old);
	int32_t    *to = BUCKET(s, pool, new_free);
	int32_t		last;

	/* out of the old bucket: the last node takes its place */
	last = from[BUCKET_N(s, pool, old) - 1];
	from[s->pos[node]] = last;
	s->pos[last] = s->pos[node];
	BUCKET_N(s, pool, old)--;
	/* into the new one */
	s->pos[node] = BUCKET_N(s, pool, new_free);
	to[BUCKET_N(s, pool, new_free)++] = node;
	s->free_total += new_free - old;
	s->pool_free[pool] += new_free - old;
	s->free[node] = new_free;
}

/* The pools a job may use: reserved (0) only from reserved_priority up. */
static int
first_pool(const at_sched *s, int32_t priority)
{
	return priority >= s->cfg.reserved_priority ? 0 : 1;
}

static int32_t
nodes_needed(const at_sched *s, int32_t gpus)
{
	return (gpus + s->cfg.gpus_per_node - 1) / s->cfg.gpus_per_node;
}

static bool
fits(const at_sched *s, int32_t gpus, int32_t priority)
{
	int32_t		g = s->cfg.gpus_per_node;
	int			p0 = first_pool(s, priority);
	int64_t		free = 0,
				whole = 0;

	for (int pool = p0; pool < 2; pool++)
		free += s->pool_free[pool];
	if (gpus > free)
		return false;
	if (s->cfg.class_limit[priority] > 0 && s->class_used[priority] + gpus > s->cfg.class_limit[priority])
		return false;
	for (int pool = p0; pool < 2; pool++)
	{
		if (gpus <= g)
		{
			for (int32_t c = gpus; c <= g; c++)
				if (BUCKET_N(s, pool, c) > 0)
					return true;
		}
		else
			whole += BUCKET_N(s, pool, g);
	}
	return gpus > g && whole >= nodes_needed(s, gpus);
}

/* A job whose group runs its limit waits without blocking the others. */
static bool
held_back(const at_sched *s, const at_sched_job *j)
{
	return s->group_running && j->group >= 0 && s->group_running[j->group] >= s->cfg.group_limit;
}

/* ---- slots ---- */

static int32_t
slot_new(at_sched *s)
{
	int32_t		i;

	if (s->free_slot < 0)
	{
		int32_t		n;
		slot	   *p;

		if (s->nslots > INT32_MAX / 2)
			return -1;
		n = s->nslots ? s->nslots * 2 : 256;
		p = grow(s, s->slots, sizeof(slot) * (size_t) s->nslots, sizeof(slot) * (size_t) n);
		if (p == NULL)
			return -1;
		s->slots = p;
		for (i = n - 1; i >= s->nslots; i--)
		{
			memset(&p[i], 0, sizeof(slot));
			p[i].next_free = s->free_slot;
			s->free_slot = i;
		}
		s->nslots = n;
	}
	i = s->free_slot;
	s->free_slot = s->slots[i].next_free;
	return i;
}

static void
slot_release(at_sched *s, int32_t i)
{
	slot	   *sl = &s->slots[i];

	if (sl->node_list != NULL)
		s->mem(s->ctx, sl->node_list, 0);
	sl->node_list = NULL;
	sl->state = SLOT_FREE;
	sl->gen++;
	sl->next_free = s->free_slot;
	s->free_slot = i;
}

static bool
live(const at_sched *s, ref r, int state)
{
	return s->slots[r.slot].gen == r.gen && s->slots[r.slot].state == state;
}

/* ---- decisions ---- */

static bool
decide(at_sched *s, const at_sched_job *j, const int32_t *nodes)
{
	out_entry	e;

	if (s->out_n == s->out_cap)
	{
		int64_t		cap = s->out_cap ? s->out_cap * 2 : 64;
		out_entry  *p = s->mem(s->ctx, NULL, sizeof(out_entry) * (size_t) cap);

		if (p == NULL)
			return false;
		for (int64_t k = 0; k < s->out_n; k++)
			p[k] = s->out[(s->out_head + k) % s->out_cap];
		if (s->out != NULL)
			s->mem(s->ctx, s->out, 0);
		s->out = p;
		s->out_head = 0;
		s->out_cap = cap;
	}
	e.job = *j;
	e.nodes = NULL;
	if (nodes != NULL && j->nodes > 1)
	{
		/* the slot's list goes when the job ends, maybe before it is taken */
		e.nodes = s->mem(s->ctx, NULL, sizeof(int32_t) * (size_t) j->nodes);
		if (e.nodes == NULL)
			return false;
		memcpy(e.nodes, nodes, sizeof(int32_t) * (size_t) j->nodes);
	}
	s->out[(s->out_head + s->out_n++) % s->out_cap] = e;
	return true;
}

/* ---- pending rings ---- */

static bool
ring_push(at_sched *s, ring *q, ref x)
{
	int64_t		pos;

	if (q->n == q->cap)
	{
		int64_t		cap = q->cap ? q->cap * 2 : 64;
		ref		   *p = s->mem(s->ctx, NULL, sizeof(ref) * (size_t) cap);

		if (p == NULL)
			return false;
		for (int64_t k = 0; k < q->n; k++)
			p[k] = q->r[(q->head + k) % q->cap];
		if (q->r != NULL)
			s->mem(s->ctx, q->r, 0);
		q->r = p;
		q->head = 0;
		q->cap = cap;
	}
	pos = q->n;
	if (q->n > 0 && q->r[(q->head + q->n - 1) % q->cap].t > x.t)
	{
		/* after the last entry of a key <= x's, so equal keys keep submit order */
		int64_t		lo = 0,
					hi = q->n - 1;

		while (lo < hi)
		{
			int64_t		mid = (lo + hi) / 2;

			if (q->r[(q->head + mid) % q->cap].t > x.t)
				hi = mid;
			else
				lo = mid + 1;
		}
		pos = lo;
		for (int64_t k = q->n; k > pos; k--)
			q->r[(q->head + k) % q->cap] = q->r[(q->head + k - 1) % q->cap];
	}
	q->r[(q->head + pos) % q->cap] = x;
	q->n++;
	q->live++;
	return true;
}

/* Drops dead entries at the front, and compacts a ring that is mostly dead. */
static void
ring_tidy(at_sched *s, ring *q)
{
	while (q->n > 0 && !live(s, q->r[q->head], SLOT_PENDING))
	{
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	if (q->n > 64 && q->live * 2 < q->n)
	{
		int64_t		k = 0;

		for (int64_t i = 0; i < q->n; i++)
		{
			ref			x = q->r[(q->head + i) % q->cap];

			if (live(s, x, SLOT_PENDING))
				q->r[(q->head + k++) % q->cap] = x;
		}
		q->n = k;
	}
}

/*
 * Drops the dead entries among the first k, keeping the order of the live
 * ones: a scan that skipped them does not skip them again (jobs started by
 * backfill die in the middle of a long queue, where ring_tidy's front
 * sweep does not reach).
 */
static void
ring_drop_dead(at_sched *s, ring *q, int64_t k)
{
	int64_t		w = k;

	if (k == 0)
		return;
	for (int64_t i = k - 1; i >= 0; i--)
	{
		ref			x = q->r[(q->head + i) % q->cap];

		if (live(s, x, SLOT_PENDING))
			q->r[(q->head + --w) % q->cap] = x;
	}
	q->head = (q->head + w) % q->cap;
	q->n -= w;
}

/* ---- starting, ending, leaving ---- */

static bool
start(at_sched *s, int32_t i, int64_t t)
{
	slot	   *sl = &s->slots[i];
	at_sched_job *j = &sl->job;
	int32_t		g = s->cfg.gpus_per_node;
	int32_t		need = j->gpus;
	ref			r;

	if (need <= g)
	{
		/* best fit, in the reserved pool first */
		int32_t		node = -1;

		for (int pool = first_pool(s, j->priority); pool < 2 && node < 0; pool++)
			for (int32_t c = need; c <= g; c++)
				if (BUCKET_N(s, pool, c) > 0)
				{
					node = BUCKET(s, pool, c)[BUCKET_N(s, pool, c) - 1];
					break;
				}
		node_move(s, node, s->free[node] - need);	/* fits() said one exists */
		sl->one_node = node;
		j->nodes = 1;
		j->node = node;
	}
	else
	{
		int32_t		k = nodes_needed(s, need);
		int32_t    *list = s->mem(s->ctx, NULL, sizeof(int32_t) * (size_t) k);
		int32_t		lowest = s->cfg.nodes;
		int			pool = first_pool(s, j->priority);

		if (list == NULL)
			return false;
		for (int32_t m = 0; m < k; m++)
		{
			int32_t		node,
						take = m < k - 1 ? g : need - g * (k - 1);

			while (BUCKET_N(s, pool, g) == 0)
				pool++;			/* fits() counted enough whole nodes */
			node = BUCKET(s, pool, g)[BUCKET_N(s, pool, g) - 1];
			node_move(s, node, g - take);
			list[m] = node;
			if (node < lowest)
				lowest = node;
		}
		sl->node_list = list;
		j->nodes = k;
		j->node = lowest;
	}
	j->start = t;
	j->end = t + j->hold;
	s->class_used[j->priority] += j->gpus;
	if (j->group >= 0 && s->group_running)
		s->group_running[j->group]++;
	sl->state = SLOT_RUNNING;
	s->pending[j->priority].live--;
	r.t = j->end;
	r.slot = i;
	r.gen = sl->gen;
	return heap_push(s, &s->running, r) && decide(s, j, sl->node_list);
}

static void
end_job(at_sched *s, int32_t i)
{
	slot	   *sl = &s->slots[i];
	int32_t		g = s->cfg.gpus_per_node;

	s->class_used[sl->job.priority] -= sl->job.gpus;
	if (sl->job.group >= 0 && s->group_running)
		s->group_running[sl->job.group]--;
	if (sl->node_list == NULL)
		node_move(s, sl->one_node, s->free[sl->one_node] + sl->job.gpus);
	else
	{
		int32_t		k = sl->job.nodes;

		for (int32_t m = 0; m < k; m++)
		{
			int32_t		node = sl->node_list[m];
			int32_t		take = m < k - 1 ? g : sl->job.gpus - g * (k - 1);

			node_move(s, node, s->free[node] + take);
		}
	}
	slot_release(s, i);
}

static bool
leave(at_sched *s, int32_t i, int64_t t)
{
	slot	   *sl = &s->slots[i];
	bool		ok;

	sl->job.start = -1;
	sl->job.end = t;
	sl->job.nodes = 0;
	sl->job.node = -1;
	s->pending[sl->job.priority].live--;
	ok = decide(s, &sl->job, NULL);
	slot_release(s, i);
	return ok;
}

/*
 * When the head (need GPUs, at priority) can start if nothing else starts:
 * the running jobs are released in end order, node by node, until a node
 * of its pools has need GPUs free (a single-node head) or enough of them
 * are wholly free (a gang).  *extra: GPUs on whole nodes free then beyond
 * the gang's (0 for a single-node head), which a backfilled job may hold.
 */
static bool
reservation(at_sched *s, int32_t need, int32_t priority, int64_t now, int64_t *when, int64_t *extra)
{
	ref_heap   *w = &s->scratch;
	int			p0 = first_pool(s, priority);
	int32_t		g = s->cfg.gpus_per_node;
	bool		single = need <= g;
	int32_t		k = nodes_needed(s, need);
	int64_t		whole = 0;
	bool		done = false;
	int32_t    *f = s->shadow_free;
	ref			x;

	memcpy(f, s->free, sizeof(int32_t) * (size_t) s->cfg.nodes);
	for (int pool = p0; pool < 2; pool++)
		whole += BUCKET_N(s, pool, g);
	*when = now;
	*extra = 0;
	w->n = 0;
	if (s->running.n == 0)
		return true;
	x = s->running.h[0];
	x.slot = 0;					/* here: an index into running */
	if (!heap_push(s, w, x))
		return false;
	while (w->n > 0 && !done)
	{
		ref			y = heap_pop(w);
		const slot *rs = &s->slots[s->running.h[y.slot].slot];
		int32_t		nn = rs->node_list ? rs->job.nodes : 1;

		for (int32_t m = 0; m < nn; m++)
		{
			int32_t		node = rs->node_list ? rs->node_list[m] : rs->one_node;
			int32_t		back = !rs->node_list ? rs->job.gpus : m < nn - 1 ? g : rs->job.gpus - g * (nn - 1);

			f[node] += back;
			if (POOL(s, node) < p0)
				continue;
			if (single ? f[node] >= need : f[node] == g && ++whole >= k)
				done = true;
		}
		*when = y.t;
		for (int64_t c = 2 * (int64_t) y.slot + 1; c <= 2 * (int64_t) y.slot + 2 && c < s->running.n; c++)
		{
			ref			z = s->running.h[c];

			z.slot = (int32_t) c;
			if (!heap_push(s, w, z))
				return false;
		}
	}
	if (!single && whole > k)
		*extra = (whole - k) * g;
	return true;
}

/* Starts what can start at t: the heads in priority order, then backfill. */
static bool
schedule(at_sched *s, int64_t t)
{
	int			p;
	int32_t		head = -1;
	bool		have_res = false;
	int64_t		res_t = 0,
				extra = 0;
	int64_t		looked = 0;

	for (p = AT_SCHED_PRIORITIES - 1; p >= 0; p--)
	{
		ring	   *q = &s->pending[p];
		int64_t		k;

		ring_tidy(s, q);
		for (k = 0; k < q->n; k++)
		{
			ref			x = q->r[(q->head + k) % q->cap];
			at_sched_job *j = &s->slots[x.slot].job;

			if (!live(s, x, SLOT_PENDING) || held_back(s, j))
				continue;
			if (!fits(s, j->gpus, j->priority))
			{
				head = x.slot;
				break;
			}
			if (!start(s, x.slot, t))
				return false;
		}
		ring_drop_dead(s, q, k);
		if (head >= 0)
			break;
	}
	if (head < 0 || !s->cfg.backfill)
		return true;

	/* EASY backfill behind the blocked head, in priority order */
	for (; p >= 0 && looked < s->cfg.backfill_depth; p--)
	{
		ring	   *q = &s->pending[p];
		int64_t		k;

		for (k = 0; k < q->n && looked < s->cfg.backfill_depth; k++)
		{
			ref			x = q->r[(q->head + k) % q->cap];
			at_sched_job *j;

			/* no GPU free: nothing behind can start (a full cluster's usual case) */
			if (s->pool_free[0] + s->pool_free[1] == 0)
				break;

			if (x.slot == head || !live(s, x, SLOT_PENDING) || held_back(s, &s->slots[x.slot].job))
				continue;
			looked++;
			j = &s->slots[x.slot].job;
			if (!fits(s, j->gpus, j->priority))
				continue;
			if (!have_res)
			{
				if (!reservation(s, s->slots[head].job.gpus, s->slots[head].job.priority, t, &res_t, &extra))
					return false;
				have_res = true;
			}
			if (t + j->hold <= res_t)
			{
				if (!start(s, x.slot, t))
					return false;
			}
			else if (j->gpus <= extra)
			{
				extra -= j->gpus;
				if (!start(s, x.slot, t))
					return false;
			}
		}
		ring_drop_dead(s, q, k);
		if (s->pool_free[0] + s->pool_free[1] == 0)
			break;
	}
	return true;
}

/* GPUs held in a pool. */
static int64_t
at_sched_allocated_in(const at_sched *s, int pool)
{
	int64_t		nodes = pool == 0 ? s->cfg.reserved_nodes : s->cfg.nodes - s->cfg.reserved_nodes;

	return nodes * s->cfg.gpus_per_node - s->pool_free[pool];
}

/* ---- the interface ---- */

const char *
at_sched_status_text(at_sched_status st)
{
	switch (st)
	{
		case AT_SCHED_OK:
			return "ok";
		case AT_SCHED_NOMEM:
			return "out of memory";
		case AT_SCHED_BAD_JOB:
			return "a job's GPUs, priority, hold or patience is out of range (or more GPUs than its pool)";
		case AT_SCHED_BAD_TIME:
			return "a job was submitted at a negative time, before an earlier one, or after finish";
		case AT_SCHED_BAD_CONFIG:
			return "nodes, GPUs per node or backfill depth out of range";
		case AT_SCHED_INCONSISTENT:
			return "a GPU placement out of step with the scheduler";
	}
	return "unknown status";
}

at_sched_status
at_sched_create(at_mem_fn mem, void *ctx, const at_sched_config *cfg, at_sched **out)
{
	at_sched   *s;
	int32_t		n = cfg->nodes,
				g = cfg->gpus_per_node;

	*out = NULL;
	if (n < 1 || n > AT_SCHED_MAX_NODES || g < 1 || g > 64 || cfg->backfill_depth < 0 ||
		cfg->reserved_nodes < 0 || cfg->reserved_nodes > n || cfg->group_limit < 0)
		return AT_SCHED_BAD_CONFIG;
	for (int p = 0; p < AT_SCHED_PRIORITIES; p++)
		if (cfg->class_limit[p] < 0)
		return AT_SCHED_BAD_CONFIG;
	s = mem(ctx, NULL, sizeof(at_sched));
	if (s == NULL)
		return AT_SCHED_NOMEM;
	s->mem = mem;
	s->ctx = ctx;
	s->cfg = *cfg;
	s->now = 0;
	s->free_slot = -1;
	s->free = mem(ctx, NULL, sizeof(int32_t) * (size_t) n);
	s->pos = mem(ctx, NULL, sizeof(int32_t) * (size_t) n);
	s->shadow_free = mem(ctx, NULL, sizeof(int32_t) * (size_t) n);
	if (cfg->group_limit > 0)
		s->group_running = mem(ctx, NULL, sizeof(int32_t) * 65536);
	s->bucket = mem(ctx, NULL, sizeof(int32_t) * (size_t) n * (size_t) (g + 1) * 2);
	s->bucket_n = mem(ctx, NULL, sizeof(int32_t) * (size_t) (g + 1) * 2);
	if (s->free == NULL || s->pos == NULL || s->shadow_free == NULL || s->bucket == NULL || s->bucket_n == NULL ||
		(cfg->group_limit > 0 && s->group_running == NULL))
	{
		at_sched_destroy(s);
		return AT_SCHED_NOMEM;
	}
	for (int32_t i = 0; i < n; i++)
	{
		int			pool = POOL(s, i);

		s->free[i] = g;
		s->pos[i] = BUCKET_N(s, pool, g);
		BUCKET(s, pool, g)[BUCKET_N(s, pool, g)++] = i;
		s->pool_free[pool] += g;
	}
	s->capacity = s->free_total = (int64_t) n * g;
	*out = s;
	return AT_SCHED_OK;
}

void
at_sched_destroy(at_sched *s)
{
	if (s == NULL)
		return;
	for (int32_t i = 0; i < s->nslots; i++)
		if (s->slots[i].node_list != NULL)
			s->mem(s->ctx, s->slots[i].node_list, 0);
	if (s->slots)
		s->mem(s->ctx, s->slots, 0);
	for (int p = 0; p < AT_SCHED_PRIORITIES; p++)
		if (s->pending[p].r)
			s->mem(s->ctx, s->pending[p].r, 0);
	ref_heap_free(s->mem, s->ctx, &s->running);
	ref_heap_free(s->mem, s->ctx, &s->deadlines);
	ref_heap_free(s->mem, s->ctx, &s->scratch);
	for (int64_t k = 0; k < s->out_n; k++)
		if (s->out[(s->out_head + k) % s->out_cap].nodes != NULL)
			s->mem(s->ctx, s->out[(s->out_head + k) % s->out_cap].nodes, 0);
	if (s->out)
		s->mem(s->ctx, s->out, 0);
	if (s->taken_nodes)
		s->mem(s->ctx, s->taken_nodes, 0);
	if (s->free)
		s->mem(s->ctx, s->free, 0);
	if (s->pos)
		s->mem(s->ctx, s->pos, 0);
	if (s->shadow_free)
		s->mem(s->ctx, s->shadow_free, 0);
	if (s->group_running)
		s->mem(s->ctx, s->group_running, 0);
	if (s->bucket)
		s->mem(s->ctx, s->bucket, 0);
	if (s->bucket_n)
		s->mem(s->ctx, s->bucket_n, 0);
	s->mem(s->ctx, s, 0);
}

/* The events up to t: at each instant, ends first, then patience, then starts. */
at_sched_status
at_sched_advance(at_sched *s, int64_t t)
{
	for (;;)
	{
		int64_t		e;
		bool		any = false;

		while (s->deadlines.n > 0 && !live(s, s->deadlines.h[0], SLOT_PENDING))
			heap_pop(&s->deadlines);
		if (s->running.n > 0 && (s->deadlines.n == 0 || s->running.h[0].t <= s->deadlines.h[0].t))
			e = s->running.h[0].t;
		else if (s->deadlines.n > 0)
			e = s->deadlines.h[0].t;
		else
			break;
		if (e > t)
			break;
		if (s->cfg.tick != NULL && ++s->events % AT_SCHED_TICK == 0)
			s->cfg.tick(s->cfg.tick_arg);
		while (s->running.n > 0 && s->running.h[0].t <= e)
		{
			end_job(s, heap_pop(&s->running).slot);
			any = true;
		}
		while (s->deadlines.n > 0 && s->deadlines.h[0].t <= e)
		{
			ref			d = heap_pop(&s->deadlines);

			if (live(s, d, SLOT_PENDING))
			{
				if (!leave(s, d.slot, e))
					return AT_SCHED_NOMEM;
				any = true;
			}
		}
		if (e > s->now)
			s->now = e;
		if (any && !schedule(s, e))
			return AT_SCHED_NOMEM;
	}
	if (t > s->now)
		s->now = t;
	return AT_SCHED_OK;
}

at_sched_status
at_sched_submit(at_sched *s, const at_sched_job *job)
{
	at_sched_status st;
	int32_t		i;
	ref			r;

	if (job->gpus < 1 || job->gpus > s->capacity || job->priority < 0 ||
		job->priority >= AT_SCHED_PRIORITIES || job->group < -1 || job->group > 65535 || job->hold < 0 || job->hold > LIMIT_SPAN ||
		job->key < 0 || job->key > LIMIT_TIME ||
		job->patience > LIMIT_SPAN)
		return AT_SCHED_BAD_JOB;
	if (job->priority < s->cfg.reserved_priority &&
		(job->gpus > s->pool_free[1] + at_sched_allocated_in(s, 1) ||
		 (job->gpus > s->cfg.gpus_per_node && nodes_needed(s, job->gpus) > s->cfg.nodes - s->cfg.reserved_nodes)))
		return AT_SCHED_BAD_JOB;	/* more than the shared pool holds */
	if (s->cfg.class_limit[job->priority] > 0 && job->gpus > s->cfg.class_limit[job->priority])
		return AT_SCHED_BAD_JOB;	/* more than its class may hold */
	if (s->finished || job->submit < 0 || job->submit > LIMIT_TIME || job->submit < s->now)
		return AT_SCHED_BAD_TIME;
	if ((st = at_sched_advance(s, job->submit)) != AT_SCHED_OK)
		return st;
	i = slot_new(s);
	if (i < 0)
		return AT_SCHED_NOMEM;
	s->slots[i].job = *job;
	s->slots[i].job.start = -1;
	s->slots[i].job.end = -1;
	s->slots[i].job.nodes = 0;
	s->slots[i].job.node = -1;
	s->slots[i].state = SLOT_PENDING;
	r.t = job->key;
	r.slot = i;
	r.gen = s->slots[i].gen;
	if (!ring_push(s, &s->pending[job->priority], r))
	{
		slot_release(s, i);
		return AT_SCHED_NOMEM;
	}
	if (job->patience >= 0)
	{
		r.t = job->submit + job->patience;
		if (!heap_push(s, &s->deadlines, r))
			return AT_SCHED_NOMEM;
	}
	return schedule(s, job->submit) ? AT_SCHED_OK : AT_SCHED_NOMEM;
}

at_sched_status
at_sched_finish(at_sched *s)
{
	at_sched_status st;

	s->finished = true;
	while (at_sched_pending(s) > 0)
	{
		int64_t		e;

		if (s->running.n > 0)
			e = s->running.h[0].t;
		else if (s->deadlines.n > 0)
			e = s->deadlines.h[0].t;
		else
			return AT_SCHED_OK;	/* cannot happen: an idle cluster starts the head */
		if (s->deadlines.n > 0 && s->deadlines.h[0].t < e)
			e = s->deadlines.h[0].t;
		if ((st = at_sched_advance(s, e)) != AT_SCHED_OK)
			return st;
	}
	return AT_SCHED_OK;
}

bool
at_sched_take(at_sched *s, at_sched_job *out)
{
	out_entry	e;

	if (s->taken_nodes != NULL)
		s->mem(s->ctx, s->taken_nodes, 0);
	s->taken_nodes = NULL;
	s->taken_count = 0;
	if (s->out_n == 0)
		return false;
	e = s->out[s->out_head];
	s->out_head = (s->out_head + 1) % s->out_cap;
	s->out_n--;
	*out = e.job;
	s->taken_nodes = e.nodes;
	s->taken_node = e.job.node;
	s->taken_count = e.job.start >= 0 ? e.job.nodes : 0;
	return true;
}

const int32_t *
at_sched_taken_nodes(const at_sched *s, int32_t *count)
{
	*count = s->taken_count;
	if (s->taken_count == 0)
		return NULL;
	return s->taken_nodes != NULL ? s->taken_nodes : &s->taken_node;
}

int64_t
at_sched_horizon(const at_sched *s)
{
	const at_sched_job *j;

	if (s->out_n == 0)
		return s->now;
	/* decisions come out in time order; the oldest bounds the rest */
	j = &s->out[s->out_head].job;
	return j->start >= 0 ? j->start : j->end;
}

int64_t
at_sched_allocated(const at_sched *s)
{
	return s->capacity - s->free_total;
}

int64_t
at_sched_pending(const at_sched *s)
{
	int64_t		n = 0;

	for (int p = 0; p < AT_SCHED_PRIORITIES; p++)
		n += s->pending[p].live;
	return n;
}
