/*
 * bins_type.c: the type acmetrace.bins_state (src/bins_type.h): the
 * expanded object, merging two states (the combine function), the text and
 * binary forms, and the 0.1.0 SQL's serial functions.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "glue.h"
#include "bins_type.h"

PG_FUNCTION_INFO_V1(acmetrace_bins_state_in);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_out);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_recv);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_send);
PG_FUNCTION_INFO_V1(acmetrace_bins_combine);
/* acmetrace_hist_*: named by the released (internal-state) install scripts */
PG_FUNCTION_INFO_V1(acmetrace_hist_combine);
PG_FUNCTION_INFO_V1(acmetrace_hist_serialize);
PG_FUNCTION_INFO_V1(acmetrace_hist_deserialize);

#define BINS_HINT_FORMAT \
	"A bins_state is written as acmetrace.bins_state_out prints it: v1: and the state's bytes in hexadecimal."

/* ---- the expanded object ---- */

static Size
bins_get_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARHDRSZ + at_bins_encoded_size(&((BinsEO *) eohptr)->h);
}

static void
bins_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SET_VARSIZE(result, allocated_size);
	at_bins_encode(&((BinsEO *) eohptr)->h, (unsigned char *) VARDATA(result));
}

const ExpandedObjectMethods bins_methods = {bins_get_flat_size, bins_flatten_into};

void
bins_read(at_bins *h, const char *data, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_bins_decode(h, (const unsigned char *) data, len, at_cxt_mem, cxt);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid bins_state: %s", msg),
				 errdetail("The value is %zu bytes long.", (size_t) len),
				 errhint("States come from acmetrace.bins, bins_at, cdf_at and weighted_cdf_at; "
						 "the binary form is versioned and checked field by field.")));
}

/* Our expanded object in d, or NULL. */
static BinsEO *
bins_eo_of(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) && DatumGetEOHP(d)->eoh_methods == &bins_methods)
		return (BinsEO *) DatumGetEOHP(d);
	return NULL;
}

BinsEO *
bins_eo_copy(MemoryContext parent, Datum d, int code)
{
	BinsEO	   *from = bins_eo_of(d);
	BinsEO	   *eo = at_eo_new(parent, &bins_methods, sizeof(BinsEO), "acmetrace bins_state");

	if (from != NULL)
	{
		if (at_bins_copy(&eo->h, &from->h, at_cxt_mem, eo->hdr.eoh_context) != 0)
			at_no_memory();
	}
	else
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

		bins_read(&eo->h, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), eo->hdr.eoh_context, code);
	}
	return eo;
}

const at_bins *
bins_view(Datum d, at_bins *tmp)
{
	BinsEO	   *eo = bins_eo_of(d);
	struct varlena *v;

	if (eo != NULL)
		return &eo->h;
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));
	bins_read(tmp, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext, ERRCODE_DATA_CORRUPTED);
	return tmp;
}

void
bins_view_done(const at_bins *view, at_bins *tmp)
{
	if (view == tmp)
		at_bins_free(tmp, at_cxt_mem, CurrentMemoryContext);
}

/* ---- merging states ---- */

void
bins_bad_arg(const char *fn, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s", fn, msg),
			 errhint("%s", hint)));
}

const char *
bins_fn(at_bins_kind kind)
{
	switch (kind)
	{
		case AT_BINS_EQUAL:
			return "bins";
		case AT_BINS_EDGES:
			return "bins_at";
		case AT_BINS_CDF:
			return "cdf_at";
		case AT_BINS_WCDF:
			return "weighted_cdf_at";
	}
	return "bins";
}

/*
 * dst += src, or the ERROR: states of another aggregate, or of other
 * arguments (the error the transition function gives when it sees every
 * row), or a sum that overflows.
 */
void
bins_merge(at_bins *dst, const at_bins *src)
{
	if (dst->kind != src->kind)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine a bins_state of %s with one of %s", bins_fn(dst->kind), bins_fn(src->kind)),
				 errhint("Combine states of one aggregate called with the same arguments.")));
	if (!at_bins_same_shape(dst, src))
	{
		if (src->kind == AT_BINS_EQUAL)
			bins_bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
		else
			bins_bad_arg(bins_fn(src->kind),
						 psprintf("%s changed within one aggregate", src->kind == AT_BINS_EDGES ? "edges" : "thresholds"),
						 "Pass the same array to every row of a group (a constant, or the same column value).");
	}
	switch (at_bins_merge(dst, src))
	{
		case -1:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: count overflows bigint", bins_fn(dst->kind))));
			break;
		case -2:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("weighted_cdf_at: the total weight overflows float8")));
			break;
	}
}

