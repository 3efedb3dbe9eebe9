/*
 * test_replay.c: a trace decided by the scheduler, replayed under the same
 * policy and capacity, starts every job at its recorded time; shortest
 * first waits less than FCFS; jobs that never ran and bad input; the
 * policies by name, recorded jobs under each, and a small replay of them.
 */
#include <math.h>
#include <string.h>

#include "replay.h"
#include "rng.h"
#include "tap.h"

#define N 4000

static at_sched_config
cluster(int nodes, bool backfill)
{
	at_sched_config c;

	memset(&c, 0, sizeof c);
	c.nodes = nodes;
	c.gpus_per_node = 8;
	c.backfill = backfill;
	c.backfill_depth = 64;
	return c;
}

/* A busy trace: arrivals faster than 16 nodes serve, sizes 1 .. 32 GPUs. */
static void
make_trace(at_replay_job *jobs, uint64_t seed, double never_ran)
{
	at_rng		r;
	int64_t		t = 0;

	at_rng_seed(&r, seed);
	for (int i = 0; i < N; i++)
	{
		memset(&jobs[i], 0, sizeof jobs[i]);
		t += (int64_t) at_rng_exponential(&r, 40.0);
		jobs[i].submit = t;
		jobs[i].gpus = 1 << (int) (at_rng_uniform(&r) * 6);
		jobs[i].run = (int64_t) (60.0 * exp(2.0 * at_rng_normal(&r)));
		if (at_rng_uniform(&r) < never_ran)
		{
			jobs[i].run = -1;
			jobs[i].wait = (int64_t) at_rng_exponential(&r, 600.0);
		}
	}
}

static double
mean_wait(const at_replay_job *jobs)
{
	double		sum = 0;
	int			n = 0;

	for (int i = 0; i < N; i++)
		if (jobs[i].start >= 0)
		{
			sum += (double) (jobs[i].start - jobs[i].submit);
			n++;
		}
	return sum / n;
}

static void
count_tick(void *arg)
{
	(*(int *) arg)++;
}

/* The tick runs every AT_SCHED_TICK instants and changes nothing. */
static void
test_tick(void)
{
	enum
	{
		M = 150000
	};
	static at_replay_job x[M],
				y[M];
	at_sched_config c = cluster(2, true);
	int			ticks = 0;
	int64_t		bad;
	bool		same = true;

	for (int i = 0; i < M; i++)
	{
		memset(&x[i], 0, sizeof x[i]);
		x[i].submit = 3 * (int64_t) i;	/* each job's end an instant of its own */
		x[i].gpus = 1 + i % 16;
		x[i].run = 1;
	}
	memcpy(y, x, sizeof x);
	at_replay(tap_mem, NULL, &c, x, M, &bad);
	c.tick = count_tick;
	c.tick_arg = &ticks;
	at_replay(tap_mem, NULL, &c, y, M, &bad);
	for (int i = 0; i < M; i++)
		same &= x[i].start == y[i].start && x[i].end == y[i].end;
	CHECK(ticks == M / AT_SCHED_TICK && same,
		  "replay: the tick ran %d times over %d jobs, starts unchanged", ticks, M);
}

/* Every policy name in any case, and names that are not policies. */
static void
test_policy_names(void)
{
	static const char *const good[] = {"fifo", "FIFO", "priority", "Priority", "sjf", "sJf"};
	static const at_replay_policy want[] = {AT_REPLAY_FIFO, AT_REPLAY_FIFO, AT_REPLAY_PRIORITY, AT_REPLAY_PRIORITY,
	AT_REPLAY_SJF, AT_REPLAY_SJF};
	static const char *const bad[] = {"", "fif", "fifo ", "sjff", "lifo", "priorit", "prioritY2"};
	int			wrong = 0;

	for (int i = 0; i < 6; i++)
	{
		at_replay_policy p = AT_REPLAY_SJF + 1;

		wrong += !at_replay_policy_by_name(good[i], &p) || p != want[i];
	}
	CHECK(wrong == 0, "replay: fifo, priority and sjf known in any case (%d wrong)", wrong);
	wrong = 0;
	for (int i = 0; i < 7; i++)
	{
		at_replay_policy p = AT_REPLAY_FIFO;

		wrong += at_replay_policy_by_name(bad[i], &p);
	}
	CHECK(wrong == 0, "replay: unknown policy names refused (%d taken)", wrong);
	CHECK(at_replay_type_class("Pretrain") == 3 && at_replay_type_class("SFT") == 2 && at_replay_type_class("MLLM") == 2 &&
		  at_replay_type_class("Debug") == 1 && at_replay_type_class("Eval") == 0 && at_replay_type_class(NULL) == 0,
		  "replay: the priority classes of the job types");
	CHECK(!at_replay_capacity_ok(0) && !at_replay_capacity_ok(12) && at_replay_capacity_ok(8) &&
		  at_replay_capacity_ok((int64_t) AT_SCHED_MAX_NODES * 8) && !at_replay_capacity_ok((int64_t) AT_SCHED_MAX_NODES * 8 + 8),
		  "replay: capacities of whole nodes up to the scheduler's maximum");
}

