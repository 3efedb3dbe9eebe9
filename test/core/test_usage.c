/*
 * test_usage.c: summary_usage's pass job by job: counts, exact GPU-time
 * sums (failed and cancelled apart, NULL terms left out), the waits'
 * interval sum in days and microseconds, first submission and last end,
 * what does not fit, and the waits counted once sorted.
 */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "usage.h"

#ifdef AT_HAVE_INT128
#define DAY_US INT64_C(86400000000)

static at_usage_job
ended(int32_t gpus, int64_t submit, int64_t start, int64_t end)
{
	at_usage_job j;

	memset(&j, 0, sizeof(j));
	j.has_gpus = 1;
	j.gpus = gpus;
	j.has_submit = j.has_start = 1;
	j.submit = submit;
	j.start = start;
	j.end = end;
	j.has_wait = 1;
	j.wait = (double) (start - submit) / 1e6;
	return j;
}

static void
test_groups(void)
{
	at_usage_group g;
	at_usage_job a = ended(2, 100, 100 + DAY_US + 5, 2 * DAY_US),
				b = ended(0, 50, 60, 70),
				c = ended(1, 10, 5, 3 * DAY_US);
	int			wait;
	char		buf[AT_ROLL_TEXT];

	memset(&g, 0, sizeof(g));
	a.state = AT_TS_FAILED;
	a.gpu_time_kind = AT_TS_NUM_NULL;
	a.duration_kind = AT_TS_NUM_DEC;
	a.duration.mant = 15;		/* 1.5 x 2 GPUs */
	a.duration.scale = 1;
	CHECK(at_usage_add(&g, &a, &wait) && wait == 1 && g.wait_n == 1 && g.wait_days == 1 && g.wait_us == 5,
		  "a GPU job's wait: one day and 5 microseconds");
	CHECK(g.failed.n == 1 && g.cancelled.n == 0 && strcmp(at_roll_text(buf, g.gpu_time.sum, g.gpu_time.scale), "3.0") == 0,
		  "duration x gpu_num at duration's scale, failed apart");
	CHECK(at_usage_add(&g, &b, &wait) && wait == 0 && g.jobs == 2 && g.gpu_jobs == 1 && g.gpu_time.n == 1,
		  "a job without GPUs: counted, no GPU time, no wait");
	CHECK(g.has_first && g.first_submit == 50 && g.last_end == 2 * DAY_US, "first submission, last end");
	c.state = AT_TS_CANCELLED;
	c.gpu_time_kind = AT_TS_NUM_DEC;
	c.gpu_time.mant = 7;
	c.gpu_time.scale = 0;
	CHECK(at_usage_add(&g, &c, &wait) && wait == 0 && g.wait_n == 1 && g.cancelled.n == 1 && g.last_end == 3 * DAY_US,
		  "a job started before its submission: GPU time, no wait");
	c.gpu_time_kind = AT_TS_NUM_NULL;
	c.duration_kind = AT_TS_NUM_NULL;
	CHECK(at_usage_add(&g, &c, &wait) && g.gpu_time.n == 2, "no gpu_time and no duration: no term");
	c.gpu_time_kind = AT_TS_NUM_OTHER;
	CHECK(!at_usage_add(&g, &c, &wait), "a NaN gpu_time does not fit");
	memset(&g, 0, sizeof(g));
	a = ended(1, 0, 1, 2);
	a.wait = NAN;
	CHECK(!at_usage_add(&g, &a, &wait), "a NaN wait counts in SQL, so the pass cannot");
	a = ended(1, 0, 1, 2);
	a.has_submit = 0;
	a.has_wait = 0;
	memset(&g, 0, sizeof(g));
	CHECK(at_usage_add(&g, &a, &wait) && !g.has_first && g.wait_n == 0, "no submission: no first, no wait");
}

static void
test_waits(void)
{
	at_usage_wait w[6] = {{2, 1.5}, {1, 3}, {2, -0.0}, {1, 3}, {2, 0}, {1, 2}};
	at_vmap_entry out[6];
	at_usage_wait scratch[6];
	size_t		start[4];
	size_t		n = at_usage_waits_counted(w, 6, 3, scratch, start, out);

	CHECK(n == 4 && out[0].group == 1 && out[0].value == 2 && out[0].count == 1 &&
		  out[1].group == 1 && out[1].value == 3 && out[1].count == 2 &&
		  out[2].group == 2 && out[2].value == 0 && !signbit(out[2].value) && out[2].count == 2 &&
		  out[3].group == 2 && out[3].value == 1.5, "waits counted by group and value, -0 as 0");
	CHECK(at_usage_waits_counted(w, 0, 3, scratch, start, out) == 0, "no waits");
}
#endif

void
test_usage(void)
{
#ifdef AT_HAVE_INT128
	test_groups();
	test_waits();
#endif
}
