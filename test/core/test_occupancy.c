/* test_occupancy.c: the occupancy sweep against brute force and hand cases. */
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "rng.h"
#include "tap.h"

typedef struct lists
{
	int64_t		st[200],
				et[200];
	int32_t		sg[200],
				eg[200];
	at_occ_list starts,
				ends;
} lists;

/* Sorted start and end lists of jobs given as (start, end, gpus); end < 0: running. */
static void
make_lists(const int64_t (*rows)[3], size_t nrows, lists *l)
{
	at_occ_job	jobs[200];
	at_occ_step ev[200];
	size_t		n = 0,
				i,
				k;

	for (i = 0; i < nrows; i++)
		if (at_occ_classify(rows[i][0], rows[i][1] >= 0, rows[i][1], (int32_t) rows[i][2],
							&jobs[n]) == AT_OCC_ROW_ADD)
			n++;
	l->starts.t = l->st;
	l->starts.g = l->sg;
	l->ends.t = l->et;
	l->ends.g = l->eg;
	k = at_occ_start_events(jobs, n, ev);
	qsort(ev, k, sizeof(at_occ_step), at_occ_step_cmp);
	at_occ_list_fill(&l->starts, ev, k);
	k = at_occ_end_events(jobs, n, ev);
	qsort(ev, k, sizeof(at_occ_step), at_occ_step_cmp);
	at_occ_list_fill(&l->ends, ev, k);
}

static size_t
sweep(const int64_t (*rows)[3], size_t nrows, at_occ_step *out)
{
	lists		l;

	make_lists(rows, nrows, &l);
	return (size_t) at_occ_sweep_lists(&l.starts, &l.ends, out);
}

static int
steps_are(const at_occ_step *s, size_t n, const int64_t (*want)[2], size_t nwant)
{
	size_t		i;

	if (n != nwant)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i].t != want[i][0] || s[i].gpus != want[i][1])
			return 0;
	return 1;
}

static void
test_hand_cases(void)
{
	at_occ_step s[16];
	at_occ_job	j;
	size_t		n,
				bad;

	{
		/* back to back at t=10: the release comes first, no peak of 8 */
		const int64_t rows[][3] = {{0, 10, 4}, {10, 20, 4}};
		const int64_t want[][2] = {{0, 4}, {20, 0}};

		n = sweep(rows, 2, s);
		CHECK(steps_are(s, n, want, 2), "tie: release before allocation at the same instant");
		CHECK(at_occ_peak(s, n) == 4, "tie: peak is 4, not 8");
	}
	{
		const int64_t rows[][3] = {{0, 10, 2}, {5, 15, 3}, {5, 5, 100}, {7, 9, 0}};
		const int64_t want[][2] = {{0, 2}, {5, 5}, {10, 3}, {15, 0}};

		n = sweep(rows, 4, s);
		CHECK(steps_are(s, n, want, 4), "overlap; zero-length and zero-GPU jobs hold nothing");
		CHECK(at_occ_at(s, n, -1) == 0 && at_occ_at(s, n, 0) == 2 && at_occ_at(s, n, 4) == 2 &&
			  at_occ_at(s, n, 5) == 5 && at_occ_at(s, n, 10) == 3 && at_occ_at(s, n, 15) == 0 &&
			  at_occ_at(s, n, 1000) == 0, "at(): start inclusive, end exclusive");
		CHECK(at_occ_check(s, n, -100, 100, &bad) == NULL, "sweep output is canonical");
	}
	{
		const int64_t rows[][3] = {{0, -1, 8}, {3, 6, 8}};
		const int64_t want[][2] = {{0, 8}, {3, 16}, {6, 8}};

		n = sweep(rows, 2, s);
		CHECK(steps_are(s, n, want, 3), "open-ended job holds its GPUs for ever");
		CHECK(at_occ_at(s, n, AT_OCC_NOEND) == 8, "at(infinity) counts running jobs");
	}
	{
		/* two jobs that swap at the same instant leave the level unchanged */
		const int64_t rows[][3] = {{0, 10, 4}, {10, 20, 4}, {0, 20, 1}};
		const int64_t want[][2] = {{0, 5}, {20, 0}};

		n = sweep(rows, 3, s);
		CHECK(steps_are(s, n, want, 2), "no step where the level does not change");
	}
	n = sweep(NULL, 0, s);
	CHECK(n == 0 && at_occ_at(s, 0, 5) == 0 && at_occ_peak(s, 0) == 0, "empty input: no steps, 0 GPUs");
	CHECK(at_occ_classify(10, 1, 9, 1, &j) == AT_OCC_ROW_END_BEFORE_START, "end before start is reported");
	CHECK(at_occ_classify(10, 1, 19, -1, &j) == AT_OCC_ROW_NEGATIVE_GPUS, "negative GPUs are reported");
	CHECK(at_occ_classify(AT_OCC_NOEND, 0, 0, 1, &j) == AT_OCC_ROW_SKIP, "a start at infinity holds nothing");
	CHECK(at_occ_classify(AT_OCC_NOBEGIN, 1, 0, 3, &j) == AT_OCC_ROW_ADD && j.end == 0,
		  "a start at -infinity is a job");
}

static void
test_check(void)
{
	const at_occ_step ok[] = {{AT_OCC_NOBEGIN, 1}, {5, 3}, {9, 0}};
	const at_occ_step same[] = {{1, 2}, {5, 2}};
	const at_occ_step zero[] = {{1, 0}};
	const at_occ_step order[] = {{5, 1}, {5, 2}};
	const at_occ_step neg[] = {{1, -1}};
	const at_occ_step inf[] = {{1, 1}, {AT_OCC_NOEND, 0}};
	const at_occ_step range[] = {{1000, 1}};
	size_t		bad = 99;

	CHECK(at_occ_check(ok, 3, -10, 100, &bad) == NULL, "check accepts a canonical function");
	CHECK(at_occ_check(same, 2, -10, 100, &bad) != NULL && bad == 1, "check rejects a repeated level");
	CHECK(at_occ_check(zero, 1, -10, 100, &bad) != NULL && bad == 0, "check rejects a first level of 0");
	CHECK(at_occ_check(order, 2, -10, 100, &bad) != NULL && bad == 1, "check rejects equal times");
	CHECK(at_occ_check(neg, 1, -10, 100, &bad) != NULL, "check rejects a negative level");
	CHECK(at_occ_check(inf, 2, -10, 100, &bad) != NULL && bad == 1, "check rejects a step at infinity");
	CHECK(at_occ_check(range, 1, -10, 100, &bad) != NULL, "check rejects an out-of-range time");
}

