/*
 * usage.c: summary_usage's pass, job by job (usage.h).
 */
#include <math.h>
#include <stdlib.h>

#include "usage.h"

#ifdef AT_HAVE_INT128

#define USECS_PER_DAY	INT64_C(86400000000)

static const int64_t pow10_9[10] = {
	INT64_C(1000000000), 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1
};

int
at_usage_needs_num(const at_usage_job *j)
{
	return j->has_gpus && j->gpus > 0;
}

/* s += x (scale 9) of the given scale; 0 on overflow */
static int
sum_add(at_roll_sum *s, at_int128 x, int32_t scale)
{
	s->n++;
	if (scale > s->scale)
		s->scale = scale;
	return !__builtin_add_overflow(s->sum, x, &s->sum);
}

/* coalesce(gpu_time, duration x gpu_num) into the sums; 0 if it does not fit */
static int
add_gpu_time(at_usage_group *g, const at_usage_job *j)
{
	at_int128	x;
	int32_t		scale;

	if (j->gpu_time_kind == AT_TS_NUM_DEC)
	{
		x = (at_int128) j->gpu_time.mant * pow10_9[j->gpu_time.scale];
		scale = j->gpu_time.scale;
	}
	else if (j->gpu_time_kind == AT_TS_NUM_NULL && j->duration_kind == AT_TS_NUM_DEC)
	{
		x = (at_int128) j->duration.mant * pow10_9[j->duration.scale] * j->gpus;
		scale = j->duration.scale;
	}
	else
		return j->gpu_time_kind == AT_TS_NUM_NULL && j->duration_kind == AT_TS_NUM_NULL;
	if (!sum_add(&g->gpu_time, x, scale))
		return 0;
	if (j->state == AT_TS_FAILED)
		return sum_add(&g->failed, x, scale);
	if (j->state == AT_TS_CANCELLED)
		return sum_add(&g->cancelled, x, scale);
	return 1;
}

/* the wait: start - submit as an interval (justified hours: days, then the rest) */
static int
add_wait(at_usage_group *g, const at_usage_job *j)
{
	int64_t		us;

	/* wait_s is computed from both times, finite (an infinite one cannot be subtracted) */
	if (!j->has_start || !j->has_submit || !isfinite(j->wait) ||
		!at_ts_finite(1, j->start) || !at_ts_finite(1, j->submit) ||
		__builtin_sub_overflow(j->start, j->submit, &us) || us < 0)
		return 0;
	g->wait_n++;
	g->wait_days += us / USECS_PER_DAY;
	/* as interval_pl: the days in 32 bits, the microseconds in 64 */
	return g->wait_days <= INT32_MAX && !__builtin_add_overflow(g->wait_us, us % USECS_PER_DAY, &g->wait_us);
}

int
at_usage_add(at_usage_group *g, const at_usage_job *j, int *wait)
{
	*wait = 0;
	g->jobs++;
	if (j->has_submit && (!g->has_first || j->submit < g->first_submit))
		g->first_submit = j->submit;
	g->has_first |= j->has_submit;
	if (g->jobs == 1 || j->end > g->last_end)
		g->last_end = j->end;
	if (!at_usage_needs_num(j))
		return 1;
	g->gpu_jobs++;
	if (!add_gpu_time(g, j))
		return 0;
	/* SQL's wait_s >= 0 holds for NaN too */
	if (!j->has_wait || !(j->wait >= 0 || isnan(j->wait)))
		return 1;
	*wait = 1;
	return add_wait(g, j);
}

static int
value_cmp(const void *a, const void *b)
{
	double		x = ((const at_usage_wait *) a)->value,
				y = ((const at_usage_wait *) b)->value;

	return (x > y) - (x < y);
}

size_t
at_usage_waits_counted(const at_usage_wait *w, size_t n, size_t ngroups, at_usage_wait *scratch, size_t *start,
					   at_vmap_entry *out)
{
	size_t		k = 0;

	for (size_t g = 0; g <= ngroups; g++)
		start[g] = 0;
	for (size_t i = 0; i < n; i++)
		start[w[i].group + 1]++;
	for (size_t g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	/* scattered by group; start[g] moves to the end of group g */
	for (size_t i = 0; i < n; i++)
	{
		at_usage_wait *d = &scratch[start[w[i].group]++];

		d->group = w[i].group;
		d->value = w[i].value == 0 ? 0 : w[i].value;	/* -0 counts as 0, as at_vmap stores it */
	}
	for (size_t g = 0, b = 0; g < ngroups; b = start[g], g++)
	{
		qsort(scratch + b, start[g] - b, sizeof(at_usage_wait), value_cmp);
		for (size_t i = b; i < start[g]; i++)
		{
			if (i > b && out[k - 1].value == scratch[i].value)
				out[k - 1].count++;
			else
			{
				out[k].group = g;
				out[k].value = scratch[i].value;
				out[k].count = 1;
				k++;
			}
		}
	}
	return k;
}

#endif
