/*
 * test_placement.c: the GPUs of a generated trace's jobs, checked against
 * the trace itself (every GPU job that runs is placed once, on as many GPUs
 * as it asked for, never on a GPU another job is running on), and the
 * utilization that follows the placement (a GPU with no job is idle).
 */
#include <math.h>
#include <string.h>

#include "generate_util.h"
#include "placement.h"
#include "tap.h"
#include "util_quantiles.h"

typedef struct seen
{
	int64_t		start;
	int64_t		end;
	int64_t		run;
	int32_t		gpus;
	int8_t		runs;			/* expected to be placed */
	int8_t		started;
	int8_t		ended;
	uint64_t	gpu_sum;		/* a fingerprint of its GPUs */
} seen;

static uint64_t
fingerprint(const int32_t *gpu, int32_t n)
{
	uint64_t	h = 1469598103934665603ULL;

	for (int32_t i = 0; i < n; i++)
		h = (h ^ (uint64_t) gpu[i]) * 1099511628211ULL;
	return h;
}

static void
check_profile(const char *name, int64_t n, uint64_t seed)
{
	const at_profile *p = at_profile_by_name(name);
	seen	   *jobs = calloc((size_t) n, sizeof(seen));
	at_generate_jobs *g;
	at_placement *pl;
	at_placement_event ev;
	at_sched_status st;
	at_job		job;
	int64_t    *running;
	int64_t		expected = 0,
				starts = 0,
				ends = 0,
				last_t = INT64_MIN,
				bad_order = 0,
				bad_size = 0,
				bad_shape = 0,
				overlap = 0,
				bad_end = 0,
				bad_restart = 0,
				bad_times = 0,
				left = 0;
	int32_t		gpus;

	/* the trace, as generate_jobs gives it */
	st = at_generate_jobs_create(tap_mem, NULL, p, n, seed, &g);
	CHECK(st == AT_SCHED_OK, "%s: generator", name);
	while (at_generate_jobs_next(g, &job, &st))
	{
		seen	   *s = &jobs[job.job_id - p->first_job_id];

		s->start = job.start;
		s->end = job.end;
		s->run = job.run;
		s->gpus = job.gpu_num;
		s->runs = job.gpu_num > 0 && job.start >= 0 && job.end > job.start;
		expected += s->runs;
	}
	at_generate_jobs_destroy(g);

	st = at_placement_create(tap_mem, NULL, p, n, seed, &pl);
	CHECK(st == AT_SCHED_OK, "%s: placement", name);
	gpus = at_placement_gpus(pl);
	CHECK(gpus == p->nodes * 8, "%s: %d GPUs", name, gpus);
	running = malloc(sizeof(int64_t) * (size_t) gpus);
	for (int32_t i = 0; i < gpus; i++)
		running[i] = -1;
	while (at_placement_next(pl, INT64_MAX, &ev, &st))
	{
		seen	   *s = &jobs[ev.job_id - p->first_job_id];

		if (ev.t < last_t)
			bad_order++;
		last_t = ev.t;
		if (ev.start != s->start || ev.end != s->end || ev.t != (ev.kind == AT_PLACEMENT_START ? s->start : s->end))
			bad_times++;
		if (ev.kind == AT_PLACEMENT_START)
		{
			starts++;
			s->started++;
			if (ev.gpus != s->gpus || !s->runs)
				bad_size++;
			/* ascending, on one node, or on whole nodes */
			for (int32_t i = 0; i < ev.gpus; i++)
				if ((i > 0 && ev.gpu[i] <= ev.gpu[i - 1]) || ev.gpu[i] < 0 || ev.gpu[i] >= gpus)
					bad_shape++;
			if (ev.gpus <= 8 ? ev.gpu[0] / 8 != ev.gpu[ev.gpus - 1] / 8
				: ev.gpus % 8 != 0 || ev.gpu[0] % 8 != 0 || ev.gpu[ev.gpus - 1] % 8 != 7)
				bad_shape++;
			for (int32_t i = 0; i < ev.gpus; i++)
			{
				if (running[ev.gpu[i]] >= 0)
					overlap++;
				running[ev.gpu[i]] = ev.job_id;
			}
			s->gpu_sum = fingerprint(ev.gpu, ev.gpus);
			/* a restart runs on its run's GPUs */
			if (s->run != ev.job_id && jobs[s->run - p->first_job_id].gpu_sum != s->gpu_sum)
				bad_restart++;
		}
		else
		{
			ends++;
			s->ended++;
			for (int32_t i = 0; i < ev.gpus; i++)
			{
				if (running[ev.gpu[i]] != ev.job_id)
					bad_end++;
				running[ev.gpu[i]] = -1;
			}
		}
	}
	CHECK(st == AT_SCHED_OK, "%s: placement ran to the end (%s)", name, at_sched_status_text(st));
	CHECK(starts == expected && ends == expected, "%s: every job that ran placed once: %lld starts, %lld ends, %lld jobs",
		  name, (long long) starts, (long long) ends, (long long) expected);
	CHECK(bad_order == 0, "%s: events in time order (%lld out of order)", name, (long long) bad_order);
	CHECK(bad_times == 0, "%s: events at the jobs' own times (%lld differ)", name, (long long) bad_times);
	CHECK(bad_size == 0, "%s: as many GPUs as the job asked for (%lld differ)", name, (long long) bad_size);
	CHECK(bad_shape == 0, "%s: GPUs ascending, on one node or on whole nodes (%lld not)", name, (long long) bad_shape);
	CHECK(overlap == 0, "%s: no GPU runs two jobs at once (%lld times)", name, (long long) overlap);
	CHECK(bad_end == 0, "%s: a job ends on the GPUs it started on (%lld not)", name, (long long) bad_end);
	CHECK(bad_restart == 0, "%s: restarts run on their run's GPUs (%lld not)", name, (long long) bad_restart);
	for (int32_t i = 0; i < gpus; i++)
		left += running[i] >= 0;
	CHECK(left == 0, "%s: every GPU free at the end (%lld busy)", name, (long long) left);
	at_placement_destroy(pl);
	free(running);
	free(jobs);
}

