/*
 * fuzz_prometheus_json.c: the Prometheus converter (at_pc, the code
 * tools/acmetrace-prometheus runs: the streaming JSON parser and its
 * callbacks) and the line parser of its output (at_prom_sample_next, which
 * the loader runs), with at_prom_scale and at_prom_time_ms.
 *
 * Byte 0 picks the mode (samples or series), the DCGM field (shift 0 or 2)
 * and the host label (Hostname or instance); bytes 1-2 pick a cut.  The
 * rest, the body, is converted three ways: whole, in two chunks split at
 * the cut (each copied into a buffer of exactly its size) and in chunks of
 * 1 to 8 bytes.  All three give the same exit status, output and message.
 * The output holds: exit 3 nothing; exit 0 in samples mode lines
 * "<series>\t<job or \N>\t<samples>" whose series at_prom_series_valid
 * accepts, whose job is \N or at_prom_job_valid, whose samples parse with
 * at_prom_sample_next (1 to AT_PROM_LINE_SAMPLES, finite, times increasing
 * within a line), then one !end line counting them; exit 1 in samples mode
 * ends with one !error line holding no tab or control character but its
 * separators.  The body is also read as a line's samples text: every pair
 * read lies inside it, a malformed one leaves the position at it.
 */
#include "fuzz_common.h"
#include "prometheus.h"
#include "prometheus_json.h"

typedef struct sink
{
	char	   *buf;
	size_t		len,
				cap;
} sink;

static int
sink_write(void *arg, const char *s, size_t n)
{
	sink	   *k = arg;

	if (k->len + n + 1 > k->cap)
	{
		k->cap = (k->len + n + 1) * 2;
		k->buf = realloc(k->buf, k->cap);
		FUZZ_CHECK(k->buf != NULL, "realloc");
	}
	memcpy(k->buf + k->len, s, n);
	k->len += n;
	k->buf[k->len] = '\0';
	return 0;
}

/* body through the converter in chunks: cut > 0 two, else 1..8 bytes each (0: whole) */
static int
run(const at_pc_options *base, const uint8_t *body, size_t len, size_t cut, int small, sink *k, char *msg)
{
	at_pc_options o = *base;
	at_pc	   *c;
	size_t		from = 0;
	int			rc,
				step = 1;

	o.arg = k;
	k->len = 0;
	c = at_pc_new(&o);
	FUZZ_CHECK(c != NULL, "at_pc_new");
	while (from < len)
	{
		size_t		n = len - from;
		char	   *chunk;
		int			stop;

		if (cut > 0 && from < cut)
			n = cut - from;
		else if (small)
		{
			n = (size_t) step < n ? (size_t) step : n;
			step = step % 8 + 1;
		}
		chunk = malloc(n);
		memcpy(chunk, body + from, n);
		stop = at_pc_feed(c, chunk, n);
		free(chunk);
		from += n;
		if (stop)
			break;
	}
	rc = at_pc_end(c, NULL);
	snprintf(msg, 2048, "%s", at_pc_message(c));
	at_pc_free(c);
	return rc;
}

static void
check_output(const at_pc_options *o, int rc, const sink *k)
{
	const char *s = k->buf ? k->buf : "",
			   *end = s + k->len;
	long long	lines = 0,
				samples = 0;

	FUZZ_CHECK(rc == AT_PC_OK || rc == AT_PC_FAILED || rc == AT_PC_RETRY, "exit status %d", rc);
	if (rc == AT_PC_RETRY)
	{
		FUZZ_CHECK(k->len == 0, "exit 3 wrote %zu bytes", k->len);
		return;
	}
	FUZZ_CHECK(k->len == 0 || end[-1] == '\n', "the output ends inside a line");
	while (s < end)
	{
		const char *nl = memchr(s, '\n', (size_t) (end - s)),
				   *t1,
				   *t2,
				   *p;
		int64_t		ms,
					prev = -1;
		double		v;
		int			r,
					n = 0;

		FUZZ_CHECK(nl != NULL, "no newline");
		if (strncmp(s, "!error\t\\N\t", 10) == 0)
		{
			FUZZ_CHECK(rc == AT_PC_FAILED && o->samples_mode && nl + 1 == end, "an !error line not last, or not exit 1");
			for (p = s + 10; p < nl; p++)
				FUZZ_CHECK((unsigned char) *p >= 0x20 && *p != 0x7f, "a control character in the message");
			return;
		}
		if (strncmp(s, "!end\t\\N\t", 8) == 0)
		{
			long long	a,
						b,
						cskip;
			char		tail[64];

			FUZZ_CHECK(o->samples_mode && rc == AT_PC_OK && nl + 1 == end, "an !end line not last");
			FUZZ_CHECK(nl - s - 8 < 60, "a long !end line");
			memcpy(tail, s + 8, (size_t) (nl - s - 8));
			tail[nl - s - 8] = '\0';
			FUZZ_CHECK(sscanf(tail, "%lld %lld %lld", &a, &b, &cskip) == 3 && b == samples && a >= 0 && cskip >= 0,
					   "!end counts %s, %lld samples written", tail, samples);
			return;
		}
		t1 = memchr(s, '\t', (size_t) (nl - s));
		FUZZ_CHECK(t1 != NULL && at_prom_series_valid(s, (size_t) (t1 - s)), "a line without a valid series");
		t2 = memchr(t1 + 1, '\t', (size_t) (nl - t1 - 1));
		if (!o->samples_mode)
		{
			FUZZ_CHECK(t2 == NULL, "a series line with 3 columns");
			t2 = nl;
		}
		FUZZ_CHECK(t2 != NULL, "a samples line without 3 columns");
		FUZZ_CHECK((t2 - t1 - 1 == 2 && memcmp(t1 + 1, "\\N", 2) == 0) || at_prom_job_valid(t1 + 1, (size_t) (t2 - t1 - 1)),
				   "a bad job");
		lines++;
		if (o->samples_mode)
		{
			p = t2 + 1;
			while ((r = at_prom_sample_next(&p, nl, &ms, &v)) == 1)
			{
				FUZZ_CHECK(ms > prev && isfinite(v), "a sample out of order or not finite");
				prev = ms;
				n++;
			}
			FUZZ_CHECK(r == 0 && n >= 1 && n <= AT_PROM_LINE_SAMPLES, "a line's samples: %d, %d", r, n);
			samples += n;
		}
		s = nl + 1;
	}
	/* no !end: series mode, or an !error line came */
	FUZZ_CHECK(!o->samples_mode || rc != AT_PC_OK, "exit 0 without !end");
	FUZZ_CHECK(o->samples_mode || rc == AT_PC_OK || rc == AT_PC_FAILED, "series mode");
}