/*
 * (bins_state, bins_state) -> bins_state, not strict: arg 0 is updated in
 * place when it is our read-write object, else copied into a new one under
 * the aggregate's context; arg 1 is only read.
 */
Datum
acmetrace_bins_combine(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);
	at_bins		tmp;
	const at_bins *src;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (eo == NULL)
	{
		eo = bins_eo_copy(at_agg_context(fcinfo, "bins combine"), PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0),
						  ERRCODE_DATA_CORRUPTED);
		if (PG_ARGISNULL(0))
			BINS_RETURN_EO(eo);
	}
	src = bins_view(PG_GETARG_DATUM(1), &tmp);
	bins_merge(&eo->h, src);
	bins_view_done(src, &tmp);
	BINS_RETURN_EO(eo);
}

/* The 0.1.0 name of the combine function (internal, internal). */
Datum
acmetrace_hist_combine(PG_FUNCTION_ARGS)
{
	return acmetrace_bins_combine(fcinfo);
}

/* ---- text and binary forms ---- */

static Datum
bins_flat(const at_bins *h)
{
	Size		n = at_bins_encoded_size(h);
	bytea	   *out = palloc(VARHDRSZ + n);

	SET_VARSIZE(out, VARHDRSZ + n);
	at_bins_encode(h, (unsigned char *) VARDATA(out));
	return PointerGetDatum(out);
}

/* The canonical flat form of a state read from outside, freed after. */
static Datum
bins_flat_free(at_bins *h)
{
	Datum		out = bins_flat(h);

	at_bins_free(h, at_cxt_mem, CurrentMemoryContext);
	return out;
}

Datum
acmetrace_bins_state_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	at_bins		h;
	size_t		pos;
	const char *msg = at_bins_parse(&h, s, strlen(s), at_cxt_mem, CurrentMemoryContext, &pos);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bins_state: %s", msg),
				 errdetail("At character %zu.", pos + 1),
				 errhint(BINS_HINT_FORMAT)));
	PG_RETURN_DATUM(bins_flat_free(&h));	/* stored re-encoded: always canonical */
}

Datum
acmetrace_bins_state_out(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h = bins_view(PG_GETARG_DATUM(0), &tmp);
	char	   *buf = palloc(at_bins_text_size(h));

	at_bins_format(h, buf);
	bins_view_done(h, &tmp);
	PG_RETURN_CSTRING(buf);
}

Datum
acmetrace_bins_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;
	const char *data = pq_getmsgbytes(msg, len);
	at_bins		h;

	bins_read(&h, data, len, CurrentMemoryContext, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_DATUM(bins_flat_free(&h));
}

Datum
acmetrace_bins_state_send(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h = bins_view(PG_GETARG_DATUM(0), &tmp);
	Size		n = at_bins_encoded_size(h);
	StringInfoData buf;

	pq_begintypsend(&buf);
	enlargeStringInfo(&buf, n);
	at_bins_encode(h, (unsigned char *) buf.data + buf.len);
	buf.len += n;
	bins_view_done(h, &tmp);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- the 0.1.0 SQL's serial functions (STYPE internal) ---- */

/* 0.1.0's serial function: the same bytes as the flat bins_state. */
Datum
acmetrace_hist_serialize(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	Datum		out;

	at_agg_context(fcinfo, "bins serialize");
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	out = bins_flat(h);
	bins_view_done(h, &tmp);
	PG_RETURN_DATUM(out);
}

/*
 * 0.1.0's deserialize: an object that combine only reads, so it lives in
 * the current (per-input-tuple) context, as the old state did, rather than
 * one per partial state in the aggregate's.
 */
Datum
acmetrace_hist_deserialize(PG_FUNCTION_ARGS)
{
	at_agg_context(fcinfo, "bins deserialize");
	BINS_RETURN_EO(bins_eo_copy(CurrentMemoryContext, PG_GETARG_DATUM(0), ERRCODE_INVALID_BINARY_REPRESENTATION));
}
