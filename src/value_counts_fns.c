/*
 * value_counts_fns.c: reading the summaries' exact distributions, kept as a
 * pair of arrays (values float8[], counts bigint[]): percentiles as
 * percentile_cont gives them, counts at thresholds, the sum, and a
 * delay_sketch of the values.  The arrays come from a table a user can
 * write, so each is checked before use.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "access/htup_details.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "glue.h"
#include "sketch_type.h"
#include "value_counts.h"

PG_FUNCTION_INFO_V1(acmetrace_vc_percentiles);
PG_FUNCTION_INFO_V1(acmetrace_vc_counts_at);
PG_FUNCTION_INFO_V1(acmetrace_vc_sum);
PG_FUNCTION_INFO_V1(acmetrace_vc_sketch);
PG_FUNCTION_INFO_V1(acmetrace_vc_bins);
PG_FUNCTION_INFO_V1(acmetrace_vc_merge);

typedef struct VcArg
{
	double	   *vals;
	int64	   *counts;
	uint64	   *cum;
	int			n;
	uint64		total;
} VcArg;

static void
vc_bad(const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value counts: %s", what),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("Value counts are two arrays of equal length: distinct finite values in increasing "
					 "order and their counts (1 or more), as the summaries keep them.")));
}

/* A one-dimensional array of elemtype without NULLs: its data and length. */
static void *
vc_array(ArrayType *a, Oid elemtype, const char *name, int *n)
{
	if (ARR_ELEMTYPE(a) != elemtype)
		vc_bad(psprintf("%s has the wrong element type", name), NULL);
	if (ARR_NDIM(a) > 1)
		vc_bad(psprintf("%s has %d dimensions, not 1", name, ARR_NDIM(a)), NULL);
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		vc_bad(psprintf("%s contains NULL", name), NULL);
	*n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
	return ARR_DATA_PTR(a);
}

static void
vc_read(FunctionCallInfo fcinfo, VcArg *vc)
{
	ArrayType  *va = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *ca = PG_GETARG_ARRAYTYPE_P(1);
	int			nc;
	size_t		bad;
	const char *msg;

	vc->vals = vc_array(va, FLOAT8OID, "the values array", &vc->n);
	vc->counts = vc_array(ca, INT8OID, "the counts array", &nc);
	if (nc != vc->n)
		vc_bad("the arrays differ in length", psprintf("%d values, %d counts.", vc->n, nc));
	msg = at_vc_check(vc->vals, vc->counts, vc->n, &bad);
	if (msg)
		vc_bad(msg, psprintf("At element %zu: value %g, count " INT64_FORMAT ".",
							 bad + 1, vc->vals[bad], vc->counts[bad]));
	vc->cum = palloc(sizeof(uint64) * Max(vc->n, 1));
	vc->total = vc->n == 0 ? 0 : at_vc_prefix(vc->counts, vc->n, vc->cum);
	if (vc->n > 0 && vc->total == 0)
		vc_bad("the counts add up to more than 2^62", NULL);
}

