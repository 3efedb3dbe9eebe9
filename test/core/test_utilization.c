/* test_utilization.c: unit tests of the wide-file loader's open blocks. */
#include <stdint.h>
#include <string.h>

#include "samples.h"
#include "tap.h"
#include "utilization.h"

static const at_header_rules rules = {1000, AT_SERIES_NAME_MAX, 1, NULL, 1};

#define DAY ((int64_t) 86400 * 1000000)

/* Adds each value column of line to its series; the series of the last one. */
static at_series *
add_line(at_series_set *s, at_header *h, const char *line, int64_t ts, int *status)
{
	at_series  *b = NULL;
	double		v;
	int			too_long;

	*status = at_header_split_line(h, line, strlen(line)) == AT_LINE_OK ? AT_ADD_OK : -1;
	for (int i = 0; *status == AT_ADD_OK && at_header_next_value(h, &i, &v) > 0;)
	{
		b = at_series_of(s, h, i, &too_long);
		*status = b == NULL ? -2 - too_long : (int) at_series_add(s, b, at_day_of(ts), ts, v);
	}
	return b;
}

static void
test_wide(void)
{
	at_header	h;
	at_series_set s;
	int			st;
	at_series  *b;

	at_header_parse(&h, "Time,a,b", 8, &rules, tap_mem, NULL);
	CHECK(at_series_set_init(&s, &h, tap_mem, NULL) && s.nall == 2 && strcmp(s.all[0]->name, "a") == 0 &&
		  strcmp(s.all[1]->name, "b") == 0 && s.all[0]->sorted, "wide: one series per value column, in order");
	b = add_line(&s, &h, "t,1,2", 10, &st);
	add_line(&s, &h, "t,3,", 5, &st);
	CHECK(st == AT_ADD_OK && s.all[0]->n == 2 && b->n == 1 && !s.all[0]->sorted && b->sorted && s.samples == 3,
		  "wide: samples appended, an earlier time marks the block unsorted");
	CHECK(s.all[0]->ts[1] == 5 && s.all[0]->v[1] == 3 && s.all[0]->day == 0, "wide: the sample and its day");
	add_line(&s, &h, "t,4,5", DAY, &st);
	CHECK(st == AT_ADD_FLUSH && s.all[0]->n == 2 && s.samples == 3, "wide: another day asks for a flush first");
	at_series_empty(s.all[0]);
	CHECK(at_series_add(&s, s.all[0], 1, DAY, 4) == AT_ADD_OK && s.all[0]->n == 1 && s.all[0]->day == 1 &&
		  s.all[0]->sorted, "wide: after the flush the day's block starts");
	st = AT_ADD_OK;
	for (int i = 0; i < 200 && st == AT_ADD_OK; i++)
		st = at_series_add(&s, s.all[1], 0, 100 + i, i);
	CHECK(st == AT_ADD_OK && s.all[1]->n == 201 && s.all[1]->cap == 256 && s.all[1]->ts[0] == 10 &&
		  s.all[1]->ts[200] == 299 && s.all[1]->v[200] == 199, "wide: the block grows, keeping its samples");
	{
		/* calloc maps the pages lazily: only the last time is read */
		at_series	full = {.n = AT_SAMPLES_MAX, .cap = AT_SAMPLES_MAX, .ts = calloc(AT_SAMPLES_MAX, sizeof(int64_t))};

		CHECK(at_series_add(&s, &full, 0, 1000, 1) == AT_ADD_FULL && full.n == AT_SAMPLES_MAX,
			  "wide: a day holds at most AT_SAMPLES_MAX samples");
		free(full.ts);
	}
	at_series_set_free(&s);
	at_header_free(&h);
}

static void
test_keyed(void)
{
	at_header	h;
	at_series_set s;
	int			st;
	at_series  *b;
	char		line[400] = "t,";

	at_header_parse(&h, "Time,machineId,gpu0,gpu1", 24, &rules, tap_mem, NULL);
	CHECK(at_series_set_init(&s, &h, tap_mem, NULL) && s.nall == 0, "keyed: no series before a line");
	add_line(&s, &h, "t,m2,1,2", 0, &st);
	add_line(&s, &h, "t,m1,3,", 0, &st);
	b = add_line(&s, &h, "t,m2,,4", 1, &st);
	CHECK(st == AT_ADD_OK && s.nall == 3 && strcmp(s.all[0]->name, "m2/gpu0") == 0 &&
		  strcmp(s.all[1]->name, "m2/gpu1") == 0 && strcmp(s.all[2]->name, "m1/gpu0") == 0,
		  "keyed: \"<key>/<column>\" series in the order first seen");
	CHECK(b == s.all[1] && b->n == 2 && b->v[1] == 4, "keyed: a series found again");
	for (int i = 0; i < 100; i++)
	{
		char		l[32];

		snprintf(l, sizeof l, "t,m%d,1,1", i + 10);
		add_line(&s, &h, l, 0, &st);
	}
	CHECK(st == AT_ADD_OK && s.nall == 203 && strcmp(s.all[202]->name, "m109/gpu1") == 0,
		  "keyed: the list of series grows");
	/* "<251 bytes>/gpu0" is 256 bytes, "<250 bytes>/gpu0" 255 */
	memset(line + 2, 'k', 251);
	strcpy(line + 253, ",1,");
	add_line(&s, &h, line, 0, &st);
	CHECK(st == -2 - 1, "keyed: a series name over %d bytes", AT_SERIES_NAME_MAX);
	strcpy(line + 252, ",1,");
	add_line(&s, &h, line, 0, &st);
	CHECK(st == AT_ADD_OK && strlen(s.all[s.nall - 1]->name) == 255, "keyed: a name of %d bytes",
		  AT_SERIES_NAME_MAX);
	at_series_set_free(&s);
	at_header_free(&h);
}

