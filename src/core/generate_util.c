/*
 * generate_util.c: synthetic wide utilization lines.  See generate_util.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generate_util.h"
#include "hash.h"
#include "util_quantiles.h"

void
at_format_utc(int64_t unix_s, char out[26])
{
	/* civil_from_days (H. Hinnant); years outside 0..9999 are clamped */
	int64_t		days = unix_s >= 0 ? unix_s / 86400 : -((-unix_s + 86399) / 86400);
	int64_t		secs = unix_s - days * 86400;
	int64_t		z = days + 719468;
	int64_t		era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t		doe = z - era * 146097;
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;
	int			d = (int) (doy - (153 * mp + 2) / 5 + 1);
	int			m = (int) (mp < 10 ? mp + 3 : mp - 9);
	int64_t		y = yoe + era * 400 + (m <= 2);
	char		tmp[64];

	if (y < 0)
		y = 0;
	if (y > 9999)
		y = 9999;
	snprintf(tmp, sizeof tmp, "%04d-%02d-%02d %02d:%02d:%02d+00:00",
			 (int) y, m, d, (int) (secs / 3600), (int) (secs / 60 % 60), (int) (secs % 60));
	memcpy(out, tmp, 25);
	out[25] = '\0';
}

size_t
at_util_line_size(int series)
{
	/* a cell is at most ",100.000" or ",10.140.255.255" (16 bytes) */
	return 32 + (size_t) (series > 0 ? series : 0) * 16;
}

size_t
at_util_header(char *buf, int series)
{
	size_t		n = (size_t) sprintf(buf, "Time");
	int			i;

	for (i = 0; i < series; i++)
		n += (size_t) sprintf(buf + n, ",10.140.%d.%d", (i / 256) % 256, i % 256);
	return n;
}

size_t
at_util_line(char *buf, int series, int64_t unix_s, uint64_t seed,
			 double blank_share, at_rng *rng)
{
	char		ts[26];
	size_t		n;
	int			i;

	at_format_utc(unix_s, ts);
	n = (size_t) sprintf(buf, "%s", ts);
	for (i = 0; i < series; i++)
	{
		uint64_t	regime = at_hash_fmix(seed ^ at_hash_fmix((uint64_t) i * 1000003u + (uint64_t) (unix_s / 3600))) % 10;
		double		u = at_rng_uniform(rng);
		double		v;

		if (at_rng_uniform(rng) < blank_share)
		{
			buf[n++] = ',';
			continue;
		}
		if (regime < 4)
			v = 2.0 * u;			/* idle */
		else if (regime < 8)
			v = 97.0 + 3.0 * u;		/* busy */
		else
			v = 100.0 * u;
		n += (size_t) sprintf(buf + n, ",%.3f", v);
	}
	buf[n] = '\0';
	return n;
}

/* ---- the realistic model ---- */

double
at_util_quantile_at(const double *q, double p)
{
	double		x = p * 999.0;
	int			i;

	if (!(x > 0))
		return q[0];
	if (x >= 999.0)
		return q[999];
	i = (int) x;
	return q[i] + (q[i + 1] - q[i]) * (x - i);
}

