/* test_generate_util.c: synthetic wide lines split back into what was generated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unpivot.h"
#include "generate_util.h"
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
 * The realistic model: one day of 300 GPUs per metric, its per-sample
 * distribution against the published one, its formatting and its runs.
 */
static void
model_day(const char *metric, const char *table, int decimals)
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
	size_t		n = 0,
				nf,
				pos,
				same_side = 0,
				pairs = 0,
				blanks = 0;
	int			format_ok = 1;
	double		ks;
	const double *q = at_util_quantiles("seren", table);

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
				continue;
			}
			if (at_parse_value(f[i].start, f[i].len, &v) != AT_VALUE_OK ||
				(dot && (decimals == 0 || (size_t) (f[i].start + f[i].len - dot - 1) > (size_t) decimals)))
				format_ok = 0;
			vals[n++] = v;
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
	CHECK(pairs > 0 && (double) same_side / (double) pairs > 0.99,
		  "%s: idle and busy come in runs (%.4f of consecutive pairs on the same side)", metric,
		  pairs ? (double) same_side / (double) pairs : 0.0);
	ks = ks_distance(vals, n, q);
	CHECK(ks <= 0.05, "%s: largest CDF distance to the published seren distribution %.4f <= 0.05", metric, ks);
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
	model_day("GPU_UTIL", "GPU_UTIL", 0);
	model_day("SM_ACTIVE", "SM_ACTIVE_PCT", 3);
	iid_day("GPU_UTIL", "GPU_UTIL", 1);
	iid_day("SM_ACTIVE", "SM_ACTIVE_PCT", 1);
	iid_day("FB_USED", "GPU_MEM_PCT", 81920.0 / 100.0);
}
