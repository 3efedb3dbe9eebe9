/*
 * fuzz_sacct.c: the sacct record parser (at_sacct_parse, what
 * acmetrace_internal.sacct_parse runs per line) and its time and Timelimit
 * readers.
 *
 * The input is used three ways:
 *  - as a line: split at 0x1f (sacct --delimiter=$'\x1f') into the 20
 *    fields (missing ones empty, extra ones dropped);
 *  - when its first byte is 0x80 or more: as one field (number first byte
 *    % 20) of a valid line, the rest of the input being that field;
 *  - whole, as a time and as a Timelimit;
 *  - whole, as a Slurm host list (at_sacct_hostlist, at most 4,096 hosts):
 *    either refused before any host is written (with the fault's offset
 *    inside the input), or as many hosts written as counted, each 1 to 255
 *    bytes without `[`, `]`, `,` or blanks and NUL-terminated; each host
 *    alone expands to itself, the hosts joined by commas expand to the
 *    same hosts, and a second expansion gives the same ones.
 * Every field is copied into a buffer of exactly its length, so reading
 * past a field is an ASan error.  On an error: the field and status agree
 * (times give INVALID_TIME, steps are JobID or JobIDRaw and hold a dot),
 * the value lies inside the field, the hint is a sentence and the message
 * holds the value.  On success every result is checked against the input:
 * text results are the fields (or point inside them), a time set formats
 * back to the field's very bytes and is a real calendar day (a round trip
 * through a day count) and the parser accepts exactly the calendar days
 * at the end of its month and on Feb 29 of the years around it, a Timelimit formats and parses back to the same
 * seconds, the state prints back as the field, the GPU counts equal a
 * brute-force count of the TRES entries, and a second parse gives the same
 * record.
 */
#include "fuzz_common.h"
#include "sacct.h"

static const char *const valid[AT_SACCT_NFIELDS] = {
	"4242", "4242", "acme", "gpu", "normal", "proj", "alice", "train", "2023-07-01T08:00:00", "2023-07-01T08:00:00",
	"2023-07-01T08:05:00", "Unknown", "RUNNING", "0:0", "1", "16", "billing=16,cpu=16,gres/gpu:a100=8,mem=500G,node=1",
	"billing=16,cpu=16,gres/gpu=8,mem=500G,node=1", "1-00:00:00", "node01"
};

/* days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms) */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t		era,
				doe,
				yoe,
				doy,
				mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int
str_eq(at_sacct_str a, const char *s, size_t len)
{
	return a.len == len && (len == 0 || memcmp(a.s, s, len) == 0);
}

static int
inside(at_sacct_str part, at_sacct_str whole)
{
	return part.len == 0 || (part.s >= whole.s && part.len <= whole.len && part.s + part.len <= whole.s + whole.len);
}

/* y-m-d is a calendar day: it survives a round trip through a day count */
static int
calendar_day(int64_t y, int m, int d)
{
	int64_t		y2;
	int			m2,
				d2;

	civil_from_days(days_from_civil(y, m, d), &y2, &m2, &d2);
	return y2 == y && m2 == m && d2 == d;
}

/*
 * The days around t's that the parser must accept exactly when they are
 * calendar days: the ends of t's month, and Feb 29 of t's year and of the
 * years before it that are multiples of 4, 100 and 400 (the leap rules).
 */
static void
check_calendar(const at_sacct_time *t)
{
	int64_t		years[4] = {t->year, t->year - t->year % 4, t->year - t->year % 100, t->year - t->year % 400};

	for (int k = 0; k < 8; k++)
	{
		int64_t		y = k < 4 ? t->year : years[k - 4];
		int			m = k < 4 ? t->mon : 2,
					d = k < 4 ? 28 + k : 29;
		char		buf[20];
		at_sacct_time x = *t;

		if (y < 1)
			continue;
		x.year = (int) y;
		x.mon = m;
		x.mday = d;
		at_sacct_format_time(&x, buf);
		FUZZ_CHECK(at_sacct_parse_time(buf, 19, &x) == calendar_day(y, m, d), "%s accepted: %d", buf, !calendar_day(y, m, d));
	}
}

