/*
 * generate_jobs.c: synthetic AcmeTrace-like jobs.
 *
 * Targets (AcmeTrace data/cluster_summary.csv, NSDI '24 paper):
 *   Seren: 1,031,550 jobs over 184 days, 64.4% GPU jobs; GPU jobs 49.7%
 *     completed, 7.5% cancelled, 42.9% failed; CPU jobs 85.8/3.9/10.2%;
 *     median GPU job 1 GPU, 122 s; capacity 2,288 GPUs.
 *   Kalos: 62,413 jobs over about 122 days, 31.9% GPU jobs; GPU jobs
 *     54.1/6.2/39.7%; CPU jobs 86.0/0.1/13.9%; median 1 GPU, 124 s; 2,416 GPUs.
 * GPU counts are powers of two with a heavy tail (large jobs are mostly
 * Pretrain and run longer); durations are log-normal.  State rates by job
 * count are drawn directly; cancelled jobs run far longer and failed ones
 * shorter, which moves GPU time towards cancellations as in the paper.
 *
 * What 1,000,000 Seren jobs (seed 42) give, against the published figures:
 * GPU share 0.643 (0.644); GPU-job states 0.497/0.075/0.428 (same); by GPU
 * time 0.265/0.615/0.120 (0.212/0.664/0.124); run mean 1842 s, median 113 s
 * (1414, 122); queue mean 282 s, median 1 s (446, 1); 2.0% of GPU jobs over
 * 64 GPUs with 60% of GPU time (about 2% and 75%).  Mean occupancy is 22% of
 * capacity, lower than the real cluster's: strict FIFO without backfill
 * makes queues explode at the real load.
 *
 * Scheduling: strict FIFO in submit order on the cluster's GPU capacity.
 * A job starts when every earlier job has started and enough GPUs are free
 * (releases at an instant happen before allocations), so queueing grows
 * with occupancy.  Some cancelled jobs are cancelled while queued: they
 * never start and hold no GPUs.  CPU jobs are not capacity-limited.
 */
#include <math.h>
#include <string.h>

#include "generate_jobs.h"

const char *const at_type_names[AT_NTYPES] = {"Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other"};
const char *const at_state_names[AT_NSTATES] = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"};

static const at_profile profiles[] = {
	{
		.name = "seren", .gpu_capacity = 2288, .cpus_per_gpu = 16,
		.jobs_per_day = 1031550.0 / 184.0,
		.epoch = 1677600000,	/* 2023-03-01 00:00:00+08:00 */
		.p_gpu = 663813.0 / 1031550.0,
		.gpu_state = {0.497, 0.075, 0.428},
		.cpu_state = {0.858, 0.039, 0.103},
		.gpu_size = {0.70, 0.05, 0.06, 0.148, 0.015, 0.007, 0.003, 0.014, 0.004, 0.0015, 0.0005},
		.small_type = {0.00, 0.52, 0.08, 0.10, 0.15, 0.15},
		.large_type = {0.70, 0.05, 0.10, 0.15, 0.00, 0.00},
		.cpu_type = {0.00, 0.10, 0.00, 0.00, 0.20, 0.70},
		.gpu_run_median = 125.0, .run_sigma = 2.0, .run_per_doubling = 0.0,
		.state_run_factor = {1.0, 22.0, 0.6},
		.cpu_run_median = 14.0, .cpu_run_sigma = 2.8, .cpu_queue_mean = 4.8,
		.max_run = 1209600.0, .never_start_share = 0.2,
		.users = 400, .first_job_id = 5778432,
	},
	{
		.name = "kalos", .gpu_capacity = 2416, .cpus_per_gpu = 15,
		.jobs_per_day = 62413.0 / 122.0,
		.epoch = 1682899200,	/* 2023-05-01 00:00:00+00:00 */
		.p_gpu = 19907.0 / 62413.0,
		.gpu_state = {0.541, 0.062, 0.397},
		.cpu_state = {0.860, 0.001, 0.139},
		.gpu_size = {0.60, 0.03, 0.03, 0.20, 0.03, 0.03, 0.02, 0.01, 0.005, 0.035, 0.01},
		.small_type = {0.00, 0.80, 0.00, 0.00, 0.10, 0.10},
		.large_type = {0.85, 0.10, 0.00, 0.00, 0.00, 0.05},
		.cpu_type = {0.00, 0.20, 0.00, 0.00, 0.10, 0.70},
		.gpu_run_median = 120.0, .run_sigma = 1.8, .run_per_doubling = 0.1,
		.state_run_factor = {1.0, 25.0, 0.6},
		.cpu_run_median = 22.0, .cpu_run_sigma = 1.8, .cpu_queue_mean = 88.0,
		.max_run = 625740.0, .never_start_share = 0.2,
		.users = 150, .first_job_id = 1,
	},
};

