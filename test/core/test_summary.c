/*
 * test_summary.c: counting (group, value) pairs and numbering strings
 * against brute force, through growth and out of memory; the pass's
 * decimals, exact sums, local days and weeks, and the pass itself.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"
#include "summary.h"
#include "tap.h"

static int
cmp_entry(const void *a, const void *b)
{
	const at_vmap_entry *x = a,
			   *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static void
test_vmap(void)
{
	enum
	{
		N = 20000
	};
	static at_vmap_entry pairs[N],
				want[N],
				got[N];
	at_vmap		m;
	at_rng		r;
	tap_counted c = {0, 0, 0};
	size_t		k = 0;
	int			ok = 1;

	at_rng_seed(&r, 3);
	CHECK(at_vmap_init(&m, tap_counted_mem, &c), "vmap: init");
	for (int i = 0; i < N; i++)
	{
		/* few groups, values often repeated, -0 beside 0 */
		pairs[i].group = at_rng_next(&r) % 7;
		pairs[i].value = (double) (int64_t) (at_rng_next(&r) % 3000) / 4 - 100;
		if (pairs[i].value == 0 && i % 2)
			pairs[i].value = -0.0;
		ok &= at_vmap_add(&m, pairs[i].group, pairs[i].value);
	}
	/* brute force: sort the pairs (-0 as 0), count runs */
	for (int i = 0; i < N; i++)
	{
		pairs[i].value = pairs[i].value == 0 ? 0.0 : pairs[i].value;
		pairs[i].count = 1;
	}
	qsort(pairs, N, sizeof(at_vmap_entry), cmp_entry);
	for (int i = 0; i < N; i++)
		if (k > 0 && want[k - 1].group == pairs[i].group && want[k - 1].value == pairs[i].value)
			want[k - 1].count++;
		else
			want[k++] = pairs[i];
	at_vmap_sorted(&m, got);
	for (size_t i = 0; ok && i < k; i++)
		if (!(got[i].group == want[i].group && got[i].value == want[i].value &&
			  !(got[i].value == 0 && signbit(got[i].value)) && got[i].count == want[i].count))
		{
			printf("# %zu: got (%llu, %g, %lld), want (%llu, %g, %lld)\n", i, (unsigned long long) got[i].group,
				   got[i].value, (long long) got[i].count, (unsigned long long) want[i].group, want[i].value,
				   (long long) want[i].count);
			ok = 0;
		}
	CHECK(ok && m.n == k && m.cap > 1024, "vmap: %zu distinct pairs of %d by group and value, -0 as 0, after "
		  "growing to %zu slots", k, N, m.cap);
	at_vmap_free(&m);
	CHECK(c.live == 0, "vmap: every block freed");

	/* out of memory at the first growth: refused, the map as it was */
	c = (tap_counted) {0, 2, 0};
	at_vmap_init(&m, tap_counted_mem, &c);
	ok = 1;
	for (int i = 0; i < 512 && ok; i++)
		ok = at_vmap_add(&m, 1, i);
	CHECK(ok && at_vmap_add(&m, 1, 512) == 0 && m.n == 512 && m.cap == 1024 && at_vmap_add(&m, 1, 512) == 1 &&
		  m.n == 513 && m.cap == 2048, "vmap: out of memory when growing: 0 and nothing changed; then it grows");
	at_vmap_free(&m);
	CHECK(c.live == 0, "vmap: freed after the failure");
}

