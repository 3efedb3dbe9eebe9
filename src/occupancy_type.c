/*
 * occupancy_type.c: acmetrace.occupancy input/output, binary send/receive,
 * and the fn_extra cache every accessor reads its argument through.
 *
 * Text form (JSON):  [["2023-07-01 00:00:00+00",8],["2023-07-01 01:00:00+00",0]]
 * Binary form:       version byte, int64 step count, then (int64 time,
 *                    int64 gpus) per step.
 * Both are checked to be canonical (src/core/occupancy.h) on the way in.
 *
 * Also acmetrace.occupancy_state's I/O (the aggregate's state, in
 * occupancy_agg.c), every form checked by occ_state_decode.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "occupancy_type.h"

PG_FUNCTION_INFO_V1(acmetrace_occupancy_in);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_out);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_recv);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_send);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_eq);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_state_in);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_state_out);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_state_recv);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_state_send);

OccData *
occ_alloc(Size room)
{
	/* huge: untouched room costs address space, not memory */
	OccData    *o = MemoryContextAllocHuge(CurrentMemoryContext, OCC_SIZE(room));

	at_occ_value_init(o);
	return o;
}

OccData *
occ_finish(OccData *o, Size n)
{
	if (n > OCC_MAX_STEPS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy has %zu steps, more than the %zu a value can hold", (size_t) n,
						(size_t) OCC_MAX_STEPS),
				 errhint("Aggregate fewer jobs per value, e.g. GROUP BY cluster or by month.")));
	SET_VARSIZE(o, OCC_SIZE(n));
	at_occ_value_finish(o, n);
	return o;
}

OccData *
occ_make(const at_occ_step *steps, Size n)
{
	OccData    *o = occ_alloc(n);

	if (n > 0 && n <= OCC_MAX_STEPS)
		memcpy(o->steps, steps, n * sizeof(at_occ_step));
	return occ_finish(o, n);
}

void
occ_check_steps(const at_occ_step *steps, Size n, int code)
{
	size_t		bad;
	const char *msg = at_occ_check(steps, n, MIN_TIMESTAMP, END_TIMESTAMP, &bad);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid occupancy: %s", msg),
				 errdetail("Step %zu of %zu.", bad + 1, (size_t) n),
				 errhint("An occupancy lists [time, gpus] steps with strictly increasing times and "
						 "each level different from the previous one, as acmetrace.occupancy_agg makes them.")));
}

/* ---- text ---- */

typedef struct parse_state
{
	at_occ_step *steps;
	Size		n;
	Size		cap;
} parse_state;

static void
add_pair(void *arg, const char *ts, size_t ts_len, int64_t gpus)
{
	parse_state *ps = arg;
	char	   *str = pnstrdup(ts, ts_len);

	if (ps->n == ps->cap)
	{
		if (ps->cap >= OCC_MAX_STEPS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("occupancy has more than %zu steps", (size_t) OCC_MAX_STEPS)));
		ps->cap = Min(ps->cap * 2, OCC_MAX_STEPS);
		ps->steps = repalloc(ps->steps, ps->cap * sizeof(at_occ_step));
	}
	ps->steps[ps->n].t = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in, CStringGetDatum(str),
																 ObjectIdGetDatum(InvalidOid),
																 Int32GetDatum(-1)));
	ps->steps[ps->n].gpus = gpus;
	ps->n++;
	pfree(str);
}

Datum
acmetrace_occupancy_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	parse_state ps;
	size_t		pos;
	const char *msg;

	ps.cap = 16;
	ps.n = 0;
	ps.steps = palloc(ps.cap * sizeof(at_occ_step));
	msg = at_occ_parse_text(s, strlen(s), add_pair, &ps, &pos);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type occupancy: \"%.*s%s\"",
						pg_mbcliplen(s, strlen(s), 60), s, strlen(s) > 60 ? "..." : ""),
				 errdetail("%s at byte %zu.", msg, pos + 1),
				 errhint("The text form is [[\"<timestamptz>\",<gpus>],...], e.g. "
						 "[[\"2023-07-01 00:00:00+00\",8],[\"2023-07-01 01:00:00+00\",0]].")));
	occ_check_steps(ps.steps, ps.n, ERRCODE_INVALID_TEXT_REPRESENTATION);
	PG_RETURN_POINTER(occ_make(ps.steps, ps.n));
}

