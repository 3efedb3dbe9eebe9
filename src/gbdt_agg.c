/*
 * gbdt.c: fmgr glue of the boosted regression trees (src/core/gbdt.c):
 * the model type acmetrace.gbdt, the training aggregate gbdt_train with its
 * state type acmetrace.gbdt_state, gbdt_predict and gbdt_info.
 *
 * The state holds the training rows, kept as an expanded object updated in
 * place; its flat form is the core's versioned rows encoding, written only
 * when a state leaves the aggregate (a parallel worker, a Citus partial)
 * and checked field by field on every way back in.  The final function
 * trains.  Both types' text form is "v1:<hex>".
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "access/detoast.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "glue.h"
#include "gbdt.h"

PG_FUNCTION_INFO_V1(acmetrace_gbdt_in);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_out);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_recv);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_send);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_in);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_out);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_recv);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_state_send);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_trans);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_combine);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_final);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_predict);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_info);

static void
no_memory(void)
{
	ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/* ---- the model ---- */

/* Bytes into m (memory from cxt); ERROR with code if they are not a model. */
static void
model_read(at_gbdt *m, const unsigned char *b, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_gbdt_decode(m, b, len, at_cxt_mem, cxt);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid gbdt: %s", msg),
				 errdetail("The value is %zu bytes long.", (size_t) len),
				 errhint("Models come from acmetrace.gbdt_train; the binary form is versioned and checked field by field.")));
}

static bytea *
model_flat(const at_gbdt *m)
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

/* The bytes of a model from outside, checked and re-encoded (always canonical), or the ERROR. */
static bytea *
model_canonical(const unsigned char *b, Size len, int code)
{
	at_gbdt		m;
	bytea	   *out;

	model_read(&m, b, len, CurrentMemoryContext, code);
	out = model_flat(&m);
	at_gbdt_free(&m, at_cxt_mem, CurrentMemoryContext);
	return out;
}

Datum
acmetrace_gbdt_in(PG_FUNCTION_ARGS)
{
	size_t		len;
	unsigned char *b = unhex_or_error(PG_GETARG_CSTRING(0), "gbdt", &len);

	PG_RETURN_BYTEA_P(model_canonical(b, len, ERRCODE_INVALID_TEXT_REPRESENTATION));
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
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;

	PG_RETURN_BYTEA_P(model_canonical((const unsigned char *) pq_getmsgbytes(msg, len), len,
									  ERRCODE_INVALID_BINARY_REPRESENTATION));
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

Datum
acmetrace_gbdt_send(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_BYTEA_P(send_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
}

/*
 * The model of argument 0, decoded once per query: fn_extra keeps the
 * decoded model and what identifies the value it came from.  A model
 * stored out of line (TOAST) is known by its TOAST pointer, which names an
 * immutable value, so a model read from a table is neither fetched nor
 * compared again row by row; any other is compared byte for byte.
 */
typedef struct ModelCache
{
	bool		toasted;
	varatt_external ptr;		/* when toasted */
	Size		len;			/* else: the bytes */
	unsigned char *bytes;
	at_gbdt		m;
} ModelCache;

static const at_gbdt *
cached_model(FunctionCallInfo fcinfo)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
	ModelCache *c = fcinfo->flinfo->fn_extra;
	MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
	bool		toasted = VARATT_IS_EXTERNAL_ONDISK(raw);
	varatt_external ptr;
	bytea	   *v;
	Size		len;
	const unsigned char *b;

	memset(&ptr, 0, sizeof(ptr));
	if (toasted)
	{
		VARATT_EXTERNAL_GET_POINTER(ptr, raw);
		if (c != NULL && c->toasted && c->ptr.va_valueid == ptr.va_valueid &&
			c->ptr.va_toastrelid == ptr.va_toastrelid)
			return &c->m;
	}
	v = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(v);
	b = (const unsigned char *) VARDATA_ANY(v);
	if (!toasted && c != NULL && !c->toasted && c->len == len && memcmp(c->bytes, b, len) == 0)
		return &c->m;
	if (c == NULL)
		c = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(cxt, sizeof(ModelCache));
	else
	{
		at_gbdt_free(&c->m, at_cxt_mem, cxt);
		if (c->bytes)
			pfree(c->bytes);
		c->bytes = NULL;
		c->len = 0;
	}
	c->toasted = false;			/* until the model is decoded */
	/* a stored model was checked on its way in; a damaged page is still refused */
	model_read(&c->m, b, len, cxt, ERRCODE_DATA_CORRUPTED);
	if (toasted)
		c->ptr = ptr;
	else
	{
		c->bytes = MemoryContextAlloc(cxt, Max(len, 1));
		memcpy(c->bytes, b, len);
		c->len = len;
	}
	c->toasted = toasted;
	return &c->m;
}

/*
 * The float8[] of features: one-dimensional, NULL elements missing (NaN).
 * Without NULLs the array's own data is returned, not a copy (read only).
 */
static const double *
features_arg(ArrayType *a, const char *fn, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;
	const double *x;

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
	for (int i = 0; i < *n; i++)
		if (isinf(x[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: feature %d is %s", fn, i + 1, x[i] > 0 ? "Infinity" : "-Infinity"),
					 errhint("Features are finite numbers; NULL or NaN marks a missing one.")));
	return x;
}

/* gbdt_predict(model gbdt, features float8[]) -> float8, STRICT */
Datum
acmetrace_gbdt_predict(PG_FUNCTION_ARGS)
{
	const at_gbdt *m = cached_model(fcinfo);
	int			n;
	const double *x = features_arg(PG_GETARG_ARRAYTYPE_P(1), "gbdt_predict", &n);

	if (n != m->nfeatures)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_predict: the model takes %d features, got %d", m->nfeatures, n),
				 errhint("Pass the features in the layout the model was trained on.")));
	PG_RETURN_FLOAT8(at_gbdt_predict(m, x));
}

