/*
 * make_seeds.c: writes the generated seed corpora of the fuzz harnesses,
 * test/fuzz/corpus/<harness>/gen-*, from valid values made with the core's
 * own encoders (deterministic: the same files on every run, so re-running
 * it changes nothing).  Hand-written seeds (hand-*) and crash regressions
 * (regress-*) sit beside them and are not touched.
 *
 *   make fuzz-seeds        (or: test/fuzz/make_seeds test/fuzz/corpus)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bins.h"
#include "gbdt.h"
#include "occupancy.h"
#include "rng.h"
#include "samples.h"
#include "sketch.h"

static const char *root;
static int	written;

static void *
mem(void *ctx, void *p, size_t n)
{
	(void) ctx;
	if (n == 0)
	{
		free(p);
		return NULL;
	}
	return calloc(1, n);
}

static void
put(const char *dir, const char *name, const void *data, size_t len)
{
	char		path[512];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s/gen-%s", root, dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
	{
		perror(path);
		exit(1);
	}
	written++;
}

static void
put_text(const char *dir, const char *name, const char *text)
{
	put(dir, name, text, strlen(text));
}

/* ---- delay_sketch: text and binary forms of the same sketches ---- */

static void
sketch(const char *name, double alpha, const double *v, int n)
{
	at_sketch	sk;
	size_t		len;
	char	   *text;
	unsigned char *bin;

	at_sk_init(&sk, alpha, mem, NULL);
	for (int i = 0; i < n; i++)
		if (at_sk_add(&sk, v[i]) != AT_SK_OK)
		{
			fprintf(stderr, "make_seeds: %s: value %g refused\n", name, v[i]);
			exit(1);
		}
	len = at_sk_format(&sk, NULL, 0);
	text = malloc(len + 1);
	at_sk_format(&sk, text, len + 1);
	put("sketch_text", name, text, len);
	bin = malloc(at_sk_encoded_bound(&sk));
	put("sketch_decode", name, bin, at_sk_encode(&sk, bin));
	free(text);
	free(bin);
	at_sk_free(&sk);
}

static void
sketches(void)
{
	double		v[2000] = {0};
	at_rng		r;
	int			n;

	at_rng_seed(&r, 1);
	sketch("empty", AT_SK_DEFAULT_ERROR, v, 0);
	v[0] = 0;
	sketch("one-zero", AT_SK_DEFAULT_ERROR, v, 1);
	v[0] = 3600;
	sketch("one-value", AT_SK_DEFAULT_ERROR, v, 1);
	for (n = 0; n < 40; n++)
		v[n] = n % 7;
	sketch("small-integers", AT_SK_DEFAULT_ERROR, v, n);
	for (n = 0; n < 500; n++)
		v[n] = floor(exp(6 + 3 * at_rng_normal(&r)));
	sketch("lognormal-delays", AT_SK_DEFAULT_ERROR, v, n);
	sketch("lognormal-err0.001", AT_SK_MIN_ERROR, v, n);
	sketch("lognormal-err0.25", AT_SK_MAX_ERROR, v, n);
	for (n = 0; n < 100; n++)
		v[n] = at_rng_uniform(&r);
	sketch("fractions", 0.01, v, n);
	v[0] = 1e-300;
	v[1] = 4.9e-324;
	v[2] = 1e300;
	v[3] = 0;
	sketch("extremes-err0.25", AT_SK_MAX_ERROR, v, 4);
	v[0] = 9007199254740993.0;
	v[1] = 1e18;
	v[2] = 2;
	sketch("huge-integers", AT_SK_DEFAULT_ERROR, v, 3);
	/* a span close to AT_SK_MAX_BUCKETS: 1e-35..1e35 at 0.01 */
	for (n = 0; n < 71; n++)
		v[n] = pow(10, n - 35);
	sketch("wide-span", 0.01, v, n);
	for (n = 0; n < 2000; n++)
		v[n] = n % 3 == 0 ? 0 : (double) (at_rng_next(&r) % 100000);
	sketch("mostly-zeros-and-seconds", AT_SK_DEFAULT_ERROR, v, n);
}

/* ---- occupancy: text, type binary form, aggregate state ---- */

static int64_t
be(uint8_t *p, uint64_t v)
{
	for (int k = 7; k >= 0; k--, v >>= 8)
		p[k] = (uint8_t) v;
	return 0;
}

