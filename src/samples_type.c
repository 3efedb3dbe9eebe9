/*
 * samples_type.c: the type acmetrace.samples (a compressed run of one
 * series' samples, src/core/samples.h) and its functions; its expanded
 * form (SamplesEO, src/samples_type.h) is samples_agg's state
 * (src/samples_agg.c) and a samples_between window.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "glue.h"
#include "samples_type.h"

PG_FUNCTION_INFO_V1(acmetrace_samples_in);
PG_FUNCTION_INFO_V1(acmetrace_samples_out);
PG_FUNCTION_INFO_V1(acmetrace_samples_recv);
PG_FUNCTION_INFO_V1(acmetrace_samples_send);
PG_FUNCTION_INFO_V1(acmetrace_samples_info);
PG_FUNCTION_INFO_V1(acmetrace_samples_unnest);
PG_FUNCTION_INFO_V1(acmetrace_samples_between);
PG_FUNCTION_INFO_V1(acmetrace_samples_sum);

#define SAMPLES_HINT_FORMAT \
	"A samples value is written as acmetrace.samples_out prints it: v1: and the block's bytes in lower-case hexadecimal."

/* ---- the expanded object (samples_agg's state) ---- */

void
samples_eo_values(SamplesEO *eo)
{
	if (eo->v != NULL)
		return;
	eo->v = MemoryContextAlloc(eo->hdr.eoh_context, sizeof(double) * Max(eo->n, 1));
	for (int32 i = 0; i < eo->n; i++)
		eo->v[i] = (double) eo->m[i] / at_p10[eo->scale];
}

static void
eo_encode(SamplesEO *eo)
{
	at_samples_conflict c;
	int64		dups = 0;
	MemoryContext old;

	if (eo->flat != NULL)
		return;
	samples_eo_values(eo);
	if (!eo->sorted)
	{
		if (at_samples_sort_dedup(eo->ts, eo->v, &eo->n, &dups, &c) != 0)
			samples_conflict_error(NULL, &c);
		eo->sorted = true;
	}
	old = MemoryContextSwitchTo(eo->hdr.eoh_context);
	eo->flat = palloc(at_samples_encode_bound(eo->n));
	MemoryContextSwitchTo(old);
	eo->flat_len = at_samples_encode(eo->ts, eo->v, eo->n, eo->flat);
}

static Size
samples_get_flat_size(ExpandedObjectHeader *eohptr)
{
	SamplesEO  *eo = (SamplesEO *) eohptr;

	eo_encode(eo);
	return VARHDRSZ + eo->flat_len;
}

static void
samples_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SamplesEO  *eo = (SamplesEO *) eohptr;

	eo_encode(eo);
	Assert(allocated_size == VARHDRSZ + eo->flat_len);
	SET_VARSIZE(result, allocated_size);
	memcpy(VARDATA(result), eo->flat, eo->flat_len);
}

const ExpandedObjectMethods samples_methods = {samples_get_flat_size, samples_flatten_into};

SamplesEO *
samples_eo_new(MemoryContext parent, const char *name)
{
	SamplesEO  *eo = at_eo_new(parent, &samples_methods, sizeof(SamplesEO), name);

	eo->sorted = true;
	return eo;
}

SamplesEO *
samples_eo_of(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) && DatumGetEOHP(d)->eoh_methods == &samples_methods)
		return (SamplesEO *) DatumGetEOHP(d);
	return NULL;
}

/* ---- shared helpers ---- */

bool
samples_window_arrays(Datum d, int32 *n, const double **v, const int64 **m, int32 *scale,
					  int64 *mlo, int64 *mhi)
{
	SamplesEO  *eo = samples_eo_of(d);

	if (eo == NULL || (eo->m == NULL && eo->v == NULL) || !eo->sorted)
		return false;
	*n = eo->n;
	*v = eo->v;
	*m = eo->m;
	*scale = eo->scale;
	*mlo = eo->mlo;
	*mhi = eo->mhi;
	return true;
}

