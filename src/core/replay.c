/*
 * replay.c: a recorded trace through the scheduler.  See replay.h.
 */
#include <math.h>
#include <string.h>

#include "replay.h"

bool
at_replay_policy_by_name(const char *name, at_replay_policy *out)
{
	static const char *const names[] = {"fifo", "priority", "sjf"};

	for (int p = 0; p < 3; p++)
	{
		const char *a = name,
				   *b = names[p];

		/* ASCII case folding only, as the names are ASCII */
		while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b)
			a++, b++;
		if (*a == '\0' && *b == '\0')
		{
			*out = (at_replay_policy) p;
			return true;
		}
	}
	return false;
}

int32_t
at_replay_type_class(const char *type)
{
	if (type == NULL)
		return 0;
	if (strcmp(type, "Pretrain") == 0)
		return 3;
	if (strcmp(type, "SFT") == 0 || strcmp(type, "MLLM") == 0)
		return 2;
	if (strcmp(type, "Debug") == 0)
		return 1;
	return 0;
}

static int64_t
clamp_key(double v)
{
	if (!(v >= 0))
		return 0;
	if (v >= (double) AT_REPLAY_KEY_MAX)
		return AT_REPLAY_KEY_MAX;
	return (int64_t) v;
}

static int64_t
max0(int64_t v)
{
	return v > 0 ? v : 0;
}

void
at_replay_job_of(at_replay_job *j, const at_replay_record *rec, int64_t t0, at_replay_policy pol, bool predictions)
{
	memset(j, 0, sizeof(*j));
	j->submit = rec->submit - t0;
	j->gpus = rec->gpus;
	if (rec->has_start)
		j->run = rec->has_end ? max0(rec->end - rec->start) : 0;
	else
	{
		/* cancelled while queued: leaves after its recorded wait */
		j->run = -1;
		j->wait = rec->has_end ? max0(rec->end - rec->submit) : 0;
	}
	j->priority = pol == AT_REPLAY_PRIORITY ? at_replay_type_class(rec->type) : 0;
	if (pol == AT_REPLAY_SJF)
		j->key = predictions ? (rec->has_pred ? clamp_key(rec->pred) : AT_REPLAY_KEY_MAX) : max0(j->run);
}

bool
at_replay_capacity_ok(int64_t capacity)
{
	return capacity >= AT_REPLAY_GPUS_PER_NODE && capacity % AT_REPLAY_GPUS_PER_NODE == 0 &&
		capacity / AT_REPLAY_GPUS_PER_NODE <= AT_SCHED_MAX_NODES;
}

void
at_replay_config(at_sched_config *cfg, int64_t capacity, bool backfill)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->nodes = (int32_t) (capacity / AT_REPLAY_GPUS_PER_NODE);
	cfg->gpus_per_node = AT_REPLAY_GPUS_PER_NODE;
	cfg->backfill = backfill;
	cfg->backfill_depth = 256;
}

static void
take_all(at_sched *s, at_replay_job *jobs)
{
	at_sched_job d;

	while (at_sched_take(s, &d))
	{
		jobs[d.id].start = d.start;
		jobs[d.id].end = d.end;
	}
}

at_sched_status
at_replay(at_mem_fn mem, void *ctx, const at_sched_config *cfg, at_replay_job *jobs, int64_t n, int64_t *bad)
{
	at_sched   *s;
	at_sched_status st;

	*bad = -1;
	if ((st = at_sched_create(mem, ctx, cfg, &s)) != AT_SCHED_OK)
		return st;
	for (int64_t i = 0; i < n; i++)
	{
		at_replay_job *r = &jobs[i];
		at_sched_job j;

		memset(&j, 0, sizeof j);
		j.id = i;
		j.submit = r->submit;
		j.hold = r->run >= 0 ? r->run : 0;
		j.patience = r->run >= 0 ? -1 : r->wait;
		j.gpus = r->gpus;
		j.priority = r->priority;
		j.key = r->key;
		j.group = -1;
		r->start = r->end = -1;
		if (r->run < 0 && r->wait < 0)
			st = AT_SCHED_BAD_JOB;
		else
			st = at_sched_submit(s, &j);
		if (st != AT_SCHED_OK)
		{
			if (st != AT_SCHED_NOMEM)
				*bad = i;
			at_sched_destroy(s);
			return st;
		}
		take_all(s, jobs);
	}
	st = at_sched_finish(s);
	take_all(s, jobs);
	at_sched_destroy(s);
	return st;
}

