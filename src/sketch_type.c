/*
 * sketch_type.c: acmetrace.delay_sketch input/output, binary send/receive,
 * and the fn_extra cache the accessors read their argument through.
 *
 * Text form:   v1 err=0.005 n=3 zeros=1 min=0 max=20 sum=32 int=1 b=249:1,+51:1
 * Binary form: the serialized bytes of src/core/sketch.h.
 * Both are checked field by field and stored re-encoded, so a stored value
 * is always canonical.  The aggregates' state is the same type, expanded
 * (SkEO); its flat form is these bytes.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "glue.h"
#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_sketch_in);
PG_FUNCTION_INFO_V1(acmetrace_sketch_out);
PG_FUNCTION_INFO_V1(acmetrace_sketch_recv);
PG_FUNCTION_INFO_V1(acmetrace_sketch_send);

#define SK_HINT_FORMAT \
	"A delay_sketch is written as acmetrace.delay_sketch_agg prints it: " \
	"v1 err=<relative error> n=<count> zeros=<count> min=<x> max=<x> sum=<x> int=<0|1> b=<index>:<count>,+<step>:<count>..."

bytea *
sk_flatten(const at_sketch *sk)
{
	bytea	   *out = palloc(VARHDRSZ + at_sk_encoded_bound(sk));
	size_t		n = at_sk_encode(sk, (unsigned char *) VARDATA(out));

	SET_VARSIZE(out, VARHDRSZ + n);
	return out;
}

void
sk_read(at_sketch *sk, const char *data, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_sk_decode(sk, (const unsigned char *) data, len, at_cxt_mem, cxt);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid delay_sketch: %s", msg),
				 errdetail("The value is %zu bytes long.", (size_t) len),
				 errhint("Sketches come from acmetrace.delay_sketch_agg or acmetrace.rollup; "
						 "the binary form is versioned and checked field by field.")));
}

void
sk_raise(at_sk_err e, double value)
{
	switch (e)
	{
		case AT_SK_OK:
			return;
		case AT_SK_ENEGATIVE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("delay_sketch values must not be negative: %g", value),
					 errhint("Leave negative values out (WHERE value >= 0) or sketch their magnitude separately; "
							 "a start before the submit time is a data error acmetrace.audit() reports.")));
			break;
		case AT_SK_ENONFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("delay_sketch values must be finite: %g", value),
					 errhint("Leave NaN and infinite values out of the aggregate.")));
			break;
		case AT_SK_ESPAN:
			/* merging has no one value to name */
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 isnan(value) ?
					 errmsg("delay_sketch values span more than %d buckets", AT_SK_MAX_BUCKETS) :
					 errmsg("delay_sketch values span more than %d buckets (value %g)", AT_SK_MAX_BUCKETS, value),
					 errhint("Use a larger relative_error: at 0.005 a sketch spans 71 orders of magnitude, at 0.001 about 14.")));
			break;
		case AT_SK_EALPHA:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot merge delay_sketches with different relative errors"),
					 errhint("Roll up sketches built with the same relative_error "
							 "(acmetrace.relative_error(sketch) shows it).")));
			break;
		case AT_SK_EOVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("delay_sketch count overflows 64 bits")));
			break;
		case AT_SK_ESUM:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 isnan(value) ?
					 errmsg("delay_sketch sum overflows float8") :
					 errmsg("delay_sketch sum overflows float8 (value %g)", value),
					 errhint("The values add up past 1.8e308; sketch them in a smaller unit or leave the huge ones out.")));
			break;
		case AT_SK_ENOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in delay_sketch")));
			break;
	}
}

/* ---- the expanded form ---- */

static Size
sk_eo_flat_size(ExpandedObjectHeader *eoh)
{
	return VARHDRSZ + at_sk_encoded_size(&((SkEO *) eoh)->sk);
}

static void
sk_eo_flatten(ExpandedObjectHeader *eoh, void *result, Size allocated_size)
{
	const at_sketch *sk = &((SkEO *) eoh)->sk;

	/* the size was asked for just before; a mismatch would overrun result */
	if (allocated_size != VARHDRSZ + at_sk_encoded_size(sk))
		elog(ERROR, "delay_sketch flattened into %zu bytes, not %zu",
			 (size_t) allocated_size, (size_t) (VARHDRSZ + at_sk_encoded_size(sk)));
	at_sk_encode(sk, (unsigned char *) VARDATA(result));
	SET_VARSIZE(result, allocated_size);
}

const ExpandedObjectMethods sk_eo_methods = {
	sk_eo_flat_size,
	sk_eo_flatten
};

static SkEO *
sk_eo_of(Datum d)
{
	Pointer		p = DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(p))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &sk_eo_methods)
			return (SkEO *) eoh;
	}
	return NULL;
}

SkEO *
sk_eo_new(MemoryContext parent, double alpha)
{
	SkEO	   *eo = at_eo_new(parent, &sk_eo_methods, sizeof(SkEO), "delay_sketch");

	at_sk_init(&eo->sk, alpha, at_cxt_mem, eo->hdr.eoh_context);
	return eo;
}