/* Random jobs on a small time axis, checked instant by instant. */
static void
test_brute_force(void)
{
	at_rng		r;
	int			round,
				ok_at = 1,
				ok_seg = 1,
				ok_int = 1,
				ok_peak = 1,
				ok_merge = 1,
				ok_runs = 1,
				ok_hint = 1;
	at_rng		r0;

	at_rng_seed(&r, 7);
	at_rng_seed(&r0, 8);
	for (round = 0; round < 200; round++)
	{
		int64_t		rows[60][3];
		int64_t		level[101];
		at_occ_step s[130];
		at_occ_level lv[130];
		size_t		nrows = at_rng_next(&r) % 60,
					n,
					i,
					nseg,
					bad;
		int64_t		t,
					from = (int64_t) (at_rng_next(&r) % 50),
					to = from + 1 + (int64_t) (at_rng_next(&r) % 50),
					peak = 0;
		double		integral = 0;

		memset(level, 0, sizeof(level));
		for (i = 0; i < nrows; i++)
		{
			rows[i][0] = (int64_t) (at_rng_next(&r) % 100);
			rows[i][1] = at_rng_next(&r) % 8 == 0 ? -1 : rows[i][0] + (int64_t) (at_rng_next(&r) % 20);
			rows[i][2] = (int64_t) (at_rng_next(&r) % 9);
			for (t = rows[i][0]; t < (rows[i][1] < 0 ? 101 : rows[i][1]) && t <= 100; t++)
				level[t] += rows[i][2];
		}
		n = sweep((const int64_t (*)[3]) rows, nrows, s);
		if (at_occ_check(s, n, -1, 1000, &bad) != NULL)
			ok_at = 0;
		{
			/* as two partial states merged: the same steps */
			lists		a, b;
			int64_t		mt[400];
			int32_t		mg[400];
			at_occ_list ms = {mt, mg, 0},
						me = {mt + 200, mg + 200, 0};
			at_occ_step s2[130];
			size_t		half = nrows / 2, hint = 0, hint2 = 0;

			make_lists((const int64_t (*)[3]) rows, half, &a);
			make_lists((const int64_t (*)[3]) rows + half, nrows - half, &b);
			at_occ_list_merge(&a.starts, &b.starts, &ms);
			at_occ_list_merge(&a.ends, &b.ends, &me);
			if (at_occ_lists_check(&ms, &me, -1, 1000) != NULL ||
				at_occ_sweep_lists(&ms, &me, s2) != (long long) n ||
				memcmp(s, s2, n * sizeof(at_occ_step)) != 0)
				ok_merge = 0;
			{
				/* swept as two runs without merging: the same again */
				at_occ_list rs[2] = {a.starts, b.starts},
							re[2] = {a.ends, b.ends};
				size_t		pos[4];

				memset(s2, 0, sizeof(s2));
				if (at_occ_sweep_runs(rs, re, 2, pos, s2) != (long long) n ||
					memcmp(s, s2, n * sizeof(at_occ_step)) != 0)
					ok_runs = 0;
			}
			for (t = -2; t <= 102; t++)
			{
				int64_t		r = (int64_t) (at_rng_next(&r0) % 105) - 2;

				if (at_occ_at_hint(s, n, t, &hint) != at_occ_at(s, n, t) ||
					at_occ_at_hint(s, n, r, &hint2) != at_occ_at(s, n, r))
					ok_hint = 0;
			}
		}
		for (t = 0; t <= 100; t++)
		{
			if (at_occ_at(s, n, t) != level[t])
				ok_at = 0;
			if (level[t] > peak)
				peak = level[t];
		}
		if (at_occ_peak(s, n) != peak)
			ok_peak = 0;

		nseg = at_occ_segments(s, n, from, to, lv);
		if (nseg > at_occ_segments_max(s, n, from, to))
			ok_seg = 0;
		qsort(lv, nseg, sizeof(at_occ_level), at_occ_level_cmp);
		nseg = at_occ_merge_levels(lv, nseg);
		for (i = 0; i < nseg; i++)
		{
			uint64_t	usec = 0;

			for (t = from; t < to; t++)
				if (level[t] == lv[i].gpus)
					usec++;
			if (usec != lv[i].usec || (i > 0 && lv[i].gpus <= lv[i - 1].gpus))
				ok_seg = 0;
		}
		for (t = from; t < to; t++)
			integral += (double) level[t];
		if (at_occ_integral(s, n, from, to) != integral)
			ok_int = 0;
	}
	CHECK(ok_at, "200 random traces: at() equals a direct count at every instant, output canonical");
	CHECK(ok_peak, "200 random traces: peak equals the direct maximum");
	CHECK(ok_seg, "200 random traces: time per level equals a direct count");
	CHECK(ok_int, "200 random traces: integral equals a direct sum");
	CHECK(ok_merge, "200 random traces: two partial lists merged sweep to the same steps");
	CHECK(ok_runs, "200 random traces: two runs swept without merging give the same steps");
	CHECK(ok_hint, "200 random traces: at_hint() equals at() in time order and in random order");
}

static void
test_state(void)
{
	const int64_t rows[][3] = {{-5, 10, 8}, {-9223372036854775807 - 1, -1, 1}, {7, 8, 2147483647}, {7, 9, 1}};
	lists		l,
				back;
	uint8_t		buf[AT_OCC_STATE_HEADER + 8 * AT_OCC_STATE_ENTRY];
	size_t		ns = 0,
				ne = 0,
				size;

	make_lists(rows, 4, &l);
	size = at_occ_state_size(l.starts.n, l.ends.n);
	CHECK(size == AT_OCC_STATE_HEADER + 7 * AT_OCC_STATE_ENTRY, "state: 4 starts and 3 ends take %zu bytes", size);
	at_occ_state_write(buf, &l.starts, &l.ends);
	back.starts.t = back.st;
	back.starts.g = back.sg;
	back.ends.t = back.et;
	back.ends.g = back.eg;
	CHECK(at_occ_state_open(buf, size, &ns, &ne) == NULL && ns == 4 && ne == 3, "state: header round trip");
	at_occ_state_read(buf, &back.starts, &back.ends);
	CHECK(memcmp(back.st, l.st, 4 * 8) == 0 && memcmp(back.sg, l.sg, 4 * 4) == 0 &&
		  memcmp(back.et, l.et, 3 * 8) == 0 && memcmp(back.eg, l.eg, 3 * 4) == 0 &&
		  at_occ_lists_check(&back.starts, &back.ends, -100, 100) == NULL,
		  "state: lists round trip, with -infinity and INT32_MAX GPUs");
	CHECK(at_occ_state_open(buf, size - 1, &ns, &ne) != NULL, "state: truncated is rejected");
	CHECK(at_occ_state_open(buf, 5, &ns, &ne) != NULL, "state: shorter than the header is rejected");
	buf[0] = 2;
	CHECK(at_occ_state_open(buf, size, &ns, &ne) != NULL, "state: unknown version is rejected");
	buf[0] = 1;
	buf[2] = 1;
	CHECK(at_occ_state_open(buf, size, &ns, &ne) != NULL, "state: nonzero reserved byte is rejected");
	buf[2] = 0;
	buf[4] = 0x80;				/* a start count so large the sum wraps */
	CHECK(at_occ_state_open(buf, size, &ns, &ne) != NULL, "state: a count past the length is rejected");
	buf[4] = 0;

	/* lists that cannot come from jobs */
	back.ends.n = 3;
	back.starts.n = 2;
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: more ends than starts");
	back.starts.n = 4;
	back.eg[0] = 0;
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: zero GPUs");
	back.eg[0] = l.eg[0];
	back.et[0] = -50;			/* a release before its allocation */
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: level would go negative");
	back.et[0] = 20;
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: out of order");
	back.et[0] = l.et[0];
	back.st[3] = 1000;
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: time out of range");
	back.st[3] = AT_OCC_NOEND;
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) != NULL, "lists: start at infinity");
	back.st[3] = l.st[3];
	CHECK(at_occ_lists_check(&back.starts, &back.ends, -100, 100) == NULL, "lists: restored lists pass");
}

