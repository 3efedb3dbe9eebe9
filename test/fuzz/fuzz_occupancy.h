/*
 * fuzz_occupancy.h: checks both occupancy harnesses run on every step function
 * the core accepts (parsed from text, read from the binary type form, or
 * swept from a deserialized aggregate state).
 *
 * Time windows are what the SQL functions accept: finite timestamptz
 * values, [MIN_TIMESTAMP, END_TIMESTAMP) in PostgreSQL 15's
 * datatype/timestamp.h, with from < to.
 */
#ifndef ACMETRACE_FUZZ_OCCUPANCY_H
#define ACMETRACE_FUZZ_OCCUPANCY_H

#include "fuzz_common.h"
#include "occupancy.h"

#define FUZZ_MIN_TIMESTAMP	INT64_C(-211813488000000000)
#define FUZZ_END_TIMESTAMP	INT64_C(9223371331200000000)

/* Slow but obvious: the level at t. */
static int64_t
occ_brute_at(const at_occ_step *s, size_t n, int64_t t)
{
	int64_t		level = 0;

	for (size_t i = 0; i < n && s[i].t <= t; i++)
		level = s[i].gpus;
	return level;
}

static int
occ_cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* A time the SQL functions accept, from any 64 bits. */
static int64_t
occ_clamp_time(int64_t t)
{
	if (t < FUZZ_MIN_TIMESTAMP)
		return FUZZ_MIN_TIMESTAMP;
	if (t >= FUZZ_END_TIMESTAMP)
		return FUZZ_END_TIMESTAMP - 1;
	return t;
}

/* One window [from, to): levels, integral. */
static void
occ_window(const at_occ_step *s, size_t n, int64_t from, int64_t to)
{
	size_t		room = at_occ_segments_max(s, n, from, to),
				k,
				m;
	at_occ_level *lv;
	uint64_t	total = 0;
	double		integral,
				brute = 0;
	int64_t		peak = at_occ_peak(s, n);

	FUZZ_CHECK(room >= 1 && room <= n + 1, "segments_max %zu for %zu steps", room, n);
	lv = malloc(room * sizeof(at_occ_level));
	k = at_occ_segments(s, n, from, to, lv);
	FUZZ_CHECK(k >= 1 && k <= room, "%zu segments in room for %zu", k, room);
	for (size_t i = 0; i < k; i++)
	{
		FUZZ_CHECK(lv[i].gpus >= 0 && lv[i].gpus <= peak, "segment level %lld", (long long) lv[i].gpus);
		FUZZ_CHECK(lv[i].usec > 0, "segment %zu of %zu lasts %lld us", i, k, (long long) lv[i].usec);
		total += (uint64_t) lv[i].usec;
		brute += (double) lv[i].gpus * (double) lv[i].usec;
	}
	FUZZ_CHECK(total == (uint64_t) to - (uint64_t) from, "segments cover %llu us of a %llu us window",
			   (unsigned long long) total, (unsigned long long) ((uint64_t) to - (uint64_t) from));
	FUZZ_CHECK(lv[0].gpus == occ_brute_at(s, n, from), "first segment is not the level at from");
	qsort(lv, k, sizeof(at_occ_level), at_occ_level_cmp);
	m = at_occ_merge_levels(lv, k);
	total = 0;
	for (size_t i = 0; i < m; i++)
	{
		FUZZ_CHECK(i == 0 || lv[i].gpus > lv[i - 1].gpus, "merged levels not distinct and sorted");
		total += (uint64_t) lv[i].usec;
	}
	FUZZ_CHECK(total == (uint64_t) to - (uint64_t) from, "merged levels lose time");
	integral = at_occ_integral(s, n, from, to);
	FUZZ_CHECK(isfinite(integral) && integral >= 0, "integral %g", integral);
	FUZZ_CHECK(fabs(integral - brute) <= 1e-9 * brute + 1e-9, "integral %.17g, segments say %.17g",
			   integral, brute);
	FUZZ_CHECK(integral <= (double) peak * (double) ((uint64_t) to - (uint64_t) from) * (1 + 1e-12),
			   "integral above peak x window");
	free(lv);
}

/*
 * A canonical step function: fingerprint, peak, the level at many
 * instants (with and without the hint, against brute force), and windows.
 * pts are instants from the input.
 */