const unsigned char *
samples_bytes(Datum d, size_t *len)
{
	SamplesEO  *eo = samples_eo_of(d);
	struct varlena *v;

	if (eo != NULL)
	{
		eo_encode(eo);
		*len = eo->flat_len;
		return eo->flat;
	}
	v = (struct varlena *) DatumGetPointer(d);
	if (VARATT_IS_EXTERNAL_EXPANDED(v))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);
		Size		sz = EOH_get_flat_size(eoh);

		v = palloc(sz);
		EOH_flatten_into(eoh, v, sz);
	}
	else
		v = PG_DETOAST_DATUM(d);
	*len = VARSIZE(v) - VARHDRSZ;
	return (const unsigned char *) VARDATA(v);
}

Datum
samples_from_bytes(const unsigned char *buf, size_t len)
{
	struct varlena *out = palloc(VARHDRSZ + len);

	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), buf, len);
	return PointerGetDatum(out);
}

Datum
samples_make(const int64 *ts, const double *v, int32 n)
{
	struct varlena *out = palloc(VARHDRSZ + at_samples_encode_bound(n));
	size_t		len = at_samples_encode(ts, v, n, (unsigned char *) VARDATA(out));

	SET_VARSIZE(out, VARHDRSZ + len);
	return PointerGetDatum(out);
}

/*
 * Scaled blocks: their integers summed exactly, as decimal text.  Raw
 * doubles: the sum of value::numeric, as SQL would add them.
 */
Datum
samples_sum(const unsigned char *b, size_t len, const at_samples_info *info)
{
	char		text[80];
	Datum		sum;
	double	   *v;

	if (at_samples_sum_text(b, len, text, sizeof text) == 0)
		return DirectFunctionCall3(numeric_in, CStringGetDatum(text), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	v = palloc(sizeof(double) * info->n);
	at_samples_decode(b, len, NULL, v);
	sum = DirectFunctionCall1(float8_numeric, Float8GetDatum(v[0]));
	for (int32 i = 1; i < info->n; i++)
		sum = DirectFunctionCall2(numeric_add, sum, DirectFunctionCall1(float8_numeric, Float8GetDatum(v[i])));
	pfree(v);
	return sum;
}

char *
samples_ts_text(int64 ts)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum((TimestampTz) ts)));
}

void
samples_conflict_error(const char *series, const at_samples_conflict *c)
{
	char		a[32],
				b[32];

	snprintf(a, sizeof a, "%.17g", c->old_value);
	snprintf(b, sizeof b, "%.17g", c->new_value);
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 series ? errmsg("series \"%s\" has two values at %s: %s and %s", series, samples_ts_text(c->ts), a, b)
			 : errmsg("two values at %s: %s and %s", samples_ts_text(c->ts), a, b),
			 errdetail("A sample is stored once per series and time; the same value again is skipped, a different one is refused."),
			 errhint("Check which file holds the right value and remove the other sample before loading.")));
}

/* ---- text and binary forms ---- */

Datum
acmetrace_samples_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	size_t		slen = strlen(s);
	struct varlena *out = palloc(VARHDRSZ + slen / 2 + 1);
	size_t		len = 0,
				pos = 0;
	const char *msg = at_samples_parse(s, slen, (unsigned char *) VARDATA(out), &len, &pos);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type samples: %s", msg),
				 errdetail("At character %zu.", pos + 1),
				 errhint(SAMPLES_HINT_FORMAT)));
	SET_VARSIZE(out, VARHDRSZ + len);
	PG_RETURN_POINTER(out);
}

Datum
acmetrace_samples_out(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	char	   *out = palloc(at_samples_text_size(len));

	at_samples_format(b, len, out);
	PG_RETURN_CSTRING(out);
}

Datum
acmetrace_samples_recv(PG_FUNCTION_ARGS)
{
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;
	const char *data = pq_getmsgbytes(msg, len);
	at_samples_info info;
	const char *err = at_samples_check((const unsigned char *) data, len, &info);

	if (err != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid samples: %s", err),
				 errdetail("The value is %d bytes long.", len),
				 errhint("The binary form is the block of acmetrace.samples_send, versioned and checked field by field.")));
	PG_RETURN_DATUM(samples_from_bytes((const unsigned char *) data, len));
}

