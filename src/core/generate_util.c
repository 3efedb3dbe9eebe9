/*
 * generate_util.c: synthetic wide utilization lines.  See generate_util.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generate_util.h"

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

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
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
		uint64_t	regime = mix(seed ^ mix((uint64_t) i * 1000003u + (uint64_t) (unix_s / 3600))) % 10;
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

static int32_t
run_length(at_util_gen *g, int busy)
{
	double		len = exp(log(RUN_MIN) + at_rng_uniform(&g->rng) * (log(RUN_MAX) - log(RUN_MIN)));

	/* idle runs scaled so that idle / (idle + busy) time is p_idle */
	if (!busy)
		len *= g->p_idle / (1.0 - g->p_idle);
	return len < 1 ? 1 : (int32_t) len;
}

static void
new_run(at_util_gen *g, at_util_series *s, int first)
{
	if (first)
		s->busy = at_rng_uniform(&g->rng) >= g->p_idle;
	else
		s->busy = !s->busy;
	s->left = run_length(g, s->busy);
	/* a run that starts mid-way (the first) is cut uniformly */
	if (first)
		s->left = 1 + (int32_t) (at_rng_uniform(&g->rng) * s->left);
	s->offline = at_rng_uniform(&g->rng) < g->offline_share;
	s->z = at_rng_normal(&g->rng);
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
	g->series = series;
	g->offline_share = offline_share;
	g->s = s;
	at_rng_seed(&g->rng, seed);
	for (int i = 0; i < series; i++)
		new_run(g, &s[i], 1);
	return 0;
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
		double		u,
					v;

		if (s->left-- <= 0)
			new_run(g, s, 0);
		else
			s->z = AR_RHO * s->z + c * at_rng_normal(&g->rng);
		buf[n++] = ',';
		if (s->offline)
			continue;
		*empty = 0;
		u = 0.5 * erfc(-s->z / sqrt(2.0));
		v = at_util_quantile_at(g->q, s->busy ? g->p_idle + u * (1.0 - g->p_idle) : u * g->p_idle);
		n += put_value(buf + n, v * g->scale, g->decimals);
	}
	buf[n] = '\0';
	return n;
}