Datum
acmetrace_occupancy_out(PG_FUNCTION_ARGS)
{
	const OccData *o = occ_arg(fcinfo, 0);
	StringInfoData buf;
	uint32		i;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (i = 0; i < o->nsteps; i++)
	{
		char	   *ts = DatumGetCString(DirectFunctionCall1(timestamptz_out,
															 TimestampTzGetDatum(o->steps[i].t)));

		appendStringInfo(&buf, "%s[\"%s\",%lld]", i > 0 ? "," : "", ts, (long long) o->steps[i].gpus);
		pfree(ts);
	}
	appendStringInfoChar(&buf, ']');
	PG_RETURN_CSTRING(buf.data);
}

/* ---- binary ---- */

Datum
acmetrace_occupancy_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version = pq_getmsgbyte(buf);
	int64		n;
	at_occ_step *steps;
	int64		i;

	if (version != OCC_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported binary occupancy version %d", version),
				 errhint("This acmetrace reads version %d.", OCC_VERSION)));
	n = pq_getmsgint64(buf);
	/* check the count against the bytes present before allocating */
	if (n < 0 || n > (int64) OCC_MAX_STEPS ||
		n > (int64) ((buf->len - buf->cursor) / (2 * sizeof(int64))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary occupancy claims %lld steps but holds %d bytes",
						(long long) n, buf->len - buf->cursor)));
	steps = palloc(Max(n, 1) * sizeof(at_occ_step));
	for (i = 0; i < n; i++)
	{
		steps[i].t = pq_getmsgint64(buf);
		steps[i].gpus = pq_getmsgint64(buf);
	}
	if (buf->cursor != buf->len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("binary occupancy has %d trailing bytes", buf->len - buf->cursor)));
	occ_check_steps(steps, n, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(occ_make(steps, n));
}

Datum
acmetrace_occupancy_send(PG_FUNCTION_ARGS)
{
	const OccData *o = occ_arg(fcinfo, 0);
	StringInfoData buf;
	uint32		i;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, OCC_VERSION);
	pq_sendint64(&buf, o->nsteps);
	for (i = 0; i < o->nsteps; i++)
	{
		pq_sendint64(&buf, o->steps[i].t);
		pq_sendint64(&buf, o->steps[i].gpus);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Canonical form makes equal functions byte-equal. */
Datum
acmetrace_occupancy_eq(PG_FUNCTION_ARGS)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *b = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));

	PG_RETURN_BOOL(VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
				   memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0);
}

/* ---- the argument cache ---- */

typedef struct OccCache
{
	MemoryContext cxt;			/* holds value and key; reset on a miss (first: at_fn_cache_renew) */
	int			kind;			/* KEY_* below */
	Size		keylen;
	uint64		fingerprint;
	char	   *key;
	OccData    *value;
	size_t		hint;			/* where the last lookup landed */
} OccCache;

#define KEY_NONE	0			/* not cacheable (indirect/expanded) */
#define KEY_TOAST	1			/* on-disk TOAST pointer: its bytes */
#define KEY_BYTES	2			/* short or compressed inline: its bytes */
#define KEY_PLAIN	3			/* in memory: size and stored fingerprint */

/* Values are only made by occ_make, in, recv: anything else is corruption. */
static void
occ_validate(const OccData *o)
{
	if (!at_occ_value_header_ok(o, VARSIZE(o)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupt occupancy value (version %d, %u steps, %u bytes)",
						o->version, o->nsteps, (unsigned) VARSIZE(o))));
	/* the accessors index within nsteps, but levels() needs sorted steps */
	occ_check_steps(o->steps, o->nsteps, ERRCODE_DATA_CORRUPTED);
}

const OccData *
occ_read(Datum d)
{
	OccData    *o = (OccData *) PG_DETOAST_DATUM(d);

	occ_validate(o);
	return o;
}