static void
test_intern(void)
{
	at_intern	t;
	tap_counted c = {0, 0, 0};
	char		s[32];
	int			ok = 1;

	CHECK(at_intern_init(&t, tap_counted_mem, &c), "intern: init");
	/* first sight numbers in order; a prefix and an embedded NUL are other strings */
	CHECK(at_intern_id(&t, "Pretrain", 8) == 0 && at_intern_id(&t, "Eval", 4) == 1 &&
		  at_intern_id(&t, "Pretrain", 8) == 0 && at_intern_id(&t, "Pre", 3) == 2 &&
		  at_intern_id(&t, "Eval\0x", 6) == 3 && at_intern_id(&t, "", 0) == 4 && at_intern_id(&t, "Eval", 4) == 1,
		  "intern: ids in first-seen order, equal strings one id, prefixes and lengths apart");
	for (int i = 0; i < 1000; i++)
	{
		int			n = snprintf(s, sizeof s, "type-%d", i);

		ok &= at_intern_id(&t, s, (size_t) n) == 5 + i;
	}
	for (int i = 999; i >= 0; i--)
	{
		int			n = snprintf(s, sizeof s, "type-%d", i);

		ok &= at_intern_id(&t, s, (size_t) n) == 5 + i;
	}
	CHECK(ok && t.n == 1005, "intern: 1,000 more through growth (%zu slots), found again", t.cap);
	{
		size_t		len;
		const char *p = at_intern_str(&t, 3, &len);
		const char *q = at_intern_str(&t, 1004, &len);

		CHECK(len == 8 && memcmp(q, "type-999", 8) == 0 && memcmp(p, "Eval\0x", 6) == 0,
			  "intern: the strings by number, embedded NUL kept");
	}
	at_intern_free(&t);
	CHECK(c.live == 0, "intern: every block freed");

	/* out of memory: for the copy (call 2), then for growth */
	c = (tap_counted) {0, 2, 0};
	at_intern_init(&t, tap_counted_mem, &c);
	CHECK(at_intern_id(&t, "a", 1) == -1 && t.n == 0 && at_intern_id(&t, "a", 1) == 0,
		  "intern: out of memory for the copy: -1, then numbered when memory returns");
	at_intern_free(&t);
	CHECK(c.live == 0, "intern: freed after the failure");
}

static int
dec_is(const char *s, int64_t mant, int32_t scale)
{
	at_decimal d = {-1, -1};

	return at_decimal_parse(s, &d) && d.mant == mant && d.scale == scale;
}

static void
test_decimal(void)
{
	at_decimal d;

	CHECK(dec_is("0", 0, 0) && dec_is("12.50", 1250, 2) && dec_is("-0.000000001", -1, 9) &&
		  dec_is("3600", 3600, 0) && dec_is("-7.5", -75, 1), "decimal: numeric_out's forms, scale kept");
	CHECK(dec_is("999999999999999999", INT64_C(999999999999999999), 0) &&
		  dec_is("999999999.999999999", INT64_C(999999999999999999), 9) &&
		  dec_is("0.000000000", 0, 9) && dec_is("000000000000000000001", 1, 0),
		  "decimal: 18 significant digits at most; leading zeros do not count");
	CHECK(!at_decimal_parse("1000000000000000000", &d) && !at_decimal_parse("-9999999999.999999999", &d) &&
		  !at_decimal_parse("9223372036854775808", &d), "decimal: 19 digits refused (no int64 overflow)");
	CHECK(!at_decimal_parse("0.0000000001", &d) && !at_decimal_parse("1.0000000000", &d),
		  "decimal: 10 digits after the point refused");
	CHECK(!at_decimal_parse("NaN", &d) && !at_decimal_parse("Infinity", &d) && !at_decimal_parse("-Infinity", &d) &&
		  !at_decimal_parse("1.2.3", &d) && !at_decimal_parse("1e5", &d) && !at_decimal_parse("+1", &d) &&
		  !at_decimal_parse("--1", &d) && !at_decimal_parse(" 1", &d), "decimal: anything else refused");
}

#ifdef AT_HAVE_INT128
static void
test_roll_text(void)
{
	char		buf[AT_ROLL_TEXT];
	at_int128	big = (at_int128) INT64_C(1000000000000000000) * INT64_C(1000000000000000000) * 100;

	CHECK(strcmp(at_roll_text(buf, 12500000000, 2), "12.50") == 0 &&
		  strcmp(at_roll_text(buf, -500000000, 1), "-0.5") == 0 &&
		  strcmp(at_roll_text(buf, 0, 0), "0") == 0 && strcmp(at_roll_text(buf, 0, 3), "0.000") == 0 &&
		  strcmp(at_roll_text(buf, 1, 9), "0.000000001") == 0 &&
		  strcmp(at_roll_text(buf, -3600000000000, 0), "-3600") == 0,
		  "roll_text: the sum at its scale, as numeric_out writes it");
	CHECK(strcmp(at_roll_text(buf, big, 9), "100000000000000000000000000000.000000000") == 0 &&
		  strcmp(at_roll_text(buf, -big, 0), "-100000000000000000000000000000") == 0,
		  "roll_text: beyond 64 bits");
}
#endif