const at_profile *
at_profile_by_name(const char *name)
{
	size_t		i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

/* A running GPU job in the scheduler: when it ends and what it holds. */
typedef struct running
{
	int64_t		end;
	int			gpus;
} running;

struct at_generate_jobs
{
	const at_profile *p;
	at_rng		rng;
	int64_t		n;				/* jobs generated */
	double		clock;			/* submit time of the last job */
	int64_t		last_start;		/* FIFO: no job starts before an earlier one */
	int			free_gpus;
	int			nrunning;
	running		heap[];			/* min-heap on end; each job holds >= 1 GPU */
};

size_t
at_generate_jobs_size(const at_profile *p)
{
	return sizeof(at_generate_jobs) + sizeof(running) * (size_t) p->gpu_capacity;
}

at_generate_jobs *
at_generate_jobs_init(void *mem, const at_profile *p, uint64_t seed)
{
	at_generate_jobs *g = mem;

	memset(g, 0, sizeof(*g));
	g->p = p;
	at_rng_seed(&g->rng, seed ^ (uint64_t) p->gpu_capacity);
	g->clock = (double) p->epoch;
	g->last_start = p->epoch;
	g->free_gpus = p->gpu_capacity;
	return g;
}

static void
heap_push(at_generate_jobs *g, int64_t end, int gpus)
{
	int			i = g->nrunning++;

	while (i > 0 && g->heap[(i - 1) / 2].end > end)
	{
		g->heap[i] = g->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->heap[i].end = end;
	g->heap[i].gpus = gpus;
}

static running
heap_pop(at_generate_jobs *g)
{
	running		top = g->heap[0];
	running		last = g->heap[--g->nrunning];
	int			i = 0;

	for (;;)
	{
		int			c = 2 * i + 1;

		if (c >= g->nrunning)
			break;
		if (c + 1 < g->nrunning && g->heap[c + 1].end < g->heap[c].end)
			c++;
		if (g->heap[c].end >= last.end)
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (g->nrunning > 0)
		g->heap[i] = last;
	return top;
}

/* Earliest time >= t at which gpus GPUs are free; releases what ended by then. */
static int64_t
reserve(at_generate_jobs *g, int64_t t, int gpus)
{
	while (g->nrunning > 0 && g->heap[0].end <= t)
		g->free_gpus += heap_pop(g).gpus;
	while (g->free_gpus < gpus)
	{
		running		r = heap_pop(g);	/* never empty: gpus <= capacity */

		if (r.end > t)
			t = r.end;
		g->free_gpus += r.gpus;
	}
	return t;
}

static double
lognormal(at_rng *r, double median, double sigma)
{
	return median * exp(sigma * at_rng_normal(r));
}

void
at_generate_jobs_next(at_generate_jobs *g, at_job *job)
{
	const at_profile *p = g->p;
	at_rng	   *r = &g->rng;
	int			is_gpu = at_rng_uniform(r) < p->p_gpu;
	int			final;
	double		run;

	g->clock += at_rng_exponential(r, 86400.0 / p->jobs_per_day);
	memset(job, 0, sizeof(*job));
	job->job_id = p->first_job_id + g->n++;
	/* a few heavy users submit most jobs */
	job->user = (int) (p->users * pow(at_rng_uniform(r), 3.0));
	job->submit = (int64_t) g->clock;
	final = at_rng_pick(r, is_gpu ? p->gpu_state : p->cpu_state, 3);
	job->state = final;
	if (final == AT_STATE_FAILED)
	{
		/* the paper folds these rare states into FAILED */
		double		u = at_rng_uniform(r);

		if (u < 0.01)
			job->state = AT_STATE_TIMEOUT;
		else if (u < 0.015)
			job->state = AT_STATE_NODE_FAIL;
	}

	if (!is_gpu)
	{
		job->gpu_num = 0;
		job->node_num = 1;
		job->cpu_num = 1 << (int) (at_rng_uniform(r) * 7);	/* 1..64 */
		job->type = at_rng_pick(r, p->cpu_type, AT_NTYPES);
		run = fmin(lognormal(r, p->cpu_run_median, p->cpu_run_sigma), p->max_run);
		job->start = job->submit + (int64_t) floor(at_rng_exponential(r, p->cpu_queue_mean));
		job->end = job->start + (int64_t) floor(run);
		return;
	}

	{
		int			k = at_rng_pick(r, p->gpu_size, AT_NGPU_SIZES);
		int64_t		t;

		job->gpu_num = 1 << k;
		job->node_num = (job->gpu_num + 7) / 8;
		job->cpu_num = job->gpu_num * p->cpus_per_gpu;
		job->type = at_rng_pick(r, job->gpu_num >= 64 ? p->large_type : p->small_type, AT_NTYPES);
		run = lognormal(r, p->gpu_run_median * p->state_run_factor[final] * exp(p->run_per_doubling * k),
						p->run_sigma);
		run = fmin(fmax(run, 1.0), p->max_run);

		if (final == AT_STATE_CANCELLED && at_rng_uniform(r) < p->never_start_share)
		{
			/* cancelled while queued: never started, held nothing */
			job->start = -1;
			job->end = job->submit + 1 + (int64_t) at_rng_exponential(r, 1800.0);
			return;
		}

		t = reserve(g, job->submit > g->last_start ? job->submit : g->last_start, job->gpu_num);
		/* a scheduling latency of a few seconds */
		job->start = t + (int64_t) floor(at_rng_exponential(r, 2.0));
		job->end = job->start + (int64_t) floor(run);
		g->last_start = job->start;
		g->free_gpus -= job->gpu_num;
		heap_push(g, job->end, job->gpu_num);
	}
}
