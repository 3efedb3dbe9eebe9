/*
 * fuzz_occupancy_text.c: the occupancy text input, at_occ_parse_text, and what
 * acmetrace_occupancy_in (src/occupancy_type.c) does with its pairs.
 *
 * The input is the text.  The core parser finds the [["<timestamp>",<gpus>],
 * ...] pairs and hands each timestamp's text to a callback; the glue turns
 * it into a timestamptz with PostgreSQL's timestamptz_in, which is not core
 * code, so here a stand-in reads "infinity", "-infinity" or a signed
 * decimal count of microseconds (anything else is refused, as
 * timestamptz_in would raise an error).  Checks: every pair's text lies
 * inside the input between quotes with no escape or control character; an
 * error's position is inside the input; steps that pass at_occ_check (the
 * glue's canonical-form check, over PostgreSQL's timestamp range) answer
 * every query like brute force (fuzz_occupancy.h), and print to a text that
 * parses back to the same steps.
 */
#include "fuzz_occupancy.h"

typedef struct pairs
{
	const char *s;
	size_t		len;
	at_occ_step *steps;
	size_t		n;
	size_t		cap;
	int			bad_time;		/* timestamptz_in would have raised an error */
} pairs;

/* The stand-in for timestamptz_in: 0 if the text is not a time here. */
static int
fake_time(const char *ts, size_t len, int64_t *out)
{
	uint64_t	v = 0;
	size_t		i = 0;
	int			neg = 0;

	if (len == 8 && memcmp(ts, "infinity", 8) == 0)
	{
		*out = AT_OCC_NOEND;
		return 1;
	}
	if (len == 9 && memcmp(ts, "-infinity", 9) == 0)
	{
		*out = AT_OCC_NOBEGIN;
		return 1;
	}
	if (i < len && ts[i] == '-')
	{
		neg = 1;
		i++;
	}
	if (i == len || len - i > 18)
		return 0;				/* 18 digits cannot overflow */
	for (; i < len; i++)
	{
		if (ts[i] < '0' || ts[i] > '9')
			return 0;
		v = v * 10 + (uint64_t) (ts[i] - '0');
	}
	*out = neg ? -(int64_t) v : (int64_t) v;
	return 1;
}

static void
collect(void *arg, const char *ts, size_t ts_len, int64_t gpus)
{
	pairs	   *p = arg;
	int64_t		t = 0;

	FUZZ_CHECK(ts > p->s && ts_len <= p->len && ts + ts_len < p->s + p->len,
			   "timestamp text outside the input");
	FUZZ_CHECK(ts[-1] == '"' && ts[ts_len] == '"', "timestamp text not between quotes");
	for (size_t i = 0; i < ts_len; i++)
		FUZZ_CHECK(ts[i] != '"' && ts[i] != '\\' && (unsigned char) ts[i] >= 0x20,
				   "quote, escape or control character in a timestamp");
	if (!fake_time(ts, ts_len, &t))
		p->bad_time = 1;
	if (p->n == p->cap)
	{
		p->cap = p->cap ? 2 * p->cap : 16;
		p->steps = realloc(p->steps, p->cap * sizeof(at_occ_step));
	}
	p->steps[p->n].t = t;
	p->steps[p->n].gpus = gpus;
	p->n++;
}

/* occupancy_out's form, with the stand-in's times; a malloc'd string. */
static char *
print_steps(const at_occ_step *s, size_t n, size_t *len)
{
	char	   *out = malloc(3 + n * 64),
			   *p = out;

	*p++ = '[';
	for (size_t i = 0; i < n; i++)
	{
		const char *sep = i > 0 ? ", " : "";

		if (s[i].t == AT_OCC_NOBEGIN)
			p += sprintf(p, "%s[\"-infinity\",%lld]", sep, (long long) s[i].gpus);
		else
			p += sprintf(p, "%s[ \"%lld\" , %lld ]", sep, (long long) s[i].t, (long long) s[i].gpus);
	}
	*p++ = ']';
	*p = '\0';
	*len = (size_t) (p - out);
	return out;
}

static void
parse(const char *s, size_t len, pairs *p, const char **msg, size_t *pos)
{
	memset(p, 0, sizeof(*p));
	p->s = s;
	p->len = len;
	*pos = SIZE_MAX;
	*msg = at_occ_parse_text(s, len, collect, p, pos);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: reading past it is an ASan error */
	char	   *s = malloc(size ? size : 1);
	pairs		p;
	const char *msg;
	size_t		pos,
				bad;

	memcpy(s, data, size);
	parse(s, size, &p, &msg, &pos);
	if (msg != NULL)
		FUZZ_CHECK(pos <= size, "error position %zu past the input's %zu bytes", pos, size);
	else
	{
		FUZZ_CHECK(p.n <= size / 6, "%zu pairs from %zu bytes", p.n, size);
		if (!p.bad_time &&
			at_occ_check(p.steps, p.n, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, &bad) == NULL)
		{
			int64_t		pts[8];
			size_t		npts = 0,
						len;
			char	   *text;
			pairs		back;

			for (size_t i = 0; i < p.n && npts < 8; i++)
				pts[npts++] = p.steps[i].gpus;
			occ_queries(p.steps, p.n, pts, npts);

			text = print_steps(p.steps, p.n, &len);
			parse(text, len, &back, &msg, &pos);
			FUZZ_CHECK(msg == NULL && !back.bad_time && back.n == p.n &&
					   (p.n == 0 || memcmp(back.steps, p.steps, p.n * sizeof(at_occ_step)) == 0),
					   "printed steps \"%s\" do not parse back: %s", text, msg ? msg : "different steps");
			free(back.steps);
			free(text);
		}
	}
	free(p.steps);
	free(s);
	return 0;
}