static void
occupancy(const char *name, const int64_t (*rows)[3], int nrows)
{
	at_occ_job	jobs[64];
	at_occ_step ev[64],
				steps[128];
	int64_t		st[64],
				et[64];
	int32_t		sg[64],
				eg[64];
	at_occ_list starts = {st, sg, 0},
				ends = {et, eg, 0};
	size_t		nj = 0,
				n,
				len;
	long long	nsteps;
	char		text[128 * 64],
			   *p = text;
	uint8_t		bin[9 + 16 * 128],
				state[AT_OCC_STATE_HEADER + 128 * AT_OCC_STATE_ENTRY];

	/* as occupancy_agg: classify rows, sort the events, sweep */
	for (int i = 0; i < nrows; i++)
		if (at_occ_classify(rows[i][0], rows[i][1] != AT_OCC_NOEND, rows[i][1], (int32_t) rows[i][2],
							&jobs[nj]) == AT_OCC_ROW_ADD)
			nj++;
	n = at_occ_start_events(jobs, nj, ev);
	qsort(ev, n, sizeof(at_occ_step), at_occ_step_cmp);
	at_occ_list_fill(&starts, ev, n);
	n = at_occ_end_events(jobs, nj, ev);
	qsort(ev, n, sizeof(at_occ_step), at_occ_step_cmp);
	at_occ_list_fill(&ends, ev, n);
	nsteps = at_occ_sweep_lists(&starts, &ends, steps);

	/* occupancy_out's text, with times as the harness's stand-in reads them */
	*p++ = '[';
	for (long long i = 0; i < nsteps; i++)
	{
		if (steps[i].t == AT_OCC_NOBEGIN)
			p += sprintf(p, "%s[\"-infinity\",%lld]", i ? "," : "", (long long) steps[i].gpus);
		else
			p += sprintf(p, "%s[\"%lld\",%lld]", i ? "," : "", (long long) steps[i].t, (long long) steps[i].gpus);
	}
	*p++ = ']';
	*p = '\0';
	put_text("occupancy_text", name, text);

	/* occupancy_send's form */
	bin[0] = 1;
	be(bin + 1, (uint64_t) nsteps);
	for (long long i = 0; i < nsteps; i++)
	{
		be(bin + 9 + 16 * i, (uint64_t) steps[i].t);
		be(bin + 9 + 16 * i + 8, (uint64_t) steps[i].gpus);
	}
	snprintf(text, sizeof(text), "type-%s", name);
	put("occupancy_binary", text, bin, 9 + 16 * (size_t) nsteps);

	/* occupancy_agg's serialized state */
	len = at_occ_state_size(starts.n, ends.n);
	at_occ_state_write(state, &starts, &ends);
	snprintf(text, sizeof(text), "state-%s", name);
	put("occupancy_binary", text, state, len);

	/* the same state as acmetrace.occupancy_state's text */
	{
		char	   *hex = malloc(at_occ_state_text_len(len) + 1);

		at_occ_state_text_write(hex, state, len);
		put_text("occupancy_state_text", name, hex);
		free(hex);
	}
}

static void
occupancies(void)
{
	/* start, end (AT_OCC_NOEND: running), gpus; times in microseconds */
	static const int64_t none[][3] = {{0, 0, 0}};
	static const int64_t one[][3] = {{1688169600000000, 1688173200000000, 8}};
	static const int64_t overlap[][3] = {
		{0, 10, 8}, {3, 6, 1}, {4, AT_OCC_NOEND, 2}, {9, 12, 5}, {10, 20, 8}, {12, 13, 1}
	};
	static const int64_t from_ever[][3] = {
		{AT_OCC_NOBEGIN, 1000000, 4}, {-5000000, 5000000, 2}, {1000000, AT_OCC_NOEND, 4}
	};
	static const int64_t range_ends[][3] = {
		{-211813488000000000, 0, 1}, {0, 9223371331199999999, 2}, {-1, 1, 2147483647}
	};
	int64_t		many[60][3];
	at_rng		r;

	occupancy("empty", none, 1);
	occupancy("one-job", one, 1);
	occupancy("overlapping", overlap, 6);
	occupancy("from-minus-infinity", from_ever, 3);
	occupancy("range-ends", range_ends, 3);
	at_rng_seed(&r, 2);
	for (int i = 0; i < 60; i++)
	{
		many[i][0] = 1688169600000000 + (int64_t) (at_rng_next(&r) % 86400) * 1000000;
		many[i][1] = i % 9 == 0 ? AT_OCC_NOEND : many[i][0] + 1000000 * (int64_t) (1 + at_rng_next(&r) % 7200);
		many[i][2] = (int64_t) (1 << (at_rng_next(&r) % 4));
	}
	occupancy("sixty-jobs", (const int64_t (*)[3]) many, 60);
}

