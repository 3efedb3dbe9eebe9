/* test_generate_util.c: synthetic wide lines split back into what was generated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unpivot.h"
#include "generate_jobs.h"
#include "generate_util.h"
#include "placement.h"
#include "tap.h"
#include "util_quantiles.h"

void
test_generate_util(void)
{
	char		ts[26];
	int			series = 2600;
	char	   *buf = malloc(at_util_line_size(series));
	at_field   *f = malloc(sizeof(at_field) * (size_t) (series + 2));
	size_t		nf,
				pos,
				len,
				k;
	at_rng		r;
	int			values_ok = 1,
				blanks = 0,
				low = 0,
				high = 0;
	double		v;

	at_format_utc(0, ts);
	CHECK(strcmp(ts, "1970-01-01 00:00:00+00:00") == 0, "epoch formatted");
	at_format_utc(1688169600, ts);
	CHECK(strcmp(ts, "2023-07-01 00:00:00+00:00") == 0, "2023-07-01 formatted");
	at_format_utc(951782399, ts);
	CHECK(strcmp(ts, "2000-02-28 23:59:59+00:00") == 0, "end of 2000-02-28 formatted");
	at_format_utc(951868800, ts);
	CHECK(strcmp(ts, "2000-03-01 00:00:00+00:00") == 0, "leap day 2000 counted");
	at_format_utc(-1, ts);
	CHECK(strcmp(ts, "1969-12-31 23:59:59+00:00") == 0, "before the epoch");

	len = at_util_header(buf, series);
	CHECK(len < at_util_line_size(series) && at_csv_split(buf, len, f, (size_t) series + 2, &nf, &pos) == AT_CSV_OK &&
		  nf == (size_t) series + 1 && f[0].len == 4 && memcmp(f[1].start, "10.140.0.0", 10) == 0 &&
		  memcmp(f[series].start, "10.140.10.39", 12) == 0, "header: Time and 2,600 server columns");

	at_rng_seed(&r, 1);
	len = at_util_line(buf, series, 1688169600, 1, 0.1, &r);
	CHECK(len < at_util_line_size(series) && at_csv_split(buf, len, f, (size_t) series + 2, &nf, &pos) == AT_CSV_OK &&
		  nf == (size_t) series + 1, "line has 2,601 cells");
	for (k = 1; k < nf; k++)
	{
		at_value_status s = at_parse_value(f[k].start, f[k].len, &v);

		if (s == AT_VALUE_MISSING)
			blanks++;
		else if (s != AT_VALUE_OK || v < 0 || v > 100)
			values_ok = 0;
		else if (v <= 2.0)
			low++;
		else if (v >= 97.0)
			high++;
	}
	CHECK(values_ok, "every cell blank or a number in [0, 100]");
	CHECK(blanks > 150 && blanks < 380, "about 10%% blank cells (%d of 2600)", blanks);
	CHECK(low > 600 && high > 600, "polarized: %d cells idle, %d busy", low, high);
	free(buf);
	free(f);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* Largest distance between the values' empirical CDF and the table's. */
static double
ks_distance(double *vals, size_t n, const double *q)
{
	double		ks = 0;
	size_t		i = 0;

	qsort(vals, n, sizeof(double), cmp_double);
	while (i < n)
	{
		size_t		j = i;
		double		below,
					at,
					d;

		while (j < n && vals[j] == vals[i])
			j++;
		/* just below vals[i] and at it */
		below = (double) i / (double) n;
		at = (double) j / (double) n;
		d = fabs(below - at_util_table_cdf(q, nextafter(vals[i], -1e300)));
		ks = d > ks ? d : ks;
		d = fabs(at - at_util_table_cdf(q, vals[i]));
		ks = d > ks ? d : ks;
		i = j;
	}
	return ks;
}

/*
 * Largest distance between the values' CDF and the published table's at
 * the integers 0..100, the table's CDF being the share of its 1,000
 * figures <= x (as test/e2e/generated_utilization.sh measures it).
 */
