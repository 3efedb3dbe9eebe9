/*
 * test_timeseries.c: the time series' pass job by job: the extent, hour
 * events and their corrections, the end day's counts and exact sums (scale
 * of the largest term, coalesce of gpu_time and duration x gpu_num), which
 * waits count, and the correction's text.
 */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "timeseries.h"

#ifdef AT_HAVE_INT128
#define H AT_TS_HOUR_US

static at_ts_job
job(int32_t gpus, int64_t submit, int64_t start, int64_t end)
{
	at_ts_job	j;

	memset(&j, 0, sizeof(j));
	j.has_gpus = 1;
	j.gpus = gpus;
	j.has_submit = j.has_start = j.has_end = 1;
	j.submit = submit;
	j.start = start;
	j.end = end;
	j.has_wait = 1;
	j.wait = (double) (start - submit) / 1e6;
	return j;
}

static void
test_extent_hours(void)
{
	at_ts_extent e;
	at_ts_hour	ev[2],
				acc;
	at_ts_job	a = job(2, 10, H + 30 * 60 * INT64_C(1000000), 3 * H),
				b = job(0, -5, 20, 30),
				c = job(4, 100, 50, 40);
	char		buf[AT_ROLL_TEXT];

	memset(&e, 0, sizeof(e));
	at_ts_extent_add(&e, &a);
	at_ts_extent_add(&e, &b);
	at_ts_extent_add(&e, &c);
	CHECK(e.has_first && e.first == -5 && e.has_last && e.last == 3 * H, "extent: earliest and latest finite time");
	CHECK(e.has_first_start && e.first_start == a.start, "extent: first start of a job holding GPUs");
	CHECK(at_ts_hour_events(&a, ev) == 2 && ev[0].hour == H && ev[0].start_gpus == 2 &&
		  ev[0].corr_us == 2 * 30 * 60 * INT64_C(1000000) && ev[1].hour == 3 * H && ev[1].end_gpus == 2 &&
		  ev[1].corr_us == -2 * H, "hour events: start and end with their corrections");
	CHECK(at_ts_hour_events(&b, ev) == 0 && at_ts_hour_events(&c, ev) == 0,
		  "hour events: none without GPUs or ending before the start");
	a.end = INT64_MAX;
	CHECK(at_ts_hour_events(&a, ev) == 1, "hour events: an infinite end holds until the last event");
	a.has_end = 0;
	CHECK(at_ts_hour_events(&a, ev) == 1, "hour events: no end holds until the last event");
	c = job(1, 0, -1, 5);
	CHECK(at_ts_hour_events(&c, ev) == 2 && ev[0].hour == -H && ev[0].corr_us == 1, "hour events: floored before 2000");
	memset(&acc, 0, sizeof(acc));
	CHECK(at_ts_hour_add(&acc, &ev[0]) && at_ts_hour_add(&acc, &ev[1]) && acc.start_gpus == 1 && acc.end_gpus == 1,
		  "hour sums");
	CHECK(strcmp(at_ts_corr_text(buf, -1500001), "-1.500001") == 0 && strcmp(at_ts_corr_text(buf, 0), "0.000000") == 0,
		  "correction text at scale 6");
	CHECK(!at_ts_finite(1, INT64_MAX) && !at_ts_finite(1, INT64_MIN) && !at_ts_finite(0, 3) && at_ts_finite(1, 3),
		  "finite times");
}

static void
test_days(void)
{
	at_ts_day	d;
	at_ts_job	j = job(3, 0, 10, 20);
	char		buf[AT_ROLL_TEXT];

	memset(&d, 0, sizeof(d));
	j.state = AT_TS_FAILED;
	j.gpu_time_kind = AT_TS_NUM_DEC;
	j.gpu_time.mant = 125;		/* 1.25 */
	j.gpu_time.scale = 2;
	CHECK(at_ts_day_end(&d, &j) && d.failed == 1 && d.failed_gpu_s.n == 1, "a failed job's GPU time");
	j.state = AT_TS_CANCELLED;
	j.gpu_time_kind = AT_TS_NUM_NULL;
	j.duration_kind = AT_TS_NUM_DEC;
	j.duration.mant = 7;		/* 0.7 x 3 GPUs */
	j.duration.scale = 1;
	CHECK(at_ts_day_end(&d, &j) && d.cancelled == 1, "duration x gpu_num when gpu_time is NULL");
	CHECK(strcmp(at_roll_text(buf, d.gpu_s.sum, d.gpu_s.scale), "3.35") == 0, "gpu_s exact at the largest scale: %s",
		  at_roll_text(buf, d.gpu_s.sum, d.gpu_s.scale));
	j.duration_kind = AT_TS_NUM_NULL;
	j.state = AT_TS_COMPLETED;
	CHECK(at_ts_day_end(&d, &j) && d.completed == 1 && d.gpu_s.n == 2, "no GPU time: counted, not summed");
	j.gpu_time_kind = AT_TS_NUM_OTHER;
	CHECK(!at_ts_day_end(&d, &j), "a NaN gpu_time does not fit");
	j.gpu_time_kind = AT_TS_NUM_NULL;
	j.duration_kind = AT_TS_NUM_OTHER;
	CHECK(!at_ts_day_end(&d, &j), "an over-long duration does not fit");
	j.gpus = 0;
	CHECK(at_ts_day_end(&d, &j) && !at_ts_needs_num(&j), "a job without GPUs sums nothing");
	j = job(1, 0, 10, 20);
	CHECK(at_ts_counts_wait(&j) == 1, "a started GPU job's wait counts");
	j.wait = -1;
	CHECK(at_ts_counts_wait(&j) == 0, "a negative wait does not");
	j.wait = INFINITY;
	CHECK(at_ts_counts_wait(&j) == -1, "an infinite wait cannot be counted");
	j.wait = 1;
	j.start = INT64_MAX;
	CHECK(at_ts_counts_wait(&j) == 0, "nor one of a job with an infinite start");
}
#endif

void
test_timeseries(void)
{
#ifdef AT_HAVE_INT128
	test_extent_hours();
	test_days();
#endif
}