/* the input as a line's samples text, and its values and times */
static void
line_text(const uint8_t *data, size_t size)
{
	char	   *c = malloc(size ? size : 1);
	const char *p,
			   *end;
	int64_t		ms;
	double		v;
	int			r;
	char		out[AT_PROM_VALUE_MAX + 8];

	memcpy(c, data, size);
	p = c;
	end = c + size;
	while ((r = at_prom_sample_next(&p, end, &ms, &v)) == 1)
		FUZZ_CHECK(p > c && p <= end && ms >= 0 && isfinite(v), "a pair read");
	FUZZ_CHECK(p >= c && p <= end, "the position left the text");
	for (int shift = 0; shift <= 2; shift += 2)
	{
		r = at_prom_scale(out, sizeof(out), c, size, shift);
		FUZZ_CHECK(r == AT_PROM_NONFINITE || r == AT_PROM_BAD_VALUE || (r > 0 && (size_t) r < sizeof(out)), "scale %d", r);
		if (r > 0)
		{
			char		line[AT_PROM_VALUE_MAX + 16];
			const char *q = line;

			FUZZ_CHECK(strlen(out) == (size_t) r, "scale's length");
			snprintf(line, sizeof(line), "0:%s", out);
			FUZZ_CHECK(at_prom_sample_next(&q, line + strlen(line), &ms, &v) == 1 && ms == 0 &&
					   v == strtod(out, NULL), "a scaled value reads back: %s", out);
		}
	}
	if (at_prom_time_ms(c, size, &ms) == 0)
		FUZZ_CHECK(ms >= 0 && ms <= INT64_C(253402300799999), "a time out of range");
	free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sink k1,
				k2,
				k3;
	static char m1[2048],
				m2[2048],
				m3[2048];
	at_pc_options o = {0};
	const uint8_t *body;
	size_t		len,
				cut;
	int			rc1,
				rc2,
				rc3;

	line_text(data, size);
	if (size < 3)
		return 0;
	o.samples_mode = !(data[0] & 1);
	o.dcgm = data[0] & 2 ? "DCGM_FI_PROF_SM_ACTIVE" : "DCGM_FI_DEV_GPU_UTIL";
	o.host_label = data[0] & 4 ? "instance" : NULL;
	o.write = sink_write;
	body = data + 3;
	len = size - 3;
	cut = len ? ((size_t) data[1] << 8 | data[2]) % (len + 1) : 0;

	rc1 = run(&o, body, len, 0, 0, &k1, m1);
	check_output(&o, rc1, &k1);
	rc2 = run(&o, body, len, cut, 0, &k2, m2);
	rc3 = run(&o, body, len, 0, 1, &k3, m3);
	FUZZ_CHECK(rc1 == rc2 && rc1 == rc3, "exit statuses %d %d %d (cut %zu)", rc1, rc2, rc3, cut);
	FUZZ_CHECK(k1.len == k2.len && k1.len == k3.len && (k1.len == 0 || (memcmp(k1.buf, k2.buf, k1.len) == 0 &&
																		memcmp(k1.buf, k3.buf, k1.len) == 0)),
			   "outputs differ (cut %zu)", cut);
	FUZZ_CHECK(strcmp(m1, m2) == 0 && strcmp(m1, m3) == 0, "messages differ: %s | %s | %s", m1, m2, m3);
	return 0;
}
