/* test_scheduler.c: the cluster scheduler's placement, priorities, backfill, patience and pools. */
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"
#include "tap.h"

#define MAXJ 64

typedef struct run
{
	at_sched   *s;
	at_sched_job out[MAXJ];		/* by id */
	int			decided[MAXJ];
} run;

static at_sched_config
config(int nodes, bool backfill, int reserved, int reserved_priority)
{
	at_sched_config c;

	memset(&c, 0, sizeof c);
	c.nodes = nodes;
	c.gpus_per_node = 8;
	c.backfill = backfill;
	c.backfill_depth = 100;
	c.reserved_nodes = reserved;
	c.reserved_priority = reserved_priority;
	return c;
}

static void
drain(run *r)
{
	at_sched_job j;

	while (at_sched_take(r->s, &j))
	{
		if (j.id >= 0 && j.id < MAXJ)
		{
			r->out[j.id] = j;
			r->decided[j.id]++;
		}
	}
}

static at_sched_status
submit(run *r, int64_t id, int64_t t, int gpus, int64_t hold, int priority, int64_t patience)
{
	at_sched_job j;
	at_sched_status st;

	memset(&j, 0, sizeof j);
	j.id = id;
	j.tag = (uint64_t) id * 7;
	j.submit = t;
	j.gpus = gpus;
	j.hold = hold;
	j.priority = priority;
	j.patience = patience;
	j.group = -1;
	st = at_sched_submit(r->s, &j);
	drain(r);
	return st;
}

static void
finish(run *r)
{
	at_sched_finish(r->s);
	drain(r);
}

static void
start_run(run *r, at_sched_config c)
{
	memset(r, 0, sizeof *r);
	at_sched_create(tap_mem, NULL, &c, &r->s);
}

/* an allocator that fails from its n-th call on */
static long alloc_calls,
			alloc_fail_at;
static void *
failing_mem(void *ctx, void *p, size_t n)
{
	if (n > 0 && ++alloc_calls >= alloc_fail_at)
		return NULL;
	return tap_mem(ctx, p, n);
}

typedef struct ev
{
	int64_t		t;
	int			d;
} ev;

static int
cmp_ev(const void *a, const void *b)
{
	const ev   *x = a,
			   *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d;			/* releases first */
}

