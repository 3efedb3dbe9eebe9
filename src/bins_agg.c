/*
 * bins_agg.c: the aggregates bins, bins_at, cdf_at and weighted_cdf_at, of
 * values and of acmetrace.samples blocks: their transition and final
 * functions.
 *
 * The state is a bins_state (src/bins_type.h) kept as an expanded object,
 * updated in place; its parameters come from the first row and must not
 * change within a group.
 *
 * The 0.1.0 to 0.3.0 SQL declares these aggregates with STYPE internal and
 * the same C symbols: the state is then the object's read-write pointer,
 * which nodeAgg keeps as it is, so the transition, combine (in
 * src/bins_type.c) and final functions serve both; serialize and
 * deserialize (there too) remain for that SQL only.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "glue.h"
#include "bins_type.h"
#include "samples_type.h"

PG_FUNCTION_INFO_V1(acmetrace_wcdf_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_final);
PG_FUNCTION_INFO_V1(acmetrace_cdf_final);

/* ---- the aggregates ---- */

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

/*
 * The first row of a group (arguments checked by the caller): a new object
 * under the aggregate's context.  Arg 0 is then NULL, or a flat state to go
 * on from (an INITCOND, or a caller's own aggregate): it must have the shape
 * the arguments give.
 */
static BinsEO *
new_state(FunctionCallInfo fcinfo, const char *fn, at_bins_kind kind, double lo, double hi,
		  int32 nbins, const double *vals, int nvals)
{
	BinsEO	   *eo = at_agg_eo_new(fcinfo, fn, &bins_methods, BinsEO, "acmetrace bins_state");

	if (at_bins_init(&eo->h, kind, lo, hi, nbins, vals, nvals, at_cxt_mem, eo->hdr.eoh_context) != 0)
		at_no_memory();
	if (!PG_ARGISNULL(0))
	{
		at_bins		tmp;
		const at_bins *from = bins_view(PG_GETARG_DATUM(0), &tmp);

		bins_merge(&eo->h, from);
		bins_view_done(from, &tmp);
	}
	return eo;
}

/*
 * The array argument of a later row must equal the first row's.  A
 * constant is checked once; anything else is compared row by row, element
 * bytes against element bytes.
 */
static void
same_array(FunctionCallInfo fcinfo, BinsEO *eo, at_bins_kind kind, int argno, const char *fn, const char *what,
		   const double *want, int nwant)
{
	ArrayType  *a;

	/* only our own transition function hands us its object, but a wrong kind would not be caught below */
	if (eo->h.kind != kind)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the state belongs to %s", fn, bins_fn(eo->h.kind))));
	if (eo->stable)
		return;
	not_null(fcinfo, argno, fn, what);
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) > 1 ||
		ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != nwant ||
		memcmp(ARR_DATA_PTR(a), want, nwant * sizeof(double)) != 0)
		bins_bad_arg(fn, psprintf("%s changed within one aggregate", what),
					 "Pass the same array to every row of a group (a constant, or the same column value).");
}

/* The row's value (arg 1) into eo: NULL and NaN are skipped. */
static Datum
add_value(FunctionCallInfo fcinfo, BinsEO *eo)
{
	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&eo->h, PG_GETARG_FLOAT8(1), 0);
	BINS_RETURN_EO(eo);
}

/* The state of bins(value, lo, hi, nbins): new, or checked against the arguments. */
static BinsEO *
equal_state(FunctionCallInfo fcinfo)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);
	double		lo,
				hi;
	int32		nbins;

	not_null(fcinfo, 2, "bins", "lo");
	not_null(fcinfo, 3, "bins", "hi");
	not_null(fcinfo, 4, "bins", "nbins");
	lo = PG_GETARG_FLOAT8(2);
	hi = PG_GETARG_FLOAT8(3);
	nbins = PG_GETARG_INT32(4);
	if (eo == NULL)
	{
		const char *msg = at_bins_check_equal(lo, hi, nbins);

		if (msg)
			bins_bad_arg("bins", msg, "bins(value, lo, hi, nbins) counts lo <= value <= hi in nbins equal bins, e.g. bins(util, 0, 100, 10).");
		eo = new_state(fcinfo, "bins", AT_BINS_EQUAL, lo, hi, nbins, NULL, 0);
	}
	/* (a state of another kind has lo = hi = 0, which no arguments pass) */
	else if (lo != eo->h.lo || hi != eo->h.hi || nbins != eo->h.nbins)
		bins_bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
	return eo;
}

/* The state of bins_at(value, edges). */
static BinsEO *
edges_state(FunctionCallInfo fcinfo)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);

	if (eo == NULL)
	{
		int			n;
		double	   *e = array_arg(fcinfo, 2, "bins_at", "edges", &n);
		const char *msg = at_bins_check_edges(e, n);

		if (msg)
			bins_bad_arg("bins_at", msg, "Edges are at least two finite numbers in increasing order, e.g. '{0,1,2,4,8}'.");
		eo = new_state(fcinfo, "bins_at", AT_BINS_EDGES, 0, 0, 0, e, n);
		eo->stable = get_fn_expr_arg_stable(fcinfo->flinfo, 2);
	}
	else
		same_array(fcinfo, eo, AT_BINS_EDGES, 2, "bins_at", "edges", eo->h.params, eo->h.nparams);
	return eo;
}

static BinsEO *
cdf_state(FunctionCallInfo fcinfo, int argno, const char *fn, at_bins_kind kind)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);

	if (eo == NULL)
	{
		int			n;
		double	   *t = array_arg(fcinfo, argno, fn, "thresholds", &n);
		const char *msg = at_bins_check_thresholds(t, n);

		if (msg)
			bins_bad_arg(fn, msg, "Thresholds are numbers, e.g. ARRAY[1, 2, 4, 8].");
		eo = new_state(fcinfo, fn, kind, 0, 0, 0, t, n);
		eo->stable = get_fn_expr_arg_stable(fcinfo->flinfo, argno);
	}
	else
		same_array(fcinfo, eo, kind, argno, fn, "thresholds", eo->h.in, eo->h.nin);
	return eo;
}

