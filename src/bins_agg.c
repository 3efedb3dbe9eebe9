/*
 * bins_agg.c: the aggregates bins, bins_at, cdf_at and weighted_cdf_at.
 *
 * The state (src/core/bins.h) lives in the aggregate memory context; its
 * parameters come from the first row and must not change within a group.
 * Partial states travel in the core's versioned serial form, checked on the
 * way in.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "glue.h"
#include "bins.h"

PG_FUNCTION_INFO_V1(acmetrace_bins_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_at_trans);
PG_FUNCTION_INFO_V1(acmetrace_cdf_trans);
PG_FUNCTION_INFO_V1(acmetrace_wcdf_trans);
/* acmetrace_hist_*: old link names, kept because released install scripts reference them */
PG_FUNCTION_INFO_V1(acmetrace_hist_combine);
PG_FUNCTION_INFO_V1(acmetrace_hist_serialize);
PG_FUNCTION_INFO_V1(acmetrace_hist_deserialize);
PG_FUNCTION_INFO_V1(acmetrace_bins_final);
PG_FUNCTION_INFO_V1(acmetrace_cdf_final);

typedef struct BinsState
{
	at_bins		h;
	bool		stable;			/* the array argument is a constant (or Param) */
} BinsState;

static void
bad_arg(const char *fn, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s", fn, msg),
			 errhint("%s", hint)));
}

static void
not_null(FunctionCallInfo fcinfo, int argno, const char *fn, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", fn, what)));
}

/* The float8[] argument as a C array (no NULL elements allowed). */
static double *
array_arg(FunctionCallInfo fcinfo, int argno, const char *fn, const char *what, int *n)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;

	not_null(fcinfo, argno, fn, what);
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("%s: %s must be float8[]", fn, what)));
	/* flattening {{0,1},{2,3}} would silently change its meaning */
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %s must be a one-dimensional array, not %d-dimensional", fn, what, ARR_NDIM(a)),
				 errhint("Pass a plain list such as '{0,1,2,4,8}'.")));
	deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, n);
	out = palloc((*n + 1) * sizeof(double));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: %s must not contain NULL", fn, what)));
		out[i] = DatumGetFloat8(elems[i]);
	}
	return out;
}

static BinsState *
new_state(FunctionCallInfo fcinfo, const char *fn, at_bins_kind kind, double lo, double hi,
		  int32 nbins, const double *vals, int nvals)
{
	MemoryContext cxt = at_agg_context(fcinfo, fn);
	BinsState  *st = MemoryContextAllocZero(cxt, sizeof(BinsState));

	if (at_bins_init(&st->h, kind, lo, hi, nbins, vals, nvals, at_cxt_mem, cxt) != 0)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return st;
}

/*
 * The array argument of a later row must equal the first row's.  A
 * constant is checked once; anything else is compared row by row, element
 * bytes against element bytes.
 */
static void
same_array(FunctionCallInfo fcinfo, BinsState *st, int argno, const char *fn, const char *what,
		   const double *want, int nwant)
{
	ArrayType  *a;

	if (st->stable)
		return;
	not_null(fcinfo, argno, fn, what);
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) > 1 ||
		ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != nwant ||
		memcmp(ARR_DATA_PTR(a), want, nwant * sizeof(double)) != 0)
		bad_arg(fn, psprintf("%s changed within one aggregate", what),
				"Pass the same array to every row of a group (a constant, or the same column value).");
}