SkEO *
sk_eo_copy(MemoryContext parent, Datum d, int code)
{
	SkEO	   *src = sk_eo_of(d);
	SkEO	   *eo;

	if (src != NULL)
	{
		at_sk_err	e;

		eo = sk_eo_new(parent, src->sk.alpha);
		e = at_sk_merge(&eo->sk, &src->sk);
		if (e != AT_SK_OK)
			sk_raise(e, get_float8_nan());
		eo->sk.integral = src->sk.integral; /* kept by an empty sketch too */
	}
	else
	{
		struct varlena *raw = (struct varlena *) DatumGetPointer(d);
		struct varlena *v = pg_detoast_datum_packed(raw);

		eo = at_eo_new(parent, &sk_eo_methods, sizeof(SkEO), "delay_sketch");
		sk_read(&eo->sk, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), eo->hdr.eoh_context, code);
		if (v != raw)
			pfree(v);
	}
	return eo;
}

const at_sketch *
sk_view(Datum d, at_sketch *tmp, bool *decoded, int code)
{
	SkEO	   *eo = sk_eo_of(d);
	struct varlena *raw;
	struct varlena *v;

	*decoded = false;
	if (eo != NULL)
		return &eo->sk;
	raw = (struct varlena *) DatumGetPointer(d);
	v = pg_detoast_datum_packed(raw);
	sk_read(tmp, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext, code);
	if (v != raw)
		pfree(v);
	*decoded = true;
	return tmp;
}

/* ---- text ---- */

Datum
acmetrace_sketch_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	at_sketch	sk;
	size_t		pos = 0;
	const char *msg = at_sk_parse(&sk, s, at_cxt_mem, CurrentMemoryContext, &pos);
	bytea	   *out;

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type delay_sketch: %s", msg),
				 errdetail("At character %zu.", pos + 1),
				 errhint(SK_HINT_FORMAT)));
	out = sk_flatten(&sk);
	at_sk_free(&sk);
	PG_RETURN_BYTEA_P(out);
}

/* An expanded value (an aggregate's state, as Citus prints it) is read in place. */
Datum
acmetrace_sketch_out(PG_FUNCTION_ARGS)
{
	at_sketch	tmp;
	bool		decoded;
	const at_sketch *sk = sk_view(PG_GETARG_DATUM(0), &tmp, &decoded, ERRCODE_DATA_CORRUPTED);
	size_t		len;
	char	   *buf;

	len = at_sk_format(sk, NULL, 0);
	buf = palloc(len + 1);
	at_sk_format(sk, buf, len + 1);
	if (decoded)
		at_sk_free(&tmp);
	PG_RETURN_CSTRING(buf);
}

/* ---- binary ---- */

Datum
acmetrace_sketch_recv(PG_FUNCTION_ARGS)
{
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;
	const char *data = pq_getmsgbytes(msg, len);
	at_sketch	sk;
	bytea	   *out;

	sk_read(&sk, data, len, CurrentMemoryContext, ERRCODE_INVALID_BINARY_REPRESENTATION);
	out = sk_flatten(&sk);
	at_sk_free(&sk);
	PG_RETURN_BYTEA_P(out);
}

Datum
acmetrace_sketch_send(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- the accessors' cache ---- */

typedef struct SkCache
{
	bool		valid;
	Size		keylen;
	char	   *key;			/* the argument's raw bytes: TOAST pointer or inline value */
	at_sketch	sk;
} SkCache;

const at_sketch *
sk_arg(FunctionCallInfo fcinfo, int argno)
{
	MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	Size		rawlen = VARSIZE_ANY(raw);
	SkCache    *c = fcinfo->flinfo->fn_extra;
	SkEO	   *eo = sk_eo_of(PointerGetDatum(raw));
	struct varlena *v;
	at_sk_err	e;

	/*
	 * An expanded value (a read-write one may change between calls) is read
	 * in place, unprepared: a linear scan of its buckets per question beats
	 * a flatten and a decode.
	 */
	if (eo != NULL)
		return &eo->sk;
	if (c == NULL)
		c = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(cxt, sizeof(SkCache));
	if (c->valid && c->keylen == rawlen && memcmp(c->key, raw, rawlen) == 0)
		return &c->sk;
	if (c->valid)
	{
		at_sk_free(&c->sk);
		pfree(c->key);
		c->valid = false;
	}
	v = pg_detoast_datum_packed(raw);
	sk_read(&c->sk, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), cxt, ERRCODE_DATA_CORRUPTED);
	e = at_sk_prepare(&c->sk);
	if (e != AT_SK_OK)
		sk_raise(e, 0);
	c->key = MemoryContextAlloc(cxt, rawlen);
	memcpy(c->key, raw, rawlen);
	c->keylen = rawlen;
	c->valid = true;
	if (v != raw)
		pfree(v);
	ereport(DEBUG1, (errmsg_internal("acmetrace: delay_sketch of %llu values read into the cache",
									 (unsigned long long) c->sk.count)));
	return &c->sk;
}