/* Stepping with `until` gives the same events as running straight through. */
static void
check_until(void)
{
	const at_profile *p = at_profile_by_name("seren");
	at_placement *a,
			   *b;
	at_placement_event ev;
	at_sched_status st;
	uint64_t	ha = 0,
				hb = 0;
	int64_t		na = 0,
				nb = 0,
				late = 0;

	at_placement_create(tap_mem, NULL, p, 5000, 7, &a);
	at_placement_create(tap_mem, NULL, p, 5000, 7, &b);
	while (at_placement_next(a, INT64_MAX, &ev, &st))
	{
		ha = ha * 31 + (uint64_t) ev.job_id * 2 + ev.kind + (uint64_t) ev.t + fingerprint(ev.gpu, ev.gpus);
		na++;
	}
	for (int64_t until = p->epoch; nb < na && until < p->epoch + 400 * 86400LL; until += 3600)
		while (at_placement_next(b, until, &ev, &st))
		{
			if (ev.t > until)
				late++;
			hb = hb * 31 + (uint64_t) ev.job_id * 2 + ev.kind + (uint64_t) ev.t + fingerprint(ev.gpu, ev.gpus);
			nb++;
		}
	CHECK(na > 1000 && na == nb && ha == hb, "placement: hour by hour gives the same %lld events", (long long) na);
	CHECK(late == 0, "placement: nothing after `until` comes out (%lld did)", (long long) late);
	at_placement_destroy(a);
	at_placement_destroy(b);
}