/* bins(value, lo, hi, nbins) */
Datum
acmetrace_bins_trans(PG_FUNCTION_ARGS)
{
	BinsState  *st = PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0);
	double		lo,
				hi;
	int32		nbins;

	not_null(fcinfo, 2, "bins", "lo");
	not_null(fcinfo, 3, "bins", "hi");
	not_null(fcinfo, 4, "bins", "nbins");
	lo = PG_GETARG_FLOAT8(2);
	hi = PG_GETARG_FLOAT8(3);
	nbins = PG_GETARG_INT32(4);
	if (st == NULL)
	{
		const char *msg = at_bins_check_equal(lo, hi, nbins);

		if (msg)
			bad_arg("bins", msg, "bins(value, lo, hi, nbins) counts lo <= value <= hi in nbins equal bins, e.g. bins(util, 0, 100, 10).");
		st = new_state(fcinfo, "bins", AT_BINS_EQUAL, lo, hi, nbins, NULL, 0);
	}
	else if (lo != st->h.lo || hi != st->h.hi || nbins != st->h.nbins)
		bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&st->h, PG_GETARG_FLOAT8(1), 0);
	PG_RETURN_POINTER(st);
}

/* bins_at(value, edges) */
Datum
acmetrace_bins_at_trans(PG_FUNCTION_ARGS)
{
	BinsState  *st = PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0);

	if (st == NULL)
	{
		int			n;
		double	   *e = array_arg(fcinfo, 2, "bins_at", "edges", &n);
		const char *msg = at_bins_check_edges(e, n);

		if (msg)
			bad_arg("bins_at", msg, "Edges are at least two finite numbers in increasing order, e.g. '{0,1,2,4,8}'.");
		st = new_state(fcinfo, "bins_at", AT_BINS_EDGES, 0, 0, 0, e, n);
		st->stable = get_fn_expr_arg_stable(fcinfo->flinfo, 2);
	}
	else
		same_array(fcinfo, st, 2, "bins_at", "edges", st->h.params, st->h.nparams);
	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&st->h, PG_GETARG_FLOAT8(1), 0);
	PG_RETURN_POINTER(st);
}

static BinsState *
cdf_state(FunctionCallInfo fcinfo, BinsState *st, int argno, const char *fn, at_bins_kind kind)
{
	if (st == NULL)
	{
		int			n;
		double	   *t = array_arg(fcinfo, argno, fn, "thresholds", &n);
		const char *msg = at_bins_check_thresholds(t, n);

		if (msg)
			bad_arg(fn, msg, "Thresholds are numbers, e.g. ARRAY[1, 2, 4, 8].");
		st = new_state(fcinfo, fn, kind, 0, 0, 0, t, n);
		st->stable = get_fn_expr_arg_stable(fcinfo->flinfo, argno);
	}
	else
		same_array(fcinfo, st, argno, fn, "thresholds", st->h.in, st->h.nin);
	return st;
}

/* cdf_at(value, thresholds) */
Datum
acmetrace_cdf_trans(PG_FUNCTION_ARGS)
{
	BinsState  *st = cdf_state(fcinfo, PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0),
							   2, "cdf_at", AT_BINS_CDF);

	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&st->h, PG_GETARG_FLOAT8(1), 0);
	PG_RETURN_POINTER(st);
}

/* weighted_cdf_at(value, weight, thresholds) */
Datum
acmetrace_wcdf_trans(PG_FUNCTION_ARGS)
{
	BinsState  *st = cdf_state(fcinfo, PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0),
							   3, "weighted_cdf_at", AT_BINS_WCDF);
	double		v,
				w;

	/* rows missing either value are dropped, as the notebook's dropna */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_POINTER(st);
	v = PG_GETARG_FLOAT8(1);
	w = PG_GETARG_FLOAT8(2);
	if (isnan(v) || isnan(w))
		PG_RETURN_POINTER(st);
	if (!(w >= 0) || isinf(w))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weighted_cdf_at: weight must be finite and not negative, got %g", w),
				 errhint("Weights are amounts such as GPU seconds; leave other rows out.")));
	if (isinf(st->h.wtotal + w))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("weighted_cdf_at: the total weight overflows float8")));
	at_bins_add(&st->h, v, w);
	PG_RETURN_POINTER(st);
}

/* The aggregate a state belongs to, for combine's messages. */
static const char *
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

