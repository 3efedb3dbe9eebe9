/*
 * acmetrace-prometheus: turns the JSON of Prometheus's HTTP API into lines
 * of acmetrace.prometheus_samples (src/core/prometheus.h has the format),
 * streamed: stdin is parsed chunk by chunk (src/core/prometheus_json.c),
 * memory is bounded by one series' line, never the body.
 *
 *   acmetrace-prometheus samples --metric DCGM_FIELD [label options] < body
 *       the body of /api/v1/query?query=DCGM_FIELD[<range>]&time=T
 *   acmetrace-prometheus series --metric DCGM_FIELD [label options] < body
 *       the body of /api/v1/series?match[]=DCGM_FIELD: "<series>\t<job or \N>"
 *   acmetrace-prometheus fields
 *       "DCGM_FIELD\tMETRIC\tSHIFT" per field read
 *   label options: --host-label L (Hostname), --gpu-label L (gpu),
 *                  --job-label L (hpc_job)
 *
 * Exit status: 0 ok; 1 a bad body, bad labels, values or times, or a
 * Prometheus error (samples mode: one "!error\t\N\t<message>" line on stdout
 * too); 2 bad usage; 3 Prometheus timed out or would load too many samples
 * (nothing on stdout: the caller splits the window and retries).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prometheus.h"
#include "prometheus_json.h"

#define CHUNK (64 * 1024)

static const char *prog = "acmetrace-prometheus";

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: acmetrace-prometheus samples --metric DCGM_FIELD [--host-label L] [--gpu-label L] [--job-label L] < body\n"
			"       acmetrace-prometheus series --metric DCGM_FIELD [--host-label L] [--gpu-label L] [--job-label L] < body\n"
			"       acmetrace-prometheus fields\n"
			"samples: the body of /api/v1/query?query=DCGM_FIELD[<range>]&time=T as lines of\n"
			"acmetrace.prometheus_samples, then one !end line.  series: the body of /api/v1/series,\n"
			"a line \"<series>\\t<job or \\N>\" per series.  fields: the DCGM fields read, their metric and shift.\n"
			"Labels default to Hostname, gpu and hpc_job.  Exit status: 0 ok, 1 error, 2 usage,\n"
			"3 Prometheus timed out or would load too many samples (split the window).\n");
}

static int
write_stdout(void *arg, const char *s, size_t n)
{
	(void) arg;
	return fwrite(s, 1, n, stdout) == n ? 0 : 1;
}

/* stdin through the converter; the exit status */
static int
convert(at_pc_options *o)
{
	static char buf[CHUNK];
	at_pc	   *c = at_pc_new(o);
	const char *why = NULL;
	char		err[256];
	int			rc;

	if (c == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (;;)
	{
		ssize_t		n = read(0, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
		{
			snprintf(err, sizeof(err), "cannot read standard input: %s", strerror(errno));
			why = err;
			break;
		}
		if (n == 0 || at_pc_feed(c, buf, (size_t) n) != 0)
			break;
	}
	rc = at_pc_end(c, why);
	if (rc != AT_PC_OK)
		fprintf(stderr, "%s: %s\n", prog, at_pc_message(c));
	at_pc_free(c);
	if (fflush(stdout) != 0 || ferror(stdout))
	{
		fprintf(stderr, "%s: cannot write to standard output: %s\n", prog, strerror(errno));
		return 1;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	static at_pc_options c;
	static char outbuf[1 << 16];
	const char *metric = NULL;

	if (argc < 2)
	{
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
	{
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "fields") == 0)
	{
		if (argc != 2)
		{
			fprintf(stderr, "%s: fields takes no option\n", prog);
			return 2;
		}
		for (int k = 0; k < at_prom_nfields; k++)
			printf("%s\t%s\t%d\n", at_prom_fields[k].dcgm, at_prom_fields[k].metric, at_prom_fields[k].shift);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "samples") == 0)
		c.samples_mode = 1;
	else if (strcmp(argv[1], "series") != 0)
	{
		fprintf(stderr, "%s: unknown mode \"%s\" (samples, series or fields)\n", prog, argv[1]);
		usage(stderr);
		return 2;
	}
	for (int k = 2; k < argc; k++)
	{
		static const char *const opts[] = {"--metric", "--host-label", "--gpu-label", "--job-label"};
		const char *a = argv[k],
				   *val = NULL;
		int			which = -1;

		for (int o = 0; o < 4; o++)
		{
			size_t		ol = strlen(opts[o]);

			if (strcmp(a, opts[o]) == 0)
			{
				which = o;
				if (k + 1 >= argc)
				{
					fprintf(stderr, "%s: %s needs a value\n", prog, a);
					return 2;
				}
				val = argv[++k];
			}
			else if (strncmp(a, opts[o], ol) == 0 && a[ol] == '=')
			{
				which = o;
				val = a + ol + 1;
			}
		}
		if (which < 0)
		{
			fprintf(stderr, "%s: unknown option \"%s\"\n", prog, a);
			usage(stderr);
			return 2;
		}
		if (*val == '\0')
		{
			fprintf(stderr, "%s: %s is empty\n", prog, opts[which]);
			return 2;
		}
		if (which == 0)
			metric = val;
		else if (which == 1)
			c.host_label = val;
		else if (which == 2)
			c.gpu_label = val;
		else
			c.job_label = val;
	}
	if (metric == NULL)
	{
		fprintf(stderr, "%s: %s needs --metric DCGM_FIELD\n", prog, argv[1]);
		return 2;
	}
	if (at_prom_field_of(metric, strlen(metric)) == NULL)
	{
		fprintf(stderr, "%s: --metric %s is not a DCGM field acmetrace reads (acmetrace-prometheus fields lists them)\n", prog, metric);
		return 2;
	}
	c.dcgm = metric;
	c.write = write_stdout;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	return convert(&c);
}
