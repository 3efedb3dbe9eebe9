/*
 * placement.c: GPUs for the runs of a generated trace.  See placement.h.
 *
 * Jobs come out of the generator in decision order, a little ahead of
 * their times; they are turned into events (a run takes and gives back its
 * GPUs, a job starts and ends) in one min-heap, and an event is handled
 * only once it is older than the generator's horizon, so nothing still to
 * come can precede it.  Every invariant (a GPU free when taken, a job
 * inside its run's hold, one job of a run at a time) is checked, and a
 * breach is AT_SCHED_INCONSISTENT rather than a silent overlap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

enum
{
	EV_JOB_END, EV_HOLD_END, EV_HOLD_START, EV_JOB_START	/* order at equal times */
};

typedef struct event
{
	int64_t		t;
	int64_t		seq;
	int32_t		kind;
	int32_t		hold;			/* EV_HOLD_*: the hold's index */
	int32_t		type;
	int64_t		job_id;
	int64_t		run;
	int64_t		start;
	int64_t		end;
} event;

static bool
ev_less(const event *a, const event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

#define HEAP_PREFIX event
#define HEAP_ELEM event
#define HEAP_LESS(a, b) ev_less(a, b)
#include "heap.h"

typedef struct hold
{
	int64_t		run;
	int64_t		end;
	int64_t		job;			/* the job of the run running now, -1: none */
	int32_t		gpus;
	int32_t		nodes;
	int32_t    *node;
	int32_t    *gpu;			/* given when the hold starts */
	int32_t		next_free;
} hold;

struct at_placement
{
	at_mem_fn	mem;
	void	   *ctx;
	at_generate_jobs *g;
	bool		done;			/* the generator has given every job */
	int64_t		horizon;
	int64_t		seq;
	int32_t		gpus;
	uint8_t    *used;			/* a bit per GPU of each node */
	event_heap	events;
	hold	   *holds;
	int32_t		nholds;
	int32_t		free_hold;
	int32_t    *table;			/* run -> hold index + 1, linear probing */
	int64_t		table_mask;
};

static bool
heap_push(at_placement *pl, event e)
{
	e.seq = pl->seq++;
	return event_heap_push(pl->mem, pl->ctx, &pl->events, e);
}

/* ---- holds and the run -> hold table ---- */

static uint64_t
hash_run(int64_t run)
{
	uint64_t	x = (uint64_t) run * UINT64_C(0x9e3779b97f4a7c15);

	return x ^ (x >> 29);
}

static int32_t
table_find(const at_placement *pl, int64_t run)
{
	for (uint64_t i = hash_run(run) & (uint64_t) pl->table_mask;; i = (i + 1) & (uint64_t) pl->table_mask)
	{
		int32_t		h = pl->table[i];

		if (h == 0)
			return -1;
		if (pl->holds[h - 1].run == run)
			return h - 1;
	}
}

static void
table_insert(at_placement *pl, int32_t h)
{
	uint64_t	i = hash_run(pl->holds[h].run) & (uint64_t) pl->table_mask;

	while (pl->table[i] != 0)
		i = (i + 1) & (uint64_t) pl->table_mask;
	pl->table[i] = h + 1;
}

static void
table_delete(at_placement *pl, int64_t run)
{
	uint64_t	m = (uint64_t) pl->table_mask,
				i = hash_run(run) & m;

	while (pl->holds[pl->table[i] - 1].run != run)
		i = (i + 1) & m;
	/* backward shift: later entries of the probe chain move up */
	for (uint64_t j = (i + 1) & m; pl->table[j] != 0; j = (j + 1) & m)
	{
		uint64_t	home = hash_run(pl->holds[pl->table[j] - 1].run) & m;

		if (((j - home) & m) >= ((j - i) & m))
		{
			pl->table[i] = pl->table[j];
			i = j;
		}
	}
	pl->table[i] = 0;
}

static int32_t
hold_new(at_placement *pl)
{
	int32_t		h;

	if (pl->free_hold < 0)
	{
		int32_t		n = pl->nholds ? pl->nholds * 2 : 64;
		hold	   *p = at_mem_grow(pl->mem, pl->ctx, pl->holds, sizeof(hold) * (size_t) pl->nholds,
									sizeof(hold) * (size_t) n);

		if (p == NULL)
			return -1;
		for (int32_t i = n - 1; i >= pl->nholds; i--)
		{
			p[i].next_free = pl->free_hold;
			pl->free_hold = i;
		}
		pl->holds = p;
		pl->nholds = n;
	}
	h = pl->free_hold;
	pl->free_hold = pl->holds[h].next_free;
	memset(&pl->holds[h], 0, sizeof(hold));
	pl->holds[h].job = -1;
	return h;
}

static void
hold_free(at_placement *pl, int32_t h)
{
	if (pl->holds[h].node)
		pl->mem(pl->ctx, pl->holds[h].node, 0);
	if (pl->holds[h].gpu)
		pl->mem(pl->ctx, pl->holds[h].gpu, 0);
	pl->holds[h].node = pl->holds[h].gpu = NULL;
	pl->holds[h].next_free = pl->free_hold;
	pl->free_hold = h;
}

static int
cmp_int32(const void *a, const void *b)
{
	int32_t		x = *(const int32_t *) a,
				y = *(const int32_t *) b;

	return (x > y) - (x < y);
}

/* The run takes the lowest free GPUs of its nodes, as many as the scheduler counted. */
static at_sched_status
hold_start(at_placement *pl, int32_t h)
{
	hold	   *r = &pl->holds[h];
	int32_t		k = r->nodes,
				n = 0;

	if (table_find(pl, r->run) >= 0)
		return AT_SCHED_INCONSISTENT;
	r->gpu = pl->mem(pl->ctx, NULL, sizeof(int32_t) * (size_t) r->gpus);
	if (r->gpu == NULL)
		return AT_SCHED_NOMEM;
	for (int32_t m = 0; m < k; m++)
	{
		int32_t		node = r->node[m],
					take = k == 1 ? r->gpus : m < k - 1 ? AT_GPUS_PER_NODE : r->gpus - AT_GPUS_PER_NODE * (k - 1);

		if (node < 0 || node >= pl->gpus / AT_GPUS_PER_NODE || take < 1 || take > AT_GPUS_PER_NODE)
			return AT_SCHED_INCONSISTENT;
		for (int b = 0; b < AT_GPUS_PER_NODE && take > 0; b++)
			if (!(pl->used[node] & (1u << b)))
			{
				pl->used[node] |= (uint8_t) (1u << b);
				r->gpu[n++] = node * AT_GPUS_PER_NODE + b;
				take--;
			}
		if (take > 0)
			return AT_SCHED_INCONSISTENT;	/* the scheduler counted GPUs that are not free */
	}
	if (n != r->gpus)
		return AT_SCHED_INCONSISTENT;
	qsort(r->gpu, (size_t) n, sizeof(int32_t), cmp_int32);
	table_insert(pl, h);
	{
		event		e;

		memset(&e, 0, sizeof e);
		e.t = r->end;
		e.kind = EV_HOLD_END;
		e.hold = h;
		if (!heap_push(pl, e))
			return AT_SCHED_NOMEM;
	}
	return AT_SCHED_OK;
}

static at_sched_status
hold_end(at_placement *pl, int32_t h)
{
	hold	   *r = &pl->holds[h];

	if (r->job >= 0)
		return AT_SCHED_INCONSISTENT;	/* a job outlived its run's hold */
	for (int32_t i = 0; i < r->gpus; i++)
		pl->used[r->gpu[i] / AT_GPUS_PER_NODE] &= (uint8_t) ~(1u << (r->gpu[i] % AT_GPUS_PER_NODE));
	table_delete(pl, r->run);
	hold_free(pl, h);
	return AT_SCHED_OK;
}

/* One more job from the generator, as events. */
static at_sched_status
pull(at_placement *pl)
{
	at_job		job;
	at_job_hold jh;
	at_sched_status st;
	event		e;

	if (!at_generate_jobs_next(pl->g, &job, &st))
	{
		if (st != AT_SCHED_OK)
			return st;
		pl->done = true;
		pl->horizon = INT64_MAX;
		return AT_SCHED_OK;
	}
	memset(&e, 0, sizeof e);
	if (at_generate_jobs_hold(pl->g, &jh))
	{
		int32_t		h = hold_new(pl);
		hold	   *r;

		if (h < 0)
			return AT_SCHED_NOMEM;
		r = &pl->holds[h];
		r->run = job.run;
		r->end = jh.end;
		r->gpus = jh.gpus;
		r->nodes = jh.nodes;
		if (jh.nodes < 1 || jh.gpus < 1 || jh.gpus > jh.nodes * AT_GPUS_PER_NODE)
			return AT_SCHED_INCONSISTENT;
		r->node = pl->mem(pl->ctx, NULL, sizeof(int32_t) * (size_t) jh.nodes);
		if (r->node == NULL)
			return AT_SCHED_NOMEM;
		memcpy(r->node, jh.node, sizeof(int32_t) * (size_t) jh.nodes);
		e.t = jh.start;
		e.kind = EV_HOLD_START;
		e.hold = h;
		if (!heap_push(pl, e))
			return AT_SCHED_NOMEM;
	}
	if (job.gpu_num > 0 && job.start >= 0 && job.end > job.start)
	{
		e.kind = EV_JOB_START;
		e.t = job.start;
		e.hold = -1;
		e.job_id = job.job_id;
		e.run = job.run;
		e.start = job.start;
		e.end = job.end;
		e.type = job.type;
		if (!heap_push(pl, e))
			return AT_SCHED_NOMEM;
		e.kind = EV_JOB_END;
		e.t = job.end;
		if (!heap_push(pl, e))
			return AT_SCHED_NOMEM;
	}
	pl->horizon = at_generate_jobs_horizon(pl->g);
	return AT_SCHED_OK;
}

at_sched_status
at_placement_create(at_mem_fn mem, void *ctx, const at_profile *p, int64_t n, uint64_t seed,
					at_placement **out)
{
	at_placement *pl;
	at_sched_status st;
	int64_t		size = 16;

	*out = NULL;
	pl = mem(ctx, NULL, sizeof(at_placement));
	if (pl == NULL)
		return AT_SCHED_NOMEM;
	pl->mem = mem;
	pl->ctx = ctx;
	pl->free_hold = -1;
	pl->gpus = p->nodes * AT_GPUS_PER_NODE;
	/* at most one run per GPU is held at once: a table four times that never fills */
	while (size < 4 * (int64_t) pl->gpus)
		size *= 2;
	pl->table_mask = size - 1;
	pl->table = mem(ctx, NULL, sizeof(int32_t) * (size_t) size);
	pl->used = mem(ctx, NULL, (size_t) p->nodes);
	if (pl->table == NULL || pl->used == NULL)
	{
		at_placement_destroy(pl);
		return AT_SCHED_NOMEM;
	}
	if ((st = at_generate_jobs_create(mem, ctx, p, n, seed, &pl->g)) != AT_SCHED_OK)
	{
		at_placement_destroy(pl);
		return st;
	}
	pl->horizon = at_generate_jobs_horizon(pl->g);
	pl->done = pl->horizon == INT64_MAX;
	*out = pl;
	return AT_SCHED_OK;
}

void
at_placement_destroy(at_placement *pl)
{
	if (pl == NULL)
		return;
	if (pl->g)
		at_generate_jobs_destroy(pl->g);
	for (int32_t i = 0; i < pl->nholds; i++)
	{
		if (pl->holds[i].node)
			pl->mem(pl->ctx, pl->holds[i].node, 0);
		if (pl->holds[i].gpu)
			pl->mem(pl->ctx, pl->holds[i].gpu, 0);
	}
	if (pl->holds)
		pl->mem(pl->ctx, pl->holds, 0);
	event_heap_free(pl->mem, pl->ctx, &pl->events);
	if (pl->table)
		pl->mem(pl->ctx, pl->table, 0);
	if (pl->used)
		pl->mem(pl->ctx, pl->used, 0);
	pl->mem(pl->ctx, pl, 0);
}

int32_t
at_placement_gpus(const at_placement *pl)
{
	return pl->gpus;
}

bool
at_placement_next(at_placement *pl, int64_t until, at_placement_event *ev, at_sched_status *status)
{
	*status = AT_SCHED_OK;
	for (;;)
	{
		if (pl->events.n > 0 && pl->events.h[0].t <= until && pl->events.h[0].t < pl->horizon)
		{
			event		e = event_heap_pop(&pl->events);
			int32_t		h;

			switch (e.kind)
			{
				case EV_HOLD_START:
					if ((*status = hold_start(pl, e.hold)) != AT_SCHED_OK)
						return false;
					continue;
				case EV_HOLD_END:
					if ((*status = hold_end(pl, e.hold)) != AT_SCHED_OK)
						return false;
					continue;
				default:
					break;
			}
			h = table_find(pl, e.run);
			if (h < 0 || (e.kind == EV_JOB_START ? pl->holds[h].job >= 0 : pl->holds[h].job != e.job_id))
			{
				*status = AT_SCHED_INCONSISTENT;
				return false;
			}
			pl->holds[h].job = e.kind == EV_JOB_START ? e.job_id : -1;
			ev->kind = e.kind == EV_JOB_START ? AT_PLACEMENT_START : AT_PLACEMENT_END;
			ev->t = e.t;
			ev->job_id = e.job_id;
			ev->start = e.start;
			ev->end = e.end;
			ev->type = e.type;
			ev->gpus = pl->holds[h].gpus;
			ev->gpu = pl->holds[h].gpu;
			return true;
		}
		if (!pl->done && pl->horizon <= until)
		{
			if ((*status = pull(pl)) != AT_SCHED_OK)
				return false;
			continue;
		}
		return false;
	}
}

int
at_placement_series_name(int32_t gpu, char *out)
{
	int32_t		node = gpu / AT_GPUS_PER_NODE;

	return snprintf(out, 32, "10.140.%d.%d-gpu%d", (int) (node / 256 % 256), (int) (node % 256),
					(int) (gpu % AT_GPUS_PER_NODE));
}
