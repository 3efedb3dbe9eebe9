/*
 * sketch_fns.c: accessors of acmetrace.delay_sketch.  Each reads its sketch
 * through the fn_extra cache (sk_arg), so a per-row call such as
 * rank_of(s, wait_s) over a million jobs decodes s once.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_sketch_percentile);
PG_FUNCTION_INFO_V1(acmetrace_sketch_percentiles);
PG_FUNCTION_INFO_V1(acmetrace_sketch_rank_of);
PG_FUNCTION_INFO_V1(acmetrace_sketch_rank_pct);
PG_FUNCTION_INFO_V1(acmetrace_sketch_count);
PG_FUNCTION_INFO_V1(acmetrace_sketch_mean);
PG_FUNCTION_INFO_V1(acmetrace_sketch_min);
PG_FUNCTION_INFO_V1(acmetrace_sketch_max);
PG_FUNCTION_INFO_V1(acmetrace_sketch_relative_error);

static void
check_fraction(double q)
{
	/* the message percentile_cont gives */
	if (!(q >= 0 && q <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("percentile value %g is not between 0 and 1", q),
				 errhint("Ask for fractions: 0.5 is the median, 0.99 the 99th percentile.")));
}

Datum
acmetrace_sketch_percentile(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);
	double		q = PG_GETARG_FLOAT8(1);
	double		v;

	check_fraction(q);
	if (!at_sk_quantile(sk, q, &v))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v);
}

/* Same shape as the fractions array; NULL fractions give NULL elements. */
Datum
acmetrace_sketch_percentiles(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);
	ArrayType  *qs = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	ArrayType  *out;

	if (ARR_ELEMTYPE(qs) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("percentiles expects a float8[] of fractions")));
	if (sk->count == 0)
		PG_RETURN_NULL();
	deconstruct_array(qs, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		double		v;

		if (nulls[i])
			continue;
		check_fraction(DatumGetFloat8(elems[i]));
		at_sk_quantile(sk, DatumGetFloat8(elems[i]), &v);
		elems[i] = Float8GetDatum(v);
	}
	if (ARR_NDIM(qs) == 0)
		out = construct_empty_array(FLOAT8OID);
	else
		out = construct_md_array(elems, nulls, ARR_NDIM(qs), ARR_DIMS(qs), ARR_LBOUND(qs),
								 FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	PG_RETURN_ARRAYTYPE_P(out);
}

Datum
acmetrace_sketch_rank_of(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);
	double		r = at_sk_rank(sk, PG_GETARG_FLOAT8(1));

	if (r < 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r);
}

/* rank_pct: rank_of in percent (rank_of stays for the 0.1.0 to 0.3.0 scripts) */
Datum
acmetrace_sketch_rank_pct(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);
	double		r = at_sk_rank(sk, PG_GETARG_FLOAT8(1));

	if (r < 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(100.0 * r);
}

Datum
acmetrace_sketch_count(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);

	if (sk->count > (uint64) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("delay_sketch count %llu is out of range for bigint", (unsigned long long) sk->count)));
	PG_RETURN_INT64((int64) sk->count);
}

Datum
acmetrace_sketch_mean(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);
	double		m;

	if (sk->count == 0)
		PG_RETURN_NULL();
	/* rounding (or a crafted sum) must not put the mean outside [min, max] */
	m = sk->sum / (double) sk->count;
	PG_RETURN_FLOAT8(Min(Max(m, sk->min), sk->max));
}

Datum
acmetrace_sketch_min(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);

	if (sk->count == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(sk->min);
}

Datum
acmetrace_sketch_max(PG_FUNCTION_ARGS)
{
	const at_sketch *sk = sk_arg(fcinfo, 0);

	if (sk->count == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(sk->max);
}

Datum
acmetrace_sketch_relative_error(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sk_arg(fcinfo, 0)->alpha);
}