/* Random jobs: each decided once, never before its submit, capacity never exceeded, deterministic. */
static void
stress(void)
{
	enum
	{
		N = 20000, NODES = 16
	};
	at_sched_config c = config(NODES, true, 4, 2);
	at_sched_job *seen[2];
	int			pass;
	int			once = 1,
				order = 1,
				leave_ok = 1,
				cap_ok = 1,
				node_ok = 1;

	for (pass = 0; pass < 2; pass++)
	{
		at_sched   *s;
		unsigned	x = 12345;
		int64_t		t = 0;
		long		k = 0;
		at_sched_job j;

		seen[pass] = calloc(N, sizeof(at_sched_job));
		at_sched_create(tap_mem, NULL, &c, &s);
		for (long i = 0; i < N; i++)
		{
			at_sched_job q;
			int			sizes[] = {1, 1, 1, 2, 4, 8, 8, 16, 32, 64};

			memset(&q, 0, sizeof q);
			x = x * 1103515245u + 12345u;
			t += (x >> 16) % 40;
			q.id = i;
			q.submit = t;
			q.priority = (int) ((x >> 8) % 4);
			q.gpus = sizes[(x >> 20) % 10];
			if (q.priority < 2 && q.gpus > 96)
				q.gpus = 96;
			q.hold = (int64_t) ((x >> 4) % 3000);
			q.patience = (x >> 12) % 5 == 0 ? (int64_t) ((x >> 3) % 500) : -1;
			if (at_sched_submit(s, &q) != AT_SCHED_OK)
				once = 0;
			while (at_sched_take(s, &j))
			{
				if (seen[pass][j.id].gpus != 0)
					once = 0;
				seen[pass][j.id] = j;
				k++;
			}
		}
		at_sched_finish(s);
		while (at_sched_take(s, &j))
		{
			if (seen[pass][j.id].gpus != 0)
				once = 0;
			seen[pass][j.id] = j;
			k++;
		}
		if (k != N || at_sched_pending(s) != 0)
			once = 0;
		at_sched_destroy(s);
	}
	{
		ev		   *e = malloc(sizeof(ev) * 2 * N);
		long		ne = 0,
					cur = 0;
		/* per node: the GPUs held by single-node jobs */
		ev		   *ne_node = malloc(sizeof(ev) * 2 * N);

		for (long i = 0; i < N; i++)
		{
			at_sched_job *j = &seen[0][i];

			if (j->start >= 0)
			{
				if (j->start < j->submit || j->end != j->start + j->hold)
					order = 0;
				if (j->nodes != (j->gpus + 7) / 8 || j->node < 0 || j->node >= NODES)
					node_ok = 0;
				/* a low priority job never runs on a reserved node */
				if (j->priority < 2 && j->node < 4)
					node_ok = 0;
				e[ne].t = j->start;
				e[ne++].d = j->gpus;
				e[ne].t = j->end;
				e[ne++].d = -j->gpus;
			}
			else if (j->patience < 0 || j->end != j->submit + j->patience || j->nodes != 0)
				leave_ok = 0;
			if (memcmp(&seen[0][i], &seen[1][i], sizeof(at_sched_job)) != 0)
				order = 0;
		}
		qsort(e, ne, sizeof(ev), cmp_ev);
		for (long i = 0; i < ne; i++)
			if ((cur += e[i].d) > NODES * 8)
				cap_ok = 0;
		/* each node: single-node jobs on it never hold more than 8 GPUs */
		for (int node = 0; node < NODES; node++)
		{
			long		m = 0,
						held = 0;

			for (long i = 0; i < N; i++)
			{
				at_sched_job *j = &seen[0][i];

				if (j->start >= 0 && j->gpus <= 8 && j->node == node)
				{
					ne_node[m].t = j->start;
					ne_node[m++].d = j->gpus;
					ne_node[m].t = j->end;
					ne_node[m++].d = -j->gpus;
				}
			}
			qsort(ne_node, m, sizeof(ev), cmp_ev);
			for (long i = 0; i < m; i++)
				if ((held += ne_node[i].d) > 8)
					node_ok = 0;
		}
		free(e);
		free(ne_node);
	}
	CHECK(once, "stress: 20,000 random jobs each decided exactly once, none left pending");
	CHECK(order, "stress: every start at or after its submit, end = start + hold, same decisions on a second run");
	CHECK(leave_ok, "stress: jobs that never start left at submit + patience");
	CHECK(cap_ok, "stress: GPUs allocated never exceed the capacity");
	CHECK(node_ok, "stress: nodes as gang-sized, no node over 8 GPUs, no low-priority job on a reserved node");
	free(seen[0]);
	free(seen[1]);
}