/* gbdt_info(model) -> record */
Datum
acmetrace_gbdt_info(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	TupleDesc	td;
	at_gbdt		m;
	Datum		values[10];
	bool		nulls[10] = {false};
	int64		leaves = 0;

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gbdt_info must return a record");
	model_read(&m, (const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext,
			   ERRCODE_DATA_CORRUPTED);
	for (uint32 i = 0; i < m.nnodes; i++)
		leaves += m.nodes[i].feature < 0;
	values[0] = Int32GetDatum(m.nfeatures);
	values[1] = Int32GetDatum(m.ntrees);
	values[2] = Int32GetDatum(m.params.depth);
	values[3] = Float8GetDatum(m.params.learning_rate);
	values[4] = Int32GetDatum(m.params.min_leaf);
	values[5] = Int32GetDatum(m.params.bins);
	values[6] = Int64GetDatum(leaves);
	values[7] = Int64GetDatum(m.rows);
	values[8] = Float8GetDatum(m.base);
	values[9] = Float8GetDatum(m.train_rmse);
	at_gbdt_free(&m, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, values, nulls)));
}

/* ---- the training state ---- */

typedef struct GbdtEO
{
	ExpandedObjectHeader hdr;
	at_gbdt_rows r;
} GbdtEO;

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

static const ExpandedObjectMethods gbdt_state_methods = {rows_get_flat_size, rows_flatten_into};

static void
rows_read(at_gbdt_rows *r, const unsigned char *b, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_gbdt_rows_decode(r, b, len, at_cxt_mem, cxt);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid gbdt_state: %s", msg),
				 errdetail("The value is %zu bytes long.", (size_t) len),
				 errhint("States come from acmetrace.gbdt_train; the binary form is versioned and checked field by field.")));
}

/* Rows that fit one flat state. */
static int64
rows_limit(int32 nfeatures)
{
	return at_gbdt_rows_max(nfeatures, MaxAllocSize - VARHDRSZ);
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

/*
 * A gbdt_state datum to read: our expanded object's rows as they are, or a
 * flat value decoded into tmp in the current context.
 */
static const at_gbdt_rows *
rows_view(Datum d, at_gbdt_rows *tmp)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) && DatumGetEOHP(d)->eoh_methods == &gbdt_state_methods)
		return &((GbdtEO *) DatumGetEOHP(d))->r;
	v = pg_detoast_datum(v);
	rows_read(tmp, (const unsigned char *) VARDATA(v), VARSIZE(v) - VARHDRSZ, CurrentMemoryContext,
			  ERRCODE_DATA_CORRUPTED);
	return tmp;
}

/* The rows of a state from outside, checked and re-encoded, or the ERROR. */
static bytea *
rows_canonical(const unsigned char *b, Size len, int code)
{
	at_gbdt_rows r;

	rows_read(&r, b, len, CurrentMemoryContext, code);
	return rows_flat(&r);
}

