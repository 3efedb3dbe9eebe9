/*
 * sacct.c: one record of `sacct --parsable2` output, parsed and checked
 * (sacct.h says what each field accepts).
 */
#include "sacct.h"

#include <stdio.h>
#include <string.h>

static const char *const field_names[AT_SACCT_NFIELDS] = {
	"JobIDRaw", "JobID", "Cluster", "Partition", "QOS", "Account", "User", "JobName",
	"Submit", "Eligible", "Start", "End", "State", "ExitCode", "NNodes", "NCPUS",
	"ReqTRES", "AllocTRES", "Timelimit", "NodeList"
};

static const char *const state_names[AT_SACCT_NSTATES] = {
	"BOOT_FAIL", "CANCELLED", "COMPLETED", "COMPLETING", "DEADLINE", "FAILED", "NODE_FAIL",
	"OUT_OF_MEMORY", "PENDING", "PREEMPTED", "REQUEUED", "RESIZING", "REVOKED", "RUNNING",
	"SPECIAL_EXIT", "STOPPED", "SUSPENDED", "TIMEOUT"
};

const char *
at_sacct_field_name(int field)
{
	return field >= 0 && field < AT_SACCT_NFIELDS ? field_names[field] : NULL;
}

const char *
at_sacct_state_name(int state)
{
	return state >= 0 && state < AT_SACCT_NSTATES ? state_names[state] : NULL;
}