/* The utilization of a window, sample by sample against the placement. */
static void
check_util(const char *name, int64_t n, int64_t t0, int64_t samples)
{
	const at_profile *p = at_profile_by_name(name);
	at_util_trace *u;
	at_placement *pl;
	at_placement_event ev;
	at_sched_status st;
	int64_t    *running;
	char	   *buf;
	const double *q = at_util_quantiles(name, "GPU_UTIL");
	double		p_idle = at_util_table_cdf(q, 1.0),
				idle_max = at_util_quantile_at(q, p_idle);
	int64_t		run_samples = 0,
				run_busy = 0,
				free_samples = 0,
				free_busy = 0,
				idle = 0,
				cells = 0,
				t,
				k = 0;
	int			empty,
				rc;
	uint64_t	h1 = 0,
				h2 = 0;

	rc = at_util_trace_create(tap_mem, NULL, p, n, 3, "GPU_UTIL", t0, 15, samples, 0.0, &u, &st);
	CHECK(rc == 0, "%s: utilization over the placement", name);
	at_placement_create(tap_mem, NULL, p, n, 3, &pl);
	running = malloc(sizeof(int64_t) * (size_t) at_placement_gpus(pl));
	for (int32_t i = 0; i < at_placement_gpus(pl); i++)
		running[i] = -1;
	buf = malloc(at_util_line_size(at_util_trace_series(u)));
	while (at_util_trace_cells(u, buf, &t, &empty, &st) >= 0)
	{
		char	   *c = buf;

		while (at_placement_next(pl, t, &ev, &st))
			for (int32_t i = 0; i < ev.gpus; i++)
				running[ev.gpu[i]] = ev.kind == AT_PLACEMENT_START ? ev.job_id : -1;
		for (int32_t i = 0; i < at_util_trace_series(u); i++)
		{
			double		v = strtod(c + 1, &c);

			cells++;
			if (running[i] >= 0)
			{
				run_samples++;
				run_busy += v > idle_max;
			}
			else
			{
				free_samples++;
				free_busy += v > idle_max;
			}
			idle += v <= idle_max;
		}
		h1 = h1 * 31 + (uint64_t) strlen(buf) + (uint64_t) t;
		k++;
	}
	CHECK(st == AT_SCHED_OK && k == samples, "%s: %lld samples of %d GPUs", name, (long long) k, at_util_trace_series(u));
	CHECK(t == t0 + (samples - 1) * 15, "%s: the last sample at t0 + (samples - 1) x 15 s", name);
	CHECK(free_busy == 0, "%s: a GPU no job runs on is idle (%lld of %lld samples above %g)",
		  name, (long long) free_busy, (long long) free_samples, idle_max);
	CHECK(fabs((double) run_samples / (double) cells - at_util_trace_running(u)) < 1e-9,
		  "%s: jobs run on %.4f of the GPU-samples, as the first pass counted (%.4f)", name,
		  (double) run_samples / (double) cells, at_util_trace_running(u));
	/* the dips (texture) take their share of the computing samples */
	CHECK(fabs((double) run_busy / (double) run_samples - at_util_trace_busy(u) * (1 - at_util_trace_dip_share(u))) < 0.03,
		  "%s: busy %.3f of the running samples (phases drawn for %.3f, less dips %.3f)", name,
		  (double) run_busy / (double) run_samples, at_util_trace_busy(u), at_util_trace_dip_share(u));
	if (at_util_trace_busy(u) < 1.0)
		CHECK(fabs((double) idle / (double) cells - p_idle) < 0.03,
			  "%s: idle samples %.3f, the table's idle share %.3f", name, (double) idle / (double) cells, p_idle);
	at_util_trace_destroy(u);
	/* the same arguments, the same lines */
	at_util_trace_create(tap_mem, NULL, p, n, 3, "GPU_UTIL", t0, 15, samples, 0.0, &u, &st);
	while (at_util_trace_cells(u, buf, &t, &empty, &st) >= 0)
		h2 = h2 * 31 + (uint64_t) strlen(buf) + (uint64_t) t;
	CHECK(h1 == h2, "%s: deterministic", name);
	at_util_trace_destroy(u);
	at_placement_destroy(pl);
	free(running);
	free(buf);
}