/* Mutate a valid serialized state at random: open/read/check never overrun. */
static void
test_state_fuzz(void)
{
	const int64_t rows[][3] = {{0, 10, 8}, {3, 6, 1}, {4, -1, 2}, {9, 12, 5}};
	lists		l,
				back;
	uint8_t		good[AT_OCC_STATE_HEADER + 8 * AT_OCC_STATE_ENTRY];
	uint8_t		buf[sizeof(good)];
	size_t		size,
				ns,
				ne;
	at_rng		r;
	int			i,
				opened = 0,
				passed = 0;

	make_lists(rows, 4, &l);
	size = at_occ_state_size(l.starts.n, l.ends.n);
	at_occ_state_write(good, &l.starts, &l.ends);
	back.starts.t = back.st;
	back.starts.g = back.sg;
	back.ends.t = back.et;
	back.ends.g = back.eg;
	at_rng_seed(&r, 13);
	for (i = 0; i < 20000; i++)
	{
		size_t		len = size,
					k,
					edits = 1 + at_rng_next(&r) % 3;

		memcpy(buf, good, size);
		for (k = 0; k < edits; k++)
		{
			if (at_rng_next(&r) % 8 == 0)
				len = at_rng_next(&r) % (size + 1);
			else
				buf[at_rng_next(&r) % size] ^= (uint8_t) (1u << (at_rng_next(&r) % 8));
		}
		if (at_occ_state_open(buf, len, &ns, &ne) != NULL)
			continue;
		opened++;
		if (ns > 200 || ne > 200)
			continue;			/* cannot happen: the length was checked */
		at_occ_state_read(buf, &back.starts, &back.ends);
		if (at_occ_lists_check(&back.starts, &back.ends, -100, 100) == NULL)
			passed++;
	}
	CHECK(opened > 0 && passed > 0 && passed < opened,
		  "state fuzz: 20000 mutations, %d open, %d pass the check, no overrun", opened, passed);
}

typedef struct pairs
{
	int			n;
	char		ts[4][32];
	int64_t		gpus[4];
} pairs;

static void
collect(void *arg, const char *ts, size_t len, int64_t gpus)
{
	pairs	   *p = arg;

	if (p->n < 4 && len < 32)
	{
		memcpy(p->ts[p->n], ts, len);
		p->ts[p->n][len] = '\0';
		p->gpus[p->n] = gpus;
	}
	p->n++;
}

static const char *
parse(const char *s, pairs *p)
{
	size_t		pos;

	memset(p, 0, sizeof(*p));
	return at_occ_parse_text(s, strlen(s), collect, p, &pos);
}

static void
test_text(void)
{
	pairs		p;
	const char *bad[] = {
		"", "[", "]", "[[]]", "[[\"x\"]]", "[[\"x\",]]", "[[\"x\",1]", "[[\"x\",1],]",
		"[[\"x\",1]] x", "[[\"x\\\"\",1]]", "[[\"x,1]]", "[[x,1]]", "[[\"x\",1 2]]",
		"[[\"x\",99999999999999999999]]", "[[\"x\",1][\"y\",2]]", "[,]", "{}"
	};
	size_t		i;
	int			all = 1;

	CHECK(parse("[]", &p) == NULL && p.n == 0, "text: [] is the empty function");
	CHECK(parse(" [ ] ", &p) == NULL && p.n == 0, "text: whitespace is allowed");
	CHECK(parse("[[\"2023-07-01 00:00:00+00\",8],[\"infinity\", 0 ]]", &p) == NULL && p.n == 2 &&
		  strcmp(p.ts[0], "2023-07-01 00:00:00+00") == 0 && p.gpus[0] == 8 &&
		  strcmp(p.ts[1], "infinity") == 0 && p.gpus[1] == 0, "text: two pairs parse");
	CHECK(parse("[[\"t\",-4]]", &p) == NULL && p.gpus[0] == -4, "text: a negative count parses (the check rejects it)");
	CHECK(parse("[[\"t\",9223372036854775807]]", &p) == NULL && p.gpus[0] == INT64_MAX, "text: INT64_MAX parses");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &p) == NULL)
		{
			all = 0;
			printf("# accepted: %s\n", bad[i]);
		}
	CHECK(all, "text: %zu malformed inputs are rejected", sizeof(bad) / sizeof(bad[0]));
}

/* Mutate a valid text form at random: every result parses or errors, never more. */
static void
test_text_fuzz(void)
{
	const char *seed = "[[\"2023-07-01 00:00:00+00\",8],[\"2023-07-01 01:00:00+00\",0]]";
	const char	alphabet[] = "[]\",-0123456789 \\x";
	char		buf[128];
	at_rng		r;
	pairs		p;
	int			i,
				ok = 0,
				errors = 0,
				sane = 1;

	at_rng_seed(&r, 11);
	for (i = 0; i < 20000; i++)
	{
		size_t		len = strlen(seed),
					k,
					edits = 1 + at_rng_next(&r) % 4;

		memcpy(buf, seed, len + 1);
		for (k = 0; k < edits && len > 0; k++)
		{
			size_t		pos = at_rng_next(&r) % len;

			switch (at_rng_next(&r) % 3)
			{
				case 0:
					buf[pos] = alphabet[at_rng_next(&r) % (sizeof(alphabet) - 1)];
					break;
				case 1:			/* delete */
					memmove(buf + pos, buf + pos + 1, len - pos);
					len--;
					break;
				default:		/* truncate */
					buf[pos] = '\0';
					len = pos;
			}
		}
		if (parse(buf, &p) == NULL)
		{
			ok++;
			if (p.n > 2)
				sane = 0;
		}
		else
			errors++;
	}
	CHECK(ok + errors == 20000 && ok > 0 && errors > 0 && sane,
		  "text fuzz: 20000 mutations, %d parse, %d error, none invents pairs", ok, errors);
}

static void
test_fingerprint(void)
{
	at_occ_step a[] = {{1, 2}, {3, 0}};
	at_occ_step b[] = {{1, 2}, {3, 1}};
	at_occ_step c[] = {{1, 2}, {4, 0}};

	CHECK(at_occ_fingerprint(a, 2) != at_occ_fingerprint(b, 2) &&
		  at_occ_fingerprint(a, 2) != at_occ_fingerprint(c, 2) &&
		  at_occ_fingerprint(a, 2) != at_occ_fingerprint(a, 1) &&
		  at_occ_fingerprint(a, 0) != at_occ_fingerprint(a, 1), "fingerprints differ for different steps");
}