double
at_util_table_cdf(const double *q, double x)
{
	int			lo = 0,
				hi = 999;

	if (x < q[0])
		return 0;
	if (x >= q[999])
		return 1;
	/* the largest i with q[i] <= x */
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (q[mid] <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (lo + (x - q[lo]) / (q[lo + 1] - q[lo])) / 999.0;
}

/* Busy runs 40 to 2,880 samples (10 minutes to 12 hours at 15 s), log-uniform. */
#define RUN_MIN 40.0
#define RUN_MAX 2880.0
#define AR_RHO 0.97

/* ---- texture (generate_util.h): noise, dips and small idle readings, for both models ---- */

/* The kinds of dip (generate_util.h): busy samples between them on average, and their lengths. */
static const struct
{
	double		every;
	int			lo,
				hi;
}			dip_kinds[3] = {
	{AT_UTIL_STALL_EVERY, AT_UTIL_STALL_MIN, AT_UTIL_STALL_MAX},
	{AT_UTIL_CKPT_EVERY, AT_UTIL_CKPT_MIN, AT_UTIL_CKPT_MAX},
	{AT_UTIL_EVAL_EVERY, AT_UTIL_EVAL_MIN, AT_UTIL_EVAL_MAX},
};

/* The dip samples a busy sample brings on average through kind k. */
static double
dip_mass(int k)
{
	return (dip_kinds[k].lo + dip_kinds[k].hi) / 2.0 / dip_kinds[k].every;
}

/* Failures before the first success of a per-sample chance p, log1m = log(1 - p). */
static int32_t
gap(at_rng *r, double log1m)
{
	double		k = log(at_rng_uniform(r)) / log1m;

	return k < 1e9 ? (int32_t) k : 1000000000;
}

static int
compute_metric(const char *metric)
{
	return strcmp(metric, "GPU_UTIL") == 0 || strcmp(metric, "SM_ACTIVE") == 0 || strcmp(metric, "SM_OCCUPANCY") == 0;
}

/*
 * Sets the texture of metric: dips and noise for the compute metrics,
 * small idle readings for them and FB_USED, nothing for the per-server
 * metrics.  The idle runs give up the dips' share of the idle time, so
 * the idle share (dips included) stays p_idle.
 */
static void
texture_init(at_util_gen *g, const char *metric)
{
	/* per busy sample: the chance a dip starts, and the dip samples it brings on average */
	double		start = 0,
				mass = 0,
				share;

	for (int k = 0; k < 3; k++)
	{
		start += 1.0 / dip_kinds[k].every;
		mass += dip_mass(k);
	}
	/* a dip starts only outside one: dips / (dips + the samples between them) */
	share = mass / (1.0 - start + mass);

	g->p_zero = at_util_table_cdf(g->q, 0.0);
	if (compute_metric(metric) || strcmp(metric, "FB_USED") == 0)
		g->touch_log = log1p(-AT_UTIL_TOUCH);
	if (compute_metric(metric))
	{
		g->noise = AT_UTIL_NOISE;
		g->mix_z = sqrt(1.0 - AT_UTIL_NOISE);
		g->mix_w = sqrt(AT_UTIL_NOISE);
		/* dips need idle time to give up: never more than half of it */
		if (share < g->p_idle / 2)
		{
			g->dip_log = log1p(-start);
			g->dip_share = share;
		}
	}
	g->idle_runs = (g->p_idle - g->dip_share) / (1.0 - g->dip_share);
}

/* One busy sample of a dip process: 1 when the sample is in a dip. */
static int
dip_step(at_util_gen *g, at_util_dip *d)
{
	double		x;
	int			k;

	if (g->dip_log == 0)
		return 0;
	if (d->left > 0)
	{
		d->left--;
		return 1;
	}
	if (d->next > 0)
	{
		d->next--;
		return 0;
	}
	/* a dip starts: its kind by the rates, its length uniform in the kind's range */
	x = at_rng_uniform(&g->rng) * (1.0 / dip_kinds[0].every + 1.0 / dip_kinds[1].every + 1.0 / dip_kinds[2].every);
	k = x < 1.0 / dip_kinds[0].every ? 0 : x < 1.0 / dip_kinds[0].every + 1.0 / dip_kinds[1].every ? 1 : 2;
	d->left = dip_kinds[k].lo - 1 + (int32_t) (at_rng_uniform(&g->rng) * (dip_kinds[k].hi - dip_kinds[k].lo + 1));
	d->next = gap(&g->rng, g->dip_log);
	return 1;
}

/*
 * A dip process as if it had been running all along (a series' first
 * sample, a job's start): in a dip with probability dip_share, the dip
 * picked by the samples it holds and cut at a uniform point.  Started
 * just after a dip instead, short jobs would dip less than dip_share and
 * the trace model's idle share would come out short.
 */
static void
dip_start(at_util_gen *g, at_util_dip *d)
{
	d->left = 0;
	d->next = 0;
	if (g->dip_log == 0)
		return;
	d->next = gap(&g->rng, g->dip_log);
	if (at_rng_uniform(&g->rng) < g->dip_share)
	{
		double		x = at_rng_uniform(&g->rng) * (dip_mass(0) + dip_mass(1) + dip_mass(2));
		int			k = x < dip_mass(0) ? 0 : x < dip_mass(0) + dip_mass(1) ? 1 : 2,
					lo = dip_kinds[k].lo,
					hi = dip_kinds[k].hi,
					len;

		/* a long dip is met more often than a short one: length-biased */
		do
			len = lo + (int) (at_rng_uniform(&g->rng) * (hi - lo + 1));
		while (at_rng_uniform(&g->rng) * hi > len);
		d->left = 1 + (int32_t) (at_rng_uniform(&g->rng) * len);
	}
}

/* One idle sample outside a dip: 1 when it reads a small value (touch_value). */
static int
touch_step(at_util_gen *g, int32_t *t)
{
	if (g->touch_log == 0)
		return 0;
	if (*t > 0)
	{
		(*t)--;
		return 0;
	}
	*t = gap(&g->rng, g->touch_log);
	return 1;
}

/*
 * A small idle reading: a value of the idle part above 0 (the table's own,
 * as SM_ACTIVE's 0.001 to 0.93), at least the metric's smallest unit (so
 * GPU_UTIL, whose idle part is all 0, reads 1).
 */
static double
touch_value(at_util_gen *g)
{
	double		v = at_util_quantile_at(g->q, g->p_zero + at_rng_uniform(&g->rng) * (g->p_idle - g->p_zero));

	if (llround(v * g->scale * (g->decimals ? 1000.0 : 1.0)) == 0)
		v = (g->decimals ? 0.001 : 1.0) / g->scale;
	return v;
}

/*
 * Steps the AR(1) latent z with innovation weight c; *w gets the sample's
 * own noise (0 without).  One Box-Muller pair gives both: its cosine is
 * the value at_rng_normal would give, so the AR(1) stream is the same with
 * or without noise, and the noise costs a sine.
 */
static double
ar_step(at_util_gen *g, double z, double c, double *w)
{
	double		e;

	if (g->noise > 0)
	{
		double		m = sqrt(-2.0 * log(at_rng_uniform(&g->rng)));
		double		a = 6.283185307179586 * at_rng_uniform(&g->rng);

		e = m * cos(a);
		*w = m * sin(a);
	}
	else
	{
		e = at_rng_normal(&g->rng);
		*w = 0;
	}
	return AR_RHO * z + c * e;
}

/*
 * The value at latent AR(1) z and noise w (both standard normal; their mix
 * is too, so the marginal holds) in the idle or busy part of the table.
 */
static double
part_value(const at_util_gen *g, double z, double w, int busy)
{
	double		x = g->noise > 0 ? g->mix_z * z + g->mix_w * w : z;
	double		u = 0.5 * erfc(-x / sqrt(2.0));

	return at_util_quantile_at(g->q, busy ? g->p_idle + u * (1.0 - g->p_idle) : u * g->p_idle);
}

double
at_util_gen_dip_share(const at_util_gen *g)
{
	return g->dip_share;
}

/* ---- the realistic model's runs ---- */

static int32_t
run_length(at_util_gen *g, int busy)
{
	double		len = exp(log(RUN_MIN) + at_rng_uniform(&g->rng) * (log(RUN_MAX) - log(RUN_MIN)));

	/* idle runs scaled so that idle / (idle + busy) time is idle_runs */
	if (!busy)
		len *= g->idle_runs / (1.0 - g->idle_runs);
	return len < 1 ? 1 : (int32_t) len;
}

static void
new_run(at_util_gen *g, at_util_series *s, int first)
{
	if (first)
		s->busy = at_rng_uniform(&g->rng) >= g->idle_runs;
	else
		s->busy = !s->busy;
	s->left = run_length(g, s->busy);
	/* a run that starts mid-way (the first) is cut uniformly */
	if (first)
		s->left = 1 + (int32_t) (at_rng_uniform(&g->rng) * s->left);
	s->offline = at_rng_uniform(&g->rng) < g->offline_share;
	s->z = at_rng_normal(&g->rng);
	if (first)
	{
		dip_start(g, &s->dip);
		s->touch = g->touch_log != 0 ? gap(&g->rng, g->touch_log) : 0;
	}
}

int
at_util_gen_init(at_util_gen *g, const char *cluster, const char *metric, int series,
				 uint64_t seed, double offline_share, at_util_series *s)
{
	const char *table = metric;
	double		p;

	memset(g, 0, sizeof *g);
	g->scale = 1;
	g->decimals = 3;
	if (strcmp(metric, "GPU_UTIL") == 0)
		g->decimals = 0;
	else if (strcmp(metric, "SM_ACTIVE") == 0)
		table = "SM_ACTIVE_PCT";
	else if (strcmp(metric, "SM_OCCUPANCY") == 0)
		table = "SM_OCCUPANCY_PCT";
	else if (strcmp(metric, "FB_USED") == 0)
	{
		table = "GPU_MEM_PCT";
		g->scale = 81920.0 / 100.0;
		g->decimals = 0;
	}
	else if (strcmp(metric, "NODE_CPU_UTILIZATION") != 0 && strcmp(metric, "NODE_MEMORY_UTILIZATION") != 0)
		return -1;
	g->q = at_util_quantiles(cluster, table);
	if (g->q == NULL)
		return -1;
	p = at_util_table_cdf(g->q, 1.0);
	g->p_idle = p < 0.02 ? 0.02 : p > 0.98 ? 0.98 : p;
	texture_init(g, metric);
	g->series = series;
	g->offline_share = offline_share;
	g->s = s;
	g->seed = seed;
	at_rng_seed(&g->rng, seed);
	for (int i = 0; i < series; i++)
		new_run(g, &s[i], 1);
	return 0;
}

void
at_util_gen_iid(at_util_gen *g)
{
	/* no texture, and the runs (offline ones included) drawn again as without it */
	g->iid = 1;
	g->noise = g->dip_log = g->dip_share = g->touch_log = 0;
	g->idle_runs = g->p_idle;
	at_rng_seed(&g->rng, g->seed);
	for (int i = 0; i < g->series; i++)
		new_run(g, &g->s[i], 1);
}

/* Writes v with d decimals (0 or 3), trailing zeros dropped; returns the length. */
static size_t
put_value(char *out, double v, int decimals)
{
	char		tmp[32];
	int			n = 0;
	size_t		len = 0;
	int64_t		m = (int64_t) llround(decimals ? v * 1000.0 : v);
	int64_t		ip,
				fp;

	if (m < 0)
	{
		out[len++] = '-';
		m = -m;
	}
	ip = decimals ? m / 1000 : m;
	fp = decimals ? m % 1000 : 0;
	do
	{
		tmp[n++] = (char) ('0' + ip % 10);
		ip /= 10;
	} while (ip > 0);
	while (n > 0)
		out[len++] = tmp[--n];
	if (fp != 0)
	{
		int			digits = 3;

		while (fp % 10 == 0)
		{
			fp /= 10;
			digits--;
		}
		out[len++] = '.';
		for (int i = digits - 1; i >= 0; i--)
		{
			out[len + i] = (char) ('0' + fp % 10);
			fp /= 10;
		}
		len += digits;
	}
	return len;
}

size_t
at_util_gen_cells(at_util_gen *g, char *buf, int *empty)
{
	size_t		n = 0;
	const double c = sqrt(1.0 - AR_RHO * AR_RHO);

	*empty = 1;
	for (int i = 0; i < g->series; i++)
	{
		at_util_series *s = &g->s[i];
		double		v,
					w = 0;

		if (s->left-- <= 0)
		{
			new_run(g, s, 0);
			if (g->noise > 0)
				w = at_rng_normal(&g->rng);
		}
		else
			s->z = ar_step(g, s->z, c, &w);
		buf[n++] = ',';
		if (s->offline)
			continue;
		*empty = 0;
		if (g->iid)
			v = at_util_quantile_at(g->q, at_rng_uniform(&g->rng));
		else if (s->busy)
			v = part_value(g, s->z, w, !dip_step(g, &s->dip));
		else if (touch_step(g, &s->touch))
			v = touch_value(g);
		else
			v = part_value(g, s->z, w, 0);
		n += put_value(buf + n, v * g->scale, g->decimals);
	}
	buf[n] = '\0';
	return n;
}

/* ---- the model over a generated trace's placement ---- */

typedef struct trace_job
{
	int32_t		period;			/* samples of a busy-then-idle cycle */
	int32_t		offset;
	int32_t		busy;			/* busy samples of a cycle */
	int8_t		in_use;
	int8_t		dipping;		/* the job's GPUs are in a dip at sample `at` */
	int32_t		next_free;
	int64_t		at;				/* the sample the dip process last stepped at */
	at_util_dip dip;			/* one per job: its GPUs dip together */
} trace_job;

#define CYCLE_MIN 40.0			/* samples: 10 minutes at 15 s */
#define CYCLE_MAX 240.0

typedef struct trace_gpu
{
	int32_t		job;			/* the running job's slot, -1: none */
	int32_t		off_left;		/* samples left in the measured/offline run */
	int8_t		offline;
	int32_t		touch;			/* idle samples to the next small reading */
	double		z;
} trace_gpu;

struct at_util_trace
{
	at_mem_fn	mem;
	void	   *ctx;
	at_util_gen model;			/* the table, its idle share, scale, rng */
	at_placement *pl;
	int64_t		t0;
	int32_t		step;
	int64_t		samples;
	int64_t		k;				/* samples out */
	double		running;
	double		busy;
	int32_t		gpus;
	trace_gpu  *gpu;
	trace_job  *jobs;
	int32_t		njobs;
	int32_t		free_job;
};

/* GPU-samples of the window [t0, t0 + samples x step) a job [start, end) runs on. */
static int64_t
samples_in(const at_util_trace *u, int64_t start, int64_t end)
{
	int64_t		a = start <= u->t0 ? 0 : (start - u->t0 + u->step - 1) / u->step,
				b = end <= u->t0 ? 0 : (end - u->t0 + u->step - 1) / u->step;

	if (a > u->samples)
		a = u->samples;
	if (b > u->samples)
		b = u->samples;
	return b - a;
}

int
at_util_trace_create(at_mem_fn mem, void *ctx, const at_profile *p, int64_t n, uint64_t seed,
					 const char *metric, int64_t t0, int32_t step, int64_t samples,
					 double offline_share, at_util_trace **out, at_sched_status *st)
{
	at_util_trace *u;
	at_generate_jobs *g;
	at_job		job;
	int64_t		last,
				run = 0;
	double		need;

	*out = NULL;
	*st = AT_SCHED_OK;
	if (strcmp(metric, "GPU_UTIL") != 0 && strcmp(metric, "SM_ACTIVE") != 0 &&
		strcmp(metric, "SM_OCCUPANCY") != 0 && strcmp(metric, "FB_USED") != 0)
		return -1;
	if (step < 1 || samples < 0)
		return -1;
	u = mem(ctx, NULL, sizeof(at_util_trace));
	if (u == NULL)
		return -2;
	u->mem = mem;
	u->ctx = ctx;
	u->t0 = t0;
	u->step = step;
	u->samples = samples;
	u->free_job = -1;
	if (at_util_gen_init(&u->model, p->name, metric, 0, seed ^ UINT64_C(0x5851f42d4c957f2d), offline_share, NULL) != 0)
	{
		mem(ctx, u, 0);
		return -1;
	}
	u->gpus = p->nodes * AT_GPUS_PER_NODE;

	/* first pass: how much of the window the jobs run on */
	if ((*st = at_generate_jobs_create(mem, ctx, p, n, seed, &g)) != AT_SCHED_OK)
	{
		mem(ctx, u, 0);
		return *st == AT_SCHED_NOMEM ? -2 : -3;
	}
	last = samples > 0 ? t0 + (samples - 1) * (int64_t) step : t0;
	while (at_generate_jobs_horizon(g) <= last && at_generate_jobs_next(g, &job, st))
		if (job.gpu_num > 0 && job.start >= 0 && job.end > job.start)
			run += job.gpu_num * samples_in(u, job.start, job.end);
	at_generate_jobs_destroy(g);
	if (*st != AT_SCHED_OK)
	{
		mem(ctx, u, 0);
		return *st == AT_SCHED_NOMEM ? -2 : -3;
	}
	u->running = samples > 0 ? (double) run / ((double) samples * u->gpus) : 0;
	/* computing time that leaves, after the dips, the table's busy share */
	need = (1.0 - u->model.p_idle) / (1.0 - u->model.dip_share);
	u->busy = u->running > need ? need / u->running : 1.0;

	u->gpu = mem(ctx, NULL, sizeof(trace_gpu) * (size_t) u->gpus);
	if (u->gpu == NULL)
	{
		at_util_trace_destroy(u);
		return -2;
	}
	for (int32_t i = 0; i < u->gpus; i++)
	{
		u->gpu[i].job = -1;
		u->gpu[i].z = at_rng_normal(&u->model.rng);
		u->gpu[i].offline = at_rng_uniform(&u->model.rng) < offline_share;
		u->gpu[i].off_left = 1 + (int32_t) (at_rng_uniform(&u->model.rng) * run_length(&u->model, 1));
		u->gpu[i].touch = u->model.touch_log != 0 ? gap(&u->model.rng, u->model.touch_log) : 0;
	}
	if ((*st = at_placement_create(mem, ctx, p, n, seed, &u->pl)) != AT_SCHED_OK)
	{
		at_util_trace_destroy(u);
		return *st == AT_SCHED_NOMEM ? -2 : -3;
	}
	*out = u;
	return 0;
}

void
at_util_trace_destroy(at_util_trace *u)
{
	if (u == NULL)
		return;
	if (u->pl)
		at_placement_destroy(u->pl);
	if (u->gpu)
		u->mem(u->ctx, u->gpu, 0);
	if (u->jobs)
		u->mem(u->ctx, u->jobs, 0);
	u->mem(u->ctx, u, 0);
}

int32_t
at_util_trace_series(const at_util_trace *u)
{
	return u->gpus;
}

double
at_util_trace_running(const at_util_trace *u)
{
	return u->running;
}

double
at_util_trace_busy(const at_util_trace *u)
{
	return u->busy;
}

double
at_util_trace_dip_share(const at_util_trace *u)
{
	return u->model.dip_share;
}

static int32_t
job_slot(at_util_trace *u)
{
	int32_t		j;

	if (u->free_job < 0)
	{
		int32_t		n = u->njobs ? u->njobs * 2 : 64;
		trace_job  *p = at_mem_grow(u->mem, u->ctx, u->jobs, sizeof(trace_job) * (size_t) u->njobs,
									sizeof(trace_job) * (size_t) n);

		if (p == NULL)
			return -1;
		for (int32_t i = n - 1; i >= u->njobs; i--)
		{
			p[i].in_use = 0;
			p[i].next_free = u->free_job;
			u->free_job = i;
		}
		u->jobs = p;
		u->njobs = n;
	}
	j = u->free_job;
	u->free_job = u->jobs[j].next_free;
	u->jobs[j].in_use = 1;
	/*
	 * A job computes, then stalls, in a cycle of 10 minutes to an hour with
	 * its own phase: over any window longer than a cycle every job is busy
	 * for the window's busy share, so the share holds in short windows too.
	 * The dips (data, checkpoints, evaluation) come on top, at their rates.
	 */
	u->jobs[j].period = (int32_t) exp(log(CYCLE_MIN) + at_rng_uniform(&u->model.rng) * (log(CYCLE_MAX) - log(CYCLE_MIN)));
	u->jobs[j].offset = (int32_t) (at_rng_uniform(&u->model.rng) * u->jobs[j].period);
	u->jobs[j].busy = (int32_t) llround(u->busy * u->jobs[j].period);
	u->jobs[j].at = -1;
	u->jobs[j].dipping = 0;
	dip_start(&u->model, &u->jobs[j].dip);
	return j;
}

int64_t
at_util_trace_cells(at_util_trace *u, char *buf, int64_t *t, int *empty, at_sched_status *st)
{
	at_placement_event ev;
	const double c = sqrt(1.0 - AR_RHO * AR_RHO);
	size_t		n = 0;
	at_util_gen *g = &u->model;

	*st = AT_SCHED_OK;
	if (u->k >= u->samples)
		return -1;
	*t = u->t0 + u->k++ * (int64_t) u->step;
	/* the jobs as they stand at this sample */
	while (at_placement_next(u->pl, *t, &ev, st))
	{
		if (ev.kind == AT_PLACEMENT_START)
		{
			int32_t		j = job_slot(u);

			if (j < 0)
			{
				*st = AT_SCHED_NOMEM;
				return -1;
			}
			for (int32_t i = 0; i < ev.gpus; i++)
				u->gpu[ev.gpu[i]].job = j;
		}
		else
		{
			int32_t		j = u->gpu[ev.gpu[0]].job;

			for (int32_t i = 0; i < ev.gpus; i++)
				u->gpu[ev.gpu[i]].job = -1;
			if (j >= 0)
			{
				u->jobs[j].in_use = 0;
				u->jobs[j].next_free = u->free_job;
				u->free_job = j;
			}
		}
	}
	if (*st != AT_SCHED_OK)
		return -1;
	*empty = 1;
	for (int32_t i = 0; i < u->gpus; i++)
	{
		trace_gpu  *s = &u->gpu[i];
		int			busy = 0,
					dip = 0;
		double		v,
					w;

		if (s->off_left-- <= 0)
		{
			s->offline = at_rng_uniform(&g->rng) < g->offline_share;
			s->off_left = run_length(g, 1);
		}
		s->z = ar_step(g, s->z, c, &w);
		buf[n++] = ',';
		if (s->offline)
			continue;
		*empty = 0;
		if (s->job >= 0)
		{
			trace_job  *j = &u->jobs[s->job];

			busy = (u->k + j->offset) % j->period < j->busy;
			/* the job's dip process steps once a computing sample, at its first GPU */
			if (busy && j->at != u->k)
			{
				j->at = u->k;
				j->dipping = (int8_t) dip_step(g, &j->dip);
			}
			dip = busy && j->dipping;
		}
		if (!busy && !dip && touch_step(g, &s->touch))
			v = touch_value(g);
		else
			v = part_value(g, s->z, w, busy && !dip);
		n += put_value(buf + n, v * g->scale, g->decimals);
	}
	buf[n] = '\0';
	return (int64_t) n;
}