/* A zone of 2 hours east until Unix second 1000000, then 1 hour; counts its lookups. */
typedef struct fake_zone
{
	int			lookups;
} fake_zone;

static void
fake_lookup(void *arg, int64_t t, int64_t unix_s, int64_t *off_s, int64_t *next_unix_s, int *has_next)
{
	(void) t;
	((fake_zone *) arg)->lookups++;
	*off_s = unix_s < 1000000 ? 7200 : 3600;
	*next_unix_s = 1000000;
	*has_next = unix_s < 1000000;
}

#define US(unix_s) (((int64_t) (unix_s) - INT64_C(946684800)) * 1000000)

static void
test_zone(void)
{
	at_zone		utc = {1, 0, NULL, NULL, 0, 0, 0},
				minus = {1, -3600, NULL, NULL, 0, 0, 0};
	fake_zone	f = {0};
	at_zone		z = {0, 0, fake_lookup, &f, 0, 0, 0};
	int64_t		day = INT64_C(86400000000);

	CHECK(at_local_day(&utc, 0) == 0 && at_local_day(&utc, day - 1) == 0 && at_local_day(&utc, -1) == -1 &&
		  at_local_day(&utc, -day) == -1 && at_local_day(&utc, -day - 1) == -2,
		  "zone: days floor, before 2000 too");
	CHECK(at_local_day(&minus, 3599999999) == -1 && at_local_day(&minus, 3600000000) == 0,
		  "zone: a fixed offset moves midnight");
	CHECK(at_local_day(&utc, INT64_MIN) == INT32_MIN && at_local_day(&utc, INT64_MAX) == INT32_MAX &&
		  at_local_week(&utc, INT64_MIN) == INT32_MIN && at_local_week(&utc, INT64_MAX) == INT32_MAX,
		  "zone: infinite times are infinite dates");
	/* 2000-01-01 was a Saturday: its Monday is 1999-12-27, day -5 */
	CHECK(at_local_week(&utc, 0) == -5 && at_local_week(&utc, 2 * day) == 2 && at_local_week(&utc, 8 * day) == 2 &&
		  at_local_week(&utc, 9 * day) == 9 && at_local_week(&utc, -6 * day) == -12,
		  "zone: weeks start on Monday, before 2000 too");
	CHECK(at_zone_offset(&z, US(999999)) == 7200 && at_zone_offset(&z, US(500000)) == 3600 * 2 &&
		  at_zone_offset(&z, US(999999) + 999999) == 7200 && f.lookups == 2 &&
		  at_zone_offset(&z, US(1000000)) == 3600 && at_zone_offset(&z, US(2000000)) == 3600 && f.lookups == 3,
		  "zone: an answer holds from its second to the next transition (%d lookups)", f.lookups);
	/* Unix second 79199 + 2 hours is the second day after 1970-01-01; 10957 days to 2000 */
	CHECK(at_local_day(&z, US(79199)) == 0 - 10957 && at_local_day(&z, US(79200)) == 1 - 10957,
		  "zone: the local day uses the offset at that time");
}

/* The pass's numerics callback: the id of the job's value in the table vals. */
typedef struct num_src
{
	at_summary_pass *p;
	const char *text[3];
	int			asked;
} num_src;

static int32_t
num_of(void *arg, int col)
{
	num_src    *n = arg;
	size_t		before = n->p->numerics.n;
	int32_t		id = at_intern_id(&n->p->numerics, n->text[col], strlen(n->text[col]));

	n->asked++;
	if (n->p->numerics.n > before)
		at_summary_num_set(n->p, id, strtod(n->text[col], NULL), n->text[col]);
	return id;
}

