/*
 * gbdt_fns.c: fmgr glue of the boosted trees' functions on a model
 * (src/core/gbdt.c): gbdt_predict, which decodes its model once per query,
 * and gbdt_info.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"

#include "glue.h"
#include "gbdt_type.h"

PG_FUNCTION_INFO_V1(acmetrace_gbdt_predict);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_info);

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
	gbdt_model_read(&c->m, b, len, cxt, ERRCODE_DATA_CORRUPTED);
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

/* gbdt_predict(model gbdt, features float8[]) -> float8, STRICT */
Datum
acmetrace_gbdt_predict(PG_FUNCTION_ARGS)
{
	const at_gbdt *m = cached_model(fcinfo);
	int			n;
	const double *x = gbdt_features_arg(PG_GETARG_ARRAYTYPE_P(1), "gbdt_predict", &n);

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
	gbdt_model_read(&m, (const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext,
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