/* weighted_cdf_at(value, weight, thresholds) */
Datum
acmetrace_wcdf_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = cdf_state(fcinfo, 3, "weighted_cdf_at", AT_BINS_WCDF);
	double		v,
				w;

	/* rows missing either value are dropped, as the notebook's dropna */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		BINS_RETURN_EO(eo);
	v = PG_GETARG_FLOAT8(1);
	w = PG_GETARG_FLOAT8(2);
	if (isnan(v) || isnan(w))
		BINS_RETURN_EO(eo);
	if (!(w >= 0) || isinf(w))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weighted_cdf_at: weight must be finite and not negative, got %g", w),
				 errhint("Weights are amounts such as GPU seconds; leave other rows out.")));
	if (isinf(eo->h.wtotal + w))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("weighted_cdf_at: the total weight overflows float8")));
	at_bins_add(&eo->h, v, w);
	BINS_RETURN_EO(eo);
}

/*
 * The samples of d into eo, as the value aggregates would count them one by
 * one (src/core/bins.h): a samples_between window by its decoded arrays,
 * anything else by its block.
 */
static void
add_samples(BinsEO *eo, Datum d)
{
	int32		wn,
				wscale;
	const double *wv;
	const int64 *wm;
	int64		wlo,
				whi;
	size_t		len;
	const unsigned char *b;

	if (samples_window_arrays(d, &wn, &wv, &wm, &wscale, &wlo, &whi))
	{
		if (wm != NULL && wn > 0 &&
			at_bins_add_scaled(&eo->h, &eo->slots, wm, wn, wscale, wlo, whi, at_cxt_mem, eo->hdr.eoh_context) == 0)
			return;
		if (wv != NULL)
		{
			at_bins_add_values(&eo->h, wv, wn);
			return;
		}
		/* else: integers over too wide a range, read as a block below */
	}
	b = samples_bytes(d, &len);
	at_bins_add_block(&eo->h, &eo->slots, b, len, at_cxt_mem, eo->hdr.eoh_context);
}

/* The row's samples (arg 1) into eo. */
static Datum
add_samples_arg(FunctionCallInfo fcinfo, BinsEO *eo)
{
	if (!PG_ARGISNULL(1))
		add_samples(eo, PG_GETARG_DATUM(1));
	BINS_RETURN_EO(eo);
}

/*
 * The transition functions of value and samples rows: the state of the
 * arguments (new, or checked against them), then the row (add_value or
 * add_samples_arg).
 */
#define BINS_TRANS(sym, add, state) \
PG_FUNCTION_INFO_V1(sym); \
Datum \
sym(PG_FUNCTION_ARGS) \
{ \
	return add(fcinfo, state); \
}

/* bins(value, lo, hi, nbins), bins_at(value, edges), cdf_at(value, thresholds) */
BINS_TRANS(acmetrace_bins_trans, add_value, equal_state(fcinfo))
BINS_TRANS(acmetrace_bins_at_trans, add_value, edges_state(fcinfo))
BINS_TRANS(acmetrace_cdf_trans, add_value, cdf_state(fcinfo, 2, "cdf_at", AT_BINS_CDF))
/* bins(samples, lo, hi, nbins), bins_at(samples, edges), cdf_at(samples, thresholds) */
BINS_TRANS(acmetrace_bins_samples_trans, add_samples_arg, equal_state(fcinfo))
BINS_TRANS(acmetrace_bins_at_samples_trans, add_samples_arg, edges_state(fcinfo))
BINS_TRANS(acmetrace_cdf_samples_trans, add_samples_arg, cdf_state(fcinfo, 2, "cdf_at", AT_BINS_CDF))

/* bigint[] indexed 0..nslots-1: 0 below, then the bins, then above. */
Datum
acmetrace_bins_final(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	Datum	   *elems;
	int			dims[1],
				lbs[1] = {0};
	ArrayType  *out;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	dims[0] = h->nslots;
	elems = palloc(h->nslots * sizeof(Datum));
	for (int s = 0; s < h->nslots; s++)
		elems[s] = Int64GetDatum(h->counts[s]);
	out = construct_md_array(elems, NULL, 1, dims, lbs, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	bins_view_done(h, &tmp);
	PG_RETURN_ARRAYTYPE_P(out);
}

/* float8[] of percents, one per threshold as given; NULL with no values (weight). */
Datum
acmetrace_cdf_final(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	double	   *out,
			   *scratch;
	Datum	   *elems;
	ArrayType  *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	if (h->kind != AT_BINS_CDF && h->kind != AT_BINS_WCDF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_bins_cdf_final: the state belongs to %s, not cdf_at or weighted_cdf_at", bins_fn(h->kind))));
	if (h->n == 0 || (h->kind == AT_BINS_WCDF && h->wtotal == 0))
	{
		bins_view_done(h, &tmp);
		PG_RETURN_NULL();
	}
	out = palloc(h->nin * sizeof(double));
	scratch = palloc(h->nparams * sizeof(double));
	at_bins_cdf(h, out, scratch);
	elems = palloc(h->nin * sizeof(Datum));
	for (int i = 0; i < h->nin; i++)
		elems[i] = Float8GetDatum(out[i]);
	result = construct_array(elems, h->nin, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	bins_view_done(h, &tmp);
	PG_RETURN_ARRAYTYPE_P(result);
}
