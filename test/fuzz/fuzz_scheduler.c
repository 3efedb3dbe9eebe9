/*
 * fuzz_scheduler.c: the cluster scheduler (scheduler.c) on any sequence of
 * jobs, as a trace replay will feed it.
 *
 * The first 5 bytes are the configuration (nodes, GPUs per node, backfill
 * and its depth, reserved nodes and priority, class 0's quota), then 10
 * bytes per job: the
 * gap since the last submit (which may be negative: refused), GPUs,
 * priority, hold and patience (with out-of-range values the scheduler must
 * refuse).  Every accepted job must be decided exactly once, never before
 * its submit, with end = start + hold or, unstarted, at submit + patience;
 * the GPUs held never exceed the cluster, a node or class 0's quota, no group runs
 * more jobs than its limit (the last config byte's top bits), a job below the
 * reserved priority never lands on a reserved node, and nothing is left
 * allocated after destroy.
 */
#include "fuzz_common.h"
#include "scheduler.h"

#define MAX_JOBS 2000

typedef struct ev
{
	int64_t		t;
	int32_t		d;
	int32_t		node;			/* -1: whole cluster only */
	int32_t		cls;
	int32_t		group;
} ev;

static int
ev_cmp(const void *a, const void *b)
{
	const ev   *x = a,
			   *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);	/* releases first */
}