/*
 * Fuzz regression (test/fuzz/corpus/occupancy_text/regress-window-past-int64-max):
 * timestamptz spans more than INT64_MAX microseconds, so the widest window
 * the SQL functions take overflowed the int64 differences.
 */
static void
test_widest_window(void)
{
	const int64_t tmin = INT64_C(-211813488000000000),	/* MIN_TIMESTAMP */
				tend = INT64_C(9223371331200000000);	/* END_TIMESTAMP */
	const uint64_t span = (uint64_t) (tend - 1) - (uint64_t) tmin;
	at_occ_step s[] = {{1000, 8}, {2000, 0}};
	at_occ_step far[] = {{tmin, 1}, {tend - 2, 0}};
	at_occ_level lv[3];
	size_t		n;

	n = at_occ_segments(s, 2, tmin, tend - 1, lv);
	CHECK(n == 3 && lv[0].usec + lv[1].usec + lv[2].usec == span && lv[1].gpus == 8 && lv[1].usec == 1000,
		  "widest window: segments cover all %llu us", (unsigned long long) span);
	qsort(lv, n, sizeof(at_occ_level), at_occ_level_cmp);
	n = at_occ_merge_levels(lv, n);
	CHECK(n == 2 && lv[0].gpus == 0 && lv[0].usec == span - 1000, "widest window: merged idle time past INT64_MAX");
	CHECK(at_occ_integral(s, 2, tmin, tend - 1) == 8000.0, "widest window: integral");
	n = at_occ_segments(far, 2, tmin, tend - 1, lv);
	CHECK(n == 2 && lv[0].gpus == 1 && lv[0].usec == span - 1 && lv[1].usec == 1,
		  "one segment longer than INT64_MAX us");
	CHECK(at_occ_integral(far, 2, tmin, tend - 1) == (double) (span - 1), "its integral");
}

/* Jobs as rows for make_lists: (start, end or -1 if running, gpus). */
static size_t
jobs_as_rows(const at_occ_job *jobs, size_t n, int64_t (*rows)[3])
{
	for (size_t i = 0; i < n; i++)
	{
		rows[i][0] = jobs[i].start;
		rows[i][1] = jobs[i].end == AT_OCC_NOEND ? -1 : jobs[i].end;
		rows[i][2] = jobs[i].gpus;
	}
	return n;
}

/*
 * at_occ_to_jobs: the jobs it makes sweep back to the same steps (random
 * step functions, several summed like rollup does), never more than n jobs;
 * a rise above INT32_MAX is refused.
 */
static void
test_to_jobs(void)
{
	at_rng		r;
	int			ok_same = 1,
				ok_bound = 1,
				ok_sum = 1;

	at_rng_seed(&r, 11);
	for (int round = 0; round < 300; round++)
	{
		at_occ_step a[40],
					b[40],
					back[200],
					sum[200];
		at_occ_job	ja[40],
					jb[40],
					stack[40];
		int64_t		rows[80][3],
					level = 0,
					t = (int64_t) (at_rng_next(&r) % 5) - 2;
		size_t		na = 0,
					nb = 0,
					nrows;
		long long	ka,
					kb;

		/* two canonical step functions on interleaved times */
		for (int i = 0; i < 40; i++)
		{
			int64_t		next;

			t += 1 + (int64_t) (at_rng_next(&r) % 3);
			do
				next = (int64_t) (at_rng_next(&r) % 12);
			while (next == level);
			if (i == 39 && at_rng_next(&r) % 2)
				next = 0;
			level = next;
			if (at_rng_next(&r) % 2)
				a[na++] = (at_occ_step) {t, level};
			else
				b[nb++] = (at_occ_step) {t, level};
		}
		/* a and b as separate functions: drop steps that repeat a level */
		{
			size_t		k = 0;
			int64_t		prev = 0;

			for (size_t i = 0; i < na; i++)
				if (a[i].gpus != prev)
					prev = (a[k++] = a[i]).gpus;
			na = k;
			k = 0;
			prev = 0;
			for (size_t i = 0; i < nb; i++)
				if (b[i].gpus != prev)
					prev = (b[k++] = b[i]).gpus;
			nb = k;
		}
		ka = at_occ_to_jobs(a, na, ja, stack);
		kb = at_occ_to_jobs(b, nb, jb, stack);
		if (ka < 0 || kb < 0 || (size_t) ka > na || (size_t) kb > nb)
		{
			ok_bound = 0;
			continue;
		}
		nrows = jobs_as_rows(ja, (size_t) ka, rows);
		if (!steps_are(back, sweep((const int64_t (*)[3]) rows, nrows, back), (const int64_t (*)[2]) a, na))
			ok_same = 0;
		nrows += jobs_as_rows(jb, (size_t) kb, rows + nrows);
		/* the sum, instant by instant, against the jobs' sweep */
		{
			size_t		ns = sweep((const int64_t (*)[3]) rows, nrows, sum);

			for (int64_t x = -5; x < 200; x++)
				if (at_occ_at(sum, ns, x) != at_occ_at(a, na, x) + at_occ_at(b, nb, x))
					ok_sum = 0;
		}
	}
	CHECK(ok_bound, "to_jobs: at most one job per step");
	CHECK(ok_same, "to_jobs: the jobs sweep back to the same steps");
	CHECK(ok_sum, "to_jobs: two functions' jobs sweep to their sum at every instant");
	{
		at_occ_step big[] = {{10, INT64_C(3000000000)}, {20, 0}};
		at_occ_step ok2[] = {{AT_OCC_NOBEGIN, INT32_MAX}, {5, INT64_C(4294967294)}, {9, 1}};
		at_occ_job	out[3],
					stack[3];

		CHECK(at_occ_to_jobs(big, 2, out, stack) == -1, "to_jobs: a rise of 3e9 GPUs is refused");
		/* the fall at 9 ends the job of 5 and part of the one from -infinity */
		CHECK(at_occ_to_jobs(ok2, 3, out, stack) == 3 &&
			  out[0].start == 5 && out[0].end == 9 && out[0].gpus == INT32_MAX &&
			  out[1].start == AT_OCC_NOBEGIN && out[1].end == 9 && out[1].gpus == INT32_MAX - 1 &&
			  out[2].start == AT_OCC_NOBEGIN && out[2].end == AT_OCC_NOEND && out[2].gpus == 1,
			  "to_jobs: rises of INT32_MAX from -infinity, LIFO falls, a split, a running job");
	}
}

/* ---- occupancy_agg's state (at_occ_state) ---- */

/* calloc/free, counting live blocks; fails the allocation numbered fail_at. */
typedef struct counted
{
	long		live;
	long		calls;
	long		fail_at;		/* 0: never */
	int			freed_null;
	size_t		bytes;			/* allocated in all */
} counted;

