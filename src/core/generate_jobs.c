/*
 * generate_jobs.c: synthetic AcmeTrace-like jobs, type by type.
 *
 * Targets: the Seren and Kalos rows of the dataset's cluster_summary.csv
 * (test/e2e/generator_calibration.sh compares a generated trace of each at
 * the published size with them; doc/generator.md has the table) and the
 * paper's findings: Pretrain jobs are few, large and long and are cancelled
 * far more often by GPU time than Eval jobs; Eval jobs are many, small and
 * come in sweeps; in Kalos about 5% of GPU jobs use more than 256 GPUs and
 * take about 96% of the GPU time, in Seren about 2% use more than 64 and
 * take about 75%; failed large jobs fail early.
 *
 * A job: its type (by the type shares; Eval and others arrive in batches),
 * GPU count and final state from the type's weights, a log-normal run whose
 * median grows with the GPUs and depends on the state (cancelled runs are
 * long: users stop training runs; failed ones short, shorter the larger).
 * Submissions follow a daily cycle.  GPU jobs go through the scheduler with
 * their type's priority (Pretrain above SFT and MLLM above Eval, Debug and
 * Other), so at the same occupancy Eval waits longer than Pretrain; a
 * cancelled job may give up before it starts (its patience).  A placement
 * latency (image pull, container start) is added to every GPU job's wait.
 * CPU jobs are not capacity-limited: a log-normal wait.
 */
#include <math.h>
#include <string.h>

#include "generate_jobs.h"

const char *const at_type_names[AT_NTYPES] = {"Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other"};
const char *const at_state_names[AT_NSTATES] = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"};

/*
 * Each type's numbers: the GPU-time split of the published summary shared
 * out by type (Pretrain about three quarters, mostly cancelled), medians
 * solved from it for the count shares and sizes, then tuned on generated
 * traces (tools/calibrate_generator).
 */
