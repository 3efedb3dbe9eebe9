/* test_generate_jobs.c: the synthetic trace's shape, per-type behaviour, scheduling, memory and determinism. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generate_jobs.h"
#include "tap.h"

/* an allocator that tracks the bytes live and their peak, and can fail from its n-th call on */
typedef struct tracked
{
	size_t		live;
	size_t		peak;
	long		calls;
	long		fail_at;		/* 0: never */
} tracked;

typedef struct hdr
{
	size_t		n;
	size_t		pad;
} hdr;

static void *
tracked_mem(void *ctx, void *p, size_t n)
{
	tracked    *t = ctx;
	hdr		   *h;

	if (n == 0)
	{
		h = (hdr *) p - 1;
		t->live -= h->n;
		free(h);
		return NULL;
	}
	if (t->fail_at > 0 && ++t->calls >= t->fail_at)
		return NULL;
	h = calloc(1, sizeof(hdr) + n);
	if (h == NULL)
		return NULL;
	h->n = n;
	t->live += n;
	if (t->live > t->peak)
		t->peak = t->live;
	return h + 1;
}

static at_job *
generate(const char *cluster, long n, uint64_t seed, tracked *t)
{
	const at_profile *p = at_profile_by_name(cluster);
	at_generate_jobs *g;
	at_job	   *jobs = calloc((size_t) n + 1, sizeof(at_job));
	at_sched_status st;
	long		k = 0;

	at_generate_jobs_create(tracked_mem, t, p, n, seed, &g);
	while (k <= n && at_generate_jobs_next(g, &jobs[k], &st))
		k++;
	at_generate_jobs_destroy(g);
	if (k != n || st != AT_SCHED_OK)
		jobs[0].job_id = -1;	/* the caller's checks fail */
	return jobs;
}

