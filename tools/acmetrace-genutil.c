/*
 * acmetrace-genutil: writes synthetic utilization files in the published
 * wide layout (Time, then one column per GPU), with the realistic model of
 * src/core/generate_util.c, for benchmarks and tests that load files exactly
 * as users do.  Deterministic: the same options give the same bytes.
 *
 *   acmetrace-genutil [--metric M] [--cluster C] [--series N] [--start YYYY-MM-DD]
 *                     [--days D | --samples N] [--seed S] [--time text|epoch]
 *                     [--offline SHARE] [--gaps SHARE] [--jobs N | --iid]
 *                     [-o FILE | --split-by-month DIR [--overlap K]]
 *
 * With --jobs N the columns are the GPUs of the cluster running the jobs
 * of acmetrace.generate_jobs(cluster, N, seed): a GPU is busy only while
 * one of them runs on it (acmetrace.generate_placement names its GPUs).
 * Both have the texture of doc/generator.md (dips, per-sample noise, small
 * idle readings).  With --iid every value is drawn independently from the
 * metric's published distribution (no idle/busy runs, no texture): the
 * worst case of the samples codec, in the same layout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generate_util.h"

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: acmetrace-genutil [--metric GPU_UTIL|SM_ACTIVE|SM_OCCUPANCY|FB_USED|NODE_CPU_UTILIZATION|NODE_MEMORY_UTILIZATION]\n"
			"                         [--cluster seren|kalos] [--series N] [--start YYYY-MM-DD] [--days D | --samples N]\n"
			"                         [--seed S] [--time text|epoch] [--offline SHARE] [--gaps SHARE] [--jobs N | --iid]\n"
			"                         [-o FILE | --split-by-month DIR [--overlap K]]\n"
			"Writes a wide utilization CSV: Time (Asia/Shanghai text, or Unix seconds with --time epoch),\n"
			"then one column per GPU, a line per 15 s.  Default: GPU_UTIL of seren, 2288 GPUs, 1 day\n"
			"from 2023-07-01, seed 1, to standard output.  --jobs N: a column per GPU of the cluster,\n"
			"busy only while a job of acmetrace.generate_jobs(cluster, N, seed) runs on it.\n"
			"--iid: every value drawn independently from the published distribution (no temporal structure).\n");
}

static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "acmetrace-genutil: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	usage(stderr);
	exit(2);
}

static long long
number(const char *s, long long lo, long long hi, const char *what)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi)
		die(what, s);
	return v;
}

static double
share(const char *s, const char *what)
{
	char	   *end;
	double		v = strtod(s, &end);

	if (*end || end == s || !(v >= 0 && v <= 1))
		die(what, s);
	return v;
}

/* "2023-07-01" to Unix seconds (UTC midnight). */
static long long
parse_day(const char *s)
{
	int			y,
				m,
				d;
	char		extra;

	if (sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &extra) != 3 || m < 1 || m > 12 || d < 1 || d > 31 || y < 1970 || y > 2200)
		die("--start must be YYYY-MM-DD", s);
	/* days from civil (H. Hinnant) */
	y -= m <= 2;
	{
		long long	era = y / 400;
		long long	yoe = y - era * 400;
		long long	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
		long long	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		return (era * 146097 + doe - 719468) * 86400;
	}
}

/* year * 12 + month of a Unix time (UTC). */
static int
month_of(long long t)
{
	char		buf[26];
	int			y,
				m;

	at_format_utc(t, buf);
	sscanf(buf, "%4d-%2d", &y, &m);
	return y * 12 + m - 1;
}

static int
time_cell(char *out, long long t, int epoch)
{
	if (epoch)
		return sprintf(out, "%lld", t);
	/* as published: Asia/Shanghai (UTC+8, no daylight saving) */
	at_format_utc(t + 8 * 3600, out);
	memcpy(out + 19, "+08:00", 7);
	return 25;
}

static void *
cmem(void *ctx, void *p, size_t n)
{
	(void) ctx;
	if (p != NULL)
	{
		free(p);
		return NULL;
	}
	return calloc(1, n);
}

/* Where the cells come from: the independent model, or the one over a trace's placement. */
typedef struct source
{
	at_util_gen g;
	at_util_series *st;
	at_util_trace *trace;
	at_rng		trace_gaps;
	at_rng	   *gaps;			/* the independent model draws them from its own stream */
} source;