/*
 * A placement and a utilization window with allocation fail_at failing (0:
 * none); whether an error came back, and the blocks left allocated.
 */
static int
nomem_run(long fail_at, long *calls, long *live)
{
	const at_profile *p = at_profile_by_name("seren");
	tap_counted c = {0, fail_at, 0};
	at_placement *pl = NULL;
	at_util_trace *u = NULL;
	at_placement_event ev;
	at_sched_status st;
	static char buf[2288 * 16 + 64];
	int64_t		t;
	int			empty,
				failed = 0;

	if (at_placement_create(tap_counted_mem, &c, p, 400, 1, &pl) != AT_SCHED_OK)
		failed = 1;
	else
	{
		while (at_placement_next(pl, INT64_MAX, &ev, &st))
			;
		failed |= st != AT_SCHED_OK;
		at_placement_destroy(pl);
	}
	if (at_util_trace_create(tap_counted_mem, &c, p, 400, 1, "SM_ACTIVE", p->epoch + 3600, 15, 40, 0.1, &u, &st) != 0)
		failed = 1;
	else
	{
		while (at_util_trace_cells(u, buf, &t, &empty, &st) >= 0)
			;
		failed |= st != AT_SCHED_OK;
		at_util_trace_destroy(u);
	}
	*calls = c.calls;
	*live = c.live;
	return failed;
}

/* Allocations failed in turn (every one, or 300 spread over them): an error each time, nothing leaked. */
static void
check_nomem(void)
{
	long		total,
				calls,
				live,
				step;
	int			ok,
				failures = 0,
				runs = 0;

	ok = !nomem_run(0, &total, &live) && live == 0;
	step = total / 300 + 1;
	for (long k = 1; k <= total; k += step)
	{
		failures += nomem_run(k, &calls, &live);
		runs++;
		if (live != 0)
		{
			printf("# %ld blocks leaked when allocation %ld fails\n", live, k);
			ok = 0;
		}
	}
	CHECK(ok && total > 100 && failures == runs,
		  "placement: out of memory at %d of %ld allocations: an error each time, no leak", runs, total);
}

void
test_placement(void)
{
	at_util_trace *u;
	at_sched_status st;
	char		name[32];
	int			rc;

	check_profile("seren", 60000, 3);
	check_profile("kalos", 20000, 1);
	check_until();
	check_nomem();
	/* two hours when the jobs run on 83% of the GPUs (some running time idle), and ... */
	check_util("seren", 40000, at_profile_by_name("seren")->epoch + 34 * 3600, 480);
	/*
	 * ... ten hours when on 63% of Kalos's (all of it busy but the dips:
	 * long, as a 1024-GPU job's evaluation pause is a tenth of an hour's
	 * samples)
	 */
	check_util("kalos", 20000, at_profile_by_name("kalos")->epoch + 94 * 3600, 2400);

	rc = at_util_trace_create(tap_mem, NULL, at_profile_by_name("seren"), 10, 1, "NODE_CPU_UTILIZATION",
							  0, 15, 1, 0, &u, &st);
	CHECK(rc == -1 && u == NULL, "utilization over a placement: per-server metrics refused");
	rc = at_util_trace_create(tap_mem, NULL, at_profile_by_name("seren"), 10, 1, "GPU_TEMP", 0, 15, 1, 0, &u, &st);
	CHECK(rc == -1, "utilization over a placement: unknown metric refused");
	at_placement_series_name(2287, name);
	CHECK(strcmp(name, "10.140.1.29-gpu7") == 0, "series name of GPU 2287: %s", name);
	at_placement_series_name(8 * 300 + 2, name);
	CHECK(strcmp(name, "10.140.1.44-gpu2") == 0, "series name of GPU 2402: %s", name);
}