/* ---- bins: serialized states, and argument arrays ---- */

static void
bins_state(const char *name, at_bins_kind kind, double lo, double hi, int32_t nbins,
		   const double *params, int32_t np, const double *vals, int nv)
{
	at_bins		h;
	unsigned char *b;
	size_t		len;

	if (at_bins_init(&h, kind, lo, hi, nbins, params, np, mem, NULL) != 0)
		exit(1);
	for (int i = 0; i < nv; i++)
		at_bins_add(&h, vals[i], fabs(vals[(i + 1) % nv]) / 7);
	len = at_bins_encoded_size(&h);
	b = malloc(len);
	at_bins_encode(&h, b);
	put("bins", name, b, len);
	free(b);
	/* the same state as bins_state's text */
	b = malloc(at_bins_text_size(&h));
	at_bins_format(&h, (char *) b);
	put_text("bins_state", name, (const char *) b);
	free(b);
	at_bins_free(&h, mem, NULL);
}

/* byte 0 (nbins + 4 for equal-width bins, or 0x80: nbins is the third double), then doubles */
static void
bins_arrays(const char *name, unsigned char first, const double *v, int n)
{
	unsigned char b[1 + 8 * 64];

	b[0] = first;
	for (int i = 0; i < n; i++)
	{
		uint64_t	u;

		memcpy(&u, &v[i], 8);
		be(b + 1 + 8 * i, u);
	}
	put("bins", name, b, 1 + 8 * (size_t) n);
}

static void
bins_seeds(void)
{
	static const double edges[] = {0, 1, 2, 4, 8, 16, 1e9};
	static const double thresholds[] = {8, 1, 2, 2, 0, -0.0, 1e9, -INFINITY, INFINITY};
	double		vals[200];
	at_rng		r;

	at_rng_seed(&r, 3);
	for (int i = 0; i < 200; i++)
		vals[i] = i % 17 == 0 ? -1 : i % 23 == 0 ? 1e12 : floor(at_rng_uniform(&r) * 110);
	bins_state("equal-empty", AT_BINS_EQUAL, 0, 100, 10, NULL, 0, vals, 0);
	bins_state("equal-utilization", AT_BINS_EQUAL, 0, 100, 10, NULL, 0, vals, 200);
	bins_state("equal-wider-than-dbl-max", AT_BINS_EQUAL, -1e308, 1e308, 4, NULL, 0, vals, 50);
	bins_state("edges", AT_BINS_EDGES, 0, 0, 0, edges, 7, vals, 200);
	bins_state("cdf", AT_BINS_CDF, 0, 0, 0, thresholds, 9, vals, 200);
	bins_state("cdf-one-threshold", AT_BINS_CDF, 0, 0, 0, thresholds, 1, vals, 3);
	bins_state("wcdf", AT_BINS_WCDF, 0, 0, 0, thresholds, 9, vals, 200);
	bins_state("wcdf-empty", AT_BINS_WCDF, 0, 0, 0, edges, 7, vals, 0);

	/*
	 * weights whose total rounds down to DBL_MAX while the slots pass it
	 * (a state at_bins_cdf and the reader once overflowed on)
	 */
	{
		at_bins		h;
		unsigned char *b;

		at_bins_init(&h, AT_BINS_WCDF, 0, 0, 0, (const double[]) {0, 1}, 2, mem, NULL);
		at_bins_add(&h, 0, 1.7976931348623157e308);
		for (int i = 0; i < 6; i++)
			at_bins_add(&h, 1, 2.6e291);
		b = malloc(at_bins_encoded_size(&h));
		at_bins_encode(&h, b);
		put("bins", "wcdf-total-at-dbl-max", b, at_bins_encoded_size(&h));
		free(b);
		at_bins_free(&h, mem, NULL);
	}

	put_text("bins_state", "text-empty", "");
	put_text("bins_state", "text-prefix-only", "v1:");
	put_text("bins_state", "text-v2", "v2:0101000000000004");
	/* bins(x, 0, 15, 2) over {1, 16}, in upper case */
	put_text("bins_state", "text-upper-case",
			 "v1:0101000000000004000000020000000000000000000000020000000000000000"
			 "0000000000000000402E0000000000000000000000000000000000000000000100000000000000000000000000000001");
	put_text("bins_state", "text-odd-digits", "v1:010");
	put_text("bins_state", "text-space", "v1:01 01");

	bins_arrays("args-equal-10-bins", 14, (const double[]) {0, 100, 5, 50, 99.99, 100, 101, -0.0}, 8);
	bins_arrays("args-equal-1-bin", 5, (const double[]) {-1, 1, 0}, 3);
	bins_arrays("args-equal-nbins-raw", 0x80, (const double[]) {0, 1, 1e-320, 0.5}, 4);
	bins_arrays("args-edges", 0, edges, 7);
	bins_arrays("args-thresholds", 0, thresholds, 9);
	bins_arrays("args-nan-inf", 14, (const double[]) {NAN, INFINITY, -INFINITY, 0, 1}, 5);
	bins_arrays("args-huge", 14, (const double[]) {-1.7976931348623157e308, 1.7976931348623157e308, 0, 1e308}, 4);
	bins_arrays("args-denormal", 4 + 3, (const double[]) {0, 4.9e-324, 2.5e-324, 4.9e-324}, 4);
}