static void
test_named(void)
{
	at_series_set s;
	at_series  *a,
			   *b;
	int			too_long = -1;
	char		name[AT_SERIES_NAME_MAX + 2];

	CHECK(at_series_set_init_named(&s, tap_mem, NULL) && s.nall == 0 && s.by_col == NULL,
		  "named: no series at first");
	a = at_series_named(&s, "node1-gpu0xyz", 10, &too_long);
	b = at_series_named(&s, "node1-gpu1", 10, &too_long);
	CHECK(a != NULL && b != NULL && a != b && !too_long && s.nall == 2 && strcmp(a->name, "node1-gpu0") == 0 &&
		  strcmp(s.all[1]->name, "node1-gpu1") == 0 && a->sorted && a->n == 0,
		  "named: a series per name, of len bytes, in the order first seen");
	CHECK(at_series_named(&s, "node1-gpu0", 10, &too_long) == a && s.nall == 2, "named: a series found again");
	CHECK(at_series_add(&s, a, 0, 5, 1) == AT_ADD_OK && at_series_named(&s, "node1-gpu0", 10, &too_long)->n == 1,
		  "named: its open block is the same");
	for (int i = 0; i < 100; i++)
	{
		char		n[32];

		snprintf(n, sizeof n, "h%d-gpu0", i);
		a = at_series_named(&s, n, strlen(n), &too_long);
	}
	CHECK(a != NULL && s.nall == 102 && strcmp(s.all[101]->name, "h99-gpu0") == 0 &&
		  at_series_named(&s, "h0-gpu0", 7, &too_long) == s.all[2], "named: the list of series grows");
	memset(name, 'k', sizeof name);
	CHECK(at_series_named(&s, name, AT_SERIES_NAME_MAX + 1, &too_long) == NULL && too_long && s.nall == 102,
		  "named: a name over %d bytes", AT_SERIES_NAME_MAX);
	a = at_series_named(&s, name, AT_SERIES_NAME_MAX, &too_long);
	CHECK(a != NULL && !too_long && strlen(a->name) == AT_SERIES_NAME_MAX, "named: a name of %d bytes",
		  AT_SERIES_NAME_MAX);
	at_series_set_free(&s);
}

static void
test_memory(void)
{
	tap_counted mem = {0, 0, 0};
	at_header	h;
	at_series_set s;
	int			fails = 0,
				runs = 0;

	at_header_parse(&h, "Time,machineId,gpu0", 19, &rules, tap_mem, NULL);
	at_header_split_line(&h, "t,m1,1", 6);
	for (mem.fail_at = 1; mem.fail_at < 20; mem.fail_at++, runs++)
	{
		at_series  *b = NULL;
		int			too_long = 0,
					ok = at_series_set_init(&s, &h, tap_counted_mem, &mem);

		if (ok)
			b = at_series_of(&s, &h, 2, &too_long);
		ok = b != NULL;
		for (int i = 0; ok && i < 100; i++)
			ok = at_series_add(&s, b, 0, i, i) == AT_ADD_OK;
		fails += !ok;
		at_series_set_free(&s);
		mem.calls = 0;
	}
	CHECK(fails > 5 && fails < runs && mem.live == 0, "out of memory anywhere: nothing left (%d of %d, %ld)", fails,
		  runs, mem.live);
	at_header_free(&h);
}

#define HOUR ((int64_t) 3600 * 1000000)