/* percentile_cont(fractions) over the values; NULL when there are none. */
Datum
acmetrace_vc_percentiles(PG_FUNCTION_ARGS)
{
	VcArg		vc;
	ArrayType  *fa;
	Datum	   *fs;
	bool	   *fnull;
	int			nf;
	Datum	   *out;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	vc_read(fcinfo, &vc);
	fa = PG_GETARG_ARRAYTYPE_P(2);
	if (ARR_ELEMTYPE(fa) != FLOAT8OID || ARR_NDIM(fa) > 1)
		vc_bad("fractions must be a one-dimensional double precision array", NULL);
	deconstruct_array(fa, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &fs, &fnull, &nf);
	for (int i = 0; i < nf; i++)
	{
		double		q = fnull[i] ? 0 : DatumGetFloat8(fs[i]);

		/* percentile_cont's own check and message */
		if (q < 0 || q > 1 || isnan(q))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("percentile value %g is not between 0 and 1", q)));
	}
	if (vc.total == 0)
		PG_RETURN_NULL();
	out = palloc(sizeof(Datum) * Max(nf, 1));
	for (int i = 0; i < nf; i++)
		out[i] = fnull[i] ? (Datum) 0 :
			Float8GetDatum(at_vc_percentile_cont(vc.vals, vc.cum, vc.n, DatumGetFloat8(fs[i])));
	{
		int			dims[1] = {nf};
		int			lbs[1] = {1};

		PG_RETURN_ARRAYTYPE_P(construct_md_array(out, fnull, nf == 0 ? 0 : 1, dims, lbs,
												 FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
}

/* Values <= each threshold (strict: < each), as bigint[] of the thresholds' length. */
Datum
acmetrace_vc_counts_at(PG_FUNCTION_ARGS)
{
	VcArg		vc;
	ArrayType  *ta;
	double	   *ts;
	int			nt;
	bool		strict;
	Datum	   *out;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	vc_read(fcinfo, &vc);
	ta = PG_GETARG_ARRAYTYPE_P(2);
	strict = PG_GETARG_BOOL(3);
	if (ARR_ELEMTYPE(ta) != FLOAT8OID || ARR_NDIM(ta) > 1 || (ARR_HASNULL(ta) && array_contains_nulls(ta)))
		vc_bad("thresholds must be a one-dimensional double precision array without NULLs", NULL);
	nt = ARR_NDIM(ta) == 0 ? 0 : ARR_DIMS(ta)[0];
	ts = (double *) ARR_DATA_PTR(ta);
	out = palloc(sizeof(Datum) * Max(nt, 1));
	for (int i = 0; i < nt; i++)
		out[i] = Int64GetDatum((int64) at_vc_count_at(vc.vals, vc.cum, vc.n, ts[i], strict));
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nt, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* sum(value * count), in increasing order of value; NULL when there are none. */
Datum
acmetrace_vc_sum(PG_FUNCTION_ARGS)
{
	VcArg		vc;
	double		s = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	vc_read(fcinfo, &vc);
	if (vc.total == 0)
		PG_RETURN_NULL();
	for (int i = 0; i < vc.n; i++)
		s += vc.vals[i] * (double) vc.counts[i];
	PG_RETURN_FLOAT8(s);
}

/* The delay_sketch delay_sketch_agg would give for the values (relative error 0.005). */
Datum
acmetrace_vc_sketch(PG_FUNCTION_ARGS)
{
	VcArg		vc;
	at_sketch	sk;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	vc_read(fcinfo, &vc);
	if (vc.total == 0)
		PG_RETURN_NULL();
	at_sk_init(&sk, AT_SK_DEFAULT_ERROR, at_cxt_mem, CurrentMemoryContext);
	for (int i = 0; i < vc.n; i++)
	{
		at_sk_err	e = at_sk_add_n(&sk, vc.vals[i], (uint64) vc.counts[i]);

		if (e != AT_SK_OK)
			sk_raise(e, vc.vals[i]);
	}
	PG_RETURN_BYTEA_P(sk_flatten(&sk));
}

/*
 * cancelled_by_queue's bins over the values: bin nb + 1 for v >= upper, else
 * floor(v / bin_width) + 1, the scan's own float8 arithmetic; counts of bins
 * 1 .. nb + 1 (values below 0, which the scan never passes, are refused).
 */
Datum
acmetrace_vc_bins(PG_FUNCTION_ARGS)
{
	VcArg		vc;
	double		w,
				upper;
	int32		nb;
	int64	   *bins;
	Datum	   *out;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		PG_RETURN_NULL();
	vc_read(fcinfo, &vc);
	w = PG_GETARG_FLOAT8(2);
	upper = PG_GETARG_FLOAT8(3);
	nb = PG_GETARG_INT32(4);
	if (!(w > 0 && isfinite(w) && isfinite(upper) && upper >= w && nb >= 1 && nb <= 10000 && upper / w <= nb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid bins: width %g, upper %g, %d bins", w, upper, nb),
				 errhint("Pass cancelled_by_queue's bin_width, upper and queue_bin_count(bin_width, upper).")));
	bins = palloc0(sizeof(int64) * (nb + 1));
	for (int i = 0; i < vc.n; i++)
	{
		double		v = vc.vals[i];
		double		b;

		if (v < 0)
			vc_bad("a value is negative", NULL);
		if (v >= upper)
			b = nb;
		else
		{
			b = floor(v / w);
			if (b > nb)			/* v / w rounded up past the last bin: the scan would say so too */
				b = nb;
		}
		bins[(int) b] += vc.counts[i];
	}
	out = palloc(sizeof(Datum) * (nb + 1));
	for (int i = 0; i <= nb; i++)
		out[i] = Int64GetDatum(bins[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nb + 1, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static const double *vc_sort_keys;

static int
vc_cmp_ix(const void *a, const void *b)
{
	double		x = vc_sort_keys[*(const int *) a],
				y = vc_sort_keys[*(const int *) b];

	return (x > y) - (x < y);
}

/* ix[0..m) ordered by keys[ix[i]]. */
static void
vc_sort_by_value(int *ix, int m, const double *keys)
{
	vc_sort_keys = keys;
	qsort(ix, m, sizeof(int), vc_cmp_ix);
}

/* The m changes sorted by value, repeats added, zeros dropped, in place of *dv and *dc; returns how many. */
static int
vc_changes(double **dv, int64 **dc, int m)
{
	int		   *ix = palloc(sizeof(int) * Max(m, 1));
	double	   *sv = palloc(sizeof(double) * Max(m, 1));
	int64	   *sc = palloc(sizeof(int64) * Max(m, 1));
	int			k = 0;

	for (int i = 0; i < m; i++)
	{
		if (!isfinite((*dv)[i]))
			vc_bad("a changed value is not finite", psprintf("%g", (*dv)[i]));
		ix[i] = i;
	}
	vc_sort_by_value(ix, m, *dv);
	for (int i = 0; i < m; i++)
	{
		double		v = (*dv)[ix[i]] == 0 ? 0.0 : (*dv)[ix[i]];

		if (k > 0 && sv[k - 1] == v)
			sc[k - 1] += (*dc)[ix[i]];
		else
		{
			sv[k] = v;
			sc[k++] = (*dc)[ix[i]];
		}
		if (sc[k - 1] == 0)
			k--;
	}
	*dv = sv;
	*dc = sc;
	return k;
}

/*
 * The values plus signed changes (dvals, dcounts: any order, repeats added,
 * a NULL pair is no change), as (vals, counts); a count that would fall
 * below 0 is an error.  summarize_delta's merge of the changed jobs.
 */
Datum
acmetrace_vc_merge(PG_FUNCTION_ARGS)
{
	VcArg		vc = {0};
	ArrayType  *dva,
			   *dca;
	double	   *dv,
			   *ov;
	int64	   *dc,
			   *oc;
	int			m,
				mc,
				k = 0;
	long		nout;
	TupleDesc	td;
	Datum		res[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "vc_merge: return type must be a row type");
	if (!PG_ARGISNULL(0) && !PG_ARGISNULL(1))
		vc_read(fcinfo, &vc);
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		m = 0, dv = NULL, dc = NULL;
	else
	{
		dva = PG_GETARG_ARRAYTYPE_P(2);
		dca = PG_GETARG_ARRAYTYPE_P(3);
		dv = vc_array(dva, FLOAT8OID, "the changed values", &m);
		dc = vc_array(dca, INT8OID, "the changes", &mc);
		if (m != mc)
			vc_bad("the changes differ in length", psprintf("%d values, %d changes.", m, mc));
	}
	k = vc_changes(&dv, &dc, m);
	ov = palloc_extended(sizeof(double) * Max(vc.n + k, 1), MCXT_ALLOC_HUGE);
	oc = palloc_extended(sizeof(int64) * Max(vc.n + k, 1), MCXT_ALLOC_HUGE);
	nout = at_vc_merge(vc.vals, vc.counts, vc.n, dv, dc, k, ov, oc);
	if (nout < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("vc_merge: a count would fall below 0"),
				 errhint("The changes take away values the distribution does not hold; rebuild with refresh_summaries.")));
	{
		Datum	   *vd = palloc_extended(sizeof(Datum) * Max(nout, 1), MCXT_ALLOC_HUGE);
		Datum	   *cd = palloc_extended(sizeof(Datum) * Max(nout, 1), MCXT_ALLOC_HUGE);

		for (long i = 0; i < nout; i++)
		{
			vd[i] = Float8GetDatum(ov[i]);
			cd[i] = Int64GetDatum(oc[i]);
		}
		res[0] = PointerGetDatum(construct_array(vd, (int) nout, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		res[1] = PointerGetDatum(construct_array(cd, (int) nout, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), res, nulls)));
}