Datum
acmetrace_samples_send(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) b, len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- functions ---- */

/* samples_info(samples) -> (samples int, first_ts, last_ts, min, max, decimals int, bytes int) */
Datum
acmetrace_samples_info(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	at_samples_info info;
	TupleDesc	td;
	Datum		values[7];
	bool		nulls[7] = {false, false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "samples_info must return a record");
	td = BlessTupleDesc(td);
	at_samples_info_read(b, &info);
	values[0] = Int32GetDatum(info.n);
	values[1] = TimestampTzGetDatum(info.first_ts);
	values[2] = TimestampTzGetDatum(info.last_ts);
	values[3] = Float8GetDatum(info.min);
	values[4] = Float8GetDatum(info.max);
	if (info.scale >= 0)
		values[5] = Int32GetDatum(info.scale);
	else
		nulls[5] = true;
	values[6] = Int32GetDatum((int32) (len + VARHDRSZ));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, values, nulls)));
}

/* unnest(samples) -> SETOF (ts timestamptz, value float8), in time order */
Datum
acmetrace_samples_unnest(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	size_t		len;
	const unsigned char *b;
	at_samples_info info;
	int64	   *ts;
	double	   *v;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	b = samples_bytes(PG_GETARG_DATUM(0), &len);
	at_samples_info_read(b, &info);
	ts = palloc(sizeof(int64) * info.n);
	v = palloc(sizeof(double) * info.n);
	at_samples_decode(b, len, ts, v);
	for (int32 i = 0; i < info.n; i++)
	{
		values[0] = TimestampTzGetDatum(ts[i]);
		values[1] = Float8GetDatum(v[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * samples_between(samples, from, to): the samples with from <= ts < to, or
 * NULL when there are none.  Strict.
 */
Datum
acmetrace_samples_between(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	TimestampTz from = PG_GETARG_TIMESTAMPTZ(1);
	TimestampTz to = PG_GETARG_TIMESTAMPTZ(2);
	at_samples_info info;
	int32		n = 0;

	at_samples_info_read(b, &info);
	if (from <= info.first_ts && to > info.last_ts)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (from > info.last_ts || to <= info.first_ts || from >= to)
		PG_RETURN_NULL();
	/*
	 * The window decoded into an expanded samples value: an aggregate reads
	 * its arrays directly (bins over scaled integers by table), and it is
	 * encoded only if it is stored or printed.
	 */
	{
		SamplesEO  *eo = samples_eo_new(CurrentMemoryContext, "acmetrace samples window");
		MemoryContext ecxt = eo->hdr.eoh_context;
		int32		room = at_samples_window_room(b, from, to);

		eo->scale = info.scale;
		/* times and values in one allocation (a window never grows) */
		eo->ts = MemoryContextAlloc(ecxt, 2 * sizeof(int64) * room);
		if (info.scale >= 0)
		{
			/* the window's integers lie in the block's: one more each side for rounding */
			at_samples_int_bounds(&info, &eo->mlo, &eo->mhi);
			eo->m = eo->ts + room;
			n = at_samples_window(b, len, from, to, eo->ts, NULL, eo->m);
		}
		else
		{
			eo->v = (double *) (eo->ts + room);
			n = at_samples_window(b, len, from, to, eo->ts, eo->v, NULL);
		}
		if (n == 0)
		{
			MemoryContextDelete(ecxt);
			PG_RETURN_NULL();
		}
		eo->n = eo->cap = n;
		PG_RETURN_DATUM(EOHPGetRODatum(&eo->hdr));
	}
}

/* _samples_sum(samples) -> numeric: the summary the loader stores */
Datum
acmetrace_samples_sum(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	at_samples_info info;

	at_samples_info_read(b, &info);
	PG_RETURN_DATUM(samples_sum(b, len, &info));
}