/* Hours of a few scaled samples: counts, min, max and the exact sums. */
static void
test_hours_scaled(void)
{
	/* day 3: hour 0 twice, hour 5 once, hour 23 at its last microsecond */
	int64_t		d = 3 * DAY,
				ts[] = {d, d + 59 * 60 * 1000000LL, d + 5 * HOUR + 1, d + DAY - 1},
				m[] = {-125, 250, 7, -3};
	at_hours	h;
	char		t[64];
	int			empty = 1;

	CHECK(at_hours_of(&h, d, ts, NULL, m, 2, 4) == 0, "hours: a day's samples are taken");
	CHECK(h.n[0] == 2 && h.n[5] == 1 && h.n[23] == 1, "hours: samples counted in their hour");
	for (int k = 0; k < AT_HOURS; k++)
		if (k != 0 && k != 5 && k != 23)
			empty &= h.n[k] == 0;
	CHECK(empty, "hours: the other hours are empty");
	CHECK(h.min[0] == -1.25 && h.max[0] == 2.5 && h.min[5] == 0.07 && h.max[23] == -0.03,
		  "hours: min and max are the values m / 10^scale");
	at_hours_sum_text(&h, 0, 2, t, sizeof t);
	CHECK(strcmp(t, "1.25") == 0, "hours: exact sum of hour 0 (%s)", t);
	at_hours_sum_text(&h, 23, 2, t, sizeof t);
	CHECK(strcmp(t, "-0.03") == 0, "hours: a negative sum under 1 keeps its sign and zero (%s)", t);
	at_hours_sum_text(&h, 1, 2, t, sizeof t);
	CHECK(strcmp(t, "0.00") == 0, "hours: an empty hour sums to 0 (%s)", t);
	at_hours_sum_text(&h, 5, 0, t, sizeof t);
	CHECK(strcmp(t, "7") == 0, "hours: scale 0 has no point (%s)", t);
	CHECK(at_hours_of(&h, d, ts, NULL, m, 2, 0) == 0 && h.n[0] == 0, "hours: no samples, no hours");
}

/* Sums past 64 bits, and times outside the day. */
static void
test_hours_edges(void)
{
	enum {N = 4096};
	static int64_t ts[N],
				m[N];
	double		v[2] = {1.5, -2.5};
	int64_t		big = ((int64_t) 1 << 53) - 1,
				out[2] = {-1, DAY};
	at_hours	h;
	char		t[64];

	for (int i = 0; i < N; i++)
	{
		ts[i] = 7 * HOUR + i;
		m[i] = big;
	}
	CHECK(at_hours_of(&h, 0, ts, NULL, m, 0, N) == 0, "hours: 4096 samples of 2^53 - 1");
	at_hours_sum_text(&h, 7, 0, t, sizeof t);
	CHECK(strcmp(t, "36893488147419099136") == 0, "hours: a sum over 2^64 is exact (%s)", t);
	for (int i = 0; i < N; i++)
		m[i] = -big;
	at_hours_of(&h, 0, ts, NULL, m, 3, N);
	at_hours_sum_text(&h, 7, 3, t, sizeof t);
	CHECK(strcmp(t, "-36893488147419099.136") == 0, "hours: and its negative, scaled (%s)", t);
	CHECK(at_hours_of(&h, 0, out, v, NULL, -1, 1) == -1, "hours: a time before the day is refused");
	CHECK(at_hours_of(&h, 0, out + 1, v, NULL, -1, 1) == -1, "hours: a time of the next day is refused");
	CHECK(at_hours_of(&h, 0, ts, v, NULL, -1, 2) == 0 && h.n[7] == 2 && h.min[7] == -2.5 && h.max[7] == 1.5,
		  "hours: raw doubles give counts, min and max");
}

/* An encoded block's integers, by hour: the sums add up to the block's sum. */
static void
test_hours_block(void)
{
	enum {N = 1000};
	static int64_t ts[N],
				m[N],
				wts[N];
	static double v[N];
	static unsigned char buf[64 * N];
	char		whole[64],
				hour[64];
	at_hours	h;
	size_t		len;
	int32_t		got;

	for (int i = 0; i < N; i++)
	{
		ts[i] = DAY + (int64_t) i * 3 * 1000000;	/* 3 s apart: the first 50 minutes */
		v[i] = (double) ((i * 37) % 1001) / 10.0;
	}
	len = at_samples_encode(ts, v, N, buf);
	got = at_samples_window(buf, len, DAY, 2 * DAY, wts, NULL, m);
	CHECK(got == N && at_hours_of(&h, DAY, wts, NULL, m, 1, got) == 0 && h.n[0] == N,
		  "hours: a block decoded into integers, one hour");
	at_samples_sum_text(buf, len, whole, sizeof whole);
	at_hours_sum_text(&h, 0, 1, hour, sizeof hour);
	CHECK(strcmp(whole, hour) == 0, "hours: the hour's sum is the block's (%s, %s)", hour, whole);
}

void
test_utilization(void)
{
	CHECK(at_day_of(0) == 0 && at_day_of(DAY - 1) == 0 && at_day_of(DAY) == 1 && at_day_of(-1) == -1 &&
		  at_day_of(-DAY) == -1 && at_day_of(-DAY - 1) == -2, "days are floored");
	test_wide();
	test_keyed();
	test_named();
	test_memory();
	test_hours_scaled();
	test_hours_edges();
	test_hours_block();
}