static void
source_open(source *src, const char *cluster, const char *metric, long long series, long long seed,
			double offline, long long jobs, int iid, long long start, long long total)
{
	memset(src, 0, sizeof *src);
	at_rng_seed(&src->trace_gaps, (uint64_t) seed ^ 0x9e3779b97f4a7c15ULL);
	src->gaps = jobs > 0 ? &src->trace_gaps : &src->g.rng;
	if (jobs > 0)
	{
		const at_profile *p = at_profile_by_name(cluster);
		at_sched_status st;
		int			rc;

		if (p == NULL)
			die("--jobs needs --cluster seren or kalos", cluster);
		rc = at_util_trace_create(cmem, NULL, p, jobs, (uint64_t) seed, metric, start, 15, total, offline,
								  &src->trace, &st);
		if (rc == -1)
			die("--jobs writes per-GPU metrics: GPU_UTIL, SM_ACTIVE, SM_OCCUPANCY, FB_USED", metric);
		if (rc != 0)
			die("cannot place the jobs", at_sched_status_text(st));
		fprintf(stderr, "acmetrace-genutil: jobs run on %.3f of the GPU-samples, computing %.3f of that time, %.3f of it in dips\n",
				at_util_trace_running(src->trace), at_util_trace_busy(src->trace), at_util_trace_dip_share(src->trace));
		return;
	}
	src->st = calloc((size_t) series, sizeof *src->st);
	if (src->st == NULL || at_util_gen_init(&src->g, cluster, metric, (int) series, (uint64_t) seed, offline, src->st) != 0)
		die("no published distribution for this cluster and metric", metric);
	if (iid)
		at_util_gen_iid(&src->g);
}

static size_t
source_cells(source *src, char *buf, int *empty)
{
	int64_t		t;
	at_sched_status st;
	int64_t		n;

	if (src->trace == NULL)
		return at_util_gen_cells(&src->g, buf, empty);
	n = at_util_trace_cells(src->trace, buf, &t, empty, &st);
	if (n < 0)
		die("cannot place the jobs", at_sched_status_text(st));
	return (size_t) n;
}

static void
source_close(source *src)
{
	free(src->st);
	at_util_trace_destroy(src->trace);
}

