/*
 * gbdt_type.c: fmgr glue of the boosted trees' two types (src/core/gbdt.c):
 * acmetrace.gbdt, a model, and acmetrace.gbdt_state, the rows gbdt_train
 * gathers (gbdt_type.h).  Both text forms are "v1:<hex>"; every way in is
 * checked by the core's decoder and written back canonical.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "glue.h"
#include "gbdt_type.h"

PG_FUNCTION_INFO_V1(acmetrace_gbdt_in);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_out);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_recv);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_send);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_in);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_out);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_recv);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_send);

/* ---- decoding and encoding ---- */

/* The ERROR for bytes that are not a value of type ("gbdt", "gbdt_state"): msg is the decoder's. */
static void
decode_error(const char *msg, const char *type, Size len, int code, const char *from)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid %s: %s", type, msg),
			 errdetail("The value is %zu bytes long.", (size_t) len),
			 errhint("%s come from acmetrace.gbdt_train; the binary form is versioned and checked field by field.",
					 from)));
}

void
gbdt_model_read(at_gbdt *m, const unsigned char *b, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_gbdt_decode(m, b, len, at_cxt_mem, cxt);

	if (msg != NULL)
		decode_error(msg, "gbdt", len, code, "Models");
}

bytea *
gbdt_model_flat(const at_gbdt *m)
{
	Size		n = at_gbdt_encoded_size(m);
	bytea	   *out;

	if (n > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gbdt: the model would take %zu bytes, more than a value can hold", (size_t) n),
				 errhint("Train fewer rounds or shallower trees.")));
	out = palloc(VARHDRSZ + n);
	SET_VARSIZE(out, VARHDRSZ + n);
	at_gbdt_encode(m, (unsigned char *) VARDATA(out));
	return out;
}

/* ---- the training state's expanded object ---- */

static Size
rows_get_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARHDRSZ + at_gbdt_rows_encoded_size(&((GbdtEO *) eohptr)->r);
}

static void
rows_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SET_VARSIZE(result, allocated_size);
	at_gbdt_rows_encode(&((GbdtEO *) eohptr)->r, (unsigned char *) VARDATA(result));
}

const ExpandedObjectMethods gbdt_state_methods = {rows_get_flat_size, rows_flatten_into};

static void
rows_read(at_gbdt_rows *r, const unsigned char *b, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_gbdt_rows_decode(r, b, len, at_cxt_mem, cxt);

	if (msg != NULL)
		decode_error(msg, "gbdt_state", len, code, "States");
}

static bytea *
rows_flat(const at_gbdt_rows *r)
{
	Size		n = at_gbdt_rows_encoded_size(r);
	bytea	   *out = palloc(VARHDRSZ + n);

	SET_VARSIZE(out, VARHDRSZ + n);
	at_gbdt_rows_encode(r, (unsigned char *) VARDATA(out));
	return out;
}

const at_gbdt_rows *
gbdt_rows_view(Datum d, at_gbdt_rows *tmp)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) && DatumGetEOHP(d)->eoh_methods == &gbdt_state_methods)
		return &((GbdtEO *) DatumGetEOHP(d))->r;
	v = pg_detoast_datum(v);
	rows_read(tmp, (const unsigned char *) VARDATA(v), VARSIZE(v) - VARHDRSZ, CurrentMemoryContext,
			  ERRCODE_DATA_CORRUPTED);
	return tmp;
}

/* The flat form of a state datum (flat, TOASTed or our expanded object). */
static bytea *
rows_flat_of(Datum d)
{
	at_gbdt_rows tmp;

	return rows_flat(gbdt_rows_view(d, &tmp));
}

/* The features argument of gbdt_train and gbdt_predict (gbdt_type.h). */
const double *
gbdt_features_arg(ArrayType *a, const char *fn, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;
	const double *x;
	int			inf;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: features must be a one-dimensional array, not %d-dimensional", fn, ARR_NDIM(a)),
				 errhint("Pass one row's features, such as the features column of acmetrace.job_features.")));
	if (!ARR_HASNULL(a))
	{
		*n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
		x = (const double *) ARR_DATA_PTR(a);
	}
	else
	{
		deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, n);
		out = palloc((*n + 1) * sizeof(double));
		for (int i = 0; i < *n; i++)
			out[i] = nulls[i] ? get_float8_nan() : DatumGetFloat8(elems[i]);
		x = out;
	}
	if ((inf = at_gbdt_first_infinite(x, *n)) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: feature %d is %s", fn, inf + 1, x[inf] > 0 ? "Infinity" : "-Infinity"),
				 errhint("Features are finite numbers; NULL or NaN marks a missing one.")));
	return x;
}