const OccData *
occ_arg(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	OccCache   *c = (OccCache *) fcinfo->flinfo->fn_extra;
	int			kind = KEY_NONE;
	Size		keylen = 0;
	uint64		fp = 0;
	MemoryContext old;

	if (VARATT_IS_EXTERNAL_ONDISK(v))
	{
		kind = KEY_TOAST;
		keylen = VARSIZE_EXTERNAL(v);
	}
	else if (VARATT_IS_EXTERNAL(v))
		kind = KEY_NONE;
	else if (VARATT_IS_SHORT(v) || VARATT_IS_COMPRESSED(v))
	{
		kind = KEY_BYTES;
		keylen = VARSIZE_ANY(v);
	}
	else if (VARSIZE(v) >= OCC_HEADER)
	{
		kind = KEY_PLAIN;
		keylen = VARSIZE(v);
		memcpy(&fp, (char *) v + offsetof(OccData, fingerprint), sizeof(fp));
	}

	if (c != NULL && kind != KEY_NONE && c->kind == kind && c->keylen == keylen &&
		(kind == KEY_PLAIN ? c->fingerprint == fp : memcmp(c->key, v, keylen) == 0))
		return c->value;

	c = at_fn_cache_renew(fcinfo, sizeof(OccCache), "acmetrace occupancy cache", ALLOCSET_DEFAULT_SIZES);
	c->kind = KEY_NONE;			/* invalid until validated */
	c->hint = 0;
	old = MemoryContextSwitchTo(c->cxt);
	c->value = (OccData *) PG_DETOAST_DATUM_COPY(d);
	occ_validate(c->value);
	/* the regression tests count these to prove the cache holds */
	elog(DEBUG1, "acmetrace: occupancy of %u steps read into the cache", c->value->nsteps);
	if (kind == KEY_TOAST || kind == KEY_BYTES)
	{
		c->key = palloc(keylen);
		memcpy(c->key, v, keylen);
	}
	MemoryContextSwitchTo(old);
	c->keylen = keylen;
	c->fingerprint = fp;
	c->kind = kind;
	return c->value;
}

size_t *
occ_arg_hint(FunctionCallInfo fcinfo)
{
	return &((OccCache *) fcinfo->flinfo->fn_extra)->hint;
}

/*
 * Decode serialized bytes into st, with memory from cxt (the one check of
 * every way in); ERROR with code if they are not a valid state.
 */
void
occ_state_decode(at_occ_state *st, const uint8 *buf, size_t len, MemoryContext cxt, int code)
{
	const char *msg = at_occ_state_decode(st, buf, len, MIN_TIMESTAMP, END_TIMESTAMP, at_cxt_mem, cxt,
										  occ_sort_steps);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid occupancy_state: %s", msg)));
}

/* Check serialized bytes, keeping nothing. */
static void
occ_state_validate(const uint8 *buf, size_t len, int code)
{
	at_occ_state st;

	occ_state_decode(&st, buf, len, CurrentMemoryContext, code);
	at_occ_state_free(&st);
}

/* ---- acmetrace.occupancy_state I/O ---- */

/* Text: "v1:" and the flat form's bytes in lower-case hexadecimal. */
Datum
acmetrace_occupancy_state_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	size_t		len = strlen(s),
				n = 0,
				pos;
	bytea	   *v = palloc(VARHDRSZ + len / 2 + 1);
	const char *msg = at_occ_state_text_read(s, len, (uint8 *) VARDATA(v), &n, &pos);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type occupancy_state: \"%.*s%s\"",
						pg_mbcliplen(s, len, 60), s, len > 60 ? "..." : ""),
				 errdetail("%s at byte %zu.", msg, pos + 1),
				 errhint("The text form is \"v1:\" and the state's bytes in lower-case hexadecimal, "
						 "as acmetrace.occupancy_state_out writes it.")));
	SET_VARSIZE(v, VARHDRSZ + n);
	occ_state_validate((const uint8 *) VARDATA(v), n, ERRCODE_INVALID_TEXT_REPRESENTATION);
	PG_RETURN_BYTEA_P(v);
}

Datum
acmetrace_occupancy_state_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	size_t		n = VARSIZE_ANY_EXHDR(v);
	char	   *out;

	if (n > (MaxAllocSize - 1 - at_occ_state_text_len(0)) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy_state of %zu bytes is too large for its text form", n),
				 errhint("Use the binary form (COPY ... (FORMAT binary)), or aggregate fewer jobs per group.")));
	out = palloc(at_occ_state_text_len(n) + 1);
	at_occ_state_text_write(out, (const uint8 *) VARDATA_ANY(v), n);
	PG_RETURN_CSTRING(out);
}

/* Binary: the flat form's bytes as they are. */
Datum
acmetrace_occupancy_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			n = buf->len - buf->cursor;
	bytea	   *v = palloc(VARHDRSZ + n);

	SET_VARSIZE(v, VARHDRSZ + n);
	pq_copymsgbytes(buf, VARDATA(v), n);
	occ_state_validate((const uint8 *) VARDATA(v), n, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_BYTEA_P(v);
}

Datum
acmetrace_occupancy_state_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