static void *
counted_mem(void *ctx, void *p, size_t n)
{
	counted    *c = ctx;

	if (n == 0)
	{
		if (p == NULL)
			c->freed_null = 1;
		free(p);
		c->live--;
		return NULL;
	}
	if (++c->calls == c->fail_at)
		return NULL;
	c->live++;
	c->bytes += n;
	return calloc(1, n);
}

static int	sorts;

static void
sort_steps(at_occ_step *ev, size_t n)
{
	sorts++;
	at_occ_sort_steps(ev, n, NULL);
}

/* Random jobs on a small axis, as (start, end or -1, gpus) rows. */
static size_t
random_rows(at_rng *r, int64_t (*rows)[3], size_t max)
{
	size_t		n = at_rng_next(r) % max;

	for (size_t i = 0; i < n; i++)
	{
		rows[i][0] = (int64_t) (at_rng_next(r) % 1000);
		rows[i][1] = at_rng_next(r) % 8 == 0 ? -1 : rows[i][0] + (int64_t) (at_rng_next(r) % 200);
		rows[i][2] = (int64_t) (at_rng_next(r) % 9);
	}
	return n;
}

/* Add rows to a state as the transition function does. */
static at_occ_err
add_rows(at_occ_state *st, const int64_t (*rows)[3], size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		at_occ_job	j;
		at_occ_err	e;

		if (at_occ_classify(rows[i][0], rows[i][1] >= 0, rows[i][1], (int32_t) rows[i][2], &j) == AT_OCC_ROW_ADD &&
			(e = at_occ_state_add(st, &j)) != AT_OCC_OK)
			return e;
	}
	return AT_OCC_OK;
}

/* The final function: runs, sweep; -1 on an error. */
static long long
state_final(const at_occ_state *st, counted *c, at_occ_step *out)
{
	at_occ_runs runs;
	long long	n;

	if (at_occ_state_runs(st, counted_mem, c, &runs) != AT_OCC_OK)
		return -1;
	n = at_occ_runs_sweep(&runs, out);
	at_occ_runs_free(&runs, counted_mem, c);
	return n;
}

/* serialize + deserialize: flatten, write, decode into *back. */
static const char *
state_roundtrip(const at_occ_state *st, counted *c, at_occ_state *back, uint8_t **bytes, size_t *len)
{
	at_occ_flat f;
	const char *msg;

	if (at_occ_state_flatten(st, counted_mem, c, &f) != AT_OCC_OK)
		return "flatten failed";
	*len = at_occ_state_size(f.starts.n, f.ends.n);
	*bytes = malloc(*len);
	at_occ_state_write(*bytes, &f.starts, &f.ends);
	at_occ_flat_free(&f, counted_mem, c);
	msg = at_occ_state_decode(back, *bytes, *len, -100, 100000, counted_mem, c, sort_steps);
	return msg;
}

static void
test_agg_state(void)
{
	counted		c = {0};
	at_occ_state st;
	at_occ_job	j = {0, 10, 1, 0};
	at_occ_step s[16];
	int			ok_chunks = 1;
	size_t		nchunks = 0;
	long long	n;
	at_occ_err	e,
				e2,
				e3;
	const char *msg;

	/* chunks double from 64 to 65536 jobs, and never move */
	at_occ_state_init(&st, counted_mem, &c, sort_steps);
	for (long i = 0; i < 300000; i++)
	{
		if (at_occ_state_add(&st, &j) != AT_OCC_OK)
			ok_chunks = 0;
	}
	{
		uint32_t	want = AT_OCC_CHUNK_MIN;
		uint64_t	total = 0;

		for (at_occ_chunk *ch = st.head; ch != NULL; ch = ch->next, nchunks++)
		{
			if (ch->cap != want || (ch->next && ch->n != ch->cap))
				ok_chunks = 0;
			total += ch->n;
			want = want < AT_OCC_CHUNK_MAX ? want * 2 : want;
		}
		if (total != 300000 || st.nraw != 300000)
			ok_chunks = 0;
	}
	CHECK(ok_chunks && nchunks == 14, "state: 300000 jobs in %zu chunks of 64, 128, ... 65536", nchunks);
	sorts = 0;
	n = state_final(&st, &c, s);
	CHECK(n == 2 && s[0].t == 0 && s[0].gpus == 300000 && s[1].t == 10 && s[1].gpus == 0 && sorts == 2,
		  "state: final sweeps 300000 jobs, sorting starts and ends with the sort callback");
	at_occ_state_free(&st);
	CHECK(c.live == 0 && !c.freed_null, "state: freed, no block left (%ld)", c.live);

	{
		/* empty states: final gives no steps, serialize gives an empty state */
		at_occ_state back;
		uint8_t    *bytes;
		size_t		len;

		at_occ_state_init(&st, counted_mem, &c, sort_steps);
		n = state_final(&st, &c, s);
		CHECK(n == 0, "state: an empty state sweeps to no steps");
		msg = state_roundtrip(&st, &c, &back, &bytes, &len);
		CHECK(msg == NULL && len == AT_OCC_STATE_HEADER &&
			  back.nruns == 1 && back.starts[0].n == 0 && back.decoded, "state: an empty state serializes to its header");
		at_occ_state_free(&back);
		free(bytes);
		CHECK(c.live == 0, "state: nothing left after the empty round trip");
	}
	{
		/* rollup: steps back into jobs */
		const at_occ_step in[] = {{0, 3}, {5, 7}, {9, 2}, {12, 0}},
					big[] = {{0, (int64_t) INT32_MAX + 1}};

		at_occ_state_init(&st, counted_mem, &c, sort_steps);
		e = at_occ_state_add_steps(&st, in, 4);
		e2 = at_occ_state_add_steps(&st, in, 4);
		e3 = at_occ_state_add_steps(&st, NULL, 0);
		CHECK(e == AT_OCC_OK && e2 == AT_OCC_OK && e3 == AT_OCC_OK, "rollup: steps add as jobs");
		n = state_final(&st, &c, s);
		CHECK(n == 4 && s[0].gpus == 6 && s[1].gpus == 14 && s[2].gpus == 4 && s[3].gpus == 0,
			  "rollup: two copies of a function sum to twice its levels");
		e = at_occ_state_add_steps(&st, big, 1);
		CHECK(e == AT_OCC_ERISE, "rollup: a rise above INT32_MAX is refused");
		at_occ_state_free(&st);
		CHECK(c.live == 0, "rollup: no block left, the refused one included");
	}
	{
		/* more raw jobs than PostgreSQL could sort in one allocation */
		at_occ_runs runs;

		at_occ_state_init(&st, counted_mem, &c, sort_steps);
		st.nraw = UINT64_MAX / 8;
		e = at_occ_state_runs(&st, counted_mem, &c, &runs);
		CHECK(e == AT_OCC_ETOOMANY && c.live == 0,
			  "state: too many jobs to sort is an error, not an overflow");
		st.nraw = 0;
	}
}

