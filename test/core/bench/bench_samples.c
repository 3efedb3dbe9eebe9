/*
 * bench_samples.c: bytes per sample and ns per value of the sample block
 * codec on 5,760-sample blocks (a day at 15 s), each figure the best of 5
 * trials (so a busy machine shows less).  Not a test: make check-core does
 * not build it.  With the flags PGXS uses:
 *
 *   gcc -std=c99 -O2 -fwrapv -fno-strict-aliasing -Isrc/core -o /tmp/bench_samples \
 *       test/core/bench/bench_samples.c src/core/samples.c src/core/rng.c -lm
 *
 * Columns: encode, check, next and scaled (the iterators, values summed
 * by the loop as an aggregate would), sum (at_samples_sum_text),
 * decode(ts,v) and decode(v) (at_samples_decode).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "samples.h"

#define N		5760
#define STEP	((int64_t) 15000000)

static const int64_t *g_ts;
static const double *g_v;
static unsigned char g_b[40 * N + 200];
static size_t g_len;
static int64_t g_dts[N];
static double g_dv[N];
static volatile double sink_d;
static volatile int64_t sink_i;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void
run_encode(void)
{
	g_len = at_samples_encode(g_ts, g_v, N, g_b);
}

static void
run_check(void)
{
	if (at_samples_check(g_b, g_len, NULL) != NULL)
		abort();
}

static void
run_next(void)
{
	at_samples_iter it;
	double		cv[AT_SAMPLES_CHUNK],
				acc = 0;
	int			got,
				constant;

	at_samples_iter_init(&it, g_b, g_len);
	while ((got = at_samples_iter_next(&it, cv, &constant)) > 0)
		if (constant)
			acc += cv[0] * got;
		else
		{
			/* four sums, so the adds' latency is not what is measured */
			double		a0 = 0,
						a1 = 0,
						a2 = 0,
						a3 = 0;
			int			i;

			for (i = 0; i + 4 <= got; i += 4)
			{
				a0 += cv[i];
				a1 += cv[i + 1];
				a2 += cv[i + 2];
				a3 += cv[i + 3];
			}
			for (; i < got; i++)
				a0 += cv[i];
			acc += a0 + a1 + a2 + a3;
		}
	sink_d = acc;
}

static void
run_scaled(void)
{
	at_samples_iter it;
	int64_t		cm[AT_SAMPLES_CHUNK],
				acc = 0;
	int			got,
				constant;

	at_samples_iter_init(&it, g_b, g_len);
	while ((got = at_samples_iter_next_scaled(&it, cm, &constant)) > 0)
		if (constant)
			acc += cm[0] * got;
		else
			for (int i = 0; i < got; i++)
				acc += cm[i];
	sink_i = acc;
}

static void
run_sum(void)
{
	char		sum[64];

	at_samples_sum_text(g_b, g_len, sum, sizeof(sum));
}

static void
run_decode(void)
{
	at_samples_decode(g_b, g_len, g_dts, g_dv);
}

static void
run_decode_v(void)
{
	at_samples_decode(g_b, g_len, NULL, g_dv);
}

/* ns per value, the best of 5 trials of reps calls */
static double
best(void (*fn) (void), int reps)
{
	double		b = 1e30;

	for (int trial = 0; trial < 5; trial++)
	{
		double		t0 = now(),
					t;

		for (int r = 0; r < reps; r++)
			fn();
		t = (now() - t0) * 1e9 / reps / N;
		if (t < b)
			b = t;
	}
	return b;
}

static void
bench(const char *name, const int64_t *ts, const double *v)
{
	at_samples_info info;

	g_ts = ts;
	g_v = v;
	printf("%-34s", name);
	printf(" | encode %5.2f", best(run_encode, 300));
	at_samples_check(g_b, g_len, &info);
	printf(" check %5.2f", best(run_check, 1000));
	printf(" next %5.2f", best(run_next, 4000));
	if (info.scale >= 0)
	{
		printf(" scaled %5.2f", best(run_scaled, 4000));
		printf(" sum %5.2f", best(run_sum, 4000));
	}
	else
		printf(" %12s %9s", "", "");
	printf(" decode(ts,v) %5.2f", best(run_decode, 2000));
	printf(" decode(v) %5.2f", best(run_decode_v, 2000));
	printf(" | %5.3f B/sample, scale %2d, flags %d\n", (double) g_len / N, info.scale, g_b[1]);
}

int
main(void)
{
	static int64_t ts[N],
				gts[N],
				jts[N];
	static double v[N];
	at_rng		r;
	int64_t		t = 741484800000000;
	int			busy = 0;

	at_rng_seed(&r, 1);
	for (int i = 0; i < N; i++)
	{
		ts[i] = 741484800000000 + STEP * i;
		if (i > 0 && at_rng_next(&r) % 100 == 0)
			t += STEP * (int64_t) (1 + at_rng_next(&r) % 3);
		gts[i] = t;
		t += STEP;
		jts[i] = i == 0 ? 741484800000000 : jts[i - 1] + STEP + (int64_t) (at_rng_next(&r) % 2001) - 1000;
	}
	for (int i = 0; i < N; i++)
		v[i] = (double) (at_rng_next(&r) % 101);
	bench("ints 0..100 (w7), dense", ts, v);
	bench("ints 0..100 (w7), 1% gaps", gts, v);
	for (int i = 0; i < N; i++)
	{
		if (at_rng_next(&r) % 240 == 0)
			busy = !busy;
		v[i] = busy ? 85 + (double) (at_rng_next(&r) % 16) : 0;
	}
	bench("polarized 0/85..100, 1% gaps", gts, v);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 100001) / 1000;
	bench("3 decimals 0..100 (w17), 1% gaps", gts, v);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 1001) / 10;
	bench("1 decimal 0..100 (w10), dense", ts, v);
	for (int i = 0; i < N; i++)
		v[i] = 0;
	bench("all zero (constant chunks)", ts, v);
	for (int i = 0; i < N; i++)
		v[i] = (double) (1000000 + 17 * i + (int64_t) (at_rng_next(&r) % 4));
	bench("counter (delta chunks)", ts, v);
	for (int i = 0; i < N; i++)
		v[i] = at_rng_uniform(&r) * 100;
	bench("random doubles (raw)", ts, v);
	for (int i = 0; i < N; i++)
		v[i] = (double) (at_rng_next(&r) % 101);
	bench("ints 0..100, jittered times (dod)", jts, v);
	return 0;
}