static at_summary_job
job_of(num_src *src, int gpus, int64_t start, int64_t end, double wait, const char *dur, const char *queue)
{
	at_summary_job j = {0};

	j.type_code = 2;
	j.has_gpus = 1;
	j.gpus = gpus;
	j.has_submit = j.has_start = j.has_end = j.has_wait = 1;
	j.submit = start - (isnan(wait) ? 0 : (int64_t) wait);
	j.start = start;
	j.end = end;
	j.wait = wait;
	src->text[AT_SUM_COL_DURATION] = dur;
	src->text[AT_SUM_COL_QUEUE] = queue;
	j.has_num[AT_SUM_COL_DURATION] = dur != NULL;
	j.has_num[AT_SUM_COL_QUEUE] = queue != NULL;
	j.num = num_of;
	j.num_arg = src;
	return j;
}

static void
sort_ev(at_occ_step *ev, size_t n)
{
	at_occ_sort_steps(ev, n, NULL);
}

static int32_t
bin_tenths(void *arg, int64_t gpus, int64_t capacity)
{
	(void) arg;
	return gpus >= capacity ? 11 : (int32_t) (10 * gpus / capacity) + 1;
}

static void
test_pass(void)
{
	at_summary_pass p;
	tap_counted c = {0, 0, 0};
	num_src		src;
	at_summary_job j;
	at_vmap_entry e[8];
	at_summary_row r;

	CHECK(at_summary_init(&p, tap_counted_mem, &c, sort_ev) && p.exact && p.jobs == 0, "pass: init");
	src.p = &p;
	src.asked = 0;
	/* a job of 4 GPUs over [100, 200), another of 2 submitted at 150 with wait 10 */
	j = job_of(&src, 4, 100, 200, 5, "100", "5");
	CHECK(at_summary_add(&p, &j) && src.asked == 2, "pass: numerics asked once each");
	j = job_of(&src, 2, 160, 300, 10, "140", "10");
	at_summary_add(&p, &j);
	j = job_of(&src, 0, 100, 300, 1, "200", NULL);	/* no GPUs: no wait, no occupancy */
	at_summary_add(&p, &j);
	CHECK(p.maps[AT_SUM_WAIT].n == 2 && p.maps[AT_SUM_DURATION].n == 6 && p.maps[AT_SUM_QUEUE].n == 2 &&
		  p.nwaits == 2 && !p.odd && p.exact, "pass: waits of GPU jobs, durations by type and all, queues");
	CHECK(at_summary_finish(&p, 0, 0, bin_tenths, NULL) == AT_OCC_OK && p.peak == 6 && p.capacity == 6,
		  "pass: peak 6, the capacity when none is given");
	at_vmap_sorted(&p.maps[AT_SUM_WAIT_BY_OCC], e);
	/* submitted at 95 (nothing running: bin 1) and 150 (4 of 6: bin 7) */
	CHECK(p.maps[AT_SUM_WAIT_BY_OCC].n == 2 && e[0].group == ((uint64_t) 2 << 32 | 1) && e[0].value == 5 &&
		  e[1].group == ((uint64_t) 2 << 32 | 7) && e[1].value == 10,
		  "pass: each wait in the bin of the occupancy at its submission");
	at_summary_row_of(AT_SUM_WAIT_BY_OCC, e[1].group, &r);
	CHECK(strcmp(r.measure, "wait_by_occupancy") == 0 && r.type_code == 2 && r.bin == 7 && r.gpu == -1 &&
		  r.cancelled == -1 && !r.all_types, "pass: a row's group read back");
	at_summary_row_of(AT_SUM_DURATION, (uint64_t) AT_SUM_TYPE_ALL << 1 | 1, &r);
	CHECK(r.all_types && r.gpu == 1 && r.type_code == 0, "pass: durations of all types");

	/* a job ending before it starts: no occupancy, no bins; a NaN wait: not exact */
	j = job_of(&src, 1, 500, 400, 0, NULL, NULL);
	at_summary_add(&p, &j);
	j = job_of(&src, 1, 500, 600, NAN, NULL, NULL);
	at_summary_add(&p, &j);
	CHECK(p.odd && !p.exact && p.jobs == 5, "pass: odd and inexact noticed");
	CHECK(at_summary_finish(&p, 1, 16, bin_tenths, NULL) == AT_OCC_OK && p.capacity == 16 && p.peak == 6,
		  "pass: a capacity given is kept; the peak of GPU jobs without the odd one");
	at_summary_free(&p);
	CHECK(c.live == 0, "pass: every block freed");
}