void
test_scheduler(void)
{
	run			r;
	at_sched   *s;
	at_sched_config c;
	at_sched_status st;

	/* configuration and job validation */
	c = config(0, true, 0, 0);
	st = at_sched_create(tap_mem, NULL, &c, &s);
	CHECK(st == AT_SCHED_BAD_CONFIG && s == NULL, "scheduler: 0 nodes refused");
	c = config(4, true, 5, 0);
	st = at_sched_create(tap_mem, NULL, &c, &s);
	CHECK(st == AT_SCHED_BAD_CONFIG, "scheduler: more reserved nodes than nodes refused");
	start_run(&r, config(2, false, 1, 2));
	st = submit(&r, 0, 0, 0, 10, 0, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "scheduler: 0 GPUs refused");
	st = submit(&r, 0, 0, 17, 10, 2, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "scheduler: more GPUs than the cluster refused");
	st = submit(&r, 0, 0, 16, 10, 1, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "scheduler: a low-priority job larger than the shared pool refused");
	st = submit(&r, 0, 0, 1, 10, AT_SCHED_PRIORITIES, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "scheduler: priority out of range refused");
	st = submit(&r, 0, 0, 1, -1, 0, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "scheduler: negative hold refused");
	st = submit(&r, 4, -1, 1, 10, 0, -1);
	CHECK(st == AT_SCHED_BAD_TIME, "scheduler: a negative submit time refused (start -1 means never started)");
	st = submit(&r, 5, 100, 1, 10, 0, -1);
	CHECK(st == AT_SCHED_OK, "scheduler: a job accepted");
	st = submit(&r, 1, 99, 1, 10, 0, -1);
	CHECK(st == AT_SCHED_BAD_TIME, "scheduler: a submit before an earlier one refused");
	finish(&r);
	st = submit(&r, 2, 200, 1, 10, 0, -1);
	CHECK(st == AT_SCHED_BAD_TIME, "scheduler: a submit after finish refused");
	CHECK(strcmp(at_sched_status_text(AT_SCHED_BAD_TIME), "ok") != 0 && r.decided[5] == 1 && r.out[5].tag == 35 &&
		  r.decided[0] + r.decided[1] + r.decided[2] + r.decided[4] == 0,
		  "scheduler: only the accepted job decided, once, its tag carried");
	at_sched_destroy(r.s);

	/* capacity: a job waits until GPUs are free */
	start_run(&r, config(2, false, 0, 0));
	submit(&r, 0, 0, 16, 100, 0, -1);
	submit(&r, 1, 10, 8, 50, 0, -1);
	CHECK(r.decided[0] && r.out[0].start == 0 && r.out[0].end == 100 && r.out[0].nodes == 2 && r.out[0].node == 0,
		  "capacity: a 16-GPU job on 2 whole nodes at once");
	CHECK(!r.decided[1] && at_sched_pending(r.s) == 1 && at_sched_allocated(r.s) == 16,
		  "capacity: the next job pending while the cluster is full");
	finish(&r);
	CHECK(r.out[1].start == 100 && r.out[1].end == 150 && at_sched_allocated(r.s) == 8 && at_sched_pending(r.s) == 0,
		  "capacity: it starts when the GPUs are released (100); finish stops with nothing pending");
	at_sched_destroy(r.s);

	/* priorities: the higher class starts first, whatever the submit order */
	start_run(&r, config(1, false, 0, 0));
	submit(&r, 0, 0, 8, 100, 0, -1);
	submit(&r, 1, 1, 8, 10, 0, -1);
	submit(&r, 2, 2, 8, 10, 3, -1);
	submit(&r, 3, 3, 8, 10, 1, -1);
	finish(&r);
	CHECK(r.out[2].start == 100 && r.out[3].start == 110 && r.out[1].start == 120,
		  "priority: classes 3, 1, 0 in that order once the GPUs free up (100, 110, 120)");
	at_sched_destroy(r.s);

	/* keys: within a class the lowest key first, equal keys in submit order */
	{
		at_sched_job j;
		const int64_t keys[6] = {0, 50, 10, 10, 5, 50};
		at_sched_status st = AT_SCHED_OK;

		start_run(&r, config(1, false, 0, 0));
		for (int i = 0; i < 6; i++)
		{
			memset(&j, 0, sizeof j);
			j.id = i;
			j.submit = i;
			j.gpus = 8;
			j.hold = i == 0 ? 100 : 10;
			j.patience = -1;
			j.group = -1;
			j.key = keys[i];
			st |= at_sched_submit(r.s, &j);
			drain(&r);
		}
		finish(&r);
		CHECK(st == AT_SCHED_OK && r.out[4].start == 100 && r.out[2].start == 110 && r.out[3].start == 120 &&
			  r.out[1].start == 130 && r.out[5].start == 140,
			  "keys: after the running job, keys 5, 10, 10, 50, 50 in that order, ties by submit (%lld %lld %lld %lld %lld)",
			  (long long) r.out[4].start, (long long) r.out[2].start, (long long) r.out[3].start,
			  (long long) r.out[1].start, (long long) r.out[5].start);
		at_sched_destroy(r.s);
		start_run(&r, config(1, false, 0, 0));
		memset(&j, 0, sizeof j);
		j.gpus = 1;
		j.patience = -1;
		j.group = -1;
		j.key = -1;
		CHECK(at_sched_submit(r.s, &j) == AT_SCHED_BAD_JOB, "keys: a negative key refused");
		at_sched_destroy(r.s);
	}

	/* gang and fragmentation: free GPUs on two nodes do not make one node's worth */
	start_run(&r, config(2, false, 0, 0));
	submit(&r, 0, 0, 6, 100, 0, -1);
	submit(&r, 1, 0, 6, 200, 0, -1);
	submit(&r, 2, 1, 4, 10, 0, -1);
	CHECK(r.out[0].node != r.out[1].node && !r.decided[2],
		  "gang: two 6-GPU jobs on two nodes; a 4-GPU job waits with 2 + 2 GPUs free");
	submit(&r, 3, 100, 2, 10, 0, -1);
	finish(&r);
	CHECK(r.out[2].start == 100 && r.out[2].node == r.out[0].node,
		  "gang: it starts on the node released at 100");
	CHECK(r.out[3].start == 100 && r.out[3].node == r.out[1].node,
		  "best fit: a 2-GPU job goes to the node with 2 free, not the emptier one");
	at_sched_destroy(r.s);

	/* EASY backfill: a short job runs ahead of a blocked head, a long one does not */
	for (int bf = 0; bf < 2; bf++)
	{
		start_run(&r, config(2, bf, 0, 0));
		submit(&r, 0, 0, 8, 100, 0, -1);
		submit(&r, 1, 1, 16, 10, 0, -1);
		submit(&r, 2, 2, 8, 50, 0, -1);
		submit(&r, 3, 3, 8, 500, 0, -1);
		finish(&r);
		if (bf)
		{
			CHECK(r.out[2].start == 2 && r.out[1].start == 100,
				  "backfill: a job ending before the head's reservation starts at once (2), the head still at 100");
			CHECK(r.out[3].start == 110, "backfill: a job that would delay the head waits for it (110)");
		}
		else
			CHECK(r.out[1].start == 100 && r.out[2].start == 110 && r.out[3].start == 110,
				  "no backfill: strict order, the short job waits behind the head");
		at_sched_destroy(r.s);
	}
	/* backfill into GPUs the head will not need */
	start_run(&r, config(3, true, 0, 0));
	submit(&r, 0, 0, 16, 100, 0, -1);
	submit(&r, 1, 1, 16, 10, 0, -1);
	submit(&r, 2, 2, 8, 1000, 0, -1);
	finish(&r);
	CHECK(r.out[2].start == 2 && r.out[1].start == 100,
		  "backfill: a long job on GPUs left over at the head's reservation starts at once");
	at_sched_destroy(r.s);

	/* the reservation counts whole nodes: 2 + 2 free GPUs on two busy nodes do not bring a gang forward */
	start_run(&r, config(3, true, 0, 0));
	submit(&r, 0, 0, 6, 1000, 0, -1);
	submit(&r, 1, 0, 6, 1000, 0, -1);
	submit(&r, 2, 0, 8, 100, 0, -1);
	submit(&r, 3, 1, 12, 10, 0, -1);
	submit(&r, 4, 2, 2, 500, 0, -1);
	finish(&r);
	CHECK(r.out[4].start == 2 && r.out[3].start == 1000,
		  "backfill: the gang's reservation is 1000 (whole nodes), not 100 (GPU count), so a job ending at 502 runs now");
	at_sched_destroy(r.s);

	/* patience: a job that waits too long leaves unstarted */
	start_run(&r, config(1, true, 0, 0));
	submit(&r, 0, 0, 8, 1000, 0, -1);
	submit(&r, 1, 10, 4, 10, 0, 50);
	submit(&r, 2, 20, 4, 10, 0, 5000);
	CHECK(!r.decided[1], "patience: still waiting before its patience runs out");
	finish(&r);
	CHECK(r.decided[1] && r.out[1].start == -1 && r.out[1].end == 60 && r.out[1].nodes == 0 && r.out[1].node == -1,
		  "patience: left unstarted at submit + patience (60)");
	CHECK(r.out[2].start == 1000, "patience: a patient job starts when the GPUs free up");
	at_sched_destroy(r.s);

	/* pools: reserved nodes for the high classes only */
	start_run(&r, config(2, true, 1, 2));
	submit(&r, 0, 0, 8, 100, 0, -1);
	submit(&r, 1, 1, 8, 100, 1, -1);
	submit(&r, 2, 2, 8, 100, 2, -1);
	CHECK(r.out[0].node == 1 && !r.decided[1] && r.out[2].node == 0 && r.out[2].start == 2,
		  "pools: a low-priority job in the shared pool, the next one waits though a reserved node is free, a high one takes it");
	submit(&r, 3, 3, 16, 10, 3, -1);
	finish(&r);
	CHECK(r.out[3].start == 102 && r.out[3].nodes == 2 && r.out[1].start == 112,
		  "pools: a high-priority job spans both pools once they free up (102), the low one after it (112)");
	at_sched_destroy(r.s);

	/* a class's quota: its jobs wait at the limit though GPUs are free */
	c = config(2, true, 0, 0);
	c.class_limit[0] = 8;
	c.class_limit[1] = -1;
	st = at_sched_create(tap_mem, NULL, &c, &s);
	CHECK(st == AT_SCHED_BAD_CONFIG, "quota: a negative class limit refused");
	c.class_limit[1] = 0;
	start_run(&r, c);
	st = submit(&r, 0, 0, 9, 10, 0, -1);
	CHECK(st == AT_SCHED_BAD_JOB, "quota: a job larger than its class's quota refused");
	submit(&r, 1, 0, 8, 100, 0, -1);
	submit(&r, 2, 1, 4, 10, 0, -1);
	submit(&r, 3, 2, 8, 10, 1, -1);
	CHECK(r.out[1].start == 0 && !r.decided[2] && r.out[3].start == 2,
		  "quota: class 0 at its 8 GPUs waits with 8 free, class 1 takes them");
	finish(&r);
	CHECK(r.out[2].start == 100, "quota: the waiting job starts when its class frees GPUs (100)");
	at_sched_destroy(r.s);

	/* a group's limit: its jobs beyond the limit wait without blocking the others */
	c = config(4, true, 0, 0);
	c.group_limit = 2;
	start_run(&r, c);
	for (int i = 0; i < 4; i++)
	{
		at_sched_job j;

		memset(&j, 0, sizeof j);
		j.id = i;
		j.submit = i;
		j.gpus = 1;
		j.hold = 100;
		j.group = 7;
		j.patience = -1;
		at_sched_submit(r.s, &j);
		drain(&r);
	}
	submit(&r, 4, 5, 1, 10, 0, -1);
	CHECK(r.decided[0] && r.decided[1] && !r.decided[2] && !r.decided[3] && r.out[4].start == 5,
		  "groups: two of a group's four jobs run, an ungrouped job behind them starts at once");
	finish(&r);
	CHECK(r.out[2].start == 100 && r.out[3].start == 101, "groups: the others start as the first two end (100, 101)");
	at_sched_destroy(r.s);

	/* out of memory at every allocation: an error, never a crash */
	{
		int			all_ok = 1,
					seen_nomem = 0;

		for (alloc_fail_at = 1; alloc_fail_at < 40; alloc_fail_at++)
		{
			at_sched_job j;

			alloc_calls = 0;
			c = config(4, true, 1, 2);
			st = at_sched_create(failing_mem, NULL, &c, &s);
			if (st != AT_SCHED_OK)
			{
				all_ok &= st == AT_SCHED_NOMEM && s == NULL;
				seen_nomem = 1;
				continue;
			}
			for (int i = 0; i < 300 && st == AT_SCHED_OK; i++)
			{
				memset(&j, 0, sizeof j);
				j.id = i;
				j.submit = i;
				j.gpus = i % 3 == 0 ? 16 : 1 + i % 8;
				j.hold = 50 + i % 7;
				j.priority = i % 4;
				j.patience = i % 5 == 0 ? 20 : -1;
				st = at_sched_submit(s, &j);
			}
			if (st == AT_SCHED_OK)
				st = at_sched_finish(s);
			if (st == AT_SCHED_NOMEM)
				seen_nomem = 1;
			else
				all_ok &= st == AT_SCHED_OK;
			at_sched_destroy(s);
		}
		CHECK(all_ok && seen_nomem, "out of memory: AT_SCHED_NOMEM from create, submit or finish, then a clean destroy");
	}

	stress();
}