/*
 * replay_summary: one item to sort (a queue time, or a GPU allocation or
 * release at an instant), by key then input order.
 */
typedef struct rs_item
{
	uint64_t	key;			/* an int64 with its sign bit flipped: unsigned order */
	int32_t		group;
	int32_t		delta;			/* events: GPUs allocated (> 0) or released (< 0) */
} rs_item;

#define RS_SIGN ((uint64_t) 1 << 63)

static uint64_t
rs_key(int64_t v)
{
	return (uint64_t) v ^ RS_SIGN;
}

static int64_t
rs_value(uint64_t key)
{
	return (int64_t) (key ^ RS_SIGN);
}

/*
 * Stable LSD radix sort of a[0 .. n) by key, bytes that every key shares
 * skipped; the sorted items are in a or tmp, the one returned.
 */
static rs_item *
rs_sort(rs_item *a, rs_item *tmp, size_t n)
{
	size_t		count[8][256];

	memset(count, 0, sizeof count);
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			count[b][(a[i].key >> (8 * b)) & 0xff]++;
	for (int b = 0; b < 8; b++)
	{
		size_t		sum = 0;
		rs_item    *t;

		if (n == 0 || count[b][(a[0].key >> (8 * b)) & 0xff] == n)
			continue;
		for (int d = 0; d < 256; d++)
		{
			size_t		c = count[b][d];

			count[b][d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[b][(a[i].key >> (8 * b)) & 0xff]++] = a[i];
		t = a, a = tmp, tmp = t;
	}
	return a;
}

/* PostgreSQL's percentile_cont_final_common with float8_lerp over sorted keys. */
static double
rs_percentile(const rs_item *s, int64_t n, double q)
{
	double		pos = q * (double) (n - 1);
	int64_t		first = (int64_t) floor(pos);
	int64_t		second = (int64_t) ceil(pos);
	double		lo = (double) rs_value(s[first].key);

	if (second == first)
		return lo;
	return lo + ((pos - (double) first) * ((double) rs_value(s[second].key) - lo));
}

static int64_t
floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The group of each job's type: an open-addressing table of the types seen. */
typedef struct rs_types
{
	at_mem_fn	mem;
	void	   *ctx;
	int32_t    *slot;			/* group + 1, 0: empty */
	size_t		size;			/* a power of two */
	const char **name;			/* by group, from 1 (0: the all row) */
	int32_t		n;				/* groups, the all row included */
	int32_t		room;
} rs_types;

static uint64_t
rs_hash(const char *s)
{
	uint64_t	h = UINT64_C(1469598103934665603);

	if (s == NULL)
		return 0;
	for (; *s; s++)
		h = (h ^ (unsigned char) *s) * UINT64_C(1099511628211);
	return h;
}

static bool
rs_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool
rs_rehash(rs_types *t)
{
	size_t		size = t->size ? t->size * 2 : 64;
	int32_t    *slot = t->mem(t->ctx, NULL, size * sizeof(int32_t));

	if (slot == NULL)
		return false;
	for (int32_t g = 1; g < t->n; g++)
	{
		size_t		i = rs_hash(t->name[g]) & (size - 1);

		while (slot[i] != 0)
			i = (i + 1) & (size - 1);
		slot[i] = g + 1;
	}
	if (t->slot)
		t->mem(t->ctx, t->slot, 0);
	t->slot = slot;
	t->size = size;
	return true;
}

/* The group of type (a new one if unseen); -1: out of memory. */
static int32_t
rs_group(rs_types *t, const char *type)
{
	size_t		i;

	if ((size_t) t->n * 2 >= t->size && !rs_rehash(t))
		return -1;
	for (i = rs_hash(type) & (t->size - 1); t->slot[i] != 0; i = (i + 1) & (t->size - 1))
		if (rs_same(t->name[t->slot[i] - 1], type))
			return t->slot[i] - 1;
	if (t->n == t->room)
	{
		int32_t		room = t->room ? t->room * 2 : 16;
		const char **name = at_mem_grow(t->mem, t->ctx, (void *) t->name, t->room * sizeof(char *),
										room * sizeof(char *));

		if (name == NULL)
			return -1;
		t->name = name;
		t->room = room;
	}
	t->name[t->n] = type;
	t->slot[i] = t->n + 1;
	return t->n++;
}

/* The work arrays of a summary. */
typedef struct rs_work
{
	const at_replay_input *in;
	int32_t    *group;			/* by job */
	rs_item    *a;
	rs_item    *b;
	int64_t    *count;			/* by group */
	at_replay_group *g;
	int32_t		ng;
} rs_work;

/* Queue times (recorded or replayed): sums, and percentiles of each group's sorted run of the sorted all. */
static void
rs_queues(rs_work *w, bool recorded)
{
	const at_replay_input *in = w->in;
	size_t		n = 0;
	rs_item    *s,
			   *o;

	for (int64_t i = 0; i < in->n; i++)
	{
		const at_replay_job *j = &in->jobs[i];
		int64_t		q;

		if (recorded ? !in->has_rec[i] : j->start < 0)
			continue;
		q = recorded ? floor_div(in->rec_start[i] - in->origin, 1000000) - j->submit : j->start - j->submit;
		w->a[n].key = rs_key(q);
		w->a[n].group = w->group[i];
		n++;
	}
	s = rs_sort(w->a, w->b, n);
	o = s == w->a ? w->b : w->a;
	/* each group's run, in the sorted order (a stable counting pass) */
	memset(w->count, 0, sizeof(int64_t) * (w->ng + 1));
	for (size_t i = 0; i < n; i++)
		w->count[s[i].group + 1]++;
	for (int32_t g = 1; g <= w->ng; g++)
		w->count[g] += w->count[g - 1];
	for (size_t i = 0; i < n; i++)
		o[w->count[s[i].group]++] = s[i];
	for (int32_t g = 0; g < w->ng; g++)
	{
		at_replay_side *side = recorded ? &w->g[g].rec : &w->g[g].rep;
		/* group g >= 1 is o[count[g - 1] .. count[g]); the all row is s */
		const rs_item *run = g == 0 ? s : o + w->count[g - 1];
		int64_t		m = g == 0 ? (int64_t) n : w->count[g] - w->count[g - 1];

		for (int64_t k = 0; k < m; k++)
			side->queue_sum += rs_value(run[k].key);
		side->queued = m;
		if (m > 0)
		{
			side->median = rs_percentile(run, m, 0.5);
			side->p90 = rs_percentile(run, m, 0.9);
		}
	}
}

/*
 * Peak GPUs of the jobs started in both, recorded or replayed: one sort of
 * the releases then the allocations (stable: releases first at an
 * instant), one sweep with a level per group.
 */
static void
rs_peaks(rs_work *w, bool recorded, int64_t *level)
{
	const at_replay_input *in = w->in;
	size_t		n = 0;
	rs_item    *s;

	for (int end = 1; end >= 0; end--)
		for (int64_t i = 0; i < in->n; i++)
		{
			const at_replay_job *j = &in->jobs[i];
			int64_t		run = (j->end - j->start) * 1000000,
						t0;

			if (j->start < 0 || !in->has_rec[i] || j->gpus <= 0 || run == 0)
				continue;
			t0 = recorded ? in->rec_start[i] - in->origin : j->start * 1000000;
			w->a[n].key = rs_key(end ? t0 + run : t0);
			w->a[n].group = w->group[i];
			w->a[n].delta = end ? -j->gpus : j->gpus;
			n++;
		}
	s = rs_sort(w->a, w->b, n);
	memset(level, 0, sizeof(int64_t) * w->ng);
	for (size_t i = 0; i < n; i++)
	{
		int32_t		g = s[i].group;
		at_replay_side *all = recorded ? &w->g[0].rec : &w->g[0].rep;
		at_replay_side *one = recorded ? &w->g[g].rec : &w->g[g].rep;

		level[0] += s[i].delta;
		level[g] += s[i].delta;
		if (level[0] > all->peak)
			all->peak = level[0];
		if (level[g] > one->peak)
			one->peak = level[g];
	}
}

/* Counts, completion times and mean GPUs of each group, and the all row. */
static void
rs_sums(rs_work *w, int64_t *first_submit, int64_t *rec_last, int64_t *rep_last, int64_t *rec_gpu_s, int64_t *rep_gpu_s)
{
	const at_replay_input *in = w->in;

	for (int64_t i = 0; i < in->n; i++)
	{
		const at_replay_job *j = &in->jobs[i];
		int32_t		gs[2] = {0, w->group[i]};

		for (int k = 0; k < 2; k++)
		{
			int32_t		g = gs[k];
			at_replay_group *r = &w->g[g];
			int64_t		run = j->end - j->start,
						submit = j->submit * 1000000;

			r->jobs++;
			if (r->jobs == 1 || submit < first_submit[g])
				first_submit[g] = submit;
			if (j->start < 0)
				continue;
			r->started++;
			r->rep.jct_n++;
			r->rep.jct_sum += j->start - j->submit + run;
			rep_gpu_s[g] += (int64_t) j->gpus * run;
			if (r->started == 1 || j->end * 1000000 > rep_last[g])
				rep_last[g] = j->end * 1000000;
			if (!in->has_rec[i])
				continue;
			r->both++;
			r->rec.jct_n++;
			r->rec.jct_sum += floor_div(in->rec_start[i] - in->origin, 1000000) - j->submit + run;
			rec_gpu_s[g] += (int64_t) j->gpus * run;
			if (r->both == 1 || in->rec_start[i] - in->origin + run * 1000000 > rec_last[g])
				rec_last[g] = in->rec_start[i] - in->origin + run * 1000000;
		}
	}
}

/* GPU-seconds over the seconds from first submit to last end (SQL's nullif(span, 0)). */
static void
rs_mean_gpus(at_replay_side *side, int64_t jobs, int64_t gpu_s, int64_t first, int64_t last)
{
	side->has_mean_gpus = jobs > 0 && last != first;
	if (side->has_mean_gpus)
		side->mean_gpus = (double) gpu_s / ((double) (last - first) / 1e6);
}

bool
at_replay_summarize(at_mem_fn mem, void *ctx, const at_replay_input *in, at_replay_group **groups, int32_t *ngroups)
{
	rs_types	t = {mem, ctx, NULL, 0, NULL, 0, 0};
	rs_work		w = {in, NULL, NULL, NULL, NULL, NULL, 0};
	int64_t    *scratch = NULL;
	size_t		items = in->n > 0 ? (size_t) in->n * 2 : 1;
	bool		ok = false;

	*groups = NULL;
	*ngroups = 0;
	w.group = mem(ctx, NULL, (in->n > 0 ? (size_t) in->n : 1) * sizeof(int32_t));
	w.a = mem(ctx, NULL, items * sizeof(rs_item));
	w.b = mem(ctx, NULL, items * sizeof(rs_item));
	if (w.group == NULL || w.a == NULL || w.b == NULL || rs_group(&t, NULL) != 0)
		goto done;
	/* group 0 is the all row: out of the table, so that the type NULL gets a group of its own */
	for (size_t i = 0; i < t.size; i++)
		t.slot[i] = 0;
	for (int64_t i = 0; i < in->n; i++)
		if ((w.group[i] = rs_group(&t, in->types[i])) < 0)
			goto done;
	w.ng = t.n;
	w.g = mem(ctx, NULL, sizeof(at_replay_group) * w.ng);
	w.count = mem(ctx, NULL, sizeof(int64_t) * (w.ng + 1));
	scratch = mem(ctx, NULL, sizeof(int64_t) * w.ng * 6);
	if (w.g == NULL || w.count == NULL || scratch == NULL)
		goto done;
	for (int32_t g = 0; g < w.ng; g++)
	{
		w.g[g].type = g == 0 ? NULL : t.name[g];
		w.g[g].all = g == 0;
	}
	rs_sums(&w, scratch, scratch + w.ng, scratch + 2 * w.ng, scratch + 3 * w.ng, scratch + 4 * w.ng);
	for (int32_t g = 0; g < w.ng; g++)
	{
		rs_mean_gpus(&w.g[g].rec, w.g[g].both, scratch[3 * w.ng + g], scratch[g], scratch[w.ng + g]);
		rs_mean_gpus(&w.g[g].rep, w.g[g].started, scratch[4 * w.ng + g], scratch[g], scratch[2 * w.ng + g]);
	}
	rs_queues(&w, true);
	rs_queues(&w, false);
	rs_peaks(&w, true, scratch);
	rs_peaks(&w, false, scratch);
	*groups = w.g;
	*ngroups = w.ng;
	w.g = NULL;
	ok = true;
done:
	if (w.g)
		mem(ctx, w.g, 0);
	if (w.count)
		mem(ctx, w.count, 0);
	if (scratch)
		mem(ctx, scratch, 0);
	if (w.group)
		mem(ctx, w.group, 0);
	if (w.a)
		mem(ctx, w.a, 0);
	if (w.b)
		mem(ctx, w.b, 0);
	if (t.slot)
		mem(ctx, t.slot, 0);
	if (t.name)
		mem(ctx, (void *) t.name, 0);
	return ok;
}
