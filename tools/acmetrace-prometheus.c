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
#define MSG_MAX 2048

typedef struct conv
{
	int			samples_mode;	/* else series */
	const at_prom_field *field;
	const char *host_label,
			   *gpu_label,
			   *job_label;
	size_t		host_len,
				gpu_len,
				job_len;

	/* the body's top level */
	int			status;			/* 0 none yet, 1 success, 2 error, 3 other */
	int			is_timeout;
	char	   *error_type;
	char	   *error_text;
	int			matrix;			/* resultType matrix seen */
	int			data_seen;

	/* the series being written */
	char		series[AT_PROM_SERIES_MAX + 1];
	int			series_len;
	char		job[AT_PROM_JOB_MAX + 1];
	int			job_len_now;	/* 0: no job label */
	int64_t		last_ms;
	char	   *line;			/* the current line's samples */
	size_t		line_len;
	int			line_n;
	char		labels[600];	/* the series' labels, for messages */

	long long	nseries,
				nsamples,
				nskipped;
	int			written;		/* anything on stdout */
	char		msg[MSG_MAX];
} conv;

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
set_msg(conv *c, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 1;
}

/* s as a quoted label value into out, cut with "..." past room */
static size_t
quote(char *out, size_t room, const char *s, size_t n)
{
	size_t		o = 0;

	for (size_t i = 0; i < n && o + 8 < room; i++)
	{
		unsigned char ch = (unsigned char) s[i];

		if (ch == '"' || ch == '\\')
		{
			out[o++] = '\\';
			out[o++] = (char) ch;
		}
		else if (ch < 0x20 || ch == 0x7f)
			o += (size_t) snprintf(out + o, room - o, "\\x%02x", ch);
		else
			out[o++] = (char) ch;
		if (o + 8 >= room && i + 1 < n)
		{
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
	}
	out[o] = '\0';
	return o;
}

/* the labels as {a="b", ...}, cut to fit c->labels */
static void
describe(conv *c, const at_pj_label *l, int n)
{
	size_t		room = sizeof(c->labels),
				o = 0;

	c->labels[o++] = '{';
	for (int k = 0; k < n && o + 16 < room; k++)
	{
		if (k)
		{
			c->labels[o++] = ',';
			c->labels[o++] = ' ';
		}
		o += quote(c->labels + o, (room - o) / 2, l[k].name, l[k].nlen);
		c->labels[o++] = '=';
		c->labels[o++] = '"';
		o += quote(c->labels + o, room - o - 4, l[k].value, l[k].vlen);
		c->labels[o++] = '"';
	}
	c->labels[o++] = '}';
	c->labels[o] = '\0';
}

static const at_pj_label *
find(const at_pj_label *l, int n, const char *name, size_t len)
{
	for (int k = 0; k < n; k++)
		if (l[k].nlen == len && memcmp(l[k].name, name, len) == 0)
			return &l[k];
	return NULL;
}

static int
on_text(void *arg, at_pj_text which, const char *s, size_t len)
{
	conv	   *c = arg;

	switch (which)
	{
		case AT_PJ_T_STATUS:
			c->status = (len == 7 && memcmp(s, "success", 7) == 0) ? 1 :
				(len == 5 && memcmp(s, "error", 5) == 0) ? 2 : 3;
			if (c->status == 3)
				return set_msg(c, "Prometheus answered with status \"%.*s\", neither success nor error",
							   (int) (len > 100 ? 100 : len), s);
			break;
		case AT_PJ_T_ERROR_TYPE:
		case AT_PJ_T_ERROR:
			{
				char	  **to = which == AT_PJ_T_ERROR ? &c->error_text : &c->error_type;

				free(*to);
				*to = malloc(len + 1);
				if (*to == NULL)
					return set_msg(c, "out of memory");
				memcpy(*to, s, len);
				(*to)[len] = '\0';
				break;
			}
		case AT_PJ_T_RESULT_TYPE:
			if (!c->samples_mode)
				break;
			if (!(len == 6 && memcmp(s, "matrix", 6) == 0))
				return set_msg(c, "Prometheus answered resultType \"%.*s\", not matrix (the query must be a range selector, METRIC[<range>])",
							   (int) (len > 100 ? 100 : len), s);
			c->matrix = 1;
			break;
	}
	return 0;
}

static int
on_data(void *arg, int is_array)
{
	conv	   *c = arg;

	c->data_seen = 1;
	if (c->samples_mode && is_array)
		return set_msg(c, "Prometheus answered a list (the body of /api/v1/series?), not a query's matrix");
	if (!c->samples_mode && !is_array)
		return set_msg(c, "Prometheus answered a query's result, not the list of /api/v1/series");
	return 0;
}

static int
out_write(conv *c, const char *s, size_t n)
{
	c->written = 1;
	if (fwrite(s, 1, n, stdout) != n)
		return set_msg(c, "cannot write to standard output: %s", strerror(errno));
	return 0;
}

/* the series' line so far, then a fresh one */
static int
line_flush(conv *c)
{
	if (c->line_n == 0)
		return 0;
	c->line[c->line_len++] = '\n';
	if (out_write(c, c->line, c->line_len))
		return 1;
	c->line_len = (size_t) c->series_len + 1 + (c->job_len_now ? (size_t) c->job_len_now : 2) + 1;
	c->line_n = 0;
	return 0;
}

static int
on_series(void *arg, const at_pj_label *l, int n)
{
	conv	   *c = arg;
	const at_pj_label *name,
			   *host,
			   *gpu,
			   *job;
	int			r;

	if (c->status == 2)
		return 0;				/* an error body: nothing written */
	describe(c, l, n);
	name = find(l, n, "__name__", 8);
	if (name == NULL || name->vlen != strlen(c->field->dcgm) || memcmp(name->value, c->field->dcgm, name->vlen) != 0)
		return set_msg(c, "series %s is not of metric %s", c->labels, c->field->dcgm);
	host = find(l, n, c->host_label, c->host_len);
	gpu = find(l, n, c->gpu_label, c->gpu_len);
	if (host == NULL)
		return set_msg(c, "series %s has no %s label (the host; --host-label names another)", c->labels, c->host_label);
	if (gpu == NULL)
		return set_msg(c, "series %s has no %s label (the GPU index; --gpu-label names another)", c->labels, c->gpu_label);
	r = at_prom_series_name(c->series, sizeof(c->series), host->value, host->vlen, gpu->value, gpu->vlen);
	if (r == AT_PROM_BAD_HOST)
		return set_msg(c, "series %s: its %s label is not a host name (1 to %d of A-Z a-z 0-9 . _ : -)",
					   c->labels, c->host_label, AT_PROM_HOST_MAX);
	if (r == AT_PROM_BAD_GPU)
		return set_msg(c, "series %s: its %s label is not a GPU index (0 to %d, no sign or leading zero)",
					   c->labels, c->gpu_label, AT_PROM_GPU_MAX);
	c->series_len = r;
	job = find(l, n, c->job_label, c->job_len);
	c->job_len_now = 0;
	if (job != NULL)
	{
		if (!at_prom_job_valid(job->value, job->vlen))
			return set_msg(c, "series %s: its %s label is not a job id (1 to %d printable ASCII characters, no blank, backslash or quote)",
						   c->labels, c->job_label, AT_PROM_JOB_MAX);
		memcpy(c->job, job->value, job->vlen);
		c->job[job->vlen] = '\0';
		c->job_len_now = (int) job->vlen;
	}
	c->nseries++;
	if (!c->samples_mode)
	{
		char		buf[AT_PROM_SERIES_MAX + AT_PROM_JOB_MAX + 8];
		int			k = snprintf(buf, sizeof(buf), "%s\t%s\n", c->series, c->job_len_now ? c->job : "\\N");

		return out_write(c, buf, (size_t) k);
	}
	/* the line's prefix: series, job */
	memcpy(c->line, c->series, (size_t) r);
	c->line_len = (size_t) r;
	c->line[c->line_len++] = '\t';
	if (c->job_len_now)
	{
		memcpy(c->line + c->line_len, c->job, (size_t) c->job_len_now);
		c->line_len += (size_t) c->job_len_now;
	}
	else
	{
		memcpy(c->line + c->line_len, "\\N", 2);
		c->line_len += 2;
	}
	c->line[c->line_len++] = '\t';
	c->line_n = 0;
	c->last_ms = -1;
	return 0;
}

static int
on_sample(void *arg, const char *t, size_t tlen, const char *v, size_t vlen)
{
	conv	   *c = arg;
	int64_t		ms;
	char		digits[24];
	int			nd = 0,
				r;
	char	   *o;

	if (c->status == 2 || !c->samples_mode)
		return 0;
	if (at_prom_time_ms(t, tlen, &ms) != 0)
		return set_msg(c, "series %s: the time %.*s is not Unix seconds with at most 3 decimals, from 1970 to 9999",
					   c->labels, (int) (tlen > 64 ? 64 : tlen), t);
	if (ms <= c->last_ms)
		return set_msg(c, "series %s: the time %.*s does not follow the previous sample's", c->labels, (int) tlen, t);
	c->last_ms = ms;
	if (c->line_n == AT_PROM_LINE_SAMPLES && line_flush(c))
		return 1;
	o = c->line + c->line_len;
	if (c->line_n > 0)
		*o++ = ' ';
	do
	{
		digits[nd++] = (char) ('0' + ms % 10);
		ms /= 10;
	} while (ms > 0);
	while (nd > 0)
		*o++ = digits[--nd];
	*o++ = ':';
	r = at_prom_scale(o, AT_PROM_VALUE_MAX + 8, v, vlen, c->field->shift);
	if (r == AT_PROM_NONFINITE)
	{
		c->nskipped++;
		return 0;				/* the line is not extended */
	}
	if (r < 0)
	{
		char		q[AT_PJ_VALUE_MAX * 4 + 8];

		quote(q, sizeof(q), v, vlen);
		return set_msg(c, "series %s: the value \"%s\" at %.*s is not a finite decimal number (of at most %d bytes, within float8's range)",
					   c->labels, q, (int) tlen, t, AT_PROM_VALUE_MAX);
	}
	c->line_len = (size_t) (o + r - c->line);
	c->line_n++;
	c->nsamples++;
	return 0;
}

static int
on_series_end(void *arg)
{
	conv	   *c = arg;

	if (c->status == 2 || !c->samples_mode)
		return 0;
	return line_flush(c);
}

/* the message as COPY text: backslash, tab, newline, CR escaped; other controls as \x.. text */
static void
copy_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
	{
		unsigned char ch = (unsigned char) *s;

		if (ch == '\\')
			fputs("\\\\", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\r')
			fputs("\\r", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\\\x%02x", ch);
		else
			fputc(ch, f);
	}
}

/* exit 1: the message on stderr, and in samples mode an !error line */
static int
fail(conv *c)
{
	fprintf(stderr, "%s: %s\n", prog, c->msg);
	if (c->samples_mode)
	{
		fputs("!error\t\\N\t", stdout);
		copy_escaped(stdout, c->msg);
		fputc('\n', stdout);
	}
	fflush(stdout);
	return 1;
}

static int
convert(conv *c)
{
	at_pj_handler h = {c, on_text, on_data, on_series, on_sample, on_series_end};
	at_pj	   *p = at_pj_new(&h, 0);
	static char buf[CHUNK];
	int			res = AT_PJ_OK;

	if (p == NULL)
	{
		set_msg(c, "out of memory");
		return fail(c);
	}
	for (;;)
	{
		ssize_t		n = read(0, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
		{
			set_msg(c, "cannot read standard input: %s", strerror(errno));
			at_pj_free(p);
			return fail(c);
		}
		if (n == 0)
		{
			res = at_pj_finish(p);
			break;
		}
		if ((res = at_pj_feed(p, buf, (size_t) n)) != AT_PJ_OK)
			break;
	}
	if (res == AT_PJ_ERROR)
		set_msg(c, "the Prometheus response is not what was expected: %s", at_pj_message(p));
	else if (res == AT_PJ_NO_MEMORY)
		set_msg(c, "out of memory");
	at_pj_free(p);
	if (res != AT_PJ_OK)
		return fail(c);

	if (c->status == 2)
	{
		const char *et = c->error_type ? c->error_type : "none";
		const char *tx = c->error_text ? c->error_text : "";

		set_msg(c, "Prometheus answered an error (errorType %s): %s", et, tx);
		if (!c->written && (strcmp(et, "timeout") == 0 || strstr(tx, "query processing would load too many samples")))
		{
			fprintf(stderr, "%s: %s\n", prog, c->msg);
			return 3;
		}
		return fail(c);
	}
	if (c->status == 0)
	{
		set_msg(c, "the Prometheus response has no \"status\"");
		return fail(c);
	}
	if (!c->data_seen)
	{
		set_msg(c, "the Prometheus response has no \"data\"");
		return fail(c);
	}
	if (c->samples_mode)
	{
		if (!c->matrix)
		{
			set_msg(c, "the Prometheus response has no \"resultType\"");
			return fail(c);
		}
		printf("!end\t\\N\t%lld %lld %lld\n", c->nseries, c->nsamples, c->nskipped);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
	{
		fprintf(stderr, "%s: cannot write to standard output: %s\n", prog, strerror(errno));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static conv c;
	static char outbuf[1 << 16];
	const char *metric = NULL;
	int			rc;

	c.host_label = "Hostname";
	c.gpu_label = "gpu";
	c.job_label = "hpc_job";
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
	c.field = at_prom_field_of(metric, strlen(metric));
	if (c.field == NULL)
	{
		fprintf(stderr, "%s: --metric %s is not a DCGM field acmetrace reads (acmetrace-prometheus fields lists them)\n", prog, metric);
		return 2;
	}
	c.host_len = strlen(c.host_label);
	c.gpu_len = strlen(c.gpu_label);
	c.job_len = strlen(c.job_label);
	/* a line: series, job, AT_PROM_LINE_SAMPLES of " <ms>:<value>", newline */
	c.line = malloc(AT_PROM_SERIES_MAX + AT_PROM_JOB_MAX + 4 + (size_t) AT_PROM_LINE_SAMPLES * (1 + 16 + 1 + AT_PROM_VALUE_MAX + 8) + 2);
	if (c.line == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	rc = convert(&c);
	free(c.line);
	free(c.error_type);
	free(c.error_text);
	return rc;
}