static double
grid_distance(const double *vals, size_t n, const double *q)
{
	size_t		at[102] = {0};
	size_t		below = 0;
	double		d = 0;

	/* v <= x for integer x exactly when ceil(v) <= x */
	for (size_t i = 0; i < n; i++)
	{
		double		c = ceil(vals[i]);

		at[c < 0 ? 0 : c > 100 ? 101 : (size_t) c]++;
	}
	for (int x = 0; x <= 100; x++)
	{
		int			pub = 0;

		below += at[x];
		for (int i = 0; i < 1000; i++)
			pub += q[i] <= x;
		d = fmax(d, fabs((double) below / (double) n - pub / 1000.0));
	}
	return d;
}

/*
 * The texture of one series, sample by sample: `busy` says whether the
 * series is in a busy state (a busy run, or a GPU a job computes on), so
 * that its samples at or below 1 are dips.  A dip is counted by its length
 * once busy samples above 1 bound it on both sides.
 */
typedef struct tex_track
{
	int32_t		len;			/* samples of the dip under way */
	int8_t		open;			/* a busy sample above 1 came before it */
	int8_t		prev;			/* consecutive busy samples above 1 so far (at most 2) */
	double		v1,
				v2;				/* the last two of them */
} tex_track;

typedef struct tex_stats
{
	size_t		busy,
				dip,
				dips[3],		/* dips of 1, 2..8, 12..40 samples */
				idle,
				idle_nonzero,
				idle_above,		/* idle-state samples above 1 */
				lagn;
	double		lag1,
				lag2;			/* sums of |change| over 1 and 2 samples in busy stretches */
} tex_stats;

static void
tex_feed(tex_stats *x, tex_track *t, int online, int busy, double v)
{
	if (!online || !busy)
	{
		if (online)
		{
			x->idle++;
			x->idle_nonzero += v > 0;
			x->idle_above += v > 1;
		}
		/* a dip cut by the end of its busy state is not counted */
		memset(t, 0, sizeof *t);
		return;
	}
	x->busy++;
	if (v <= 1)
	{
		x->dip++;
		t->len += t->open;
		t->prev = 0;
		return;
	}
	if (t->open && t->len > 0)
		x->dips[0] += t->len == 1,
			x->dips[1] += t->len >= 2 && t->len <= 8,
			x->dips[2] += t->len >= 12 && t->len <= 40;
	t->open = 1;
	t->len = 0;
	if (t->prev == 2)
	{
		x->lag1 += fabs(v - t->v1);
		x->lag2 += fabs(v - t->v2);
		x->lagn++;
	}
	t->v2 = t->v1;
	t->v1 = v;
	t->prev = t->prev < 2 ? t->prev + 1 : 2;
}

/*
 * The texture against its documented rates (generate_util.h).  dips: the
 * metric has them; dip_rates: the counts by length are checked too (not
 * in a window of a trace, whose few jobs dip together: too few events).
 */
