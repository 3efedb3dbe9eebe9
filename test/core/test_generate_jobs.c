/* test_generate_jobs.c: the synthetic trace's shape, scheduling and determinism. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generate_jobs.h"
#include "tap.h"

typedef struct event
{
	int64_t		t;
	int			delta;			/* -gpus at end, +gpus at start */
} event;

static int
cmp_event(const void *a, const void *b)
{
	const event *x = a,
			   *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta; /* releases before allocations */
}

static at_job *
generate(const char *cluster, long n, uint64_t seed)
{
	const at_profile *p = at_profile_by_name(cluster);
	void	   *mem = malloc(at_generate_jobs_size(p));
	at_generate_jobs *g = at_generate_jobs_init(mem, p, seed);
	at_job	   *jobs = malloc(sizeof(at_job) * (size_t) n);
	long		i;

	for (i = 0; i < n; i++)
		at_generate_jobs_next(g, &jobs[i]);
	free(mem);
	return jobs;
}

static void
check_cluster(const char *cluster, long n, double gpu_share, const double gpu_state[3],
			  const double cpu_state[3])
{
	const at_profile *p = at_profile_by_name(cluster);
	at_job	   *jobs = generate(cluster, n, 42);
	event	   *ev = malloc(sizeof(event) * 2 * (size_t) n);
	long		nev = 0,
				ngpu = 0,
				i;
	long		st[3] = {0},
				cst[3] = {0};
	int			shape_ok = 1,
				fifo_ok = 1;
	int64_t		last_start = 0;
	long		cur = 0,
				peak = 0;
	double		q_low = 0,
				q_high = 0;
	long		n_low = 0,
				n_high = 0;

	for (i = 0; i < n; i++)
	{
		at_job	   *j = &jobs[i];
		int			fs = j->state > AT_STATE_FAILED ? AT_STATE_FAILED : j->state;

		if (i > 0 && j->submit < jobs[i - 1].submit)
			shape_ok = 0;
		if (j->start >= 0 && (j->start < j->submit || j->end < j->start))
			shape_ok = 0;
		if (j->start < 0 && (j->state != AT_STATE_CANCELLED || j->gpu_num == 0 || j->end <= j->submit))
			shape_ok = 0;
		if (j->gpu_num > 0)
		{
			ngpu++;
			st[fs]++;
			if ((j->gpu_num & (j->gpu_num - 1)) != 0 || j->gpu_num > 1024 ||
				j->node_num != (j->gpu_num + 7) / 8)
				shape_ok = 0;
			if (j->start >= 0)
			{
				if (j->start < last_start)
					fifo_ok = 0;
				last_start = j->start;
				ev[nev].t = j->start;
				ev[nev++].delta = j->gpu_num;
				ev[nev].t = j->end;
				ev[nev++].delta = -j->gpu_num;
			}
		}
		else
			cst[fs]++;
		if (j->type < 0 || j->type >= AT_NTYPES || j->user < 0 || j->user >= p->users)
			shape_ok = 0;
	}
	CHECK(shape_ok, "%s: submit order, start >= submit, end >= start, power-of-two GPUs, 8 GPUs a node", cluster);
	CHECK(fifo_ok, "%s: GPU jobs start in submit order (FIFO)", cluster);
	CHECK(fabs((double) ngpu / n - gpu_share) < 0.02, "%s: GPU job share %.3f within 2 points of %.3f",
		  cluster, (double) ngpu / n, gpu_share);
	for (i = 0; i < 3; i++)
	{
		CHECK(fabs((double) st[i] / ngpu - gpu_state[i]) < 0.02, "%s: GPU jobs %s %.3f within 2 points of %.3f",
			  cluster, at_state_names[i], (double) st[i] / ngpu, gpu_state[i]);
		CHECK(fabs((double) cst[i] / (n - ngpu) - cpu_state[i]) < 0.02, "%s: CPU jobs %s %.3f within 2 points of %.3f",
			  cluster, at_state_names[i], (double) cst[i] / (n - ngpu), cpu_state[i]);
	}

	/* An independent sweep: allocated GPUs never exceed capacity. */
	qsort(ev, (size_t) nev, sizeof(event), cmp_event);
	for (i = 0; i < nev; i++)
	{
		cur += ev[i].delta;
		if (cur > peak)
			peak = cur;
	}
	CHECK(peak <= p->gpu_capacity && cur == 0, "%s: peak allocation %ld <= capacity %d", cluster, peak, p->gpu_capacity);

	/* Queueing grows with occupancy: occupancy at submit by binary search. */
	{
		int64_t    *times = malloc(sizeof(int64_t) * (size_t) nev);
		long	   *level = malloc(sizeof(long) * (size_t) nev);

		cur = 0;
		for (i = 0; i < nev; i++)
		{
			cur += ev[i].delta;
			times[i] = ev[i].t;
			level[i] = cur;
		}
		for (i = 0; i < n; i++)
		{
			at_job	   *j = &jobs[i];
			long		lo = 0,
						hi = nev;
			long		occ;

			if (j->gpu_num == 0 || j->start < 0)
				continue;
			while (lo < hi)		/* first event after submit */
			{
				long		mid = (lo + hi) / 2;

				if (times[mid] <= j->submit)
					lo = mid + 1;
				else
					hi = mid;
			}
			occ = lo > 0 ? level[lo - 1] : 0;
			if (occ < p->gpu_capacity / 4)
			{
				q_low += (double) (j->start - j->submit);
				n_low++;
			}
			else if (occ >= p->gpu_capacity / 2)
			{
				q_high += (double) (j->start - j->submit);
				n_high++;
			}
		}
		free(times);
		free(level);
	}
	if (n_high > 0)
		CHECK(q_high / n_high > 10 * (q_low / n_low),
			  "%s: mean queue at >= 50%% occupancy (%.0f s, %ld jobs) over 10x that under 25%% (%.0f s)",
			  cluster, q_high / n_high, n_high, q_low / n_low);
	free(ev);
	free(jobs);
}

void
test_generate_jobs(void)
{
	static const double seren_gpu[3] = {0.497, 0.075, 0.429};
	static const double seren_cpu[3] = {0.858, 0.039, 0.102};
	static const double kalos_gpu[3] = {0.541, 0.062, 0.397};
	static const double kalos_cpu[3] = {0.860, 0.001, 0.140};

	CHECK(at_profile_by_name("seren") && at_profile_by_name("kalos") && !at_profile_by_name("philly"),
		  "profiles by name");

	{
		at_job	   *a = generate("seren", 5000, 7);
		at_job	   *b = generate("seren", 5000, 7);
		at_job	   *c = generate("seren", 5000, 8);

		CHECK(memcmp(a, b, sizeof(at_job) * 5000) == 0, "same seed, same jobs");
		CHECK(memcmp(a, c, sizeof(at_job) * 5000) != 0, "another seed, other jobs");
		CHECK(a[0].submit >= 1677600000 && a[0].job_id == 5778432, "Seren starts 2023-03-01 +08:00 at job 5778432");
		free(a);
		free(b);
		free(c);
	}
	check_cluster("seren", 1000000, 663813.0 / 1031550.0, seren_gpu, seren_cpu);
	check_cluster("kalos", 62413, 19907.0 / 62413.0, kalos_gpu, kalos_cpu);
}