typedef struct event
{
	int64_t		t;
	int			delta;
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

static int
cmp_id(const void *a, const void *b)
{
	const at_job *x = a,
			   *y = b;

	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, long n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t) n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
run_of(const at_job *j)
{
	return j->start >= 0 ? (double) (j->end - j->start) : 0;
}

/* Shape, capacity and per-type behaviour of n jobs of a profile. */
static void
check_cluster(const char *cluster, long n, int big)
{
	const at_profile *p = at_profile_by_name(cluster);
	tracked		t = {0};
	at_job	   *jobs = generate(cluster, n, 3, &t);
	event	   *ev = malloc(sizeof(event) * 2 * (size_t) n);
	double	   *v = malloc(sizeof(double) * (size_t) n);
	long		nev = 0,
				ngpu = 0,
				i,
				m;
	int			shape_ok = jobs[0].job_id >= 0,
				ids_ok = 1;
	long		cur = 0,
				peak = 0;
	double		tt[AT_NTYPES] = {0},
				tx[AT_NTYPES] = {0},
				wait[AT_NTYPES] = {0},
				wait_high[AT_NTYPES] = {0},
				big_t = 0,
				all_t = 0;
	long		nw[AT_NTYPES] = {0},
				nw_high[AT_NTYPES] = {0};

	qsort(jobs, (size_t) n, sizeof(at_job), cmp_id);
	for (i = 0; i < n; i++)
	{
		at_job	   *j = &jobs[i];

		if (j->job_id != p->first_job_id + i || (i > 0 && j->submit < jobs[i - 1].submit))
			ids_ok = 0;
		if (j->type < 0 || j->type >= AT_NTYPES || j->user < 0 || j->state < 0 || j->state >= AT_NSTATES)
			shape_ok = 0;
		if (j->start >= 0 && (j->start < j->submit || j->end < j->start))
			shape_ok = 0;
		if (j->gpu_num == 0)
			continue;
		ngpu++;
		if ((j->gpu_num & (j->gpu_num - 1)) != 0 || j->gpu_num > 1024 || j->node_num != (j->gpu_num + 7) / 8)
			shape_ok = 0;
		if (j->start < 0)
		{
			if (j->state != AT_STATE_CANCELLED || j->end <= j->submit)
				shape_ok = 0;
			continue;
		}
		ev[nev].t = j->start;
		ev[nev++].delta = j->gpu_num;
		ev[nev].t = j->end;
		ev[nev++].delta = -j->gpu_num;
		tt[j->type] += run_of(j) * j->gpu_num;
		if (j->state == AT_STATE_CANCELLED)
			tx[j->type] += run_of(j) * j->gpu_num;
		all_t += run_of(j) * j->gpu_num;
		if (j->gpu_num > big)
			big_t += run_of(j) * j->gpu_num;
	}
	CHECK(shape_ok, "%s: %ld jobs; started jobs start at or after submit; power-of-two GPUs, 8 a node; unstarted ones cancelled",
		  cluster, n);
	CHECK(ids_ok, "%s: each job id once, in submit order", cluster);
	CHECK(fabs((double) ngpu / n - p->p_gpu) < 0.001, "%s: GPU job share %.4f within 0.001 of %.4f",
		  cluster, (double) ngpu / n, p->p_gpu);

	/* an independent sweep: allocated GPUs never exceed capacity */
	qsort(ev, (size_t) nev, sizeof(event), cmp_event);
	for (i = 0; i < nev; i++)
		if ((cur += ev[i].delta) > peak)
			peak = cur;
	CHECK(peak <= p->nodes * 8 && cur == 0, "%s: peak allocation %ld <= capacity %d", cluster, peak, p->nodes * 8);
	CHECK(big_t / all_t > 0.6, "%s: jobs over %d GPUs take %.0f%% of the GPU time (over 60%%)", cluster, big,
		  100 * big_t / all_t);
	CHECK(tx[AT_TYPE_PRETRAIN] / tt[AT_TYPE_PRETRAIN] > tx[AT_TYPE_EVAL] / tt[AT_TYPE_EVAL] + 0.2,
		  "%s: Pretrain cancelled by GPU time %.2f, Eval %.2f: Pretrain above by more than 0.2", cluster,
		  tx[AT_TYPE_PRETRAIN] / tt[AT_TYPE_PRETRAIN], tx[AT_TYPE_EVAL] / tt[AT_TYPE_EVAL]);

	/* waits by type, overall and at 70% occupancy or more when submitted */
	{
		int64_t    *times = malloc(sizeof(int64_t) * (size_t) (nev + 1));
		long	   *level = malloc(sizeof(long) * (size_t) (nev + 1));

		cur = 0;
		for (i = 0; i < nev; i++)
		{
			times[i] = ev[i].t;
			level[i] = (cur += ev[i].delta);
		}
		for (i = 0; i < n; i++)
		{
			at_job	   *j = &jobs[i];
			long		lo = 0,
						hi = nev;

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
			wait[j->type] += (double) (j->start - j->submit);
			nw[j->type]++;
			if ((lo > 0 ? level[lo - 1] : 0) >= p->nodes * 8 * 7 / 10)
			{
				wait_high[j->type] += (double) (j->start - j->submit);
				nw_high[j->type]++;
			}
		}
		free(times);
		free(level);
	}
	if (strcmp(cluster, "seren") == 0)
	{
		CHECK(wait[AT_TYPE_EVAL] / nw[AT_TYPE_EVAL] > 100, "%s: Eval waits %.0f s on average (over 100)", cluster,
			  wait[AT_TYPE_EVAL] / nw[AT_TYPE_EVAL]);
		CHECK(nw_high[AT_TYPE_PRETRAIN] > 0 &&
			  wait_high[AT_TYPE_EVAL] / nw_high[AT_TYPE_EVAL] > wait_high[AT_TYPE_PRETRAIN] / nw_high[AT_TYPE_PRETRAIN],
			  "%s: at 70%% occupancy or more Eval waits longer (%.0f s) than Pretrain (%.0f s)", cluster,
			  wait_high[AT_TYPE_EVAL] / nw_high[AT_TYPE_EVAL], wait_high[AT_TYPE_PRETRAIN] / nw_high[AT_TYPE_PRETRAIN]);
	}

	/* durations and sizes differ by type; large failed jobs fail early */
	{
		double		med[AT_NTYPES],
					fail_small,
					fail_large;

		for (int ty = 0; ty < AT_NTYPES; ty++)
		{
			m = 0;
			for (i = 0; i < n; i++)
				if (jobs[i].gpu_num > 0 && jobs[i].type == ty)
					v[m++] = run_of(&jobs[i]);
			med[ty] = median(v, m);
		}
		CHECK(med[AT_TYPE_PRETRAIN] > 10 * med[AT_TYPE_EVAL], "%s: median Pretrain run %.0f s over 10x Eval's %.0f s",
			  cluster, med[AT_TYPE_PRETRAIN], med[AT_TYPE_EVAL]);
		m = 0;
		for (i = 0; i < n; i++)
			if (jobs[i].type == AT_TYPE_PRETRAIN && jobs[i].state == AT_STATE_FAILED && jobs[i].gpu_num <= 256)
				v[m++] = run_of(&jobs[i]);
		fail_small = median(v, m);
		m = 0;
		for (i = 0; i < n; i++)
			if (jobs[i].type == AT_TYPE_PRETRAIN && jobs[i].state == AT_STATE_FAILED && jobs[i].gpu_num > 256)
				v[m++] = run_of(&jobs[i]);
		fail_large = median(v, m);
		CHECK(fail_large < fail_small, "%s: failed Pretrain jobs over 256 GPUs fail earlier (median %.0f s) than smaller ones (%.0f s)",
			  cluster, fail_large, fail_small);
	}
	free(v);
	free(ev);
	free(jobs);
}

/*
 * Users' habits (issue 38): a user's jobs of a type come in campaigns that
 * cluster in run time and GPU count; teams submit Pretrain as users of
 * their own and hold most of the GPU time; the jobs at the time limit come
 * at the type's rate, not by chance.
 */
static void
check_habits(const char *cluster, long n, double gap_ratio, double size_share)
{
	const at_profile *p = at_profile_by_name(cluster);
	tracked		t = {0};
	at_job	   *jobs = generate(cluster, n, 11, &t);
	long	   *last = malloc(sizeof(long) * (size_t) (p->users + p->nteams) * AT_NTYPES);
	double	   *same = malloc(sizeof(double) * (size_t) n),
			   *other = malloc(sizeof(double) * (size_t) n),
				gt_users[1024] = {0},
				gt_all = 0,
				gt_teams = 0;
	long		ns = 0,
				no = 0,
				prev_type_job[AT_NTYPES],
				size_same = 0,
				size_pairs = 0,
				team_ok = 1,
				at_limit = 0,
				limit_jobs = 0;
	double		limit_due = 0,
				ms,
				mo;

	qsort(jobs, (size_t) n, sizeof(at_job), cmp_id);
	for (long i = 0; i < (long) (p->users + p->nteams) * AT_NTYPES; i++)
		last[i] = -1;
	for (int ty = 0; ty < AT_NTYPES; ty++)
		prev_type_job[ty] = -1;
	for (long i = 0; i < n; i++)
	{
		at_job	   *j = &jobs[i];
		long	   *lu;

		if (j->gpu_num == 0 || j->user < 0 || j->user >= p->users + p->nteams)
			continue;
		if (j->start >= 0)
		{
			gt_all += run_of(j) * j->gpu_num;
			if (j->user < 1024)
				gt_users[j->user] += run_of(j) * j->gpu_num;
			if (j->user >= p->users)
				gt_teams += run_of(j) * j->gpu_num;
		}
		/* teams are the only Pretrain submitters, each at its own size */
		if ((j->type == AT_TYPE_PRETRAIN) != (j->user >= p->users) ||
			(j->user >= p->users && j->gpu_num != p->team_gpus[j->user - p->users]))
			team_ok = 0;
		if (j->type == AT_TYPE_DEBUG || j->type == AT_TYPE_OTHER)
		{
			limit_jobs++;
			limit_due += p->types[j->type].timeout;
			at_limit += j->start >= 0 && run_of(j) == p->max_run;
		}
		if (j->type != AT_TYPE_EVAL && j->type != AT_TYPE_DEBUG)
			continue;
		lu = &last[(long) j->user * AT_NTYPES + j->type];
		if (*lu >= 0 && j->type == AT_TYPE_DEBUG)
		{
			size_pairs++;
			size_same += jobs[*lu].gpu_num == j->gpu_num;
		}
		/* Eval: the log run-time gap to the user's last Eval job, and to the last Eval job of another user */
		if (j->type == AT_TYPE_EVAL && j->start >= 0)
		{
			if (*lu >= 0 && jobs[*lu].start >= 0)
				same[ns++] = fabs(log(fmax(run_of(j), 1)) - log(fmax(run_of(&jobs[*lu]), 1)));
			if (prev_type_job[j->type] >= 0 && jobs[prev_type_job[j->type]].user != j->user &&
				jobs[prev_type_job[j->type]].start >= 0)
				other[no++] = fabs(log(fmax(run_of(j), 1)) - log(fmax(run_of(&jobs[prev_type_job[j->type]]), 1)));
			prev_type_job[j->type] = i;
		}
		*lu = i;
	}
	ms = median(same, ns);
	mo = median(other, no);
	CHECK(ns > 1000 && no > 1000 && ms < gap_ratio * mo,
		  "%s: a user's consecutive Eval jobs differ by %.2f in log run time (median), jobs of two users by %.2f (under %.1f of it)",
		  cluster, ms, mo, gap_ratio);
	CHECK(size_pairs > 1000 && (double) size_same / size_pairs > size_share,
		  "%s: %.0f%% of a user's consecutive Debug jobs have the same GPU count (over %.0f%%)", cluster,
		  100.0 * size_same / size_pairs, 100 * size_share);
	CHECK(team_ok && gt_teams > 0.6 * gt_all,
		  "%s: Pretrain comes from the %d teams, each at its size, as users of their own, with %.0f%% of the GPU time",
		  cluster, p->nteams, 100 * gt_teams / gt_all);
	CHECK(fabs(at_limit - limit_due) <= 2,
		  "%s: %ld Debug and Other jobs at the time limit, %.1f due at the types' rates", cluster, at_limit, limit_due);
	free(jobs);
	free(last);
	free(same);
	free(other);
}

void
test_generate_jobs(void)
{
	CHECK(at_profile_by_name("seren") && at_profile_by_name("kalos") && !at_profile_by_name("philly"),
		  "profiles by name");
	{
		tracked		t = {0};
		at_job	   *a = generate("seren", 20000, 7, &t);
		at_job	   *b = generate("seren", 20000, 7, &t);
		at_job	   *c = generate("seren", 20000, 8, &t);
		int64_t		first = a[0].submit;

		for (long i = 0; i < 20000; i++)
			if (a[i].submit < first)
				first = a[i].submit;
		CHECK(memcmp(a, b, sizeof(at_job) * 20000) == 0, "same seed, same jobs in the same order");
		CHECK(memcmp(a, c, sizeof(at_job) * 20000) != 0, "another seed, other jobs");
		CHECK(first >= 1677600000 && t.live == 0, "Seren starts 2023-03-01 +08:00; nothing left allocated");
		free(a);
		free(b);
		free(c);
	}
	{
		/* streaming: the memory held does not grow with the job count */
		tracked		small = {0},
					large = {0};

		free(generate("seren", 100000, 5, &small));
		free(generate("seren", 1031550, 5, &large));
		CHECK(large.peak < 2 * small.peak + (1 << 20) && large.live == 0,
			  "memory: peak %zu bytes for 1,031,550 jobs against %zu for 100,000", large.peak, small.peak);
	}
	{
		/* out of memory at any allocation: a status, never a crash */
		int			ok = 1,
					failed = 0;

		for (long at = 1; at < 60; at++)
		{
			tracked		t = {0};
			at_generate_jobs *g;
			at_job		j;
			at_sched_status st = at_generate_jobs_create(tracked_mem, &t, at_profile_by_name("kalos"), 3000, 1, &g);

			t.fail_at = at;
			t.calls = 0;
			if (st != AT_SCHED_OK)
			{
				ok &= st == AT_SCHED_NOMEM;
				failed = 1;
				continue;
			}
			while (at_generate_jobs_next(g, &j, &st))
				;
			if (st != AT_SCHED_OK)
			{
				ok &= st == AT_SCHED_NOMEM;
				failed = 1;
			}
			at_generate_jobs_destroy(g);
			ok &= t.live == 0;
		}
		CHECK(ok && failed, "out of memory: AT_SCHED_NOMEM, then a clean destroy");
	}
	check_cluster("seren", 1031550, 64);
	check_cluster("kalos", 62413, 256);
	/* Seren's Eval campaigns hold 97% of the log-run variance, Kalos's 60% */
	check_habits("seren", 300000, 0.5, 0.75);
	check_habits("kalos", 62413, 0.8, 0.7);
}