static void
tex_check(const char *what, const tex_stats *x, double dip_share, int dips, int dip_rates, int idle_all_zero)
{
	const double start = 1.0 / AT_UTIL_STALL_EVERY + 1.0 / AT_UTIL_CKPT_EVERY + 1.0 / AT_UTIL_EVAL_EVERY;
	/* busy samples outside dips; a dip is seen alone when no dip starts on either side of it */
	double		between = (double) (x->busy - x->dip),
				alone = (1 - start) * (1 - start),
				want[3] = {
		between * alone / AT_UTIL_STALL_EVERY,
		/* checkpoints, two stalls back to back, a stall and a checkpoint back to back */
		between * alone * (1.0 / AT_UTIL_CKPT_EVERY + 1.0 / (AT_UTIL_STALL_EVERY * AT_UTIL_STALL_EVERY) +
						   2.0 / (AT_UTIL_STALL_EVERY * AT_UTIL_CKPT_EVERY)),
		between * alone / AT_UTIL_EVAL_EVERY
	};
	double		share = x->busy ? (double) x->dip / (double) x->busy : 0,
				nonzero = x->idle ? (double) x->idle_nonzero / (double) x->idle : 0,
				ratio = x->lag2 > 0 ? x->lag1 / x->lag2 : 0;

	if (dips)
	{
		CHECK(fabs(share / dip_share - 1) < 0.1, "%s: %.4f of busy samples in dips, documented rates give %.4f",
			  what, share, dip_share);
		/* in a trace's window, a job's first or last sample may read idle too (its start, its end) */
		CHECK(fabs(x->dips[0] / want[0] - 1) < (dip_rates ? 0.1 : 0.2),
			  "%s: %zu one-sample dips (data loading), %.0f expected", what, x->dips[0], want[0]);
		if (dip_rates)
		{
			CHECK(fabs(x->dips[1] / want[1] - 1) < 0.15, "%s: %zu dips of 2 to 8 samples (checkpoints), %.0f expected",
				  what, x->dips[1], want[1]);
			CHECK(fabs(x->dips[2] / want[2] - 1) < 0.25, "%s: %zu dips of 12 to 40 samples (evaluation), %.0f expected",
				  what, x->dips[2], want[2]);
		}
		/* the AR(1) alone changes about 0.7 as much over one sample as over two */
		CHECK(ratio > 0.85, "%s: busy samples flicker (mean change over 1 sample %.3f of that over 2)", what, ratio);
	}
	else
	{
		CHECK(share < 0.001, "%s: no dips (%.4f of busy samples at or below 1)", what, share);
		CHECK(ratio > 0 && ratio < 0.8, "%s: no per-sample noise (mean change over 1 sample %.3f of that over 2)", what, ratio);
	}
	CHECK(x->idle_above == 0, "%s: idle samples stay at or below 1 (%zu above)", what, x->idle_above);
	/* a table whose idle part is all 0 has only the small readings; others have their own too */
	CHECK(idle_all_zero ? fabs(nonzero / AT_UTIL_TOUCH - 1) < 0.2 : nonzero > 0.8 * AT_UTIL_TOUCH,
		  "%s: %.4f of idle samples not 0 (small readings %.2f)", what, nonzero, AT_UTIL_TOUCH);
}

/*
 * The realistic model: one day of 300 GPUs per metric, its per-sample
 * distribution against the published one, its formatting, its runs and
 * its texture (the series' state says which samples are in busy runs).
 */
