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
 * Fuzz regression (test/fuzz/corpus/occ_text/regress-window-past-int64-max):
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
}