static void
occ_queries(const at_occ_step *s, size_t n, const int64_t *pts, size_t npts)
{
	size_t		nt = 0,
				hint = 0;
	int64_t    *t = malloc((6 * n + npts + 8) * sizeof(int64_t));
	int64_t		peak = at_occ_peak(s, n);
	size_t		bad;
	const char *msg = at_occ_check(s, n, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, &bad);

	FUZZ_CHECK(msg == NULL, "queries on steps that fail the check: %s at %zu", msg, bad);
	(void) at_occ_fingerprint(s, n);
	FUZZ_CHECK(peak >= 0, "peak %lld", (long long) peak);
	for (size_t i = 0; i < n; i++)
	{
		FUZZ_CHECK(s[i].gpus <= peak, "a level above the peak");
		t[nt++] = occ_clamp_time(s[i].t);
		if (s[i].t > FUZZ_MIN_TIMESTAMP)
			t[nt++] = s[i].t - 1;
		if (s[i].t < FUZZ_END_TIMESTAMP - 1)
			t[nt++] = s[i].t + 1;
	}
	for (size_t i = 0; i < npts; i++)
		t[nt++] = occ_clamp_time(pts[i]);
	t[nt++] = FUZZ_MIN_TIMESTAMP;
	t[nt++] = FUZZ_END_TIMESTAMP - 1;
	t[nt++] = 0;
	t[nt++] = AT_OCC_NOBEGIN;	/* at() takes infinities too */
	t[nt++] = AT_OCC_NOEND;

	/* the level at each instant, in the input's order and then sorted */
	for (int pass = 0; pass < 2; pass++)
	{
		for (size_t i = 0; i < nt; i++)
		{
			int64_t		want = occ_brute_at(s, n, t[i]),
						got = at_occ_at(s, n, t[i]),
						hinted = at_occ_at_hint(s, n, t[i], &hint);

			FUZZ_CHECK(got == want && hinted == want, "level at %lld: at %lld, at_hint %lld, brute force %lld",
					   (long long) t[i], (long long) got, (long long) hinted, (long long) want);
			FUZZ_CHECK(hint <= n, "hint %zu past %zu steps", hint, n);
		}
		qsort(t, nt, sizeof(int64_t), occ_cmp_i64);
	}

	/* rollup's view of the function: jobs whose levels add up to it */
	{
		at_occ_job *jobs = malloc((2 * n + 1) * sizeof(at_occ_job));
		long long	k = at_occ_to_jobs(s, n, jobs, jobs + n);
		int			big = 0;

		for (size_t i = 0; i < n; i++)
			if (s[i].gpus - (i ? s[i - 1].gpus : 0) > INT32_MAX)
				big = 1;
		FUZZ_CHECK((k < 0) == big, "to_jobs returned %lld, a rise above INT32_MAX: %d", k, big);
		FUZZ_CHECK(k <= (long long) n, "%lld jobs from %zu steps", k, n);
		for (size_t i = 0; k > 0 && i < nt && i < 64; i++)
		{
			int64_t		sum = 0;

			if (t[i] == AT_OCC_NOEND)	/* jobs run until, not at, infinity */
				continue;
			for (long long j = 0; j < k; j++)
			{
				FUZZ_CHECK(jobs[j].gpus > 0 && jobs[j].start < jobs[j].end, "job %lld is empty", j);
				if (jobs[j].start <= t[i] && t[i] < jobs[j].end)
					sum += jobs[j].gpus;
			}
			FUZZ_CHECK(sum == occ_brute_at(s, n, t[i]), "jobs hold %lld GPUs at %lld, the steps %lld",
					   (long long) sum, (long long) t[i], (long long) occ_brute_at(s, n, t[i]));
		}
		free(jobs);
	}

	/* windows between the sorted finite instants: a few, wide and narrow */
	{
		size_t		lo = 0,
					hi = nt;

		while (lo < hi && t[lo] < FUZZ_MIN_TIMESTAMP)
			lo++;
		while (hi > lo && t[hi - 1] >= FUZZ_END_TIMESTAMP)
			hi--;
		for (size_t k = 0; k < 8 && lo < hi; k++)
		{
			size_t		a = lo + (hi - lo) * k / 8,
						ends[3] = {a + 1, a + 2, hi - 1};

			for (int j = 0; j < 3; j++)
				if (ends[j] < hi && t[ends[j]] > t[a])
					occ_window(s, n, t[a], t[ends[j]]);
		}
		occ_window(s, n, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP - 1);
	}
	free(t);
}

#endif