/*
 * As a parallel plan runs: workers add rows and serialize, the leader
 * deserializes and combines (taking the runs), turning the smallest run
 * into raw jobs past AT_OCC_MAX_RUNS; or a state is combined without
 * serializing (copying).
 * The final steps equal one state fed every row.
 */
static void
test_agg_parallel(void)
{
	at_rng		r;
	counted		c = {0};
	int			ok_same = 1,
				ok_runs = 1,
				ok_take = 1,
				ok_copy = 1,
				ok_ser = 1,
				ok_leak = 1;

	at_rng_seed(&r, 21);
	for (int round = 0; round < 60; round++)
	{
		int			workers = 1 + (int) (at_rng_next(&r) % 20);
		at_occ_state whole,
					leader,
					copied;
		at_occ_step want[2 * 20 * 50 + 1],
					got[2 * 20 * 50 + 1];
		long long	nwant,
					ngot;

		at_occ_state_init(&whole, counted_mem, &c, sort_steps);
		at_occ_state_init(&leader, counted_mem, &c, sort_steps);
		at_occ_state_init(&copied, counted_mem, &c, sort_steps);
		for (int w = 0; w < workers; w++)
		{
			int64_t		rows[50][3];
			size_t		n = random_rows(&r, rows, 50);
			at_occ_state worker,
						back;
			uint8_t    *bytes;
			size_t		len;

			at_occ_state_init(&worker, counted_mem, &c, sort_steps);
			add_rows(&whole, (const int64_t (*)[3]) rows, n);
			add_rows(&worker, (const int64_t (*)[3]) rows, n);
			/* a worker's state goes to the leader serialized ... */
			if (state_roundtrip(&worker, &c, &back, &bytes, &len) != NULL)
				ok_ser = 0;
			else
			{
				int64_t    *t0 = back.starts[0].t;
				int			before = leader.nruns;

				if (at_occ_state_combine(&leader, &back) != AT_OCC_OK || back.nruns != 0)
					ok_take = 0;
				/* taken, not copied: the leader holds the very list (below the cap) */
				if (before < AT_OCC_MAX_RUNS &&
					(leader.nruns != before + 1 || leader.starts[before].t != t0))
					ok_take = 0;
				at_occ_state_free(&back);
				free(bytes);
			}
			if (leader.nruns > AT_OCC_MAX_RUNS)
				ok_runs = 0;
			/* ... and, as a second plan, combined as it is (copied) */
			if (at_occ_state_combine(&copied, &worker) != AT_OCC_OK || copied.nraw != whole.nraw)
				ok_copy = 0;
			at_occ_state_free(&worker);
		}
		nwant = state_final(&whole, &c, want);
		ngot = state_final(&leader, &c, got);
		if (nwant < 0 || ngot != nwant || memcmp(want, got, (size_t) nwant * sizeof(at_occ_step)) != 0)
			ok_same = 0;
		if (workers > AT_OCC_MAX_RUNS && leader.nruns > AT_OCC_MAX_RUNS)
			ok_runs = 0;
		ngot = state_final(&copied, &c, got);
		if (ngot != nwant || memcmp(want, got, (size_t) nwant * sizeof(at_occ_step)) != 0)
			ok_same = 0;
		/* the final function leaves the state as it was: run it again */
		ngot = state_final(&leader, &c, got);
		if (ngot != nwant || memcmp(want, got, (size_t) nwant * sizeof(at_occ_step)) != 0)
			ok_same = 0;
		{
			/* a leader with runs and raw jobs serializes to what one state does */
			at_occ_state back1,
						back2;
			uint8_t    *b1,
					   *b2;
			size_t		l1,
						l2;

			at_occ_state twin;

			/* leader += copied doubles every job: so does whole += a copy of it */
			at_occ_state_init(&twin, counted_mem, &c, sort_steps);
			if (at_occ_state_combine(&twin, &whole) != AT_OCC_OK ||
				at_occ_state_combine(&leader, &copied) != AT_OCC_OK ||
				at_occ_state_combine(&whole, &twin) != AT_OCC_OK ||
				state_roundtrip(&leader, &c, &back1, &b1, &l1) != NULL ||
				state_roundtrip(&whole, &c, &back2, &b2, &l2) != NULL)
				ok_ser = 0;
			else
			{
				if (l1 != l2 || memcmp(b1, b2, l1) != 0)
					ok_ser = 0;
				at_occ_state_free(&back1);
				at_occ_state_free(&back2);
				free(b1);
				free(b2);
			}
			at_occ_state_free(&twin);
		}
		at_occ_state_free(&whole);
		at_occ_state_free(&leader);
		at_occ_state_free(&copied);
		if (c.live != 0 || c.freed_null)
			ok_leak = 0;
	}
	CHECK(ok_same, "parallel: 60 plans of 1 to 20 workers sweep to the steps of one state");
	CHECK(ok_runs, "parallel: never more than %d runs (the smallest becomes raw jobs)", AT_OCC_MAX_RUNS);
	CHECK(ok_take, "parallel: combine takes a deserialized state's runs");
	CHECK(ok_copy, "parallel: combine copies a live state's raw jobs");
	CHECK(ok_ser, "parallel: runs plus raw jobs serialize to the bytes of one state");
	CHECK(ok_leak, "parallel: every block freed, none freed twice or NULL");
}

/* Every allocation, failed in turn: an error, never a crash or a leak. */
static void
test_agg_nomem(void)
{
	const int64_t rows[][3] = {{0, 10, 8}, {3, 6, 1}, {4, -1, 2}, {9, 12, 5}};
	int			ok = 1,
				failures = 0;

	for (long k = 1; k < 200; k++)
	{
		counted		c = {0};
		at_occ_state a,
					b,
					back;
		at_occ_step s[16];
		uint8_t    *bytes = NULL;
		size_t		len;
		int			failed = 0;

		c.fail_at = k;
		at_occ_state_init(&a, counted_mem, &c, sort_steps);
		at_occ_state_init(&b, counted_mem, &c, sort_steps);
		failed |= add_rows(&a, rows, 4) != AT_OCC_OK;
		failed |= add_rows(&b, rows, 4) != AT_OCC_OK;
		if (state_roundtrip(&a, &c, &back, &bytes, &len) == NULL)
		{
			for (int i = 0; i < AT_OCC_MAX_RUNS + 2; i++)
				failed |= at_occ_state_combine(&b, &back) != AT_OCC_OK;
			at_occ_state_free(&back);
		}
		else
			failed = 1;
		free(bytes);
		failed |= at_occ_state_combine(&b, &a) != AT_OCC_OK;
		failed |= state_final(&b, &c, s) < 0;
		at_occ_state_free(&a);
		at_occ_state_free(&b);
		failures += failed;
		if (c.live != 0 || c.freed_null)
			ok = 0;
	}
	CHECK(ok && failures > 10, "out of memory at each of 199 allocations: %d errors, no leak, no NULL freed",
		  failures);
}