/* The nodes of the job just taken: as many as it ran on, distinct, in range, its lowest first reported. */
static void
check_taken_nodes(const at_sched *s, const at_sched_job *j, int32_t nodes)
{
	int32_t		count,
				lowest = INT32_MAX;
	const int32_t *node = at_sched_taken_nodes(s, &count);

	if (j->start < 0)
	{
		FUZZ_CHECK(node == NULL && count == 0, "nodes of a job that never started");
		return;
	}
	FUZZ_CHECK(node != NULL && count == j->nodes && count >= 1, "job %lld: %d nodes taken, %d run on",
			   (long long) j->id, count, j->nodes);
	for (int32_t i = 0; i < count; i++)
	{
		FUZZ_CHECK(node[i] >= 0 && node[i] < nodes, "node %d out of range", node[i]);
		for (int32_t k = 0; k < i; k++)
			FUZZ_CHECK(node[k] != node[i], "node %d taken twice by one job", node[i]);
		if (node[i] < lowest)
			lowest = node[i];
	}
	FUZZ_CHECK(lowest == j->node, "first node %d, lowest taken %d", j->node, lowest);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	at_sched_config c;
	at_sched   *s = NULL;
	at_sched_job *in,
			   *out;
	uint8_t    *accepted;
	int64_t		t = 0;
	int			n = 0,
				nout = 0;
	at_sched_job j;

	if (size < 5)
		return 0;
	memset(&c, 0, sizeof c);
	c.nodes = 1 + data[0] % 16;
	c.gpus_per_node = 1 + (data[1] & 15);
	c.backfill = (data[1] & 16) != 0;
	c.backfill_depth = data[1] >> 5;
	c.reserved_nodes = data[2] % 20;	/* may exceed nodes: refused */
	c.reserved_priority = data[3] % 5;
	c.class_limit[0] = data[4] % 64;	/* 0: none */
	c.group_limit = data[4] >> 6;		/* 0: none */
	fuzz_live = 0;
	if (at_sched_create(fuzz_mem, &fuzz_live, &c, &s) != AT_SCHED_OK)
	{
		FUZZ_CHECK(c.reserved_nodes > c.nodes && s == NULL && fuzz_live == 0, "a valid configuration refused");
		return 0;
	}
	in = calloc(MAX_JOBS, sizeof(at_sched_job));
	out = calloc(MAX_JOBS, sizeof(at_sched_job));
	accepted = calloc(MAX_JOBS, 1);
	for (size_t i = 5; i + 10 <= size && n < MAX_JOBS; i += 10, n++)
	{
		const uint8_t *p = data + i;
		at_sched_status st;

		memset(&j, 0, sizeof j);
		j.id = n;
		j.tag = (uint64_t) n * 3;
		j.submit = t + (int8_t) p[0];
		j.gpus = (int16_t) (p[1] << 8 | p[2]) % 200;
		j.priority = (int8_t) p[3] % 6;
		j.hold = (int32_t) ((uint32_t) p[4] << 16 | (uint32_t) p[5] << 8 | p[6]) - 1000;
		j.patience = (p[7] & 1) ? -1 : (int64_t) (p[8] << 8 | p[9]);
		j.group = (p[7] >> 1) % 4 - 1;	/* -1: none, or 0 .. 2 */
		j.key = (p[7] & 0x80) ? p[9] % 8 : 0;	/* mostly FCFS, some keyed */
		in[n] = j;
		st = at_sched_submit(s, &j);
		if (st == AT_SCHED_OK)
		{
			accepted[n] = 1;
			t = j.submit;
		}
		else
			FUZZ_CHECK(st == AT_SCHED_BAD_JOB || st == AT_SCHED_BAD_TIME, "status %d", (int) st);
		while (at_sched_take(s, &j))
		{
			FUZZ_CHECK(j.id >= 0 && j.id <= n && accepted[j.id] == 1, "job %lld decided twice or never accepted",
					   (long long) j.id);
			check_taken_nodes(s, &j, c.nodes);
			accepted[j.id] = 2;
			out[j.id] = j;
			nout++;
		}
	}
	FUZZ_CHECK(at_sched_finish(s) == AT_SCHED_OK, "finish");
	while (at_sched_take(s, &j))
	{
		FUZZ_CHECK(j.id >= 0 && j.id < n && accepted[j.id] == 1, "job %lld decided twice", (long long) j.id);
		check_taken_nodes(s, &j, c.nodes);
		accepted[j.id] = 2;
		out[j.id] = j;
		nout++;
	}
	FUZZ_CHECK(at_sched_pending(s) == 0, "pending after finish");
	{
		ev		   *e = calloc(2 * (size_t) n + 1, sizeof(ev));
		int			ne = 0;
		int64_t		held = 0,
					held0 = 0,
					running[3] = {0, 0, 0};
		int64_t    *node_held = calloc((size_t) c.nodes, sizeof(int64_t));

		for (int i = 0; i < n; i++)
		{
			at_sched_job *o = &out[i];

			if (accepted[i] == 0)
				continue;
			FUZZ_CHECK(accepted[i] == 2, "job %d accepted, never decided", i);
			FUZZ_CHECK(o->tag == (uint64_t) i * 3 && o->gpus == in[i].gpus && o->submit == in[i].submit, "job %d changed", i);
			if (o->start < 0)
			{
				FUZZ_CHECK(in[i].patience >= 0 && o->end == o->submit + in[i].patience && o->nodes == 0,
						   "job %d left without patience", i);
				continue;
			}
			FUZZ_CHECK(o->start >= o->submit && o->end == o->start + o->hold, "job %d times", i);
			FUZZ_CHECK(o->nodes == (o->gpus + c.gpus_per_node - 1) / c.gpus_per_node &&
					   o->node >= 0 && o->node < c.nodes, "job %d placement", i);
			FUZZ_CHECK(o->priority >= c.reserved_priority || o->node >= c.reserved_nodes,
					   "job %d below the reserved priority on a reserved node", i);
			e[ne++] = (ev) {o->start, o->gpus, o->gpus <= c.gpus_per_node ? o->node : -1, o->priority, o->group};
			e[ne++] = (ev) {o->end, -o->gpus, o->gpus <= c.gpus_per_node ? o->node : -1, o->priority, o->group};
		}
		qsort(e, (size_t) ne, sizeof(ev), ev_cmp);
		for (int i = 0; i < ne; i++)
		{
			held += e[i].d;
			FUZZ_CHECK(held <= (int64_t) c.nodes * c.gpus_per_node, "over capacity");
			if (e[i].group >= 0)
			{
				running[e[i].group] += e[i].d > 0 ? 1 : -1;
				FUZZ_CHECK(c.group_limit == 0 || running[e[i].group] <= c.group_limit, "group %d over its limit",
						   e[i].group);
			}
			if (e[i].cls == 0)
			{
				held0 += e[i].d;
				FUZZ_CHECK(c.class_limit[0] == 0 || held0 <= c.class_limit[0], "class 0 over its quota");
			}
			if (e[i].node >= 0)
			{
				node_held[e[i].node] += e[i].d;
				FUZZ_CHECK(node_held[e[i].node] <= c.gpus_per_node, "node %d over its GPUs", e[i].node);
			}
		}
		free(e);
		free(node_held);
	}
	at_sched_destroy(s);
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations left", fuzz_live);
	free(in);
	free(out);
	free(accepted);
	(void) nout;
	return 0;
}