Datum
acmetrace_hist_combine(PG_FUNCTION_ARGS)
{
	BinsState  *s1 = PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0);
	BinsState  *s2 = PG_ARGISNULL(1) ? NULL : (BinsState *) PG_GETARG_POINTER(1);
	MemoryContext cxt = at_agg_context(fcinfo, "bins combine");

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		/* s2 may live in a short-lived context: copy it */
		const at_bins *h = &s2->h;

		s1 = MemoryContextAllocZero(cxt, sizeof(BinsState));
		if (at_bins_init(&s1->h, h->kind, h->lo, h->hi, h->nbins,
						 h->kind == AT_BINS_EDGES ? h->params : h->in,
						 h->kind == AT_BINS_EDGES ? h->nparams : h->nin, at_cxt_mem, cxt) != 0)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	}
	/* the errors the transition function gives when it sees every row */
	if (!at_bins_same_shape(&s1->h, &s2->h))
	{
		if (s2->h.kind == AT_BINS_EQUAL)
			bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
		else
			bad_arg(bins_fn(s2->h.kind),
					psprintf("%s changed within one aggregate", s2->h.kind == AT_BINS_EDGES ? "edges" : "thresholds"),
					"Pass the same array to every row of a group (a constant, or the same column value).");
	}
	switch (at_bins_merge(&s1->h, &s2->h))
	{
		case -1:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: count overflows bigint", bins_fn(s1->h.kind))));
			break;
		case -2:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("weighted_cdf_at: the total weight overflows float8")));
			break;
	}
	PG_RETURN_POINTER(s1);
}

Datum
acmetrace_hist_serialize(PG_FUNCTION_ARGS)
{
	BinsState  *st = (BinsState *) PG_GETARG_POINTER(0);
	size_t		n = at_bins_encoded_size(&st->h);
	bytea	   *out = palloc(VARHDRSZ + n);

	at_agg_context(fcinfo, "bins serialize");
	at_bins_encode(&st->h, (unsigned char *) VARDATA(out));
	SET_VARSIZE(out, VARHDRSZ + n);
	PG_RETURN_BYTEA_P(out);
}

Datum
acmetrace_hist_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	BinsState  *st;
	const char *msg;

	at_agg_context(fcinfo, "bins deserialize");
	st = palloc0(sizeof(BinsState));
	msg = at_bins_decode(&st->h, (const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
						 at_cxt_mem, CurrentMemoryContext);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid bins state: %s", msg)));
	PG_RETURN_POINTER(st);
}

/* bigint[] indexed 0..nslots-1: 0 below, then the bins, then above. */
Datum
acmetrace_bins_final(PG_FUNCTION_ARGS)
{
	BinsState  *st = PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0);
	Datum	   *elems;
	int			dims[1],
				lbs[1] = {0};

	if (st == NULL)
		PG_RETURN_NULL();
	dims[0] = st->h.nslots;
	elems = palloc(st->h.nslots * sizeof(Datum));
	for (int s = 0; s < st->h.nslots; s++)
		elems[s] = Int64GetDatum(st->h.counts[s]);
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, NULL, 1, dims, lbs, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* float8[] of percents, one per threshold as given; NULL with no values (weight). */
Datum
acmetrace_cdf_final(PG_FUNCTION_ARGS)
{
	BinsState  *st = PG_ARGISNULL(0) ? NULL : (BinsState *) PG_GETARG_POINTER(0);
	double	   *out,
			   *scratch;
	Datum	   *elems;

	if (st == NULL || st->h.n == 0 || (st->h.kind == AT_BINS_WCDF && st->h.wtotal == 0))
		PG_RETURN_NULL();
	out = palloc(st->h.nin * sizeof(double));
	scratch = palloc(st->h.nparams * sizeof(double));
	at_bins_cdf(&st->h, out, scratch);
	elems = palloc(st->h.nin * sizeof(Datum));
	for (int i = 0; i < st->h.nin; i++)
		elems[i] = Float8GetDatum(out[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, st->h.nin, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