static void
model_day(const char *metric, const char *table, int decimals, double scale)
{
	int			series = 300,
				steps = 5760,
				lines_empty = 0;
	at_util_gen g;
	at_util_series *st = calloc((size_t) series, sizeof *st);
	char	   *buf = malloc(at_util_line_size(series));
	at_field   *f = malloc(sizeof(at_field) * (size_t) (series + 2));
	double	   *vals = malloc(sizeof(double) * (size_t) series * (size_t) steps);
	double	   *prev = malloc(sizeof(double) * (size_t) series);
	tex_track  *tr = calloc((size_t) series, sizeof *tr);
	tex_stats	x = {0};
	size_t		n = 0,
				nf,
				pos,
				same_side = 0,
				pairs = 0,
				blanks = 0;
	int			format_ok = 1,
				compute = strcmp(metric, "FB_USED") != 0;
	double		ks;
	const double *q = at_util_quantiles("seren", table);
	char		what[64];

	CHECK(q != NULL && at_util_gen_init(&g, "seren", metric, series, 42, 0.01, st) == 0, "%s: model set up", metric);
	for (int i = 0; i < series; i++)
		prev[i] = -1;
	for (int t = 0; t < steps; t++)
	{
		int			empty;
		size_t		len = at_util_gen_cells(&g, buf, &empty);

		lines_empty += empty;
		/* the cells start with a comma: split what follows the first */
		if (at_csv_split(buf + 1, len - 1, f, (size_t) series + 2, &nf, &pos) != AT_CSV_OK || nf != (size_t) series)
		{
			format_ok = 0;
			break;
		}
		for (int i = 0; i < series; i++)
		{
			double		v;
			const char *dot = memchr(f[i].start, '.', f[i].len);

			if (f[i].len == 0)
			{
				blanks++;
				prev[i] = -1;
				tex_feed(&x, &tr[i], 0, 0, 0);
				continue;
			}
			if (at_parse_value(f[i].start, f[i].len, &v) != AT_VALUE_OK ||
				(dot && (decimals == 0 || (size_t) (f[i].start + f[i].len - dot - 1) > (size_t) decimals)))
				format_ok = 0;
			v /= scale;
			vals[n++] = v;
			tex_feed(&x, &tr[i], 1, st[i].busy, v);
			/* runs: consecutive samples mostly stay idle (<= 1) or busy */
			if (prev[i] >= 0)
			{
				pairs++;
				same_side += (prev[i] <= 1) == (v <= 1);
			}
			prev[i] = v;
		}
	}
	CHECK(format_ok, "%s: every cell empty or a number with at most %d decimals", metric, decimals);
	CHECK(blanks > 0 && blanks < n / 10, "%s: some empty cells (%zu of %zu)", metric, blanks, n + blanks);
	/* independent draws: about 0.57; the dips cross sides twice each */
	CHECK(pairs > 0 && (double) same_side / (double) pairs > 0.9,
		  "%s: idle and busy come in runs (%.4f of consecutive pairs on the same side)", metric,
		  pairs ? (double) same_side / (double) pairs : 0.0);
	snprintf(what, sizeof what, "%s (model)", metric);
	tex_check(what, &x, at_util_gen_dip_share(&g), compute, 1, strcmp(metric, "GPU_UTIL") == 0);
	ks = grid_distance(vals, n, q);
	CHECK(ks <= 0.03, "%s: largest CDF distance to the published seren distribution (0..100) %.4f <= 0.03", metric, ks);
	{
		/* the same seed gives the same samples */
		at_util_gen g2;
		at_util_series *st2 = calloc((size_t) series, sizeof *st2);
		char	   *b1 = malloc(at_util_line_size(series)),
				   *b2 = malloc(at_util_line_size(series));
		int			e,
					same = 1;

		at_util_gen_init(&g, "seren", metric, series, 7, 0.01, st);
		at_util_gen_init(&g2, "seren", metric, series, 7, 0.01, st2);
		for (int t = 0; t < 100; t++)
			same &= at_util_gen_cells(&g, b1, &e) == at_util_gen_cells(&g2, b2, &e) && strcmp(b1, b2) == 0;
		CHECK(same, "%s: deterministic", metric);
		free(st2);
		free(b1);
		free(b2);
	}
	free(st);
	free(buf);
	free(f);
	free(vals);
	free(prev);
	free(tr);
}

/*
 * The trace model over a window of seren's generated jobs: the first
 * window (a day's first `samples` samples, day 2 on) whose jobs run on
 * enough GPU-samples that the cycles stall (busy < 1: the published
 * marginal can hold), or on few enough that they never do (busy 1: every
 * sample at or below 1 on a GPU a job runs on is a dip).  Found by
 * searching, so that a retuned job generator moves the window, not the
 * test.
 */