int
main(int argc, char **argv)
{
	const char *metric = "GPU_UTIL",
			   *cluster = "seren",
			   *out = NULL,
			   *split = NULL;
	long long	series = 2288,
				samples = -1,
				days = 1,
				seed = 1,
				overlap = 0,
				jobs = 0;
	long long	start = parse_day("2023-07-01");
	int			epoch = 0,
				iid = 0;
	double		offline = 0.01,
				gaps = 0.0005;
	static struct option opts[] = {
		{"metric", required_argument, 0, 'm'}, {"cluster", required_argument, 0, 'c'},
		{"series", required_argument, 0, 'n'}, {"start", required_argument, 0, 's'},
		{"days", required_argument, 0, 'd'}, {"samples", required_argument, 0, 'N'},
		{"seed", required_argument, 0, 'S'}, {"time", required_argument, 0, 't'},
		{"offline", required_argument, 0, 'O'}, {"gaps", required_argument, 0, 'g'},
		{"split-by-month", required_argument, 0, 'M'}, {"overlap", required_argument, 0, 'v'},
		{"jobs", required_argument, 0, 'J'}, {"iid", no_argument, 0, 'I'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}
	};
	int			c;
	source		src;
	char	   *line,
			   *hdr;
	size_t		cap;
	FILE	   *f = stdout;
	int			cur_month = -1;
	long long	total;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 'm': metric = optarg; break;
			case 'c': cluster = optarg; break;
			case 'n': series = number(optarg, 1, 100000, "--series must be 1..100000"); break;
			case 's': start = parse_day(optarg); break;
			case 'd': days = number(optarg, 1, 3660, "--days must be 1..3660"); samples = -1; break;
			case 'N': samples = number(optarg, 1, 1000000000LL, "--samples must be 1..1e9"); break;
			case 'S': seed = number(optarg, 0, 1LL << 62, "--seed must be a non-negative integer"); break;
			case 't':
				if (strcmp(optarg, "text") == 0)
					epoch = 0;
				else if (strcmp(optarg, "epoch") == 0)
					epoch = 1;
				else
					die("--time must be text or epoch", optarg);
				break;
			case 'O': offline = share(optarg, "--offline must be 0..1"); break;
			case 'g': gaps = share(optarg, "--gaps must be 0..1"); break;
			case 'M': split = optarg; break;
			case 'v': overlap = number(optarg, 0, 100000, "--overlap must be 0..100000"); break;
			case 'J': jobs = number(optarg, 1, 100000000LL, "--jobs must be 1..1e8"); break;
			case 'I': iid = 1; break;
			case 'o': out = optarg; break;
			case 'h': usage(stdout); return 0;
			default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		die("unexpected argument", argv[optind]);
	if (out && split)
		die("-o and --split-by-month exclude each other", NULL);
	if (overlap && !split)
		die("--overlap needs --split-by-month", NULL);
	if (iid && jobs > 0)
		die("--iid and --jobs exclude each other", NULL);
	total = samples > 0 ? samples : days * 5760;
	source_open(&src, cluster, metric, series, seed, offline, jobs, iid, start, total);
	if (src.trace != NULL)
		series = at_util_trace_series(src.trace);
	cap = at_util_line_size((int) series) + 64;
	line = malloc(cap);
	hdr = malloc((size_t) series * 32 + 16);
	if (!line || !hdr)
		die("out of memory", NULL);
	{
		size_t		n = (size_t) sprintf(hdr, "Time");

		for (long long i = 0; i < series; i++)
		{
			hdr[n++] = ',';
			n += (size_t) at_placement_series_name((int32_t) i, hdr + n);
		}
		hdr[n++] = '\n';
		hdr[n] = '\0';
	}
	if (out && (f = fopen(out, "w")) == NULL)
		die("cannot write", out);
	if (!split)
		fputs(hdr, f);
	for (long long k = 0; k < total; k++)
	{
		long long	t = start + k * 15;
		int			empty;
		size_t		n = (size_t) time_cell(line, t, epoch);

		n += source_cells(&src, line + n, &empty);
		line[n++] = '\n';
		/* all-empty lines are dropped, as published; a few lines are missing */
		if (empty || (gaps > 0 && at_rng_uniform(src.gaps) < gaps))
			continue;
		if (split)
		{
			int			mo = month_of(t);

			if (mo != cur_month)
			{
				char		path[4096];
				long long	y = mo / 12,
							m = mo % 12 + 1;

				if (f != stdout)
					fclose(f);
				snprintf(path, sizeof path, "%s/%s-%04lld-%02lld.csv", split, metric, y, m);
				if ((f = fopen(path, "w")) == NULL)
					die("cannot write", path);
				fputs(hdr, f);
				cur_month = mo;
			}
			fwrite(line, 1, n, f);
		}
		else
			fwrite(line, 1, n, f);
	}
	if (split && overlap > 0)
	{
		/* second pass: append to each month the first `overlap` lines of the next */
		if (f != stdout)
			fclose(f);
		source_close(&src);
		source_open(&src, cluster, metric, series, seed, offline, jobs, iid, start, total);
		cur_month = -1;
		f = NULL;
		{
			long long	written = 0;
			int			prev = -1;

			for (long long k = 0; k < total; k++)
			{
				long long	t = start + k * 15;
				int			empty,
							mo = month_of(t);
				size_t		n = (size_t) time_cell(line, t, epoch);

				n += source_cells(&src, line + n, &empty);
				line[n++] = '\n';
				if (empty || (gaps > 0 && at_rng_uniform(src.gaps) < gaps))
					continue;
				if (mo != cur_month)
				{
					if (f)
						fclose(f);
					f = NULL;
					prev = cur_month;
					cur_month = mo;
					written = 0;
					if (prev >= 0)
					{
						char		path[4096];

						snprintf(path, sizeof path, "%s/%s-%04d-%02d.csv", split, metric, prev / 12, prev % 12 + 1);
						if ((f = fopen(path, "a")) == NULL)
							die("cannot append to", path);
					}
				}
				if (f && written < overlap)
				{
					fwrite(line, 1, n, f);
					written++;
				}
			}
			if (f)
				fclose(f);
		}
		f = stdout;
	}
	if (f != stdout && fclose(f) != 0)
		die("write failed", out);
	if (f == stdout && fflush(stdout) != 0)
		die("write failed", "standard output");
	free(line);
	free(hdr);
	source_close(&src);
	return 0;
}