/* A time field: set, it formats back to its bytes and is a calendar day; unset, it said so. */
static void
check_time(const at_sacct_time *t, at_sacct_str f)
{
	char		buf[20];
	at_sacct_time back;

	if (!t->set)
	{
		FUZZ_CHECK(f.len == 0 || str_eq(f, "Unknown", 7) || str_eq(f, "None", 4), "unset time from %zu bytes", f.len);
		return;
	}
	at_sacct_format_time(t, buf);
	FUZZ_CHECK(str_eq(f, buf, 19), "time %s from another text", buf);
	FUZZ_CHECK(at_sacct_parse_time(buf, 19, &back) && memcmp(&back, t, sizeof(back)) == 0, "%s parses back otherwise",
			   buf);
	FUZZ_CHECK(calendar_day(t->year, t->mon, t->mday), "%s is not a calendar day", buf);
	check_calendar(t);
	FUZZ_CHECK(t->year >= 1 && t->hour <= 23 && t->min <= 59 && t->sec <= 59, "%s out of range", buf);
}

/* the digits at s[0..len) (a count the parser accepted) */
static int64_t
digits(const char *s, size_t len)
{
	int64_t		v = 0;

	for (size_t i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* GPUs of a TRES list, brute force: the untyped gres/gpu count, else the sum of the typed ones */
static int64_t
tres_gpus(at_sacct_str f)
{
	int64_t		untyped = -1,
				typed = 0;
	size_t		i = 0;

	while (i < f.len)
	{
		size_t		j = i;
		const char *e = f.s + i;

		while (j < f.len && f.s[j] != ',')
			j++;
		if (j - i > 9 && memcmp(e, "gres/gpu=", 9) == 0)
			untyped = digits(e + 9, j - i - 9);
		else if (j - i > 9 && memcmp(e, "gres/gpu:", 9) == 0)
		{
			size_t		eq = 9;

			while (e[eq] != '=')
				eq++;
			typed += digits(e + eq + 1, j - i - eq - 1);
		}
		i = j + 1;
	}
	return untyped >= 0 ? untyped : typed;
}

static void
check_record(const at_sacct_str *f, const at_sacct_record *r)
{
	const at_sacct_str *raw = &f[AT_SACCT_JOBIDRAW];
	int64_t		id = 0;
	char		buf[24];
	int			set;
	int64_t		secs;
	const char *state;

	/* JobIDRaw: digits, no leading zero, its value */
	FUZZ_CHECK(str_eq(r->job_id, raw->s, raw->len) && raw->len > 0 && raw->s[0] != '0', "job id");
	for (size_t i = 0; i < raw->len; i++)
	{
		FUZZ_CHECK(raw->s[i] >= '0' && raw->s[i] <= '9', "JobIDRaw byte %zu", i);
		id = id * 10 + (raw->s[i] - '0');
	}
	FUZZ_CHECK(id == r->job_id_num && id > 0, "job id %lld", (long long) r->job_id_num);
	FUZZ_CHECK(str_eq(r->slurm_job_id, f[AT_SACCT_JOBID].s, f[AT_SACCT_JOBID].len) && r->slurm_job_id.len > 0 &&
			   memchr(r->slurm_job_id.s, '.', r->slurm_job_id.len) == NULL, "JobID");
	FUZZ_CHECK(str_eq(r->cluster, f[2].s, f[2].len) && str_eq(r->partition, f[3].s, f[3].len) &&
			   str_eq(r->qos, f[4].s, f[4].len) && str_eq(r->account, f[5].s, f[5].len) &&
			   str_eq(r->user, f[6].s, f[6].len) && str_eq(r->job_name, f[7].s, f[7].len), "text fields");
	check_time(&r->submit, f[AT_SACCT_SUBMIT]);
	check_time(&r->eligible, f[AT_SACCT_ELIGIBLE]);
	check_time(&r->start, f[AT_SACCT_START]);
	check_time(&r->end, f[AT_SACCT_END]);
	/* the state prints back as the field */
	state = at_sacct_state_name(r->state);
	FUZZ_CHECK(state != NULL, "state %d", (int) r->state);
	if (r->cancelled_by.len)
	{
		FUZZ_CHECK(r->state == AT_SACCT_CANCELLED && f[AT_SACCT_STATE].len == 13 + r->cancelled_by.len &&
				   memcmp(f[AT_SACCT_STATE].s, "CANCELLED by ", 13) == 0 &&
				   r->cancelled_by.s == f[AT_SACCT_STATE].s + 13, "cancelled by");
		for (size_t i = 0; i < r->cancelled_by.len; i++)
			FUZZ_CHECK(r->cancelled_by.s[i] >= '0' && r->cancelled_by.s[i] <= '9', "uid byte %zu", i);
	}
	else
		FUZZ_CHECK(str_eq(f[AT_SACCT_STATE], state, strlen(state)), "state %s from another text", state);
	FUZZ_CHECK(r->has_exit == (f[AT_SACCT_EXITCODE].len > 0) && r->exit_code >= 0 && r->exit_code <= 255 &&
			   r->exit_signal >= 0 && r->exit_signal <= 255, "exit %d:%d", r->exit_code, r->exit_signal);
	FUZZ_CHECK(r->has_node_num == (f[AT_SACCT_NNODES].len > 0) && r->node_num >= 0 &&
			   r->has_cpu_num == (f[AT_SACCT_NCPUS].len > 0) && r->cpu_num >= 0, "counts");
	/* GPUs: the list used, brute force */
	FUZZ_CHECK(r->has_req_gpus == (f[AT_SACCT_REQTRES].len > 0) && r->has_alloc_gpus == (f[AT_SACCT_ALLOCTRES].len > 0),
			   "which TRES");
	FUZZ_CHECK(r->req_gpus == tres_gpus(f[AT_SACCT_REQTRES]) && r->alloc_gpus == tres_gpus(f[AT_SACCT_ALLOCTRES]),
			   "GPUs %d, %d", r->req_gpus, r->alloc_gpus);
	FUZZ_CHECK(r->gpu_num == (r->has_alloc_gpus ? r->alloc_gpus : r->req_gpus) && r->gpu_num >= 0, "gpu_num %d",
			   r->gpu_num);
	FUZZ_CHECK(inside(r->gpu_type, f[AT_SACCT_REQTRES]) || inside(r->gpu_type, f[AT_SACCT_ALLOCTRES]), "gpu_type");
	if (r->gpu_type.len)
		FUZZ_CHECK(memcmp(r->gpu_type.s - 9, "gres/gpu:", 9) == 0 && memchr(r->gpu_type.s, '=', r->gpu_type.len) == NULL &&
				   r->gpu_type.s[r->gpu_type.len] == '=', "gpu_type is not a gres/gpu type");
	FUZZ_CHECK(!r->has_mem || r->mem_mb >= 0, "mem %lld", (long long) r->mem_mb);
	/* Timelimit: set, it formats and parses back */
	if (r->has_timelimit)
	{
		at_sacct_format_elapsed(r->timelimit_s, buf);
		FUZZ_CHECK(at_sacct_parse_timelimit(buf, strlen(buf), &set, &secs) && set && secs == r->timelimit_s,
				   "Timelimit %lld as %s", (long long) r->timelimit_s, buf);
	}
	else
		FUZZ_CHECK(f[AT_SACCT_TIMELIMIT].len == 0 || str_eq(f[AT_SACCT_TIMELIMIT], "UNLIMITED", 9) ||
				   str_eq(f[AT_SACCT_TIMELIMIT], "Partition_Limit", 15), "unset Timelimit");
	if (r->nodelist.len == 0)
		FUZZ_CHECK(f[AT_SACCT_NODELIST].len == 0 || str_eq(f[AT_SACCT_NODELIST], "None assigned", 13), "unset NodeList");
	else
		FUZZ_CHECK(str_eq(r->nodelist, f[AT_SACCT_NODELIST].s, f[AT_SACCT_NODELIST].len), "NodeList");
}

static void
check_error(const at_sacct_str *f, at_sacct_status st, const at_sacct_error *e)
{
	char		msg[256];
	size_t		n;
	int			k = e->field;

	FUZZ_CHECK(st == e->status && (st == AT_SACCT_STEP || st == AT_SACCT_INVALID_TIME || st == AT_SACCT_INVALID),
			   "status %d", (int) st);
	FUZZ_CHECK(k >= 0 && k < AT_SACCT_NFIELDS && at_sacct_field_name(k) != NULL, "field %d", k);
	FUZZ_CHECK((st == AT_SACCT_INVALID_TIME) == (k >= AT_SACCT_SUBMIT && k <= AT_SACCT_END), "time status in field %d", k);
	if (st == AT_SACCT_STEP)
		FUZZ_CHECK((k == AT_SACCT_JOBID || k == AT_SACCT_JOBIDRAW) && e->value.len > 0 &&
				   memchr(e->value.s, '.', e->value.len) != NULL, "step in field %d", k);
	FUZZ_CHECK(inside(e->value, f[k]), "the value is outside field %d", k);
	FUZZ_CHECK(e->hint != NULL && strlen(e->hint) > 10, "no hint");
	n = at_sacct_message(e, 64, msg, sizeof(msg));
	FUZZ_CHECK(n == strlen(msg) && n < sizeof(msg), "message of %zu bytes", n);
	if (e->value.len == 0 || memchr(e->value.s, 0, e->value.len < 64 ? e->value.len : 64) == NULL)
	{
		/* no NUL in what is printed: exactly what, the value (cut at 64 bytes), after */
		char		want[256];
		size_t		w = 0,
					vl = e->value.len < 64 ? e->value.len : 64;

		if (e->what)
			w += (size_t) snprintf(want, sizeof(want), "%s ", e->what);
		want[w++] = '"';
		if (vl)
			memcpy(want + w, e->value.s, vl);
		w += vl;
		w += (size_t) snprintf(want + w, sizeof(want) - w, "%s\"%s", e->value.len > 64 ? "..." : "",
							   e->after ? e->after : "");
		FUZZ_CHECK(n == w && memcmp(msg, want, w) == 0, "message \"%s\" is not \"%s\"", msg, want);
	}
}

/* Parses the fields, copied into buffers of exactly their length, and checks. */
static void
parse(const char *const *s, const size_t *len)
{
	at_sacct_str f[AT_SACCT_NFIELDS];
	char	   *copy[AT_SACCT_NFIELDS];
	at_sacct_record r,
				r2;
	at_sacct_error e,
				e2;
	at_sacct_status st;

	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
	{
		copy[k] = len[k] ? malloc(len[k]) : NULL;
		if (len[k])
			memcpy(copy[k], s[k], len[k]);
		f[k].s = copy[k];
		f[k].len = len[k];
	}
	st = at_sacct_parse(f, &r, &e);
	if (st == AT_SACCT_OK)
	{
		FUZZ_CHECK(e.status == AT_SACCT_OK, "OK with an error");
		check_record(f, &r);
	}
	else
		check_error(f, st, &e);
	FUZZ_CHECK(at_sacct_parse(f, &r2, &e2) == st && (st != AT_SACCT_OK || memcmp(&r, &r2, sizeof(r)) == 0) &&
			   (st == AT_SACCT_OK || memcmp(&e, &e2, sizeof(e)) == 0), "a second parse differs");
	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
		free(copy[k]);
}

/* host list expansion: the hosts written, joined by commas */
typedef struct hl_out
{
	char	   *buf;
	size_t		len,
				cap;
	uint64_t	n;
} hl_out;

static int
hl_add(void *arg, const char *host, size_t len)
{
	hl_out	   *o = arg;

	FUZZ_CHECK(len >= 1 && len <= AT_SACCT_HOST_MAX && host[len] == '\0', "host of %zu bytes", len);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(host[i] != '[' && host[i] != ']' && host[i] != ',' && (unsigned char) host[i] > ' ',
				   "host \"%s\" holds byte %zu", host, i);
	if (o->len + len + 1 > o->cap)
	{
		o->cap = (o->len + len + 1) * 2;
		o->buf = realloc(o->buf, o->cap);
	}
	if (o->n++ > 0)
		o->buf[o->len++] = ',';
	memcpy(o->buf + o->len, host, len);
	o->len += len;
	return 0;
}

/* host alone: itself */
static int
hl_self(void *arg, const char *host, size_t len)
{
	const char *want = arg;

	FUZZ_CHECK(strlen(want) == len && memcmp(want, host, len) == 0, "host \"%s\" expands to \"%s\"", want, host);
	return 0;
}

static void
check_hostlist(const char *s, size_t len)
{
	hl_out		o = {NULL, 0, 0, 0},
				o2 = {NULL, 0, 0, 0},
				o3 = {NULL, 0, 0, 0};
	uint64_t	count,
				count2;
	const char *what;
	size_t		at;
	int			rc = at_sacct_hostlist(s, len, 4096, hl_add, &o, &count, &what, &at);

	if (rc == AT_SACCT_HOSTLIST_INVALID)
	{
		FUZZ_CHECK(o.n == 0 && what != NULL && at <= len, "refused after %llu hosts", (unsigned long long) o.n);
		return;
	}
	if (rc == AT_SACCT_HOSTLIST_TOO_MANY)
	{
		FUZZ_CHECK(o.n == 0 && count > 4096, "too many: %llu counted, %llu written", (unsigned long long) count,
				   (unsigned long long) o.n);
		return;
	}
	FUZZ_CHECK(rc == AT_SACCT_HOSTLIST_OK && count == o.n, "%llu counted, %llu written", (unsigned long long) count,
			   (unsigned long long) o.n);
	FUZZ_CHECK(at_sacct_hostlist(s, len, 4096, hl_add, &o2, &count2, &what, &at) == AT_SACCT_HOSTLIST_OK &&
			   o2.len == o.len && (o.len == 0 || memcmp(o.buf, o2.buf, o.len) == 0), "a second expansion differs");
	if (o.n > 0)
	{
		FUZZ_CHECK(at_sacct_hostlist(o.buf, o.len, 4096, hl_add, &o3, &count2, &what, &at) == AT_SACCT_HOSTLIST_OK &&
				   o3.len == o.len && memcmp(o.buf, o3.buf, o.len) == 0, "the joined hosts expand to others");
		for (size_t i = 0, j; i < o.len; i = j + 1)
		{
			char	   *one;

			for (j = i; j < o.len && o.buf[j] != ','; j++)
				;
			one = malloc(j - i + 1);
			memcpy(one, o.buf + i, j - i);
			one[j - i] = '\0';
			FUZZ_CHECK(at_sacct_hostlist(one, j - i, 1, hl_self, one, &count2, &what, &at) == AT_SACCT_HOSTLIST_OK &&
					   count2 == 1, "host \"%s\" is not a host list of itself", one);
			free(one);
		}
	}
	free(o.buf);
	free(o2.buf);
	free(o3.buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *) data;
	const char *s[AT_SACCT_NFIELDS];
	size_t		len[AT_SACCT_NFIELDS];
	size_t		i = 0;
	at_sacct_time t;
	int			set;
	int64_t		secs;
	char	   *whole = malloc(size ? size : 1);

	/* as a line */
	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
	{
		const char *sep = i < size ? memchr(in + i, 0x1f, size - i) : NULL;
		size_t		n = i < size ? (sep ? (size_t) (sep - (in + i)) : size - i) : 0;

		s[k] = i < size ? in + i : "";
		len[k] = n;
		i += n + 1;
	}
	parse(s, len);

	/* as one field of a valid line */
	if (size > 0 && data[0] >= 0x80)
	{
		for (int k = 0; k < AT_SACCT_NFIELDS; k++)
		{
			s[k] = valid[k];
			len[k] = strlen(valid[k]);
		}
		s[data[0] % AT_SACCT_NFIELDS] = in + 1;
		len[data[0] % AT_SACCT_NFIELDS] = size - 1;
		parse(s, len);
	}

	/* as a time and a Timelimit */
	memcpy(whole, data, size);
	if (at_sacct_parse_time(whole, size, &t))
	{
		at_sacct_str f = {whole, size};

		check_time(&t, f);
	}
	if (at_sacct_parse_timelimit(whole, size, &set, &secs) && set)
	{
		char		buf[24];
		int			set2;
		int64_t		secs2;

		FUZZ_CHECK(secs >= 0 && secs <= 999999999LL * 86400 + 86399, "Timelimit %lld", (long long) secs);
		at_sacct_format_elapsed(secs, buf);
		FUZZ_CHECK(at_sacct_parse_timelimit(buf, strlen(buf), &set2, &secs2) && set2 && secs2 == secs,
				   "Timelimit %lld as %s", (long long) secs, buf);
	}
	check_hostlist(whole, size);
	free(whole);
	return 0;
}