/*
 * Combining many states: past AT_OCC_MAX_RUNS the smaller of the new run
 * and the leader's smallest becomes raw jobs, so memory and work grow
 * linearly with the states combined (the old fold merged every run again
 * each time, quadratic in the number of states), and the final steps are
 * still those of one state fed every row.  Runs of very different sizes,
 * runs with jobs that never end, and states combined with themselves.
 */
static void
test_agg_combine_many(void)
{
	at_rng		r;
	counted		c = {0};
	at_occ_state whole,
				leader;
	static at_occ_step want[2 * 400 * 40 + 1],
				got[2 * 400 * 40 + 1];
	long long	nwant,
				ngot;
	int			ok_take = 1,
				ok_runs = 1;
	size_t		events = 0,
				combine_bytes = 0,
				before;

	at_rng_seed(&r, 77);
	at_occ_state_init(&whole, counted_mem, &c, sort_steps);
	at_occ_state_init(&leader, counted_mem, &c, sort_steps);
	for (int k = 0; k < 400; k++)
	{
		int64_t		rows[40][3];
		size_t		n = random_rows(&r, rows, k % 37 == 0 ? 40 : 6);
		at_occ_state part,
					back;
		uint8_t    *bytes;
		size_t		len;

		at_occ_state_init(&part, counted_mem, &c, sort_steps);
		add_rows(&whole, (const int64_t (*)[3]) rows, n);
		add_rows(&part, (const int64_t (*)[3]) rows, n);
		if (state_roundtrip(&part, &c, &back, &bytes, &len) != NULL)
			ok_take = 0;
		else
		{
			events += back.starts[0].n + back.ends[0].n;
			before = c.bytes;
			if (at_occ_state_combine(&leader, &back) != AT_OCC_OK || back.nruns != 0)
				ok_take = 0;
			combine_bytes += c.bytes - before;
			at_occ_state_free(&back);
			free(bytes);
		}
		if (leader.nruns > AT_OCC_MAX_RUNS)
			ok_runs = 0;
		at_occ_state_free(&part);
	}
	CHECK(ok_take && ok_runs, "combine many: 400 states taken, never more than %d runs", AT_OCC_MAX_RUNS);
	nwant = state_final(&whole, &c, want);
	ngot = state_final(&leader, &c, got);
	CHECK(nwant > 0 && ngot == nwant && memcmp(want, got, (size_t) nwant * sizeof(at_occ_step)) == 0,
		  "combine many: 400 states sweep to the steps of one state (%lld steps)", ngot);
	{
		size_t		ns,
					ne,
					ws,
					we;

		at_occ_state_counts(&leader, &ns, &ne);
		at_occ_state_counts(&whole, &ws, &we);
		CHECK(ns == ws && ne == we && ns + ne <= events, "counts: %zu starts, %zu ends, as the rows give", ns, ne);
	}
	/* runs turned into jobs take 24 bytes a job, in chunks that double */
	CHECK(combine_bytes <= 64 * events + 8192,
		  "combine many: %zu bytes allocated by combine for %zu events (linear)", combine_bytes, events);
	CHECK(at_occ_state_combine(&leader, &leader) == AT_OCC_ESELF, "combine: a state with itself is refused");
	at_occ_state_free(&whole);
	at_occ_state_free(&leader);
	CHECK(c.live == 0 && !c.freed_null, "combine many: every block freed (%ld left)", c.live);

	{
		/* a run turned into jobs: ends take the earliest open starts, split */
		const int64_t big[][3] = {{0, 10, 5}, {2, 4, 3}, {2, -1, 1}, {3, 10, 2}, {-9223372036854775807 - 1, 6, 7}};
		at_occ_state a,
					b,
					back,
					sum;
		uint8_t    *bytes;
		size_t		len;
		int			ok = 1;

		at_occ_state_init(&a, counted_mem, &c, sort_steps);
		at_occ_state_init(&b, counted_mem, &c, sort_steps);
		at_occ_state_init(&sum, counted_mem, &c, sort_steps);
		add_rows(&a, big, 5);
		/* fill the runs, then one more: the smallest becomes raw jobs */
		for (int i = 0; i < AT_OCC_MAX_RUNS + 3; i++)
		{
			if (state_roundtrip(&a, &c, &back, &bytes, &len) != NULL ||
				at_occ_state_combine(&sum, &back) != AT_OCC_OK)
				ok = 0;
			at_occ_state_free(&back);
			free(bytes);
			if (at_occ_state_combine(&b, &a) != AT_OCC_OK)
				ok = 0;
		}
		nwant = state_final(&b, &c, want);
		ngot = state_final(&sum, &c, got);
		CHECK(ok && sum.nruns == AT_OCC_MAX_RUNS && sum.nraw > 0 && nwant == 7 && ngot == nwant &&
			  memcmp(want, got, (size_t) nwant * sizeof(at_occ_step)) == 0 && got[0].gpus == 77,
			  "combine: runs past the cap become jobs (-infinity, splits, jobs that never end)");
		at_occ_state_free(&a);
		at_occ_state_free(&b);
		at_occ_state_free(&sum);
		CHECK(c.live == 0, "combine: runs turned into jobs are freed");
	}
}

/* occupancy_state's text form: "v1:" and lower-case hexadecimal. */
static void
test_state_text(void)
{
	const uint8_t bytes[] = {0x01, 0x00, 0xab, 0xff, 0x7e};
	char		text[32];
	uint8_t		out[16];
	size_t		n = 0,
				pos = 0;
	struct
	{
		const char *s;
		size_t		pos;
	}			bad[] = {
		{"", 0}, {"v1", 0}, {"v2:00", 0}, {"V1:00", 0}, {" v1:00", 0}, {"v1:0", 3}, {"v1:0g", 4},
		{"v1:AB", 3}, {"v1:aB", 4}, {"v1:00 ", 5}, {"v1:-1", 3}
	};
	int			ok = 1;

	CHECK(at_occ_state_text_len(5) == 13, "state text: 3 + 2 characters a byte");
	at_occ_state_text_write(text, bytes, 5);
	CHECK(strcmp(text, "v1:0100abff7e") == 0, "state text: written as %s", text);
	CHECK(at_occ_state_text_read(text, strlen(text), out, &n, &pos) == NULL && n == 5 &&
		  memcmp(out, bytes, 5) == 0, "state text: reads back the same bytes");
	CHECK(at_occ_state_text_read("v1:", 3, out, &n, &pos) == NULL && n == 0, "state text: v1: alone is no bytes");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (at_occ_state_text_read(bad[i].s, strlen(bad[i].s), out, &n, &pos) == NULL || pos != bad[i].pos)
		{
			printf("# %s: pos %zu\n", bad[i].s, pos);
			ok = 0;
		}
	CHECK(ok, "state text: %zu bad texts refused at the right byte", sizeof(bad) / sizeof(bad[0]));
}