static void
trace_window(int want_stalls, int64_t samples)
{
	const at_profile *p = at_profile_by_name("seren");
	const double *q = at_util_quantiles("seren", "GPU_UTIL");
	at_util_trace *u = NULL;
	at_placement *pl;
	at_placement_event ev;
	at_sched_status st;
	int64_t		n = 120000,
				t0 = 0,
				t;
	int32_t		gpus;
	int64_t    *running;
	int32_t    *first,
			   *job_dips,
			   *job_gpus;
	int8_t	   *dipped;
	tex_track  *tr;
	tex_stats	x = {0};
	double	   *vals;
	size_t		nv = 0,
				apart = 0,
				running_n = 0;
	char	   *buf,
				what[64];
	int			empty,
				day;

	for (day = 2; day <= 60; day++)
	{
		t0 = p->epoch + (int64_t) day * 86400;
		if (at_util_trace_create(tap_mem, NULL, p, n, 3, "GPU_UTIL", t0, 15, samples, 0.0, &u, &st) != 0)
			break;
		if (want_stalls ? at_util_trace_busy(u) < 1 : at_util_trace_busy(u) == 1 && at_util_trace_running(u) > 0.15)
			break;
		at_util_trace_destroy(u);
		u = NULL;
	}
	snprintf(what, sizeof what, "GPU_UTIL (trace, %s)", want_stalls ? "cycles stall" : "no stalls");
	CHECK(u != NULL, "%s: a window found (day %d)", what, day);
	if (u == NULL)
		return;
	gpus = at_util_trace_series(u);
	at_placement_create(tap_mem, NULL, p, n, 3, &pl);
	running = malloc(sizeof(int64_t) * (size_t) gpus);
	first = malloc(sizeof(int32_t) * (size_t) gpus);
	dipped = calloc((size_t) gpus, 1);
	job_dips = malloc(sizeof(int32_t) * (size_t) gpus);
	job_gpus = malloc(sizeof(int32_t) * (size_t) gpus);
	tr = calloc((size_t) gpus, sizeof *tr);
	vals = malloc(sizeof(double) * (size_t) gpus * (size_t) samples);
	buf = malloc(at_util_line_size(gpus));
	for (int32_t i = 0; i < gpus; i++)
		running[i] = -1;
	while (at_util_trace_cells(u, buf, &t, &empty, &st) >= 0)
	{
		char	   *c = buf;

		while (at_placement_next(pl, t, &ev, &st))
			for (int32_t i = 0; i < ev.gpus; i++)
			{
				running[ev.gpu[i]] = ev.kind == AT_PLACEMENT_START ? ev.job_id : -1;
				first[ev.gpu[i]] = ev.gpu[0];
			}
		memset(job_dips, 0, sizeof(int32_t) * (size_t) gpus);
		memset(job_gpus, 0, sizeof(int32_t) * (size_t) gpus);
		for (int32_t i = 0; i < gpus; i++)
		{
			double		v = strtod(c + 1, &c);

			vals[nv++] = v;
			dipped[i] = v <= 1;
			if (running[i] >= 0)
			{
				job_dips[first[i]] += dipped[i];
				job_gpus[first[i]]++;
			}
			/* a job's dips once, on its first GPU: a big job would weigh as its GPUs */
			if (!want_stalls && (running[i] < 0 || first[i] == i))
				tex_feed(&x, &tr[i], 1, running[i] >= 0, v);
		}
		/* a job's GPUs dip together: each as most of its job's GPUs */
		for (int32_t i = 0; i < gpus; i++)
			if (running[i] >= 0)
			{
				running_n++;
				apart += dipped[i] != (2 * job_dips[first[i]] > job_gpus[first[i]]);
			}
	}
	CHECK(st == AT_SCHED_OK, "%s: %zu samples of %d GPUs, jobs on %.3f of them", what, nv, gpus, at_util_trace_running(u));
	if (want_stalls)
	{
		double		ks = grid_distance(vals, nv, q);

		CHECK(ks <= 0.03, "%s: largest CDF distance to the published seren distribution (0..100) %.4f <= 0.03", what, ks);
	}
	else
	{
		/*
		 * Busy values at the bottom of the busy part round to 1 now and then
		 * (a few in 10,000); dips drawn per GPU would set apart about 6% of
		 * the samples of jobs of more than one GPU.
		 */
		CHECK(apart < running_n / 1000, "%s: a job's GPUs dip together (%zu of %zu samples apart)", what, apart, running_n);
		tex_check(what, &x, at_util_trace_dip_share(u), 1, 0, 1);
	}
	at_util_trace_destroy(u);
	at_placement_destroy(pl);
	free(running);
	free(first);
	free(dipped);
	free(job_dips);
	free(job_gpus);
	free(tr);
	free(vals);
	free(buf);
}

/*
 * --iid: 200 GPUs for 500 samples; values follow the published
 * distribution (scaled, FB_USED in MiB) with no runs: consecutive samples
 * are on the same side of 1% as often as two independent draws are.
 */