#ifdef AT_HAVE_INT128
static void
test_roll(void)
{
	at_summary_pass p;
	tap_counted c = {0, 0, 0};
	num_src		src;
	at_summary_job j;
	at_roll		r;
	at_roll_key k;
	char		buf[AT_ROLL_TEXT];

	at_summary_init(&p, tap_counted_mem, &c, sort_ev);
	p.zone.fixed = 1;
	src.p = &p;
	memset(&r, 0, sizeof r);
	j = job_of(&src, 2, 0, 86400000000, 0, "1.5", "0.25");
	src.text[AT_SUM_COL_GPU_TIME] = "7";
	at_summary_roll_key(&p, &j, &k);
	CHECK(k.day == 0 && k.week == -5 && k.gpu == 2 && k.nulls == 0 && k.type_code == 2,
		  "roll: key of submit day, end week, gpus");
	at_summary_roll_add(&p, &r, &j);
	j = job_of(&src, 2, 0, 0, 0, "1.50", "3");
	j.has_num[AT_SUM_COL_GPU_TIME] = 1;
	at_summary_roll_add(&p, &r, &j);
	CHECK(p.roll_ok && r.jobs == 2 && r.duration.n == 2 && strcmp(at_roll_text(buf, r.duration.sum, r.duration.scale), "3.00") == 0 &&
		  strcmp(at_roll_text(buf, r.queue.sum, r.queue.scale), "3.25") == 0 &&
		  strcmp(at_roll_text(buf, r.gpu_time.sum, r.gpu_time.scale), "6.00") == 0 &&
		  strcmp(at_roll_text(buf, r.gpu_time_or.sum, r.gpu_time_or.scale), "10.0") == 0,
		  "roll: exact sums at the largest scale of their terms, gpu time coalesced");
	CHECK(r.has_max && strcmp(at_roll_text(buf, r.max, r.max_scale), "1.50") == 0,
		  "roll: max keeps the later of equal values");
	{
		/* where a dynahash entry puts a group: 8-byte aligned, not 16 */
		char	   *mem = malloc(sizeof(at_roll) + 8);
		at_roll    *g = (at_roll *) (mem + 8);

		memset(g, 0, sizeof *g);
		j = job_of(&src, 2, 0, 0, 0, "1.5", "0.25");
		at_summary_roll_add(&p, g, &j);
		CHECK(g->jobs == 1 && strcmp(at_roll_text(buf, g->duration.sum, g->duration.scale), "1.5") == 0,
			  "roll: a group at an 8-byte boundary adds up (UBSan checks the alignment)");
		free(mem);
	}
	/* sums overflow 128 bits: roll_ok cleared */
	for (int i = 0; i < 200 && p.roll_ok; i++)
	{
		j = job_of(&src, 2147483647, 0, 0, 0, "999999999999999999", "0");
		at_summary_roll_add(&p, &r, &j);
	}
	CHECK(!p.roll_ok, "roll: an overflowing sum leaves the grouping to SQL");
	p.roll_ok = 1;
	j = job_of(&src, 1, 0, 0, 0, "NaN", NULL);
	at_summary_roll_add(&p, &r, &j);
	CHECK(!p.roll_ok, "roll: a value that is not such a decimal too");
	at_summary_free(&p);
	CHECK(c.live == 0, "roll: every block freed");
}
#endif

void
test_summary(void)
{
	test_vmap();
	test_intern();
	test_decimal();
	test_zone();
	test_pass();
#ifdef AT_HAVE_INT128
	test_roll_text();
	test_roll();
#endif
}