/*
 * Three recorded jobs on one node, each under every policy: a long
 * Pretrain job, a short Debug job, and a job cancelled while queued.
 */
static void
test_small_replay(void)
{
	at_replay_record rec[3];
	at_replay_job j[3];
	at_sched_config c;
	int64_t		bad;
	bool		ok = true;

	memset(rec, 0, sizeof rec);
	rec[0] = (at_replay_record) {.submit = 1000, .start = 1000, .end = 1500, .has_start = true, .has_end = true,
	.type = "Pretrain", .gpus = 8, .has_pred = true, .pred = 1e15};
	rec[1] = (at_replay_record) {.submit = 1010, .start = 1500, .end = 1530, .has_start = true, .has_end = true,
	.type = "Debug", .gpus = 4, .has_pred = false};
	rec[2] = (at_replay_record) {.submit = 1020, .end = 1100, .has_end = true, .type = NULL, .gpus = 8,
	.has_pred = true, .pred = -3};

	/* fifo: recorded runs and waits, no class, no key */
	for (int i = 0; i < 3; i++)
		at_replay_job_of(&j[i], &rec[i], 1000, AT_REPLAY_FIFO, false);
	ok = ok && j[0].submit == 0 && j[0].run == 500 && j[0].priority == 0 && j[0].key == 0;
	ok = ok && j[1].submit == 10 && j[1].run == 30 && j[2].run == -1 && j[2].wait == 80 && j[2].submit == 20;
	CHECK(ok, "replay: fifo jobs keep their recorded runs and waits, no class or key");
	at_replay_config(&c, 8, true);
	ok = c.nodes == 1 && c.gpus_per_node == 8 && c.backfill && c.backfill_depth == 256;
	ok = ok && at_replay(tap_mem, NULL, &c, j, 3, &bad) == AT_SCHED_OK;
	/* the Debug job starts when the Pretrain job ends; the queued job leaves after its wait */
	ok = ok && j[0].start == 0 && j[0].end == 500 && j[1].start == 500 && j[1].end == 530;
	ok = ok && j[2].start == -1 && j[2].end == 100;
	CHECK(ok, "replay: a small fifo replay on one node");

	for (int i = 0; i < 3; i++)
		at_replay_job_of(&j[i], &rec[i], 1000, AT_REPLAY_PRIORITY, false);
	CHECK(j[0].priority == 3 && j[1].priority == 1 && j[2].priority == 0 && j[0].key == 0,
		  "replay: priority classes by type");
	for (int i = 0; i < 3; i++)
		at_replay_job_of(&j[i], &rec[i], 1000, AT_REPLAY_SJF, false);
	CHECK(j[0].key == 500 && j[1].key == 30 && j[2].key == 0 && j[0].priority == 0,
		  "replay: sjf without predictions keys by the recorded run");
	for (int i = 0; i < 3; i++)
		at_replay_job_of(&j[i], &rec[i], 1000, AT_REPLAY_SJF, true);
	CHECK(j[0].key == AT_REPLAY_KEY_MAX && j[1].key == AT_REPLAY_KEY_MAX && j[2].key == 0,
		  "replay: sjf predictions clamped, a missing one last");
	rec[0].has_end = false;
	rec[2].has_end = false;
	at_replay_job_of(&j[0], &rec[0], 1000, AT_REPLAY_FIFO, false);
	at_replay_job_of(&j[2], &rec[2], 1000, AT_REPLAY_FIFO, false);
	CHECK(j[0].run == 0 && j[2].run == -1 && j[2].wait == 0, "replay: no recorded end: no run, no wait");
}

