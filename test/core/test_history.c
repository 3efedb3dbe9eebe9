/*
 * test_history.c: the users'-history predictor learns a planted rule
 * (durations set by user and type), uses only jobs ended by the submit
 * time, falls back level by level, keeps its window, survives every
 * allocation failing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "rng.h"
#include "tap.h"

static at_history_key
key(int user, int type, int gpus)
{
	at_history_key k;

	k.user = user + 1;
	k.type = type + 1;
	k.gpus = gpus;
	return k;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}


/* The planted trace, predicted job by job; the failure, or 0. */
static int
planted(at_mem_fn mem, void *ctx, double *mae_history, double *mae_global, int *levels)
{
	enum
	{
		N = 20000
	};
	static double truth[N],
				sorted[N];
	at_history *h;
	at_rng		r;
	double		base[40],
				mult[3] = {30, 600, 9000},
				err = 0,
				gerr = 0,
				median;
	int			scored = 0;

	if (at_history_create(mem, ctx, 10, &h) != 0)
		return 1;
	at_rng_seed(&r, 5);
	for (int u = 0; u < 40; u++)
		base[u] = exp(3.0 * at_rng_uniform(&r));
	memset(levels, 0, sizeof(int) * (AT_HISTORY_LEVELS + 1));
	for (int i = 0; i < N; i++)
	{
		int			u = (int) (40 * at_rng_uniform(&r)),
					t = (int) (3 * at_rng_uniform(&r)),
					g = 1 << (int) (4 * at_rng_uniform(&r));
		at_history_key k = key(u, t, g);
		double		run = base[u] * mult[t] * exp(0.3 * at_rng_normal(&r)),
					pred;
		int			l = at_history_predict(h, &k, (int64_t) i * 60, &pred);

		if (l == -2 || !at_history_ended(h, &k, (int64_t) i * 60 + (int64_t) run, run))
		{
			at_history_destroy(h);
			return 2;
		}
		levels[l + 1]++;
		truth[i] = run;
		if (i >= N / 2 && l >= 0)
		{
			err += fabs(log(pred) - log(run));
			scored++;
		}
	}
	/* the baseline: the median of the first half, for the second */
	memcpy(sorted, truth, sizeof(double) * (N / 2));
	qsort(sorted, N / 2, sizeof(double), cmp_double);
	median = sorted[N / 4];
	for (int i = N / 2; i < N; i++)
		gerr += fabs(log(median) - log(truth[i]));
	*mae_history = err / scored;
	*mae_global = gerr / (N - N / 2);
	at_history_destroy(h);
	return 0;
}

void
test_history(void)
{
	at_history *h;
	at_history_key a = key(1, 1, 8);
	double		pred = 0,
				mh,
				mg;
	int			l,
				levels[AT_HISTORY_LEVELS + 1];

	CHECK(planted(tap_mem, NULL, &mh, &mg, levels) == 0 && mh < 0.5 * mg,
		  "history: planted rule, mean |log error| %.3f against the global median's %.3f", mh, mg);
	CHECK(levels[0] < 100 && levels[1] > 15000, "history: most predictions from the same user, type and GPUs (%d), %d before any job ended",
		  levels[1], levels[0]);

	at_history_create(tap_mem, NULL, 2, &h);
	l = at_history_predict(h, &a, 0, &pred);
	CHECK(l == -1, "history: nothing ended, no prediction");
	at_history_ended(h, &a, 100, 50);
	l = at_history_predict(h, &a, 99, &pred);
	CHECK(l == -1, "history: a job ending after the submit time is not known yet");
	l = at_history_predict(h, &a, 100, &pred);
	CHECK(l == 0 && fabs(pred - 50) < 1e-9, "history: known from its end on (%.1f)", pred);
	at_history_ended(h, &a, 200, 5000);
	at_history_ended(h, &a, 300, 500000);
	l = at_history_predict(h, &a, 300, &pred);
	CHECK(l == 0 && fabs(pred - 50000) < 1e-6, "history: the window keeps the last 2, geometric mean %.1f", pred);
	{
		at_history_key other_gpus = key(1, 1, 16),
					other_type = key(1, 2, 8),
					other_user = key(7, 1, 8),
					stranger = key(7, 9, 1);

		CHECK(at_history_predict(h, &other_gpus, 300, &pred) == 1, "history: other GPUs, same user and type: level 1");
		CHECK(at_history_predict(h, &other_type, 300, &pred) == 2, "history: other type, same user: level 2");
		CHECK(at_history_predict(h, &other_user, 300, &pred) == 3, "history: other user, same type: level 3");
		CHECK(at_history_predict(h, &stranger, 300, &pred) == 4 && fabs(pred - 50000) < 1e-6,
			  "history: nothing in common: every job, level 4");
		{
			double		ml[AT_HISTORY_LEVELS];
			int32_t		n[AT_HISTORY_LEVELS];
			bool		ok = at_history_levels(h, &other_type, 300, ml, n) == 0;

			/* other type: no group at levels 0, 1 and 3; the user's and everyone's windows hold 2 */
			ok = ok && isnan(ml[0]) && isnan(ml[1]) && isnan(ml[3]) && n[0] == 0 && n[1] == 0 && n[3] == 0;
			ok = ok && n[2] == 2 && n[4] == 2 && fabs(exp(ml[2]) - 50000) < 1e-6 && ml[2] == ml[4];
			CHECK(ok, "history: every level at once, NaN and 0 where no job is known");
		}
		{
			const double other[4] = {1, NAN, 13, 5};
			double		f[AT_HISTORY_FEATURES];
			bool		ok = at_history_features(h, &other_type, 300, other, f) == 0;

			/* GPUs, the four others as given, the levels' mean logs, their counts but everyone's */
			ok = ok && AT_HISTORY_FEATURES == 14 && f[0] == 8 && f[1] == 1 && isnan(f[2]) && f[3] == 13 && f[4] == 5;
			ok = ok && isnan(f[5]) && isnan(f[6]) && fabs(exp(f[7]) - 50000) < 1e-6 && isnan(f[8]) && f[9] == f[7];
			ok = ok && f[10] == 0 && f[11] == 0 && f[12] == 2 && f[13] == 0;
			CHECK(ok, "history: the job features, GPUs, the given four, mean logs and counts");
		}
	}
	at_history_ended(h, &a, 400, 0);
	at_history_ended(h, &a, 400, 0.2);
	CHECK(at_history_predict(h, &a, 400, &pred) == 0 && fabs(pred - 1) < 1e-9,
		  "history: runs under a second count as one second (%.3f)", pred);
	at_history_destroy(h);
	CHECK(at_history_create(tap_mem, NULL, 0, &h) == -1 && h == NULL, "history: window 0 refused");
	CHECK(at_history_create(tap_mem, NULL, AT_HISTORY_MAX_WINDOW + 1, &h) == -1, "history: window over the maximum refused");

	/* every allocation failing in turn */
	{
		tap_counted c = {0, 0, 0};
		long		total;
		int			ok = 1,
					failures = 0,
					runs = 0;

		ok = planted(tap_counted_mem, &c, &mh, &mg, levels) == 0 && c.live == 0;
		total = c.calls;
		for (long k = 1; k <= total; k += 1 + total / 200)
		{
			tap_counted f = {0, k, 0};

			failures += planted(tap_counted_mem, &f, &mh, &mg, levels) != 0;
			runs++;
			if (f.live != 0)
				ok = 0;
		}
		CHECK(ok && failures == runs && total > 10, "history: out of memory at %d of %ld allocations: an error each time, no leak",
			  runs, total);
	}
}