/* ---- the wide-utilization CSV lines ---- */

static void
csvs(void)
{
	char		line[4096],
			   *p = line;
	at_rng		r;

	at_rng_seed(&r, 4);
	put_text("unpivot", "philly-header", "time,machine_id,gpu0_util,gpu1_util,gpu2_util,gpu3_util\n");
	put_text("unpivot", "philly-line", "2017-10-03 00:00:00 PDT,m29,60.8,NA,,100,\r\n");
	put_text("unpivot", "quoted", "\"2023-07-01 00:00:00+00\",\"a,b\",\"say \"\"hi\"\"\",\"\", 1.5 ,\t-2e3\t");
	put_text("unpivot", "numbers", "0,-0,+1,.5,5.,1e308,1e309,1e-400,0x10,inf,nan,NaN,na,1e,--1,1.2.3");
	put_text("unpivot", "unterminated", "1,\"abc");
	put_text("unpivot", "text-after-quote", "\"ab\"x,1");
	p += sprintf(p, "2023-07-01 00:00:00");
	for (int i = 0; i < 300; i++)
		p += sprintf(p, ",%.1f", at_rng_uniform(&r) * 100);
	put_text("unpivot", "wide-300", line);
}

/* ---- samples: blocks of every time and value encoding, and their text ---- */

static void
samples_block(const char *name, const int64_t *ts, const double *v, int32_t n)
{
	unsigned char *b = malloc(at_samples_encode_bound(n));
	size_t		len = at_samples_encode(ts, v, n, b);
	char	   *text,
				tname[128];

	if (at_samples_check(b, len, NULL) != NULL)
	{
		fprintf(stderr, "make_seeds: samples %s: own block refused\n", name);
		exit(1);
	}
	put("samples_decode", name, b, len);
	/* a few as text too: the harness parses every input as text as well */
	if (len < 400)
	{
		text = malloc(at_samples_text_size(len));
		at_samples_format(b, len, text);
		snprintf(tname, sizeof(tname), "text-%s", name);
		put_text("samples_decode", tname, text);
		free(text);
	}
	free(b);
}

