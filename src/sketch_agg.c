/*
 * sketch_agg.c: acmetrace.delay_sketch_agg(value [, relative_error]) and
 * acmetrace.rollup(delay_sketch).
 *
 * The state is an at_sketch whose bucket array lives in the aggregate
 * memory context (at most 128 KiB, about 15 KiB for 1 s..10^8 s at 0.005),
 * so each row costs one log() and one increment.  Partial states travel in
 * the type's own serialized form, checked on the way in.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "glue.h"

#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_sketch_trans);
PG_FUNCTION_INFO_V1(acmetrace_sketch_rollup_trans);
PG_FUNCTION_INFO_V1(acmetrace_sketch_combine);
PG_FUNCTION_INFO_V1(acmetrace_sketch_serialize);
PG_FUNCTION_INFO_V1(acmetrace_sketch_deserialize);
PG_FUNCTION_INFO_V1(acmetrace_sketch_final);

static at_sketch *
new_state(MemoryContext cxt, double alpha)
{
	at_sketch  *st = MemoryContextAlloc(cxt, sizeof(at_sketch));

	at_sk_init(st, alpha, at_cxt_mem, cxt);
	return st;
}

static void
check_error_arg(double alpha)
{
	if (!at_sk_error_ok(alpha))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("relative_error must be between %g and %g, not %g", AT_SK_MIN_ERROR, AT_SK_MAX_ERROR, alpha),
				 errhint("0.005 (the default) answers every percentile within 0.5%% of the exact value.")));
}

/* (state, value float8 [, relative_error float8]) */
Datum
acmetrace_sketch_trans(PG_FUNCTION_ARGS)
{
	at_sketch  *st = PG_ARGISNULL(0) ? NULL : (at_sketch *) PG_GETARG_POINTER(0);
	double		alpha = AT_SK_DEFAULT_ERROR;
	double		x;
	at_sk_err	e;

	if (PG_ARGISNULL(1))		/* NULLs are skipped; no values give NULL */
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (PG_NARGS() > 2)
	{
		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("relative_error must not be NULL"),
					 errhint("Leave it out for the default, 0.005.")));
		alpha = PG_GETARG_FLOAT8(2);
	}
	if (st == NULL)
	{
		MemoryContext cxt = at_agg_context(fcinfo, "delay_sketch_agg");

		check_error_arg(alpha);
		st = new_state(cxt, alpha);
	}
	else if (alpha != st->alpha)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("relative_error changed from %g to %g within one delay_sketch_agg", st->alpha, alpha),
				 errhint("Pass one constant relative_error per aggregate.")));
	x = PG_GETARG_FLOAT8(1);
	e = at_sk_add_fast(st, x);
	if (unlikely(e != AT_SK_OK))
		sk_raise(e, x);
	PG_RETURN_POINTER(st);
}

/* (state, sketch) */
Datum
acmetrace_sketch_rollup_trans(PG_FUNCTION_ARGS)
{
	at_sketch  *st = PG_ARGISNULL(0) ? NULL : (at_sketch *) PG_GETARG_POINTER(0);
	MemoryContext cxt = at_agg_context(fcinfo, "rollup");
	bytea	   *v;
	at_sketch	in;
	at_sk_err	e;

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	v = PG_GETARG_BYTEA_PP(1);
	sk_read(&in, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext, ERRCODE_DATA_CORRUPTED);
	if (st == NULL)
		st = new_state(cxt, in.alpha);
	e = at_sk_merge(st, &in);
	if (e != AT_SK_OK)
		sk_raise(e, get_float8_nan());
	at_sk_free(&in);
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_sketch_combine(PG_FUNCTION_ARGS)
{
	at_sketch  *s1 = PG_ARGISNULL(0) ? NULL : (at_sketch *) PG_GETARG_POINTER(0);
	at_sketch  *s2 = PG_ARGISNULL(1) ? NULL : (at_sketch *) PG_GETARG_POINTER(1);
	MemoryContext cxt = at_agg_context(fcinfo, "delay_sketch combine");
	at_sk_err	e;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	/* s2 may live in a short-lived context: copy it rather than adopt it */
	if (s1 == NULL)
		s1 = new_state(cxt, s2->alpha);
	e = at_sk_merge(s1, s2);
	if (e != AT_SK_OK)
		sk_raise(e, get_float8_nan());
	PG_RETURN_POINTER(s1);
}

Datum
acmetrace_sketch_serialize(PG_FUNCTION_ARGS)
{
	at_sketch  *st = (at_sketch *) PG_GETARG_POINTER(0);

	at_agg_context(fcinfo, "delay_sketch serialize");
	PG_RETURN_BYTEA_P(sk_flatten(st));
}

Datum
acmetrace_sketch_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	at_sketch  *st;

	at_agg_context(fcinfo, "delay_sketch deserialize");
	st = palloc(sizeof(at_sketch));
	sk_read(st, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext,
			ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_sketch_final(PG_FUNCTION_ARGS)
{
	at_sketch  *st = PG_ARGISNULL(0) ? NULL : (at_sketch *) PG_GETARG_POINTER(0);

	if (st == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(sk_flatten(st));
}