/* The flat form of a state datum (flat, TOASTed or our expanded object). */
static bytea *
rows_flat_of(Datum d)
{
	at_gbdt_rows tmp;

	return rows_flat(rows_view(d, &tmp));
}

Datum
acmetrace_gbdt_state_in(PG_FUNCTION_ARGS)
{
	size_t		len;
	unsigned char *b = unhex_or_error(PG_GETARG_CSTRING(0), "gbdt_state", &len);

	PG_RETURN_BYTEA_P(rows_canonical(b, len, ERRCODE_INVALID_TEXT_REPRESENTATION));
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
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;

	PG_RETURN_BYTEA_P(rows_canonical((const unsigned char *) pq_getmsgbytes(msg, len), len,
									 ERRCODE_INVALID_BINARY_REPRESENTATION));
}

Datum
acmetrace_gbdt_state_send(PG_FUNCTION_ARGS)
{
	bytea	   *flat = rows_flat_of(PG_GETARG_DATUM(0));

	PG_RETURN_BYTEA_P(send_bytes(VARDATA(flat), VARSIZE(flat) - VARHDRSZ));
}

static GbdtEO *
new_eo(FunctionCallInfo fcinfo, const char *fn)
{
	return at_eo_new(at_agg_context(fcinfo, fn), &gbdt_state_methods, sizeof(GbdtEO), "acmetrace gbdt_state");
}

#define RETURN_EO(eo) PG_RETURN_DATUM(EOHPGetRWDatum(&(eo)->hdr))

static void
param_error(const char *msg)
{
	ereport(ERROR,
			(errcode(strstr(msg, "NULL") ? ERRCODE_NULL_VALUE_NOT_ALLOWED : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("gbdt_train: %s", msg),
			 errhint("gbdt_train(features, target, rounds, depth, learning_rate); the defaults are 100 rounds of depth 6 at 0.1.")));
}

static void
too_many_rows(int32 nfeatures)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("gbdt_train: more than " INT64_FORMAT " rows of %d features", rows_limit(nfeatures), nfeatures),
			 errhint("Train on a sample (TABLESAMPLE, or a random fraction of the rows).")));
}

/* into += from, or the ERROR when they were gathered with other arguments. */
static void
merge_rows(at_gbdt_rows *into, const at_gbdt_rows *from, MemoryContext cxt)
{
	if (!at_gbdt_rows_same(into, from))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine gbdt_states of %d and %d features, or of other parameters",
						into->nfeatures, from->nfeatures),
				 errhint("Combine states of one gbdt_train called with the same parameters.")));
	if (into->n + from->n > rows_limit(into->nfeatures))
		too_many_rows(into->nfeatures);
	if (!at_gbdt_rows_merge(into, from, at_cxt_mem, cxt))
		no_memory();
}

/*
 * gbdt_train(features float8[], target float8 [, rounds int, depth int,
 * learning_rate float8]): rows with a NULL features array or a NULL or NaN
 * target are skipped; a NULL feature is missing.
 */
