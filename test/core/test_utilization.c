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

void
test_utilization(void)
{
	CHECK(at_day_of(0) == 0 && at_day_of(DAY - 1) == 0 && at_day_of(DAY) == 1 && at_day_of(-1) == -1 &&
		  at_day_of(-DAY) == -1 && at_day_of(-DAY - 1) == -2, "days are floored");
	test_wide();
	test_keyed();
	test_named();
	test_memory();
}