/* replay_summary's oracle: each figure of one group computed the plain way. */
typedef struct oracle
{
	int64_t		jobs, started, both, rq_n, rq_sum, q_sum, rjct, jct, rpeak, peak;
	double		rmed, rp90, med, p90, rgpus, gpus;
	bool		has_rgpus, has_gpus;
} oracle;

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static int
cmp_event(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static double
pct(double *v, int64_t n, double q)
{
	double		pos = q * (double) (n - 1),
				lo,
				hi;

	qsort(v, (size_t) n, sizeof(double), cmp_double);
	lo = v[(int64_t) floor(pos)];
	hi = v[(int64_t) ceil(pos)];
	return lo + ((pos - floor(pos)) * (hi - lo));
}

static int64_t
peak_of(int64_t *ev, int64_t n)
{
	int64_t		level = 0,
				peak = 0;

	qsort(ev, (size_t) n, 2 * sizeof(int64_t), cmp_event);
	for (int64_t i = 0; i < n; i++)
		if ((level += ev[2 * i + 1]) > peak)
			peak = level;
	return peak;
}

/* The oracle of the jobs in[i] with in_group(i): all when type_all. */
static oracle
summary_oracle(const at_replay_input *in, bool type_all, const char *type)
{
	oracle		o;
	double	   *rq = calloc((size_t) in->n + 1, sizeof(double)),
			   *q = calloc((size_t) in->n + 1, sizeof(double));
	int64_t    *rev = calloc((size_t) in->n * 4 + 1, sizeof(int64_t)),
			   *ev = calloc((size_t) in->n * 4 + 1, sizeof(int64_t)),
				nev = 0,
				first = INT64_MAX,
				rlast = INT64_MIN,
				last = INT64_MIN;
	double		rgs = 0,
				gs = 0;

	memset(&o, 0, sizeof o);
	for (int64_t i = 0; i < in->n; i++)
	{
		const at_replay_job *j = &in->jobs[i];
		const char *t = in->types[i];
		int64_t		rqs = in->has_rec[i] ? (int64_t) floor((double) (in->rec_start[i] - in->origin) / 1e6) - j->submit : 0;
		int64_t		run = j->end - j->start;

		if (!type_all && !(t == type || (t && type && strcmp(t, type) == 0)))
			continue;
		o.jobs++;
		first = j->submit * 1000000 < first ? j->submit * 1000000 : first;
		if (in->has_rec[i])
		{
			rq[o.rq_n++] = (double) rqs;
			o.rq_sum += rqs;
		}
		if (j->start < 0)
			continue;
		q[o.started++] = (double) (j->start - j->submit);
		o.q_sum += j->start - j->submit;
		o.jct += j->start - j->submit + run;
		gs += (double) j->gpus * (double) run;
		last = j->end * 1000000 > last ? j->end * 1000000 : last;
		if (!in->has_rec[i])
			continue;
		o.both++;
		o.rjct += rqs + run;
		rgs += (double) j->gpus * (double) run;
		if (in->rec_start[i] - in->origin + run * 1000000 > rlast)
			rlast = in->rec_start[i] - in->origin + run * 1000000;
		if (run > 0)
		{
			int64_t		r0 = in->rec_start[i] - in->origin;
			int64_t		add[8] = {r0, j->gpus, r0 + run * 1000000, -j->gpus,
				j->start * 1000000, j->gpus, j->end * 1000000, -j->gpus};

			memcpy(rev + 2 * nev, add, 4 * sizeof(int64_t));
			memcpy(ev + 2 * nev, add + 4, 4 * sizeof(int64_t));
			nev += 2;
		}
	}
	if (o.rq_n > 0)
		o.rmed = pct(rq, o.rq_n, 0.5), o.rp90 = pct(rq, o.rq_n, 0.9);
	if (o.started > 0)
		o.med = pct(q, o.started, 0.5), o.p90 = pct(q, o.started, 0.9);
	o.rpeak = peak_of(rev, nev);
	o.peak = peak_of(ev, nev);
	o.has_rgpus = o.both > 0 && rlast != first;
	o.rgpus = o.has_rgpus ? rgs / ((double) (rlast - first) / 1e6) : 0;
	o.has_gpus = o.started > 0 && last != first;
	o.gpus = o.has_gpus ? gs / ((double) (last - first) / 1e6) : 0;
	free(rq), free(q), free(rev), free(ev);
	return o;
}

/* Whether a group of the summary has the oracle's figures, to the bit. */
static bool
summary_matches(const at_replay_group *g, const oracle *o)
{
	return g->jobs == o->jobs && g->started == o->started && g->both == o->both &&
		g->rec.queued == o->rq_n && g->rec.queue_sum == o->rq_sum &&
		g->rep.queued == o->started && g->rep.queue_sum == o->q_sum &&
		(o->rq_n == 0 || (g->rec.median == o->rmed && g->rec.p90 == o->rp90)) &&
		(o->started == 0 || (g->rep.median == o->med && g->rep.p90 == o->p90)) &&
		g->rec.jct_n == o->both && g->rec.jct_sum == o->rjct && g->rep.jct_n == o->started && g->rep.jct_sum == o->jct &&
		(o->both == 0 || (g->rec.peak == o->rpeak && g->rep.peak == o->peak)) &&
		g->rec.has_mean_gpus == o->has_rgpus && (!o->has_rgpus || g->rec.mean_gpus == o->rgpus) &&
		g->rep.has_mean_gpus == o->has_gpus && (!o->has_gpus || g->rep.mean_gpus == o->gpus);
}

/*
 * replay_summary's figures against the oracle, per type and for all: types
 * NULL and equal texts at different addresses, jobs never started,
 * zero-length runs, recorded starts before the submit and off the second;
 * an empty replay; out of memory at every allocation, nothing leaked.
 */
static void
test_summary_figures(void)
{
	enum
	{
		M = N					/* make_trace's */
	};
	static at_replay_job jobs[M];
	static const char *types[M];
	static int64_t rec[M];
	static bool has_rec[M];
	static char names[M][8];
	at_sched_config c = cluster(4, true);
	at_rng		r;
	int64_t		bad,
				origin = INT64_C(700000000) * 1000000;
	at_replay_input in = {jobs, M, types, rec, has_rec, origin};
	at_replay_group *g;
	int32_t		ng;
	int			wrong = 0,
				nulls = 0,
				zero = 0,
				unstarted = 0;

	make_trace(jobs, 11, 0.1);
	at_rng_seed(&r, 12);
	for (int i = 0; i < M; i++)
	{
		int			k = (int) (at_rng_uniform(&r) * 4);

		if (i % 13 == 0 && jobs[i].run > 0)
			jobs[i].run = 0;
		snprintf(names[i], sizeof names[i], "%s", k == 1 ? "Eval" : k == 2 ? "SFT" : "Debug");
		types[i] = k == 0 ? NULL : names[i];
		has_rec[i] = at_rng_uniform(&r) < 0.8;
		rec[i] = origin + (jobs[i].submit + (int64_t) (at_rng_uniform(&r) * 900) - 60) * 1000000 +
			(i % 3 ? (int64_t) (at_rng_uniform(&r) * 999999) : 0);
	}
	at_replay(tap_mem, NULL, &c, jobs, M, &bad);
	CHECK(at_replay_summarize(tap_mem, NULL, &in, &g, &ng) && ng == 5 && g[0].all && !g[1].all,
		  "replay summary: the all row and four types (NULL one of them): %d groups", (int) ng);
	for (int32_t k = 0; k < ng; k++)
	{
		oracle		o = summary_oracle(&in, k == 0, g[k].type);

		wrong += !summary_matches(&g[k], &o);
		nulls += k > 0 && g[k].type == NULL;
	}
	for (int i = 0; i < M; i++)
	{
		zero += jobs[i].start >= 0 && jobs[i].end == jobs[i].start;
		unstarted += jobs[i].start < 0;
	}
	CHECK(wrong == 0 && nulls == 1 && zero > 50 && unstarted > 10,
		  "replay summary: every group equals the oracle (%d wrong; %d zero-length, %d never started)",
		  wrong, zero, unstarted);
	CHECK(g[0].rep.peak <= 32 && g[0].rep.peak > 0 && g[0].rec.peak > g[0].rep.peak,
		  "replay summary: the replayed peak within 32 GPUs (%lld), the recorded one over it (%lld)",
		  (long long) g[0].rep.peak, (long long) g[0].rec.peak);
	free(g);
	in.n = 0;
	CHECK(at_replay_summarize(tap_mem, NULL, &in, &g, &ng) && ng == 1 && g[0].jobs == 0 && g[0].rec.queued == 0 &&
		  !g[0].rep.has_mean_gpus && !g[0].rec.has_mean_gpus,
		  "replay summary: an empty replay has its all row only, without figures");
	free(g);
	in.n = M;
	wrong = 0;
	for (long fail = 1; fail <= 12; fail++)
	{
		tap_counted cm = {0, fail, 0};

		if (at_replay_summarize(tap_counted_mem, &cm, &in, &g, &ng))
		{
			tap_counted_mem(&cm, g, 0);
			wrong += fail <= 8;
		}
		wrong += cm.live != 0;
	}
	CHECK(wrong == 0, "replay summary: out of memory at each allocation fails cleanly, nothing leaked");
}

void
test_replay(void)
{
	test_summary_figures();
	test_tick();
	test_policy_names();
	test_small_replay();
	static at_replay_job a[N],
				b[N];
	at_sched_config c = cluster(16, false);
	at_sched   *s;
	at_sched_job j;
	at_sched_status st;
	int64_t		bad;
	int			differ = 0,
				left = 0,
				bad_left = 0;
	double		fifo,
				sjf;

	/* the recorded trace: the scheduler's own FCFS decisions */
	make_trace(a, 11, 0.0);
	at_sched_create(tap_mem, NULL, &c, &s);
	for (int i = 0; i < N; i++)
	{
		memset(&j, 0, sizeof j);
		j.id = i;
		j.submit = a[i].submit;
		j.gpus = a[i].gpus;
		j.hold = a[i].run;
		j.patience = -1;
		j.group = -1;
		at_sched_submit(s, &j);
		while (at_sched_take(s, &j))
			b[j.id].start = j.start;
	}
	at_sched_finish(s);
	while (at_sched_take(s, &j))
		b[j.id].start = j.start;
	at_sched_destroy(s);
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	for (int i = 0; i < N; i++)
		differ += a[i].start != b[i].start || a[i].end != a[i].start + a[i].run;
	CHECK(st == AT_SCHED_OK && differ == 0, "replay: FCFS at the same capacity starts all %d jobs as recorded (%d differ)",
		  N, differ);
	CHECK(mean_wait(a) > 60, "replay: the trace queues (mean wait %.0f s)", mean_wait(a));

	/* shortest first, keyed by the run time, waits less on the same jobs */
	fifo = mean_wait(a);
	for (int i = 0; i < N; i++)
		a[i].key = a[i].run;
	at_replay(tap_mem, NULL, &c, a, N, &bad);
	sjf = mean_wait(a);
	CHECK(sjf < 0.8 * fifo, "replay: shortest first waits %.0f s on average, FCFS %.0f s", sjf, fifo);
	/* more capacity, less waiting */
	for (int i = 0; i < N; i++)
		a[i].key = 0;
	c.nodes = 32;
	at_replay(tap_mem, NULL, &c, a, N, &bad);
	CHECK(mean_wait(a) < fifo, "replay: twice the nodes, mean wait %.0f s below %.0f s", mean_wait(a), fifo);

	/* jobs that never ran leave after their recorded wait, or hold nothing */
	c.nodes = 16;
	make_trace(a, 12, 0.2);
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	for (int i = 0; i < N; i++)
		if (a[i].run < 0)
		{
			if (a[i].start < 0)
			{
				left++;
				bad_left += a[i].end != a[i].submit + a[i].wait;
			}
			else
				bad_left += a[i].end != a[i].start || a[i].start > a[i].submit + a[i].wait;
		}
	CHECK(st == AT_SCHED_OK && left > 50 && bad_left == 0,
		  "replay: %d jobs that never ran leave after their wait; started ones hold nothing (%d wrong)", left, bad_left);

	/* bad input: the index of the job */
	make_trace(a, 13, 0.0);
	a[100].gpus = 16 * 8 + 8;
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	CHECK(st == AT_SCHED_BAD_JOB && bad == 100, "replay: a job larger than the cluster refused (job %lld)", (long long) bad);
	make_trace(a, 13, 0.0);
	a[200].submit = a[199].submit - 1;
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	CHECK(st == AT_SCHED_BAD_TIME && bad == 200, "replay: a job out of submit order refused (job %lld)", (long long) bad);
	make_trace(a, 13, 0.0);
	a[300].run = -1;
	a[300].wait = -5;
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	CHECK(st == AT_SCHED_BAD_JOB && bad == 300, "replay: a negative wait refused (job %lld)", (long long) bad);
	c.nodes = 0;
	st = at_replay(tap_mem, NULL, &c, a, N, &bad);
	CHECK(st == AT_SCHED_BAD_CONFIG && bad == -1, "replay: no nodes refused");
}