/* The stored value's header (at_occ_value). */
static void
test_value(void)
{
	union
	{
		at_occ_value v;
		uint8_t		b[AT_OCC_VALUE_HEADER + 2 * sizeof(at_occ_step)];
	}			u;
	const at_occ_step st[] = {{5, 3}, {9, 0}};

	memset(&u, 0xee, sizeof(u));
	at_occ_value_init(&u.v);
	memcpy(u.v.steps, st, sizeof(st));
	at_occ_value_finish(&u.v, 2);
	CHECK(AT_OCC_VALUE_HEADER == 24 && u.v.version == 1 && u.b[5] == 0 && u.b[6] == 0 && u.b[7] == 0 &&
		  u.b[12] == 0 && u.b[15] == 0 && u.v.nsteps == 2 && u.v.fingerprint == at_occ_fingerprint(st, 2),
		  "value: a 24-byte header, version 1, zero reserved fields, fingerprinted");
	CHECK(at_occ_value_header_ok(&u.v, AT_OCC_VALUE_SIZE(2)), "value: the header checks");
	CHECK(!at_occ_value_header_ok(&u.v, AT_OCC_VALUE_SIZE(2) - 1) && !at_occ_value_header_ok(&u.v, 10),
		  "value: a size other than the steps' is refused");
	u.v.flags = 1;
	CHECK(!at_occ_value_header_ok(&u.v, AT_OCC_VALUE_SIZE(2)), "value: nonzero flags are refused");
	u.v.flags = 0;
	u.v.version = 2;
	CHECK(!at_occ_value_header_ok(&u.v, AT_OCC_VALUE_SIZE(2)), "value: an unknown version is refused");
}

static long polls;

static void
count_poll(void)
{
	polls++;
}

/* at_occ_sort_steps against qsort: orders of every kind, sizes around its cut-offs. */
static void
test_sort_steps(void)
{
	enum
	{
		N = 50000
	};
	static at_occ_step a[N],
				b[N];
	static const size_t sizes[] = {0, 1, 2, 3, 16, 17, 18, 100, 1000, N};
	at_rng		r;
	int			ok = 1;

	at_rng_seed(&r, 11);
	for (int kind = 0; kind < 7; kind++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		{
			size_t		n = sizes[si];

			for (size_t i = 0; i < n; i++)
			{
				int64_t		x = (int64_t) (at_rng_next(&r) % 1000000);

				switch (kind)
				{
					case 0:		/* random, few ties */
						a[i] = (at_occ_step) {x - 500000, (int64_t) (at_rng_next(&r) % 5) - 2};
						break;
					case 1:		/* sorted */
						a[i] = (at_occ_step) {(int64_t) i, 1};
						break;
					case 2:		/* reversed */
						a[i] = (at_occ_step) {(int64_t) (n - i), -1};
						break;
					case 3:		/* all equal */
						a[i] = (at_occ_step) {7, 3};
						break;
					case 4:		/* few distinct times, ties broken by gpus */
						a[i] = (at_occ_step) {x % 3, (int64_t) (at_rng_next(&r) % 3)};
						break;
					case 5:		/* organ pipe */
						a[i] = (at_occ_step) {(int64_t) (i < n / 2 ? i : n - i), 0};
						break;
					default:	/* extremes: -infinity, infinity */
						a[i] = (at_occ_step) {x % 2 ? INT64_MIN : INT64_MAX, x % 3 ? INT64_MIN : INT64_MAX};
						break;
				}
			}
			memcpy(b, a, n * sizeof(at_occ_step));
			qsort(b, n, sizeof(at_occ_step), at_occ_step_cmp);
			at_occ_sort_steps(a, n, NULL);
			if (n > 0 && memcmp(a, b, n * sizeof(at_occ_step)) != 0)
			{
				printf("# sort kind %d, n %zu differs from qsort\n", kind, n);
				ok = 0;
			}
		}
	CHECK(ok, "sort_steps: the same order as qsort with at_occ_step_cmp, random, sorted, reversed, equal, "
		  "tied, organ pipe and extreme, 0 to %d events", (int) N);

	/* poll: never for sorted input (one pass), now and then for a long sort */
	for (size_t i = 0; i < N; i++)
		a[i] = (at_occ_step) {(int64_t) i, 0};
	polls = 0;
	at_occ_sort_steps(a, N, count_poll);
	CHECK(polls == 0, "sort_steps: sorted input is only checked");
	for (size_t i = 0; i < N; i++)
		a[i] = (at_occ_step) {(int64_t) (at_rng_next(&r) % 1000), 0};
	at_occ_sort_steps(a, N, count_poll);
	ok = 1;
	for (size_t i = 1; i < N; i++)
		ok &= at_occ_step_cmp(&a[i - 1], &a[i]) <= 0;
	CHECK(ok && polls > 0 && polls < N, "sort_steps: sorted, polled %ld times for %d events", polls, (int) N);
}

/* at_occ_state_steps: the sweep of a state, as the runs give it, and its errors. */
static void
test_state_steps(void)
{
	counted		c = {0};
	at_occ_state st;
	at_occ_job	jobs[3] = {{0, 10, 2, 0}, {5, 20, 3, 0}, {5, AT_OCC_NOEND, 1, 0}};
	at_occ_step *s;
	size_t		n = 99;

	at_occ_state_init(&st, counted_mem, &c, sort_steps);
	CHECK(at_occ_state_steps(&st, counted_mem, &c, &s, &n) == AT_OCC_OK && n == 0 && s != NULL,
		  "state_steps: an empty state has no steps (and room for one)");
	counted_mem(&c, s, 0);
	for (int i = 0; i < 3; i++)
		at_occ_state_add(&st, &jobs[i]);
	CHECK(at_occ_state_steps(&st, counted_mem, &c, &s, &n) == AT_OCC_OK && n == 4 &&
		  s[0].t == 0 && s[0].gpus == 2 && s[1].t == 5 && s[1].gpus == 6 && s[2].t == 10 && s[2].gpus == 4 &&
		  s[3].t == 20 && s[3].gpus == 1 && at_occ_peak(s, n) == 6,
		  "state_steps: three jobs, steps (0, 2), (5, 6), (10, 4), (20, 1)");
	counted_mem(&c, s, 0);
	/* an end before any start: the level would go negative */
	at_occ_state_add(&st, &(at_occ_job) {0, -5, 9, AT_OCC_JOB_END_ONLY});
	CHECK(at_occ_state_steps(&st, counted_mem, &c, &s, &n) == AT_OCC_ENEGATIVE && s == NULL,
		  "state_steps: a release before the allocation is AT_OCC_ENEGATIVE, nothing kept");
	at_occ_state_free(&st);
	CHECK(c.live == 0, "state_steps: every block freed");
}

void
test_occupancy(void)
{
	test_hand_cases();
	test_check();
	test_brute_force();
	test_state();
	test_state_fuzz();
	test_text();
	test_text_fuzz();
	test_fingerprint();
	test_widest_window();
	test_to_jobs();
	test_agg_state();
	test_agg_parallel();
	test_agg_nomem();
	test_agg_combine_many();
	test_state_text();
	test_value();
	test_sort_steps();
	test_state_steps();
}