#define SIZES(a, b, c, d, e, f, g, h, i, j, k) {a, b, c, d, e, f, g, h, i, j, k}
/*                    GPUs:  1     2     4     8     16    32    64    128   256   512   1024 */
static const at_profile profiles[] = {
	{
		.name = "seren", .nodes = 286, .cpus_per_gpu = 16,
		.jobs_per_day = 1031550.0 / 184.0, .diurnal = 0.5,
		.epoch = 1677600000,	/* 2023-03-01 00:00:00+08:00 */
		.p_gpu = 663813.0 / 1031550.0,
		.cpu_state = {0.858, 0.039, 0.103},
		.cpu_type = {0.00, 0.10, 0.00, 0.00, 0.20, 0.70},
		.cpu_run_median = 14.5, .cpu_run_sigma = 2.8,
		.cpu_queue_median = 1.7, .cpu_queue_sigma = 1.5,
		.latency_median = 1.2, .latency_sigma = 0.4,
		.max_run = 1209604.0, .backfill = true, .sweep_limit = 5, .reserved_nodes = 0, .reserved_priority = 3,
		.team_gpus = {1024, 256, 128, 128, 64, 64, 32}, .nteams = 7, .team_idle = 70000,
		.users = 400, .campaign_jobs = 100, .size_habit = 0.8, .first_job_id = 5778432,
		.types = {
			[AT_TYPE_PRETRAIN] = {.habit = 0, .share = 0,
				.size = SIZES(0, 0, 0, 0, 0, 0.05, 0.25, 0.38, 0.25, 0.04, 0.03),
				.state = {0.30, 0.35, 0.35}, .run_sigma = 1.0,
				.run_median = {2600, 10700, 20000}, .run_per_doubling = {0, 0, -0.3},
				.patience = 3600, .batch = 1, .restarts = 20, .priority = 3},
			[AT_TYPE_EVAL] = {.habit = 0.97, .share = 0.68,
				.size = SIZES(0.82, 0.04, 0.04, 0.10, 0, 0, 0, 0, 0, 0, 0),
				.state = {0.53, 0.05, 0.42}, .run_sigma = 2.0,
				.run_median = {171, 292, 59}, .run_per_doubling = {0.1, 0.1, 0.1},
				.patience = 1800, .batch = 7.5, .restarts = 1, .priority = 0},
			[AT_TYPE_SFT] = {.habit = 0, .share = 0.02,
				.size = SIZES(0.10, 0.05, 0.15, 0.45, 0.15, 0.06, 0.03, 0.01, 0, 0, 0),
				.state = {0.45, 0.12, 0.43}, .run_sigma = 2.0,
				.run_median = {609, 4560, 400}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 3600, .batch = 2, .restarts = 1, .priority = 2},
			[AT_TYPE_MLLM] = {.habit = 0, .share = 0.01,
				.size = SIZES(0.10, 0.05, 0.15, 0.40, 0.15, 0.08, 0.04, 0.025, 0.005, 0, 0),
				.state = {0.45, 0.12, 0.43}, .run_sigma = 2.0,
				.run_median = {1008, 8172, 888}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 3600, .batch = 2, .restarts = 1, .priority = 2},
			[AT_TYPE_DEBUG] = {.habit = 0.97, .share = 0.14,
				.size = SIZES(0.70, 0.05, 0.05, 0.18, 0.01, 0.01, 0, 0, 0, 0, 0),
				.state = {0.38, 0.16, 0.46}, .run_sigma = 2.0,
				.run_median = {35, 47, 19}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 600, .timeout = 0.0002, .batch = 1, .restarts = 1, .priority = 1},
			[AT_TYPE_OTHER] = {.habit = 0.97, .share = 0.15,
				.size = SIZES(0.85, 0.05, 0.05, 0.05, 0, 0, 0, 0, 0, 0, 0),
				.state = {0.50, 0.05, 0.45}, .run_sigma = 1.5,
				.run_median = {700, 2400, 160}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 1800, .timeout = 0.0002, .batch = 1, .restarts = 1, .priority = 0},
		},
	},
	{
		.name = "kalos", .nodes = 302, .cpus_per_gpu = 15,
		.jobs_per_day = 62413.0 / 122.0, .diurnal = 0.5,
		.epoch = 1682899200,	/* 2023-05-01 00:00:00+00:00 */
		.p_gpu = 19907.0 / 62413.0,
		.cpu_state = {0.860, 0.001, 0.139},
		.cpu_type = {0.00, 0.20, 0.00, 0.00, 0.10, 0.70},
		.cpu_run_median = 22.5, .cpu_run_sigma = 1.8,
		.cpu_queue_median = 9.5, .cpu_queue_sigma = 2.1,
		.latency_median = 11.0, .latency_sigma = 0.6,
		.max_run = 625740.0, .backfill = true, .sweep_limit = 3, .reserved_nodes = 0, .reserved_priority = 3,
		.team_gpus = {1024, 512, 256}, .nteams = 3, .team_idle = 300000,
		.users = 150, .campaign_jobs = 50, .size_habit = 0.8, .first_job_id = 1,
		.types = {
			[AT_TYPE_PRETRAIN] = {.habit = 0, .share = 0,
				.size = SIZES(0, 0, 0, 0, 0, 0, 0.05, 0.05, 0.05, 0.80, 0.05),
				.state = {0.35, 0.35, 0.30}, .run_sigma = 0.6,
				.run_median = {7600, 15200, 36000}, .run_per_doubling = {0, 0, -0.3},
				.patience = 3600, .batch = 1, .restarts = 11, .priority = 3},
			[AT_TYPE_EVAL] = {.habit = 0.6, .share = 0.79,
				.size = SIZES(0.85, 0.03, 0.04, 0.08, 0, 0, 0, 0, 0, 0, 0),
				.state = {0.57, 0.03, 0.40}, .run_sigma = 1.6,
				.run_median = {110, 633, 60}, .run_per_doubling = {0.1, 0.1, 0.1},
				.patience = 1800, .batch = 5, .restarts = 1, .priority = 0},
			[AT_TYPE_DEBUG] = {.habit = 0.6, .share = 0.12,
				.size = SIZES(0.60, 0.05, 0.05, 0.25, 0.03, 0.02, 0, 0, 0, 0, 0),
				.state = {0.45, 0.10, 0.45}, .run_sigma = 1.8,
				.run_median = {136, 916, 183}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 600, .timeout = 0.002, .batch = 1, .restarts = 1, .priority = 1},
			[AT_TYPE_OTHER] = {.habit = 0.6, .share = 0.08,
				.size = SIZES(0.70, 0.05, 0.05, 0.15, 0.03, 0.02, 0, 0, 0, 0, 0),
				.state = {0.55, 0.05, 0.40}, .run_sigma = 1.8,
				.run_median = {305, 2795, 281}, .run_per_doubling = {0.1, 0.1, 0},
				.patience = 1800, .timeout = 0.002, .batch = 1, .restarts = 1, .priority = 0},
		},
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

/*
 * What rides through the scheduler with a GPU job: the user, the type and
 * the attempts of its run.  A run's attempts (a training job restarted
 * after each failure or cancellation, on the nodes its team keeps) are
 * drawn from a generator seeded by the first job's id, once to size the
 * scheduler's hold and again, identically, when the run starts.
 */
#define TAG(user, type, attempts, team, timeout, lnf) \
	((uint64_t) (user) | (uint64_t) (type) << 16 | (uint64_t) (attempts) << 20 | (uint64_t) (team) << 28 | \
	 (uint64_t) (timeout) << 36 | (uint64_t) lnf_code(lnf) << 37)
#define TAG_TEAM(t) ((int) (((t) >> 28) & 0xff))	/* team + 1, 0: none */
#define TAG_USER(t) ((int) ((t) & 0xffff))
#define TAG_TYPE(t) ((int) (((t) >> 16) & 0xf))
#define TAG_ATTEMPTS(t) ((int) (((t) >> 20) & 0xff))
#define TAG_TIMEOUT(t) ((bool) (((t) >> 36) & 1))	/* the first attempt runs until the time limit */
#define TAG_LNF(t) ((double) (((t) >> 37) & 0xfffff) / 4096.0 - 128.0)	/* the campaign's log factor */
#define MAX_ATTEMPTS 32
#define MAX_LATENCY 3600.0
#define BATCH_GAP 3.0
#define RESTART_GAP 120.0

/* a log factor in 20 bits of a tag: steps of 1/4096, -128 .. 128 */
static uint32_t
lnf_code(double lnf)
{
	return (uint32_t) fmin(fmax(floor((lnf + 128.0) * 4096.0 + 0.5), 0), 0xfffff);
}

/*
 * A user's campaign of one job type: the jobs a user submits of a type
 * come in campaigns (a sweep of one model's checkpoints, a week of
 * debugging one program), each with its own run-time factor and its usual
 * GPU count.  A run's log run time is the type's median for its state and
 * size, plus the campaign's factor (normal, the between-campaign part of
 * the type's variance), plus the job's own draw (the rest): the type's
 * distribution over all jobs is unchanged, and a user's recent jobs of a
 * type predict the next one, as in Helios's traces.
 */
typedef struct campaign
{
	int32_t		left;			/* jobs of the campaign still to come */
	int32_t		k;				/* its usual size: log2 GPUs */
	double		lnf;			/* its log run-time factor */
} campaign;

typedef struct attempt
{
	int			state;
	int64_t		latency;		/* placement to start */
	int64_t		run;
	int64_t		gap;			/* end to the next attempt's submit */
} attempt;

/* a later attempt of a started run: all its times known, out when submitted */
typedef struct restart
{
	double		t;				/* submit */
	int			team;			/* >= 0: not an attempt but this team's next run, due at t */
	int64_t		run;			/* the run's first job */
	int64_t		start;
	int64_t		end;
	int			type;
	int			user;
	int			state;
	int32_t		gpus;
} restart;

#define HEAP_PREFIX restart
#define HEAP_ELEM restart
#define HEAP_LESS(a, b) ((a)->t < (b)->t)
#include "heap.h"

struct at_generate_jobs
{
	const at_profile *p;
	at_mem_fn	mem;
	void	   *ctx;
	at_rng		rng;
	uint64_t	seed;
	at_sched   *sched;
	int64_t		n;				/* jobs to make */
	int64_t		submitted;
	int64_t		emitted;
	double		clock;			/* the arrival process's time */
	double		last_submit;	/* submits never go back */
	bool		have_arrival;	/* clock is an arrival not yet taken */
	restart_heap restarts;		/* on t */
	double		gap_mean;		/* between arrivals (a batch is one), at the mean rate */
	double		cpu_arrival;	/* share of arrivals that are a CPU job */
	int64_t		cpu_jobs;
	int			batch_user;
	int32_t		batch_group;	/* the batch's scheduler group: its first job id, mod 65536 */
	double		batch_weight[AT_NTYPES];	/* a GPU arrival's type */
	int			batch_type;		/* jobs left in the current batch, and their type */
	int64_t		batch_left;
	campaign   *campaigns;		/* users x types */
	double		timeout_due[AT_NTYPES];	/* timeouts owed, a fraction of a job */
	int64_t		campaigns_begun[AT_NTYPES];

	/*
	 * A team's attempts, over all its runs, take their states and duration
	 * draws from one two-dimensional low-discrepancy sequence (golden and
	 * silver ratios from the team's own start): a handful of teams' runs
	 * are most of a cluster's GPU time, and drawn at random a Kalos trace's
	 * GPU time and its split by state swung by a fifth with the seed.  A
	 * team has one run at a time; team_first is the index of its current
	 * run's first attempt.
	 */
	int64_t		team_first[AT_MAX_TEAMS];
	int64_t		team_next[AT_MAX_TEAMS];
	double		team_u0[AT_MAX_TEAMS];
	double		team_v0[AT_MAX_TEAMS];
	double		campaign_u0[AT_NTYPES]; /* the start of each type's stratified sequence */
	bool		finished;
	bool		held;			/* the job last out began a run that holds GPUs */
	at_job_hold hold;			/* ... and what it holds */
};

static bool restart_push(at_generate_jobs *g, restart x);
static int	draw_attempts(at_rng *r, double a);
static int	log2_gpus(int32_t gpus);

at_sched_status
at_generate_jobs_create(at_mem_fn mem, void *ctx, const at_profile *p, int64_t n, uint64_t seed,
						at_generate_jobs **out)
{
	at_generate_jobs *g = mem(ctx, NULL, sizeof(at_generate_jobs));
	at_sched_config cfg;
	at_sched_status st;
	double		per_gpu_arrival = 0,
				wsum = 0;

	*out = NULL;
	if (g == NULL)
		return AT_SCHED_NOMEM;
	g->p = p;
	g->mem = mem;
	g->ctx = ctx;
	g->n = n < 0 ? 0 : n;
	g->seed = seed ^ (uint64_t) p->nodes;
	at_rng_seed(&g->rng, g->seed);
	g->clock = g->last_submit = (double) p->epoch;
	/* a batch of type t carries batch_t jobs: weight t by share / batch */
	for (int t = 0; t < AT_NTYPES; t++)
	{
		const at_type_profile *tp = &p->types[t];

		g->batch_weight[t] = tp->share > 0 ? tp->share / (tp->batch * tp->restarts) : 0;
		wsum += g->batch_weight[t];
	}
	for (int t = 0; t < AT_NTYPES; t++)
		per_gpu_arrival += g->batch_weight[t] / wsum * p->types[t].batch * p->types[t].restarts;
	/*
	 * An arrival is a CPU job (probability cpu_arrival) or a batch of GPU
	 * jobs (per_gpu_arrival on average), so that p_gpu of the jobs use GPUs
	 * and jobs_per_day come per day (a batch's jobs follow 3 s apart).
	 */
	g->cpu_arrival = (1 - p->p_gpu) * per_gpu_arrival / ((1 - p->p_gpu) * per_gpu_arrival + p->p_gpu);
	g->gap_mean = 86400.0 / p->jobs_per_day * (g->cpu_arrival + (1 - g->cpu_arrival) * per_gpu_arrival) -
		(1 - g->cpu_arrival) * (per_gpu_arrival - 1) * BATCH_GAP;
	if (g->gap_mean < 1)
		g->gap_mean = 1;
	memset(&cfg, 0, sizeof cfg);
	memcpy(cfg.class_limit, p->class_limit, sizeof cfg.class_limit);
	cfg.group_limit = p->sweep_limit;
	cfg.nodes = p->nodes;
	cfg.gpus_per_node = 8;
	cfg.backfill = p->backfill;
	cfg.backfill_depth = 256;
	cfg.reserved_nodes = p->reserved_nodes;
	cfg.reserved_priority = p->reserved_priority;
	st = at_sched_create(mem, ctx, &cfg, &g->sched);
	if (st != AT_SCHED_OK)
	{
		mem(ctx, g, 0);
		return st;
	}
	g->campaigns = mem(ctx, NULL, sizeof(campaign) * (size_t) (p->users > 0 ? p->users : 1) * AT_NTYPES);
	if (g->campaigns == NULL)
	{
		at_generate_jobs_destroy(g);
		return AT_SCHED_NOMEM;
	}
	for (int t = 0; t < AT_NTYPES; t++)
	{
		g->timeout_due[t] = at_rng_uniform(&g->rng);
		g->campaign_u0[t] = at_rng_uniform(&g->rng);
	}
	for (int t = 0; t < p->nteams && t < AT_MAX_TEAMS; t++)
	{
		g->team_u0[t] = at_rng_uniform(&g->rng);
		g->team_v0[t] = at_rng_uniform(&g->rng);
	}
	/* the teams start their first runs over the first idle time */
	for (int t = 0; t < p->nteams; t++)
	{
		restart		x;

		memset(&x, 0, sizeof x);
		x.team = t;
		x.t = (double) p->epoch + at_rng_uniform(&g->rng) * p->team_idle;
		if (!restart_push(g, x))
		{
			at_generate_jobs_destroy(g);
			return AT_SCHED_NOMEM;
		}
	}
	*out = g;
	return AT_SCHED_OK;
}

void
at_generate_jobs_destroy(at_generate_jobs *g)
{
	if (g == NULL)
		return;
	at_sched_destroy(g->sched);
	if (g->campaigns != NULL)
		g->mem(g->ctx, g->campaigns, 0);
	restart_heap_free(g->mem, g->ctx, &g->restarts);
	g->mem(g->ctx, g, 0);
}

static double
lognormal(at_rng *r, double median, double sigma)
{
	return median * exp(sigma * at_rng_normal(r));
}

/* The next arrival time: exponential gaps thinned to a daily cycle, busiest 15 hours after the epoch (15:00). */
static void
next_arrival(at_generate_jobs *g)
{
	const at_profile *p = g->p;
	double		amp = p->diurnal;

	for (;;)
	{
		double		phase;

		g->clock += at_rng_exponential(&g->rng, g->gap_mean / (1 + amp));
		phase = fmod(g->clock - (double) p->epoch, 86400.0) / 86400.0;
		if (at_rng_uniform(&g->rng) * (1 + amp) <= 1 + amp * cos(2 * 3.14159265358979323846 * (phase - 0.625)))
			return;
	}
}

/* A CPU job: decided at once. */
static void
cpu_job(at_generate_jobs *g, at_job *job)
{
	const at_profile *p = g->p;
	at_rng	   *r = &g->rng;
	double		run;

	job->gpu_num = 0;
	job->node_num = 1;
	job->cpu_num = 1 << (int) (at_rng_uniform(r) * 7);	/* 1..64 */
	job->type = at_rng_pick(r, p->cpu_type, AT_NTYPES);
	job->state = at_rng_pick(r, p->cpu_state, 3);
	run = fmin(lognormal(r, p->cpu_run_median, p->cpu_run_sigma), p->max_run);
	job->start = job->submit + (int64_t) floor(fmin(lognormal(r, p->cpu_queue_median, p->cpu_queue_sigma), 86400.0));
	job->end = job->start + (int64_t) floor(run);
}

/* The index whose cumulative weight first exceeds u (in [0, 1)) of the total. */
static int
pick_u(const double *w, int n, double u)
{
	double		total = 0,
				acc = 0;

	for (int i = 0; i < n; i++)
		total += w[i];
	for (int i = 0; i < n - 1; i++)
		if (u * total < (acc += w[i]))
			return i;
	return n - 1;
}

/* The attempts of the run whose first job is id: the same for the same (seed, id). */
static int
draw_run(at_generate_jobs *g, uint64_t tag, int k, int64_t id, attempt *a, int64_t *hold)
{
	const at_profile *p = g->p;
	int			t = TAG_TYPE(tag);
	int			attempts = TAG_ATTEMPTS(tag);
	const at_type_profile *tp = &p->types[t];
	at_rng		r;
	double		u0,
				v0,
				lnf = TAG_LNF(tag),
				sigma = tp->run_sigma;

	/* a user's job draws around its campaign; a team's Pretrain runs keep the type's spread */
	if (TAG_TEAM(tag) == 0)
		sigma *= sqrt(1 - tp->habit);

	at_rng_seed(&r, g->seed ^ ((uint64_t) id * 0x9e3779b97f4a7c15u));
	*hold = 0;
	/*
	 * The attempts' final states come from a golden-ratio sequence with a
	 * random start, so a run's states follow the type's shares closely (a
	 * few long Pretrain runs would otherwise swing the GPU-time split).
	 */
	u0 = at_rng_uniform(&r);
	v0 = at_rng_uniform(&r);
	if (TAG_TEAM(tag) != 0)
	{
		/* a team's attempts continue its sequences: see team_first */
		int			team = TAG_TEAM(tag) - 1;

		u0 = fmod(g->team_u0[team] + (double) g->team_first[team] * 0.6180339887498949, 1.0);
		v0 = fmod(g->team_v0[team] + (double) g->team_first[team] * 0.4142135623730951, 1.0);
	}
	for (int i = 0; i < attempts; i++)
	{
		int			state = pick_u(tp->state, 3, fmod(u0 + i * 0.6180339887498949, 1.0));
		double		median = tp->run_median[state] * exp(tp->run_per_doubling[state] * k + lnf);
		double		z = at_rng_normal(&r),
					run;

		/* a team's attempts take their durations from a sequence too */
		if (TAG_TEAM(tag) != 0)
			z = at_normal_quantile(fmin(fmax(fmod(v0 + i * 0.4142135623730951, 1.0), 1e-9), 1 - 1e-9));
		run = fmin(fmax(median * exp(sigma * z), 1.0), p->max_run);

		a[i].latency = (int64_t) floor(fmin(lognormal(&r, p->latency_median, p->latency_sigma), MAX_LATENCY));
		a[i].gap = i + 1 < attempts ? 1 + (int64_t) floor(at_rng_exponential(&r, RESTART_GAP)) : 0;
		if (i == 0 && TAG_TIMEOUT(tag))
		{
			/* left running until the time limit */
			state = AT_STATE_TIMEOUT;
			run = p->max_run;
		}
		else if (state == AT_STATE_FAILED)
		{
			/* the paper folds these rare states into FAILED */
			double		u = at_rng_uniform(&r);

			if (u < 0.01)
				state = AT_STATE_TIMEOUT;
			else if (u < 0.015)
				state = AT_STATE_NODE_FAIL;
		}
		a[i].run = (int64_t) floor(run);
		a[i].state = state;
		*hold += a[i].latency + a[i].run + a[i].gap;
	}
	return attempts;
}

/*
 * The next job of user's campaign of type t: its size (the campaign's
 * usual one, or a fresh draw), the campaign's log factor, and whether it
 * runs until the time limit.  Timeouts are owed at the type's rate and
 * paid one job at a time, not drawn: a handful of jobs at the time limit
 * carry a tenth of a cluster's mean run time, and drawing them swung it by
 * as much from one seed to the next.
 */
static void
campaign_next(at_generate_jobs *g, int user, int t, int *k, double *lnf, bool *timeout)
{
	const at_profile *p = g->p;
	const at_type_profile *tp = &p->types[t];
	campaign   *c = &g->campaigns[(size_t) user * AT_NTYPES + t];

	if (c->left <= 0)
	{
		/*
		 * A type's campaigns take their factors and sizes from low-discrepancy
		 * sequences (golden ratio, silver ratio), so that over a trace they
		 * follow the type's distribution closely: a campaign of 50 long jobs
		 * moves a Kalos trace's mean run time by a few percent, and drawing
		 * the factors at random swung it past the tolerance.  The factor's
		 * quantile stays within 0.01 .. 0.99 (2.3 standard deviations):
		 * a campaign of jobs a thousand times its type's median held enough
		 * of Seren to double its mean queue.
		 */
		int64_t		i = g->campaigns_begun[t]++;

		c->left = draw_attempts(&g->rng, p->campaign_jobs);
		c->lnf = tp->run_sigma * sqrt(tp->habit) *
			at_normal_quantile(0.001 + 0.998 * fmod(g->campaign_u0[t] + (double) i * 0.6180339887498949, 1.0));
		c->k = pick_u(tp->size, AT_NGPU_SIZES, fmod(g->campaign_u0[t] + (double) i * 0.4142135623730951, 1.0));
	}
	c->left--;
	*k = at_rng_uniform(&g->rng) < p->size_habit ? c->k : at_rng_pick(&g->rng, tp->size, AT_NGPU_SIZES);
	*lnf = c->lnf;
	g->timeout_due[t] += tp->timeout;
	*timeout = g->timeout_due[t] >= 1;
	if (*timeout)
		g->timeout_due[t] -= 1;
}

/* A run of GPU jobs of type t into the scheduler: one hold for all its attempts. */
static at_sched_status
gpu_job(at_generate_jobs *g, int t, int user, int64_t id, int64_t submit, int attempts, bool sweep, int team)
{
	const at_type_profile *tp = &g->p->types[t];
	attempt		a[MAX_ATTEMPTS];
	at_sched_job sj;
	int			k;
	double		lnf = 0;
	bool		timeout = false;

	if (team >= 0)
	{
		k = log2_gpus(g->p->team_gpus[team]);
		g->team_first[team] = g->team_next[team];
		g->team_next[team] += attempts;
	}
	else
		campaign_next(g, user, t, &k, &lnf, &timeout);
	memset(&sj, 0, sizeof sj);
	sj.tag = TAG(user, t, attempts, team + 1, timeout, lnf);
	draw_run(g, sj.tag, k, id, a, &sj.hold);
	sj.id = id;
	sj.submit = submit;
	sj.gpus = 1 << k;
	sj.priority = tp->priority;
	sj.group = sweep ? g->batch_group : -1;
	/* a first attempt to be cancelled may be cancelled while it waits */
	sj.patience = a[0].state == AT_STATE_CANCELLED ?
		1 + (int64_t) floor(at_rng_exponential(&g->rng, tp->patience)) : -1;
	return at_sched_submit(g->sched, &sj);
}

static int
log2_gpus(int32_t gpus)
{
	int			k = 0;

	while ((1 << k) < gpus)
		k++;
	return k;
}

static bool restart_push(at_generate_jobs *g, restart x);

/* A team's run has ended (or given up) at end: its next run, after the team's idle time. */
static bool
team_next(at_generate_jobs *g, const at_sched_job *sj, int64_t end)
{
	restart		x;

	if (TAG_TEAM(sj->tag) == 0)
		return true;
	memset(&x, 0, sizeof x);
	x.team = TAG_TEAM(sj->tag) - 1;
	x.t = (double) end + 1 + g->p->team_idle * (0.5 + at_rng_uniform(&g->rng));
	return restart_push(g, x);
}

/* A decided run: its first job out now, the later attempts queued for their submit times. */
static bool
from_sched(at_generate_jobs *g, const at_sched_job *sj, at_job *job)
{
	int			t = TAG_TYPE(sj->tag);
	int			n = TAG_ATTEMPTS(sj->tag);
	attempt		a[MAX_ATTEMPTS];
	int64_t		hold,
				end;

	draw_run(g, sj->tag, log2_gpus(sj->gpus), sj->id, a, &hold);
	memset(job, 0, sizeof(*job));
	job->job_id = sj->id;
	job->run = sj->id;
	job->user = TAG_USER(sj->tag);
	job->type = t;
	job->state = a[0].state;
	job->gpu_num = sj->gpus;
	job->node_num = (sj->gpus + 7) / 8;
	job->cpu_num = sj->gpus * g->p->cpus_per_gpu;
	job->submit = sj->submit;
	if (sj->start < 0)
	{
		/* gave up waiting: the run ends here */
		job->start = -1;
		job->end = sj->end;
		return team_next(g, sj, sj->end);
	}
	job->start = sj->start + a[0].latency;
	job->end = end = job->start + a[0].run;
	g->held = true;
	g->hold.start = sj->start;
	g->hold.end = sj->end;
	g->hold.gpus = sj->gpus;
	g->hold.node = at_sched_taken_nodes(g->sched, &g->hold.nodes);
	for (int i = 1; i < n; i++)
	{
		restart		x;

		x.team = -1;
		x.run = sj->id;
		x.t = (double) (end + a[i - 1].gap);
		x.start = (int64_t) x.t + a[i].latency;
		x.end = end = x.start + a[i].run;
		x.type = t;
		x.user = job->user;
		x.state = a[i].state;
		x.gpus = sj->gpus;
		if (!restart_push(g, x))
			return false;
	}
	return team_next(g, sj, end);
}

static bool
restart_push(at_generate_jobs *g, restart x)
{
	return restart_heap_push(g->mem, g->ctx, &g->restarts, x);
}

/*
 * Attempts of a run: uniform on the integers a/2 .. 3a/2 (mean a; 1 when
 * a <= 1).  Not geometric: a team's GPU time is its runs' lengths over
 * its cluster's months, and a geometric count (as many runs of 1 attempt
 * as of 2a) swung a Kalos trace's Pretrain GPU time by a fifth from one
 * seed to the next.
 */
static int
draw_attempts(at_rng *r, double a)
{
	double		lo;

	if (!(a > 1))
		return 1;
	lo = fmax(1, floor(a / 2));
	return (int) fmin(lo + floor(at_rng_uniform(r) * (2 * a - 2 * lo + 1)), MAX_ATTEMPTS);
}

bool
at_generate_jobs_next(at_generate_jobs *g, at_job *job, at_sched_status *status)
{
	const at_profile *p = g->p;
	at_rng	   *r = &g->rng;
	at_sched_job sj;

	*status = AT_SCHED_OK;
	g->held = false;
	for (;;)
	{
		int64_t		id;
		int			user;
		double		t;

		if (g->emitted == g->n)
			return false;
		if (at_sched_take(g->sched, &sj))
		{
			if (!from_sched(g, &sj, job))
			{
				*status = AT_SCHED_NOMEM;
				return false;
			}
			g->emitted++;
			return true;
		}
		if (g->submitted == g->n)
		{
			if (g->finished || (*status = at_sched_finish(g->sched)) != AT_SCHED_OK)
				return false;	/* finished and nothing left: cannot happen */
			g->finished = true;
			continue;
		}
		id = p->first_job_id + g->submitted++;
		if (g->batch_left > 0)
		{
			g->batch_left--;
			g->last_submit += at_rng_exponential(r, BATCH_GAP);
			if ((*status = gpu_job(g, g->batch_type, g->batch_user, id, (int64_t) g->last_submit,
								   1, true, -1)) != AT_SCHED_OK)
				return false;
			continue;
		}
		if (!g->have_arrival)
		{
			next_arrival(g);
			g->have_arrival = true;
		}
		if (g->restarts.n > 0 && g->restarts.h[0].t <= g->clock)
		{
			/* a run's next attempt, on the nodes the run holds */
			restart		x = restart_heap_pop(&g->restarts);

			if (x.team >= 0)
			{
				/* a team's next run goes to the scheduler */
				const at_type_profile *tp = &p->types[AT_TYPE_PRETRAIN];
				double		a = tp->restarts;
				int			attempts = draw_attempts(r, a);

				if (x.t > g->last_submit)
					g->last_submit = x.t;
				/* a team submits as its own user, after the individual users */
				if ((*status = gpu_job(g, AT_TYPE_PRETRAIN, p->users + x.team, id, (int64_t) g->last_submit,
									   attempts, false, x.team)) != AT_SCHED_OK)
					return false;
				continue;
			}
			if (x.t < g->last_submit)
			{
				/* decided after its time had passed (rare): keep ids in submit order */
				x.t = g->last_submit;
				if (x.start < (int64_t) x.t)
					x.start = (int64_t) x.t;
				if (x.end < x.start)
					x.end = x.start;
			}
			g->last_submit = x.t;
			memset(job, 0, sizeof(*job));
			job->job_id = id;
			job->run = x.run;
			job->user = x.user;
			job->type = x.type;
			job->state = x.state;
			job->gpu_num = x.gpus;
			job->node_num = (x.gpus + 7) / 8;
			job->cpu_num = x.gpus * p->cpus_per_gpu;
			job->submit = (int64_t) x.t;
			job->start = x.start;
			job->end = x.end;
			g->emitted++;
			return true;
		}
		g->have_arrival = false;
		t = g->clock > g->last_submit ? g->clock : g->last_submit;
		g->last_submit = t;
		/* a few heavy users submit most jobs */
		user = (int) (p->users * pow(at_rng_uniform(r), 3.0));
		/* the scheduler up to now, so runs started by now queue their next attempts in time */
		if ((*status = at_sched_advance(g->sched, (int64_t) t)) != AT_SCHED_OK)
			return false;
		/* CPU or GPU: whichever keeps the share of GPU jobs at p_gpu so far */
		if ((double) g->cpu_jobs < (1 - p->p_gpu) * (double) g->submitted)
		{
			g->cpu_jobs++;
			memset(job, 0, sizeof(*job));
			job->job_id = id;
			job->run = id;
			job->user = user;
			job->submit = (int64_t) t;
			cpu_job(g, job);
			g->emitted++;
			return true;
		}
		g->batch_type = at_rng_pick(r, g->batch_weight, AT_NTYPES);
		g->batch_user = user;
		g->batch_group = (int32_t) (id & 0xffff);
		{
			const at_type_profile *tp = &p->types[g->batch_type];
			double		b = tp->batch,
						a = tp->restarts;
			int			attempts;

			/* geometric with mean b: the rest of the batch follows */
			g->batch_left = b > 1 ? (int64_t) floor(log(at_rng_uniform(r)) / log(1 - 1 / b)) : 0;
			/* geometric with mean a: the attempts of the run */
			attempts = draw_attempts(r, a);
			if ((*status = gpu_job(g, g->batch_type, user, id, (int64_t) t,
								   attempts, tp->batch > 1, -1)) != AT_SCHED_OK)
				return false;
		}
	}
}

bool
at_generate_jobs_hold(const at_generate_jobs *g, at_job_hold *h)
{
	if (!g->held)
		return false;
	*h = g->hold;
	return true;
}

int64_t
at_generate_jobs_horizon(const at_generate_jobs *g)
{
	int64_t		t;

	if (g->emitted == g->n)
		return INT64_MAX;
	t = at_sched_horizon(g->sched);
	/* a queued attempt starts, and a team's next run is submitted, at or after its t */
	if (g->restarts.n > 0 && (int64_t) g->restarts.h[0].t < t)
		t = (int64_t) g->restarts.h[0].t;
	return t;
}
