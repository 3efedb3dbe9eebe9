/*
 * timeseries.c: the time series' pass, job by job (timeseries.h).
 */
#include <math.h>

#include "timeseries.h"

#ifdef AT_HAVE_INT128

static const int64_t pow10_9[10] = {
	INT64_C(1000000000), 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1
};

int
at_ts_finite(int has, int64_t t)
{
	return has && t != INT64_MIN && t != INT64_MAX;
}

static void
lower(int *has, int64_t *v, int64_t t)
{
	if (!*has || t < *v)
		*v = t;
	*has = 1;
}

static void
raise_to(int *has, int64_t *v, int64_t t)
{
	if (!*has || t > *v)
		*v = t;
	*has = 1;
}

void
at_ts_extent_add(at_ts_extent *e, const at_ts_job *j)
{
	int			fs = at_ts_finite(j->has_submit, j->submit),
				fb = at_ts_finite(j->has_start, j->start),
				fe = at_ts_finite(j->has_end, j->end);

	if (fs)
	{
		lower(&e->has_first, &e->first, j->submit);
		raise_to(&e->has_last, &e->last, j->submit);
	}
	if (fb)
	{
		lower(&e->has_first, &e->first, j->start);
		raise_to(&e->has_last, &e->last, j->start);
	}
	if (fe)
	{
		lower(&e->has_first, &e->first, j->end);
		raise_to(&e->has_last, &e->last, j->end);
	}
	if (fb && j->has_gpus && j->gpus > 0 && (!fe || j->end > j->start))
		lower(&e->has_first_start, &e->first_start, j->start);
}

/* date_bin('1 hour', t, '2000-01-01 00:00+00'): t floored to its UTC hour */
static int64_t
hour_of(int64_t t)
{
	int64_t		q = t / AT_TS_HOUR_US;

	if (t % AT_TS_HOUR_US < 0)
		q--;
	return q * AT_TS_HOUR_US;
}

int
at_ts_hour_events(const at_ts_job *j, at_ts_hour ev[2])
{
	int			n = 0;
	int			ended;

	if (!j->has_gpus || j->gpus <= 0 || !at_ts_finite(j->has_start, j->start))
		return 0;
	ended = at_ts_finite(j->has_end, j->end);
	if (j->has_end && ended && j->end <= j->start)
		return 0;				/* ended at or before its start: holds nothing */
	ev[n].hour = hour_of(j->start);
	ev[n].start_gpus = j->gpus;
	ev[n].end_gpus = 0;
	ev[n].corr_us = (at_int128) j->gpus * (ev[n].hour + AT_TS_HOUR_US - j->start);
	n++;
	if (ended)
	{
		ev[n].hour = hour_of(j->end);
		ev[n].start_gpus = 0;
		ev[n].end_gpus = j->gpus;
		ev[n].corr_us = -(at_int128) j->gpus * (ev[n].hour + AT_TS_HOUR_US - j->end);
		n++;
	}
	return n;
}

int
at_ts_hour_add(at_ts_hour *acc, const at_ts_hour *ev)
{
	return !__builtin_add_overflow(acc->start_gpus, ev->start_gpus, &acc->start_gpus) &&
		!__builtin_add_overflow(acc->end_gpus, ev->end_gpus, &acc->end_gpus) &&
		!__builtin_add_overflow(acc->corr_us, ev->corr_us, &acc->corr_us);
}

int
at_ts_needs_num(const at_ts_job *j)
{
	return j->has_gpus && j->gpus > 0 && at_ts_finite(j->has_end, j->end);
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

int
at_ts_day_end(at_ts_day *d, const at_ts_job *j)
{
	at_int128	x;
	int32_t		scale;

	if (j->state == AT_TS_COMPLETED)
		d->completed++;
	else if (j->state == AT_TS_FAILED)
		d->failed++;
	else if (j->state == AT_TS_CANCELLED)
		d->cancelled++;
	if (!at_ts_needs_num(j))
		return 1;
	/* coalesce(gpu_time, duration * gpu_num): a product's scale is duration's */
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
	if (!sum_add(&d->gpu_s, x, scale))
		return 0;
	if (j->state == AT_TS_FAILED)
		return sum_add(&d->failed_gpu_s, x, scale);
	if (j->state == AT_TS_CANCELLED)
		return sum_add(&d->cancelled_gpu_s, x, scale);
	return 1;
}

int
at_ts_counts_wait(const at_ts_job *j)
{
	if (!(j->has_gpus && j->gpus > 0 && at_ts_finite(j->has_start, j->start) &&
		  at_ts_finite(j->has_submit, j->submit) && j->has_wait))
		return 0;
	/* SQL's wait_s >= 0 holds for NaN too; value counts hold finite values only */
	if (isnan(j->wait) || isinf(j->wait))
		return j->wait > 0 || isnan(j->wait) ? -1 : 0;
	return j->wait >= 0;
}

char *
at_ts_corr_text(char *buf, at_int128 corr_us)
{
	return at_roll_text(buf, corr_us * 1000, 6);
}

#endif