Datum
acmetrace_gbdt_trans(PG_FUNCTION_ARGS)
{
	GbdtEO	   *eo = at_eo_rw(fcinfo, 0, &gbdt_state_methods);
	at_gbdt_params p;
	const double *x;
	double		y;
	int			n;

	p.rounds = 100;
	p.depth = 6;
	p.learning_rate = 0.1;
	p.min_leaf = 20;
	p.bins = 64;
	if (PG_NARGS() > 3)
	{
		for (int a = 3; a < 6; a++)
			if (PG_ARGISNULL(a))
				param_error("rounds, depth and learning_rate must not be NULL");
		p.rounds = PG_GETARG_INT32(3);
		p.depth = PG_GETARG_INT32(4);
		p.learning_rate = PG_GETARG_FLOAT8(5);
	}
	if (eo == NULL)
	{
		const char *msg = at_gbdt_check_params(&p);

		if (msg)
			param_error(msg);
	}
	else if (p.rounds != eo->r.params.rounds || p.depth != eo->r.params.depth ||
			 p.learning_rate != eo->r.params.learning_rate)
		param_error("rounds, depth and learning_rate changed within one aggregate");
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || isnan(PG_GETARG_FLOAT8(2)))
	{
		if (eo == NULL)
		{
			if (PG_ARGISNULL(0))
				PG_RETURN_NULL();
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		}
		RETURN_EO(eo);
	}
	y = PG_GETARG_FLOAT8(2);
	if (isinf(y))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_train: the target is %s", y > 0 ? "Infinity" : "-Infinity"),
				 errhint("Targets are finite numbers; leave out rows without one (a NULL target is skipped).")));
	x = features_arg(PG_GETARG_ARRAYTYPE_P(1), "gbdt_train", &n);
	if (n < 1 || n > AT_GBDT_MAX_FEATURES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_train: a row has %d features; 1 to %d are allowed", n, AT_GBDT_MAX_FEATURES),
				 errhint("Every row passes the same number of features.")));
	if (eo == NULL)
	{
		eo = new_eo(fcinfo, "gbdt_train");
		at_gbdt_rows_init(&eo->r, &p, n);
		/* an INITCOND or a caller's own state to go on from */
		if (!PG_ARGISNULL(0))
		{
			at_gbdt_rows tmp;
			const at_gbdt_rows *from = rows_view(PG_GETARG_DATUM(0), &tmp);

			merge_rows(&eo->r, from, eo->hdr.eoh_context);
		}
	}
	if (n != eo->r.nfeatures)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_train: a row has %d features, the first had %d", n, eo->r.nfeatures),
				 errhint("Every row passes the same number of features; NULL marks a missing one.")));
	if (eo->r.n >= rows_limit(n))
		too_many_rows(n);
	if (!at_gbdt_rows_add(&eo->r, x, y, at_cxt_mem, eo->hdr.eoh_context))
		no_memory();
	RETURN_EO(eo);
}

/* (gbdt_state, gbdt_state) -> gbdt_state, not strict: arg 0 updated in place when it is ours. */
Datum
acmetrace_gbdt_combine(PG_FUNCTION_ARGS)
{
	GbdtEO	   *eo = at_eo_rw(fcinfo, 0, &gbdt_state_methods);
	at_gbdt_rows tmp;
	const at_gbdt_rows *src;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	src = rows_view(PG_GETARG_DATUM(1), &tmp);
	if (eo == NULL)
	{
		GbdtEO	   *fresh = new_eo(fcinfo, "gbdt_train combine");

		if (PG_ARGISNULL(0))
		{
			at_gbdt_rows_init(&fresh->r, &src->params, src->nfeatures);
			merge_rows(&fresh->r, src, fresh->hdr.eoh_context);
			RETURN_EO(fresh);
		}
		else
		{
			at_gbdt_rows tmp0;
			const at_gbdt_rows *from = rows_view(PG_GETARG_DATUM(0), &tmp0);

			at_gbdt_rows_init(&fresh->r, &from->params, from->nfeatures);
			merge_rows(&fresh->r, from, fresh->hdr.eoh_context);
		}
		eo = fresh;
	}
	merge_rows(&eo->r, src, eo->hdr.eoh_context);
	RETURN_EO(eo);
}

static void
train_tick(void *arg)
{
	(void) arg;
	CHECK_FOR_INTERRUPTS();
}

/* The final function: trains on the rows (reordering them in place), interruptible between trees. */
Datum
acmetrace_gbdt_final(PG_FUNCTION_ARGS)
{
	GbdtEO	   *eo;
	at_gbdt_rows tmp,
			   *r;
	at_gbdt		m;
	bytea	   *out;

	at_agg_context(fcinfo, "gbdt_train final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	eo = at_eo_rw(fcinfo, 0, &gbdt_state_methods);
	if (eo != NULL)
		r = &eo->r;
	else
	{
		r = (at_gbdt_rows *) rows_view(PG_GETARG_DATUM(0), &tmp);
		if (r != &tmp)
		{
			/* a read-only view of someone's object: train on a copy */
			at_gbdt_rows_init(&tmp, &r->params, r->nfeatures);
			if (!at_gbdt_rows_merge(&tmp, r, at_cxt_mem, CurrentMemoryContext))
				no_memory();
			r = &tmp;
		}
	}
	if (r->n == 0)
		PG_RETURN_NULL();
	if (at_gbdt_train(r, at_cxt_mem, CurrentMemoryContext, train_tick, NULL, &m) != 0)
		no_memory();
	out = model_flat(&m);
	at_gbdt_free(&m, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_BYTEA_P(out);
}