static void
iid_day(const char *metric, const char *table, double scale)
{
	int			series = 200,
				steps = 500;
	at_util_gen g;
	at_util_series *st = calloc((size_t) series, sizeof *st);
	char	   *buf = malloc(at_util_line_size(series));
	at_field   *f = malloc(sizeof(at_field) * (size_t) (series + 2));
	double	   *vals = malloc(sizeof(double) * (size_t) series * (size_t) steps);
	double	   *prev = malloc(sizeof(double) * (size_t) series);
	const double *q = at_util_quantiles("seren", table);
	size_t		n = 0,
				nf,
				pos,
				pairs = 0,
				same_side = 0;
	int			parsed = 1;
	double		p,
				expect,
				ks;

	CHECK(q != NULL && at_util_gen_init(&g, "seren", metric, series, 42, 0.01, st) == 0, "%s --iid: set up", metric);
	at_util_gen_iid(&g);
	for (int i = 0; i < series; i++)
		prev[i] = -1;
	for (int t = 0; t < steps; t++)
	{
		int			empty;
		size_t		len = at_util_gen_cells(&g, buf, &empty);

		if (at_csv_split(buf + 1, len - 1, f, (size_t) series + 2, &nf, &pos) != AT_CSV_OK || nf != (size_t) series)
		{
			parsed = 0;
			break;
		}
		for (int i = 0; i < series; i++)
		{
			double		v;

			if (f[i].len == 0)
			{
				prev[i] = -1;
				continue;
			}
			if (at_parse_value(f[i].start, f[i].len, &v) != AT_VALUE_OK)
				parsed = 0;
			v /= scale;
			vals[n++] = v;
			if (prev[i] >= 0)
			{
				pairs++;
				same_side += (prev[i] <= 1) == (v <= 1);
			}
			prev[i] = v;
		}
	}
	p = at_util_table_cdf(q, 1.0);
	expect = p * p + (1 - p) * (1 - p);
	CHECK(parsed && n > (size_t) (series * steps) * 9 / 10, "%s --iid: %zu values parsed", metric, n);
	CHECK(pairs > 0 && fabs((double) same_side / (double) pairs - expect) < 0.02,
		  "%s --iid: consecutive pairs on the same side %.4f, independent draws %.4f", metric,
		  pairs ? (double) same_side / (double) pairs : 0.0, expect);
	ks = ks_distance(vals, n, q);
	CHECK(ks <= 0.05, "%s --iid: largest CDF distance to the published seren distribution %.4f <= 0.05", metric, ks);
	free(st);
	free(buf);
	free(f);
	free(vals);
	free(prev);
}

void
test_generate_util_model(void)
{
	at_util_gen g;
	at_util_series st[4];
	const double *q = at_util_quantiles("seren", "GPU_UTIL");

	CHECK(q != NULL && q[0] == 0 && q[999] == 100, "seren GPU_UTIL table embedded");
	CHECK(at_util_quantiles("seren", "NO_SUCH") == NULL, "unknown table: NULL");
	CHECK(at_util_gen_init(&g, "philly", "SM_ACTIVE", 4, 1, 0, st) == -1, "philly has no SM_ACTIVE table");
	CHECK(at_util_table_cdf(q, -1) == 0 && at_util_table_cdf(q, 100) == 1, "table CDF bounds");
	model_day("GPU_UTIL", "GPU_UTIL", 0, 1);
	model_day("SM_ACTIVE", "SM_ACTIVE_PCT", 3, 1);
	model_day("FB_USED", "GPU_MEM_PCT", 0, 81920.0 / 100.0);
	trace_window(0, 1440);
	trace_window(1, 1440);
	iid_day("GPU_UTIL", "GPU_UTIL", 1);
	iid_day("SM_ACTIVE", "SM_ACTIVE_PCT", 1);
	iid_day("FB_USED", "GPU_MEM_PCT", 81920.0 / 100.0);
}