/* s[0..len) is exactly the NUL-terminated word w. */
static int
is(const char *s, size_t len, const char *w)
{
	return len == strlen(w) && (len == 0 || memcmp(s, w, len) == 0);
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* s[0..len) is 1 or more digits of a value <= max (no sign, no blank). */
static int
number(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;

	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
	{
		unsigned	d = (unsigned) (s[i] - '0');

		if (!is_digit(s[i]) || v > (max - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

/* exactly n digits at s, as an int */
static int
fixed(const char *s, int n, int *out)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (!is_digit(s[i]))
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

/* ---- times ---- */

static int
days_in_month(int y, int m)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

int
at_sacct_parse_time(const char *s, size_t len, at_sacct_time *t)
{
	memset(t, 0, sizeof(*t));
	if (len == 0 || is(s, len, "Unknown") || is(s, len, "None"))
		return 1;
	if (len != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
		!fixed(s, 4, &t->year) || !fixed(s + 5, 2, &t->mon) || !fixed(s + 8, 2, &t->mday) ||
		!fixed(s + 11, 2, &t->hour) || !fixed(s + 14, 2, &t->min) || !fixed(s + 17, 2, &t->sec))
		return 0;
	if (t->year < 1 || t->mon < 1 || t->mon > 12 || t->mday < 1 || t->mday > days_in_month(t->year, t->mon) ||
		t->hour > 23 || t->min > 59 || t->sec > 59)
		return 0;
	t->set = 1;
	return 1;
}

void
at_sacct_format_time(const at_sacct_time *t, char buf[20])
{
	snprintf(buf, 20, "%04u-%02u-%02uT%02u:%02u:%02u", (unsigned) t->year % 10000u, (unsigned) t->mon % 100u,
			 (unsigned) t->mday % 100u, (unsigned) t->hour % 100u, (unsigned) t->min % 100u, (unsigned) t->sec % 100u);
}

/* ---- Timelimit ---- */

int
at_sacct_parse_timelimit(const char *s, size_t len, int *set, int64_t *seconds)
{
	const char *dash = len ? memchr(s, '-', len) : NULL;
	uint64_t	days = 0;
	int			h = 0,
				m,
				sec;
	size_t		rest;

	*set = 0;
	*seconds = 0;
	if (len == 0 || is(s, len, "UNLIMITED") || is(s, len, "Partition_Limit"))
		return 1;
	if (dash != NULL && !number(s, (size_t) (dash - s), 999999999, &days))
		return 0;
	if (dash != NULL)
	{
		rest = len - (size_t) (dash - s) - 1;
		s = dash + 1;
		if (rest != 8)
			return 0;
	}
	else
		rest = len;
	if (rest == 8)
	{
		if (s[2] != ':' || s[5] != ':' || !fixed(s, 2, &h) || !fixed(s + 3, 2, &m) || !fixed(s + 6, 2, &sec))
			return 0;
	}
	else if (rest == 5)
	{
		if (s[2] != ':' || !fixed(s, 2, &m) || !fixed(s + 3, 2, &sec))
			return 0;
	}
	else
		return 0;
	if (h > 23 || m > 59 || sec > 59)
		return 0;
	*set = 1;
	*seconds = (int64_t) days * 86400 + h * 3600 + m * 60 + sec;
	return 1;
}

void
at_sacct_format_elapsed(int64_t seconds, char buf[24])
{
	int64_t		d = seconds / 86400,
				r = seconds % 86400;

	if (seconds < 0 || d > 999999999)
		snprintf(buf, 24, "INVALID");
	else if (d > 0)
		snprintf(buf, 24, "%d-%02d:%02d:%02d", (int) d, (int) (r / 3600), (int) (r / 60 % 60), (int) (r % 60));
	else
		snprintf(buf, 24, "%02d:%02d:%02d", (int) (r / 3600), (int) (r / 60 % 60), (int) (r % 60));
}

/* ---- job ids ---- */

/* [ranges]: a, a-b (a <= b) or either with :step, comma-separated, then an optional %N */
static int
array_ranges(const char *s, size_t len)
{
	size_t		i = 0;
	uint64_t	a = 0,
				b;

	if (len < 3 || s[0] != '[' || s[len - 1] != ']')
		return 0;
	s++;
	len -= 2;
	for (;;)
	{
		size_t		j = i;

		while (j < len && is_digit(s[j]))
			j++;
		if (!number(s + i, j - i, INT64_MAX, &a))
			return 0;
		b = a;
		if (j < len && s[j] == '-')
		{
			i = ++j;
			while (j < len && is_digit(s[j]))
				j++;
			if (!number(s + i, j - i, INT64_MAX, &b) || b < a)
				return 0;
		}
		if (j < len && s[j] == ':')
		{
			uint64_t	step = 0;

			i = ++j;
			while (j < len && is_digit(s[j]))
				j++;
			if (!number(s + i, j - i, INT64_MAX, &step) || step == 0)
				return 0;
		}
		if (j == len)
			return 1;
		if (s[j] == '%')
		{
			uint64_t	limit = 0;

			return number(s + j + 1, len - j - 1, INT64_MAX, &limit) && limit > 0;
		}
		if (s[j] != ',')
			return 0;
		i = j + 1;
	}
}

/* N, N_M, N_[ranges], N+K */
static int
job_id_form(const char *s, size_t len)
{
	size_t		i = 0;
	uint64_t	v = 0;

	while (i < len && is_digit(s[i]))
		i++;
	if (!number(s, i, INT64_MAX, &v))
		return 0;
	if (i == len)
		return 1;
	if (s[i] == '+')
		return number(s + i + 1, len - i - 1, INT64_MAX, &v);
	if (s[i] != '_')
		return 0;
	if (i + 1 < len && s[i + 1] == '[')
		return array_ranges(s + i + 1, len - i - 1);
	return number(s + i + 1, len - i - 1, INT64_MAX, &v);
}

/* a valid job id, a dot, and something: 123.batch, 123_4.0, 123+0.extern */
static int
is_step(const char *s, size_t len)
{
	const char *dot = len ? memchr(s, '.', len) : NULL;

	return dot != NULL && dot + 1 < s + len && job_id_form(s, (size_t) (dot - s));
}

/* ---- TRES ---- */

typedef struct tres
{
	int			gpus_set;		/* an untyped gres/gpu entry */
	int64_t		gpus;
	int64_t		typed;			/* sum of gres/gpu:<type> */
	at_sacct_str type;			/* the first type */
	int			has_mem;
	int64_t		mem_mb;
} tres;

static const char tres_hint[] =
	"TRES lists are name=value entries separated by commas, e.g. billing=16,cpu=16,gres/gpu:a100=8,gres/gpu=8,mem=500G,node=1.";

/*
 * <number>[.<at most 9 digits>][K|M|G|T|P][n|c] in MiB, rounded up; a bare
 * number is MiB.  0 if malformed or over INT64_MAX MiB.
 */
static int
mem_size(const char *s, size_t len, int64_t *mb)
{
	static const char units[] = "KMGTP";
	size_t		i = 0,
				j;
	uint64_t	ip = 0,
				fp = 0;
	int			fd = 0,
				unit = 1;		/* index in units: M */
	unsigned __int128 num,
				den = 1;

	while (i < len && is_digit(s[i]))
		i++;
	if (!number(s, i, 999999999999999999ULL, &ip))
		return 0;
	if (i < len && s[i] == '.')
	{
		j = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		fd = (int) (i - j);
		if (fd < 1 || fd > 9 || !number(s + j, i - j, 999999999, &fp))
			return 0;
	}
	if (i < len && memchr(units, s[i], 5) != NULL)
		unit = (int) ((const char *) memchr(units, s[i++], 5) - units);
	if (i < len && (s[i] == 'n' || s[i] == 'c'))
		i++;
	if (i != len)
		return 0;
	num = ip;
	for (int k = 0; k < fd; k++)
	{
		num *= 10;
		den *= 10;
	}
	num += fp;
	/* MiB = num / den * 1024^(unit - 1) */
	if (unit == 0)
		den *= 1024;
	for (int k = 1; k < unit; k++)
		num *= 1024;
	num = (num + den - 1) / den;
	if (num > INT64_MAX)
		return 0;
	*mb = (int64_t) num;
	return 1;
}

/*
 * One TRES list into *t.  0, or an error in *err (naming field).
 */
static int
parse_tres(const char *s, size_t len, int field, tres *t, at_sacct_error *err)
{
	size_t		i = 0;

	memset(t, 0, sizeof(*t));
	err->field = field;
	err->status = AT_SACCT_INVALID;
	while (len > 0)
	{
		const char *e = s + i,
				   *comma = memchr(e, ',', len - i),
				   *eq;
		size_t		elen = comma ? (size_t) (comma - e) : len - i;
		size_t		nlen;
		const char *v;
		size_t		vlen;
		uint64_t	n = 0;

		err->value.s = e;
		err->value.len = elen;
		eq = elen ? memchr(e, '=', elen) : NULL;
		if (elen == 0 || (comma != NULL && i + elen + 1 == len))
		{
			/* ",," ",x" or a trailing comma */
			err->value.s = s;
			err->value.len = len;
			err->what = "empty TRES entry in";
			err->hint = tres_hint;
			return 0;
		}
		if (eq == NULL || eq == e || eq + 1 == e + elen || memchr(eq + 1, '=', (size_t) (e + elen - eq - 1)))
		{
			err->what = "invalid TRES entry";
			err->hint = tres_hint;
			return 0;
		}
		nlen = (size_t) (eq - e);
		v = eq + 1;
		vlen = elen - nlen - 1;
		if (nlen == 9 && memcmp(e, "gres/gpu:", 9) == 0)
		{
			/* a GPU type that is empty */
			err->what = "invalid TRES entry";
			err->hint = tres_hint;
			return 0;
		}
		if (is(e, nlen, "gres/gpu") || (nlen > 9 && memcmp(e, "gres/gpu:", 9) == 0))
		{
			if (!number(v, vlen, INT32_MAX, &n))
			{
				err->what = "invalid GPU count in TRES entry";
				err->hint = "A gres/gpu entry's count is a whole number, 0 to 2147483647, e.g. gres/gpu=8 or gres/gpu:a100=8.";
				return 0;
			}
			if (nlen == 8)
			{
				if (t->gpus_set)
				{
					err->what = "second gres/gpu entry";
					err->hint = "A TRES list holds one untyped gres/gpu entry.";
					return 0;
				}
				t->gpus_set = 1;
				t->gpus = (int64_t) n;
			}
			else
			{
				t->typed += (int64_t) n;	/* at most len / 11 entries of < 2^31: no overflow */
				if (t->type.len == 0)
				{
					t->type.s = e + 9;
					t->type.len = nlen - 9;
				}
			}
		}
		else if (is(e, nlen, "mem"))
		{
			if (t->has_mem)
			{
				err->what = "second mem entry";
				err->hint = "A TRES list holds one mem entry.";
				return 0;
			}
			if (!mem_size(v, vlen, &t->mem_mb))
			{
				err->what = "invalid memory size in TRES entry";
				err->hint = "Memory is a number with a unit K, M, G, T or P (base 1024; none means M), e.g. mem=500G or mem=1.50T.";
				return 0;
			}
			t->has_mem = 1;
		}
		if (comma == NULL)
			break;
		i += elen + 1;
	}
	if (!t->gpus_set && t->typed > INT32_MAX)
	{
		err->value.s = s;
		err->value.len = len;
		err->what = "GPU count out of range in";
		err->hint = "The typed gres/gpu entries add up to more than 2147483647.";
		return 0;
	}
	if (!t->gpus_set)
		t->gpus = t->typed;
	return 1;
}

/* ---- the record ---- */

static int
fail(at_sacct_error *err, at_sacct_status st, int field, const at_sacct_str *v, const char *what, const char *hint)
{
	err->status = st;
	err->field = field;
	err->value = *v;
	err->what = what;
	err->hint = hint;
	return 0;
}

static const char time_hint[] =
	"Times are YYYY-MM-DDTHH:MM:SS (run sacct with TZ=UTC), or Unknown or None when not set.";
static const char step_hint[] =
	"Run sacct with --allocations (-X): acmetrace loads jobs, not their steps.";

static int
step(at_sacct_error *err, int field, const at_sacct_str *v)
{
	fail(err, AT_SACCT_STEP, field, v, NULL, step_hint);
	err->after = " is a job step";
	return 0;
}

static int
parse_state(const at_sacct_str *v, at_sacct_record *r, at_sacct_error *err)
{
	size_t		n = v->len;
	uint64_t	uid = 0;

	if (n == 0)
		return fail(err, AT_SACCT_INVALID, AT_SACCT_STATE, v, "missing state",
					"Every sacct line has a State, e.g. COMPLETED.");
	if (n > 13 && memcmp(v->s, "CANCELLED by ", 13) == 0)
	{
		if (!number(v->s + 13, n - 13, 4294967295U, &uid))
			return fail(err, AT_SACCT_INVALID, AT_SACCT_STATE, v, "invalid state",
						"A cancelled job's state is CANCELLED by <uid>, e.g. CANCELLED by 1000.");
		r->state = AT_SACCT_CANCELLED;
		r->cancelled_by.s = v->s + 13;
		r->cancelled_by.len = n - 13;
		return 1;
	}
	for (int k = 0; k < AT_SACCT_NSTATES; k++)
		if (is(v->s, n, state_names[k]))
		{
			r->state = (at_sacct_state) k;
			return 1;
		}
	return fail(err, AT_SACCT_INVALID, AT_SACCT_STATE, v, "unknown state",
				"States are BOOT_FAIL, CANCELLED (or CANCELLED by <uid>), COMPLETED, COMPLETING, DEADLINE, FAILED, NODE_FAIL, "
				"OUT_OF_MEMORY, PENDING, PREEMPTED, REQUEUED, RESIZING, REVOKED, RUNNING, SPECIAL_EXIT, STOPPED, SUSPENDED or TIMEOUT.");
}

static int
parse_exit(const at_sacct_str *v, at_sacct_record *r, at_sacct_error *err)
{
	const char *colon = v->len ? memchr(v->s, ':', v->len) : NULL;
	uint64_t	code = 0,
				sig;

	if (v->len == 0)
		return 1;
	if (colon == NULL || !number(v->s, (size_t) (colon - v->s), 255, &code) ||
		!number(colon + 1, v->len - (size_t) (colon - v->s) - 1, 255, &sig))
		return fail(err, AT_SACCT_INVALID, AT_SACCT_EXITCODE, v, "invalid exit code",
					"ExitCode is <code>:<signal>, each 0 to 255, e.g. 0:0, 3:0 or 0:9.");
	r->has_exit = 1;
	r->exit_code = (int) code;
	r->exit_signal = (int) sig;
	return 1;
}

static int
parse_count(const at_sacct_str *v, int field, int *has, int32_t *out, at_sacct_error *err)
{
	uint64_t	n = 0;

	if (v->len == 0)
		return 1;
	if (!number(v->s, v->len, INT32_MAX, &n))
		return fail(err, AT_SACCT_INVALID, field, v, "invalid count",
					"NNodes and NCPUS are whole numbers, 0 to 2147483647.");
	*has = 1;
	*out = (int32_t) n;
	return 1;
}

static int
parse_ids(const at_sacct_str *f, at_sacct_record *r, at_sacct_error *err)
{
	const at_sacct_str *raw = &f[AT_SACCT_JOBIDRAW],
			   *id = &f[AT_SACCT_JOBID];
	uint64_t	n = 0;

	/* a step first, in either field: the hint is the fix */
	if (is_step(id->s, id->len))
		return step(err, AT_SACCT_JOBID, id);
	if (is_step(raw->s, raw->len))
		return step(err, AT_SACCT_JOBIDRAW, raw);
	if (raw->len == 0 || raw->s[0] == '0' || !number(raw->s, raw->len, INT64_MAX, &n))
	{
		int			digits = raw->len > 0 && raw->s[0] != '0';

		for (size_t i = 0; i < raw->len && digits; i++)
			digits = is_digit(raw->s[i]);
		return fail(err, AT_SACCT_INVALID, AT_SACCT_JOBIDRAW, raw,
					digits ? "job id out of range" : "invalid job id",
					"JobIDRaw is the job's number: digits without a leading zero, 1 to 9223372036854775807.");
	}
	r->job_id = *raw;
	r->job_id_num = (int64_t) n;
	if (!job_id_form(id->s, id->len))
		return fail(err, AT_SACCT_INVALID, AT_SACCT_JOBID, id, "invalid job id",
					"JobID is N, N_M (array task), N_[ranges] (pending array tasks, e.g. 10_[0-2,5%2]) or N+K (heterogeneous job component).");
	r->slurm_job_id = *id;
	return 1;
}

at_sacct_status
at_sacct_parse(const at_sacct_str f[AT_SACCT_NFIELDS], at_sacct_record *r, at_sacct_error *err)
{
	static const int time_fields[4] = {AT_SACCT_SUBMIT, AT_SACCT_ELIGIBLE, AT_SACCT_START, AT_SACCT_END};
	at_sacct_time *times[4] = {&r->submit, &r->eligible, &r->start, &r->end};
	tres		req,
				alloc;
	const tres *use;

	memset(r, 0, sizeof(*r));
	memset(err, 0, sizeof(*err));
	if (!parse_ids(f, r, err))
		return err->status;
	r->cluster = f[AT_SACCT_CLUSTER];
	r->partition = f[AT_SACCT_PARTITION];
	r->qos = f[AT_SACCT_QOS];
	r->account = f[AT_SACCT_ACCOUNT];
	r->user = f[AT_SACCT_USER];
	r->job_name = f[AT_SACCT_JOBNAME];
	for (int k = 0; k < 4; k++)
		if (!at_sacct_parse_time(f[time_fields[k]].s, f[time_fields[k]].len, times[k]))
		{
			fail(err, AT_SACCT_INVALID_TIME, time_fields[k], &f[time_fields[k]], "invalid time", time_hint);
			return err->status;
		}
	if (!parse_state(&f[AT_SACCT_STATE], r, err) || !parse_exit(&f[AT_SACCT_EXITCODE], r, err) ||
		!parse_count(&f[AT_SACCT_NNODES], AT_SACCT_NNODES, &r->has_node_num, &r->node_num, err) ||
		!parse_count(&f[AT_SACCT_NCPUS], AT_SACCT_NCPUS, &r->has_cpu_num, &r->cpu_num, err) ||
		!parse_tres(f[AT_SACCT_REQTRES].s, f[AT_SACCT_REQTRES].len, AT_SACCT_REQTRES, &req, err) ||
		!parse_tres(f[AT_SACCT_ALLOCTRES].s, f[AT_SACCT_ALLOCTRES].len, AT_SACCT_ALLOCTRES, &alloc, err))
		return err->status;
	r->has_req_gpus = f[AT_SACCT_REQTRES].len > 0;
	r->req_gpus = (int32_t) req.gpus;
	r->has_alloc_gpus = f[AT_SACCT_ALLOCTRES].len > 0;
	r->alloc_gpus = (int32_t) alloc.gpus;
	use = r->has_alloc_gpus ? &alloc : &req;
	r->gpu_num = (int32_t) use->gpus;
	r->gpu_type = use->type.len ? use->type : (use == &alloc ? req.type : alloc.type);
	r->has_mem = alloc.has_mem || req.has_mem;
	r->mem_mb = alloc.has_mem ? alloc.mem_mb : req.mem_mb;
	if (!at_sacct_parse_timelimit(f[AT_SACCT_TIMELIMIT].s, f[AT_SACCT_TIMELIMIT].len, &r->has_timelimit,
								  &r->timelimit_s))
	{
		fail(err, AT_SACCT_INVALID, AT_SACCT_TIMELIMIT, &f[AT_SACCT_TIMELIMIT], "invalid time limit",
			 "Timelimit is [D-]HH:MM:SS or MM:SS, e.g. 1-00:00:00, or UNLIMITED or Partition_Limit.");
		return err->status;
	}
	if (!is(f[AT_SACCT_NODELIST].s, f[AT_SACCT_NODELIST].len, "None assigned"))
		r->nodelist = f[AT_SACCT_NODELIST];
	memset(err, 0, sizeof(*err));	/* the TRES lists wrote their fields */
	return AT_SACCT_OK;
}

size_t
at_sacct_message(const at_sacct_error *err, size_t value_max, char *buf, size_t cap)
{
	size_t		n = err->value.len < value_max ? err->value.len : value_max;
	int			w;

	if (n > INT32_MAX)
		n = INT32_MAX;
	w = snprintf(buf, cap, "%s%s\"%.*s%s\"%s", err->what ? err->what : "", err->what ? " " : "", (int) n,
				 n ? err->value.s : "", n < err->value.len ? "..." : "", err->after ? err->after : "");

	return w < 0 ? 0 : (size_t) w;
}

/* ---- Slurm host lists (NodeList) ---- */

/* One item of a bracket group: a number or a range lo-hi. */
typedef struct hl_item
{
	uint64_t	lo,
				hi;
	size_t		width;			/* digits of lo as written: the padding */
	size_t		next;			/* offset of the next item, or the group's ']' */
} hl_item;

/* One host of the list: s[start, end) with its bracket groups' contents. */
typedef struct hl_host
{
	size_t		start,
				end;
	int			ngroups;
	size_t		gs[AT_SACCT_HOSTLIST_GROUPS],	/* after the '[' */
				ge[AT_SACCT_HOSTLIST_GROUPS];	/* at the ']' */
} hl_host;

#define HL_DIGITS 18

/* The digits at s[*p, e): at most HL_DIGITS, at least one. */
static const char *
hl_number(const char *s, size_t *p, size_t e, uint64_t *v, size_t *width)
{
	size_t		q = *p;

	while (q < e && is_digit(s[q]))
		q++;
	if (q == *p)
		return "a bracket group item that is not a number or a range a-b";
	if (q - *p > HL_DIGITS)
		return "a number of more than 18 digits";
	(void) number(s + *p, q - *p, UINT64_MAX, v);
	*width = q - *p;
	*p = q;
	return NULL;
}

/* The item at s[p] of a group ending at e; on an error *at is where. */
static const char *
hl_item_at(const char *s, size_t p, size_t e, hl_item *it, size_t *at)
{
	const char *why;
	size_t		w;

	if ((why = hl_number(s, &p, e, &it->lo, &it->width)) != NULL)
		goto bad;
	it->hi = it->lo;
	if (p < e && s[p] == '-')
	{
		p++;
		if ((why = hl_number(s, &p, e, &it->hi, &w)) != NULL)
			goto bad;
		if (it->hi < it->lo)
		{
			why = "a range whose end is below its start";
			goto bad;
		}
	}
	if (p < e && s[p] != ',')
	{
		why = "a bracket group holding something other than digits, '-' and ','";
		goto bad;
	}
	if (p < e && ++p == e)
	{
		why = "an empty item at the end of a bracket group";
		goto bad;
	}
	it->next = p;
	return NULL;
bad:
	*at = p;
	return why;
}

static uint64_t
hl_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
hl_sat_mul(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static size_t
hl_digits(uint64_t v)
{
	size_t		n = 1;

	while (v >= 10)
	{
		v /= 10;
		n++;
	}
	return n;
}

/*
 * The host starting at s[p]: its extent and groups, each group checked;
 * *hosts its host count (saturated).  On an error *at is where.
 */
static const char *
hl_host_at(const char *s, size_t len, size_t p, hl_host *h, uint64_t *hosts, size_t *at)
{
	size_t		bytes = 0;		/* the longest host it writes */

	h->start = p;
	h->ngroups = 0;
	*hosts = 1;
	for (; p < len && s[p] != ','; p++)
	{
		unsigned char c = (unsigned char) s[p];

		if (c == ']')
			return *at = p, "a ']' without its '['";
		if (c <= ' ')
			return *at = p, "a blank or control character";
		if (c != '[')
		{
			bytes++;
			continue;
		}
		if (h->ngroups == AT_SACCT_HOSTLIST_GROUPS)
			return *at = p, "more than 8 bracket groups in one host name";
		h->gs[h->ngroups] = ++p;
		while (p < len && s[p] != ']' && s[p] != '[')
			p++;
		if (p == len)
			return *at = p, "a '[' without its ']'";
		if (s[p] == '[')
			return *at = p, "a '[' inside a bracket group";
		h->ge[h->ngroups] = p;
		{
			size_t		q = h->gs[h->ngroups],
						widest = 0;
			uint64_t	n = 0;
			hl_item		it;
			const char *why;

			do
			{
				if ((why = hl_item_at(s, q, p, &it, at)) != NULL)
					return why;
				n = hl_sat_add(n, it.hi - it.lo + 1 == 0 ? UINT64_MAX : it.hi - it.lo + 1);
				widest = it.width > widest ? it.width : widest;
				widest = hl_digits(it.hi) > widest ? hl_digits(it.hi) : widest;
				q = it.next;
			} while (q < p);
			*hosts = hl_sat_mul(*hosts, n);
			bytes += widest;
		}
		h->ngroups++;
	}
	h->end = p;
	if (p == h->start)
		return *at = p, "an empty host name";
	if (bytes > AT_SACCT_HOST_MAX)
		return *at = h->start, "a host name of more than 255 bytes";
	return NULL;
}

/* v written with at least width digits, zero-padded, at buf; returns the bytes */
static size_t
hl_format(uint64_t v, size_t width, char *buf)
{
	char		tmp[24];
	size_t		n = 0,
				k = 0;

	do
	{
		tmp[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (; width > n; width--)
		buf[k++] = '0';
	while (n > 0)
		buf[k++] = tmp[--n];
	return k;
}

/* Every host of h, the last group varying fastest. */
static int
hl_emit(const char *s, const hl_host *h, at_sacct_host_fn emit, void *arg)
{
	hl_item		cur[AT_SACCT_HOSTLIST_GROUPS];
	uint64_t	val[AT_SACCT_HOSTLIST_GROUPS];
	char		buf[AT_SACCT_HOST_MAX + 1];
	size_t		at;
	int			g,
				rc;

	for (g = 0; g < h->ngroups; g++)
	{
		(void) hl_item_at(s, h->gs[g], h->ge[g], &cur[g], &at);
		val[g] = cur[g].lo;
	}
	for (;;)
	{
		size_t		n = 0,
					from = h->start;

		for (g = 0; g < h->ngroups; g++)
		{
			memcpy(buf + n, s + from, h->gs[g] - 1 - from);
			n += h->gs[g] - 1 - from;
			n += hl_format(val[g], cur[g].width, buf + n);
			from = h->ge[g] + 1;
		}
		memcpy(buf + n, s + from, h->end - from);
		n += h->end - from;
		buf[n] = '\0';
		if ((rc = emit(arg, buf, n)) != 0)
			return rc;
		for (g = h->ngroups - 1; g >= 0; g--)
		{
			if (val[g] < cur[g].hi)
			{
				val[g]++;
				break;
			}
			if (cur[g].next < h->ge[g])
			{
				(void) hl_item_at(s, cur[g].next, h->ge[g], &cur[g], &at);
				val[g] = cur[g].lo;
				break;
			}
			/* past the group's last item: back to its first, carry */
			(void) hl_item_at(s, h->gs[g], h->ge[g], &cur[g], &at);
			val[g] = cur[g].lo;
		}
		if (g < 0)
			return 0;
	}
}

int
at_sacct_hostlist(const char *s, size_t len, uint64_t max_hosts, at_sacct_host_fn emit, void *arg,
				  uint64_t *count, const char **what, size_t *at)
{
	hl_host		h;
	uint64_t	total = 0,
				n;
	size_t		p;
	int			rc;

	*count = 0;
	*what = NULL;
	*at = 0;
	if (len == 0)
		return AT_SACCT_HOSTLIST_OK;
	/* check everything and count before the first host is written */
	for (p = 0;; p = h.end + 1)
	{
		if ((*what = hl_host_at(s, len, p, &h, &n, at)) != NULL)
			return AT_SACCT_HOSTLIST_INVALID;
		total = hl_sat_add(total, n);
		if (h.end == len)
			break;
	}
	*count = total;
	if (total > max_hosts)
		return AT_SACCT_HOSTLIST_TOO_MANY;
	for (p = 0;; p = h.end + 1)
	{
		(void) hl_host_at(s, len, p, &h, &n, at);
		if ((rc = hl_emit(s, &h, emit, arg)) != 0)
			return rc;
		if (h.end == len)
			break;
	}
	return AT_SACCT_HOSTLIST_OK;
}