static void
samples_seeds(void)
{
	enum
	{
		N = 300
	};
	int64_t		ts[N],
				gts[N],
				jts[N],
				t = 741484800000000;	/* 2023-07-01 UTC */
	double		v[N];
	at_rng		r;
	int			busy = 0;

	at_rng_seed(&r, 5);
	for (int i = 0; i < N; i++)
	{
		ts[i] = 741484800000000 + 15000000 * (int64_t) i;
		if (i > 0 && at_rng_next(&r) % 30 == 0)
			t += 15000000 * (int64_t) (1 + at_rng_next(&r) % 3);
		gts[i] = t;
		t += 15000000;
		jts[i] = i == 0 ? -741484800000000 : jts[i - 1] + 1000000 + (int64_t) (at_rng_next(&r) % 2001) - 1000;
	}

	/* idle and busy runs of 20 to 80 samples */
	for (int i = 0, left = 0; i < N; i++, left--)
	{
		if (left == 0)
		{
			busy = !busy;
			left = 20 + (int) (at_rng_next(&r) % 61);
		}
		v[i] = busy ? 85 + (double) (at_rng_next(&r) % 16) : 0;
	}
	samples_block("polarized-gaps", gts, v, N);
	samples_block("polarized-dense-40", ts, v + 100, 40);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 100001) / 1000;
	samples_block("three-decimals-gaps", gts, v, N);
	for (int i = 0; i < N; i++)
		v[i] = (double) (int64_t) (at_rng_next(&r) % 1001) / 10 - 50;
	samples_block("one-decimal-jitter", jts, v, 140);
	for (int i = 0; i < N; i++)
		v[i] = 0;
	samples_block("constant-zero", ts, v, N);
	for (int i = 0; i < N; i++)
		v[i] = (double) (1000000 + 17 * i + (int64_t) (at_rng_next(&r) % 4));
	samples_block("counter-delta", ts, v, 129);
	for (int i = 0; i < N; i++)
		v[i] = i == 3 ? -0.0 : at_rng_uniform(&r) * 100;
	samples_block("raw-doubles", gts, v, 20);
	samples_block("one-sample", ts, (const double[]) {42.5}, 1);
	samples_block("one-raw-sample", ts, (const double[]) {1e-300}, 1);
	samples_block("int64-ends", (const int64_t[]) {INT64_MIN, -1, 0, INT64_MAX - 1, INT64_MAX},
				  (const double[]) {-9007199254740991.0, 1e-15, 0, 9007199254740991.0, 1}, 5);
	/* exact at 2 decimals, but not by rounding v * 10^14 */
	samples_block("scale-14-from-2", ts, (const double[]) {38.38, 1e-14, 4.19, 0}, 4);
	samples_block("scale-15", ts, (const double[]) {1e-15, 2e-15, 0, -3e-15, 7e-15, 1}, 6);
	for (int i = 0; i < N; i++)
		v[i] = i < 128 ? 7 : (double) (at_rng_next(&r) % 100000);
	samples_block("constant-then-wide", gts, v, 200);
	{
		/* version 2: values without temporal structure get a value code (1,024 samples and more) */
		static int64_t lts[1100];
		static double lv[1100];

		for (int i = 0; i < 1100; i++)
		{
			uint64_t	x = at_rng_next(&r) % 100;

			lts[i] = 741484800000000 + 15000000 * (int64_t) i;
			lv[i] = x < 40 ? 0 : x < 70 ? 100 : (double) (at_rng_next(&r) % 99);
		}
		samples_block("coded-polarized", lts, lv, 1100);
		for (int i = 0; i < 1100; i++)
			lv[i] = at_rng_next(&r) % 3 == 0 ? 0 : (double) (int64_t) (at_rng_next(&r) % 100001) / 1000;
		samples_block("coded-three-decimals-idle", lts, lv, 1100);
	}

	put_text("samples_decode", "text-empty", "");
	put_text("samples_decode", "text-prefix-only", "v1:");
	put_text("samples_decode", "text-v2", "v2:0100010001000000");
	put_text("samples_decode", "text-upper-case", "v1:0100010001000000AB");
	put_text("samples_decode", "text-odd-digits", "v1:010");
}

/* ---- gbdt: a small model and training rows, binary and as text ---- */

static void
gbdt_put(const char *name, const unsigned char *b, size_t n)
{
	char	   *t = malloc(3 + 2 * n + 1);
	char		tname[64];

	put("gbdt_decode", name, b, n);
	at_gbdt_hex(b, n, t);
	snprintf(tname, sizeof(tname), "text-%s", name);
	put_text("gbdt_decode", tname, t);
	free(t);
}

static void
gbdt_seeds(void)
{
	at_gbdt_params p = {3, 2, 0.3, 2, 8};
	at_gbdt_rows r;
	at_gbdt		m;
	at_rng		g;
	unsigned char *b;
	size_t		n;

	at_rng_seed(&g, 9);
	at_gbdt_rows_init(&r, &p, 3);
	for (int i = 0; i < 24; i++)
	{
		double		x[3] = {floor(at_rng_uniform(&g) * 4), i % 5 == 0 ? NAN : at_rng_uniform(&g), i};

		at_gbdt_rows_add(&r, x, x[0] * 2 + (isnan(x[1]) ? 5 : x[1]), mem, NULL);
	}
	n = at_gbdt_rows_encoded_size(&r);
	b = malloc(n);
	at_gbdt_rows_encode(&r, b);
	gbdt_put("rows", b, n);
	free(b);
	at_gbdt_train(&r, mem, NULL, NULL, NULL, &m);
	n = at_gbdt_encoded_size(&m);
	b = malloc(n);
	at_gbdt_encode(&m, b);
	gbdt_put("model", b, n);
	free(b);
	at_gbdt_free(&m, mem, NULL);
	at_gbdt_rows_free(&r, mem, NULL);
	put_text("gbdt_decode", "text-v2", "v2:01");
}

int
main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "test/fuzz/corpus";
	sketches();
	occupancies();
	bins_seeds();
	csvs();
	samples_seeds();
	gbdt_seeds();
	printf("make_seeds: %d seeds written under %s\n", written, root);
	return 0;
}