/* ---- both types' I/O ---- */

/* Text "v1:<hex>" to bytes, or the ERROR naming the type. */
static unsigned char *
unhex_or_error(const char *s, const char *type, size_t *len)
{
	unsigned char *b;
	size_t		pos;
	const char *msg = at_gbdt_unhex(s, strlen(s), &b, len, at_cxt_mem, CurrentMemoryContext, &pos);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: %s", type, msg),
				 errdetail("At character %zu.", pos + 1),
				 errhint("A %s is written as acmetrace.%s_out prints it: v1: and its bytes in hexadecimal.", type, type)));
	return b;
}

static char *
hex_text(const unsigned char *b, size_t n)
{
	char	   *out;

	if (n > (MaxAllocSize - 4) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the value is too large for its text form (%zu bytes)", n),
				 errhint("Use the binary form (COPY ... WITH (FORMAT binary)).")));
	out = palloc(3 + 2 * n + 1);
	at_gbdt_hex(b, n, out);
	return out;
}

/* A type's send: the bytes of its flat form. */
static bytea *
send_bytes(const char *data, Size len)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, data, len);
	return pq_endtypsend(&buf);
}

/*
 * The bytes of a model (model true) or a state from outside, checked and
 * re-encoded (always canonical), or the ERROR with code.
 */
static bytea *
canonical(bool model, const unsigned char *b, Size len, int code)
{
	at_gbdt		m;
	at_gbdt_rows r;
	bytea	   *out;

	if (!model)
	{
		rows_read(&r, b, len, CurrentMemoryContext, code);
		return rows_flat(&r);
	}
	gbdt_model_read(&m, b, len, CurrentMemoryContext, code);
	out = gbdt_model_flat(&m);
	at_gbdt_free(&m, at_cxt_mem, CurrentMemoryContext);
	return out;
}

/* Either type's input: "v1:<hex>" checked. */
static bytea *
text_in(const char *s, bool model)
{
	size_t		len;
	unsigned char *b = unhex_or_error(s, model ? "gbdt" : "gbdt_state", &len);

	return canonical(model, b, len, ERRCODE_INVALID_TEXT_REPRESENTATION);
}

/* Either type's receive: its bytes checked. */
static bytea *
binary_in(StringInfo msg, bool model)
{
	int			len = msg->len - msg->cursor;

	return canonical(model, (const unsigned char *) pq_getmsgbytes(msg, len), len,
					 ERRCODE_INVALID_BINARY_REPRESENTATION);
}

Datum
acmetrace_gbdt_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(text_in(PG_GETARG_CSTRING(0), true));
}

Datum
acmetrace_gbdt_out(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_CSTRING(hex_text((const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
}

Datum
acmetrace_gbdt_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(binary_in((StringInfo) PG_GETARG_POINTER(0), true));
}

Datum
acmetrace_gbdt_send(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_BYTEA_P(send_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
}

Datum
acmetrace_gbdt_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(text_in(PG_GETARG_CSTRING(0), false));
}

Datum
acmetrace_gbdt_state_out(PG_FUNCTION_ARGS)
{
	bytea	   *flat = rows_flat_of(PG_GETARG_DATUM(0));

	PG_RETURN_CSTRING(hex_text((const unsigned char *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ));
}

Datum
acmetrace_gbdt_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(binary_in((StringInfo) PG_GETARG_POINTER(0), false));
}

Datum
acmetrace_gbdt_state_send(PG_FUNCTION_ARGS)
{
	bytea	   *flat = rows_flat_of(PG_GETARG_DATUM(0));

	PG_RETURN_BYTEA_P(send_bytes(VARDATA(flat), VARSIZE(flat) - VARHDRSZ));
}
