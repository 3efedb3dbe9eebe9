/*
 * sketch_agg.c: acmetrace.delay_sketch_agg(value [, relative_error]) and
 * acmetrace.rollup(delay_sketch).
 *
 * The state is an acmetrace.delay_sketch kept expanded (SkEO, sketch_type.h):
 * an at_sketch whose bucket array (at most 128 KiB, about 15 KiB for
 * 1 s..10^8 s at 0.005) lives in a context of its own under the aggregate's,
 * updated in place, so each row costs one log() and one increment.  There
 * is no final function: the state is the result, flattened by PostgreSQL
 * when it leaves the aggregate (a worker's partial, Citus's text partial,
 * the result).
 *
 * The 0.1.0 SQL (upgrade/acmetrace--0.1.0.sql) declares the same trans,
 * rollup and combine symbols over STYPE internal: the R/W pointer they
 * return serves as an internal value just as well.  Its serialize,
 * deserialize and final symbols are adapters below.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "glue.h"

#include "samples_type.h"
#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_sketch_trans);
PG_FUNCTION_INFO_V1(acmetrace_sketch_rollup_trans);
PG_FUNCTION_INFO_V1(acmetrace_sketch_samples_trans);
PG_FUNCTION_INFO_V1(acmetrace_sketch_combine);
PG_FUNCTION_INFO_V1(acmetrace_sketch_serialize);
PG_FUNCTION_INFO_V1(acmetrace_sketch_deserialize);
PG_FUNCTION_INFO_V1(acmetrace_sketch_final);

static void
check_error_arg(double alpha)
{
	if (!at_sk_error_ok(alpha))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("relative_error must be between %g and %g, not %g", AT_SK_MIN_ERROR, AT_SK_MAX_ERROR, alpha),
				 errhint("0.005 (the default) answers every percentile within 0.5%% of the exact value.")));
}

/* Argument 2, relative_error: never NULL; checked when it starts a new sketch. */
static double
error_arg(FunctionCallInfo fcinfo, bool starts)
{
	double		alpha;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("relative_error must not be NULL"),
				 errhint("Leave it out for the default, 0.005.")));
	alpha = PG_GETARG_FLOAT8(2);
	if (starts)
		check_error_arg(alpha);
	return alpha;
}

/*
 * (state delay_sketch, value float8 [, relative_error float8]); also the
 * 0.1.0 SQL's (internal, float8 [, float8]).  Without relative_error a
 * state keeps its own.
 */
Datum
acmetrace_sketch_trans(PG_FUNCTION_ARGS)
{
	SkEO	   *eo = at_eo_rw(fcinfo, 0, &sk_eo_methods);
	double		x;
	at_sk_err	e;

	if (PG_ARGISNULL(1))		/* NULLs are skipped; no values give NULL */
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_NARGS() > 2)
	{
		double		alpha = error_arg(fcinfo, eo == NULL && PG_ARGISNULL(0));

		if (eo == NULL)
		{
			MemoryContext cxt = at_agg_context(fcinfo, "delay_sketch_agg");

			eo = PG_ARGISNULL(0) ? sk_eo_new(cxt, alpha) :
				sk_eo_copy(cxt, PG_GETARG_DATUM(0), ERRCODE_DATA_CORRUPTED);
		}
		if (alpha != eo->sk.alpha)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("relative_error changed from %g to %g within one delay_sketch_agg", eo->sk.alpha, alpha),
					 errhint("Pass one constant relative_error per aggregate.")));
	}
	else if (unlikely(eo == NULL))
	{
		MemoryContext cxt = at_agg_context(fcinfo, "delay_sketch_agg");

		eo = PG_ARGISNULL(0) ? sk_eo_new(cxt, AT_SK_DEFAULT_ERROR) :
			sk_eo_copy(cxt, PG_GETARG_DATUM(0), ERRCODE_DATA_CORRUPTED);
	}
	x = PG_GETARG_FLOAT8(1);
	e = at_sk_add_fast(&eo->sk, x);
	if (unlikely(e != AT_SK_OK))
		sk_raise(e, x);
	/* the same pointer: nodeAgg keeps it without a copy */
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/*
 * (state delay_sketch, samples [, relative_error]): every value of the
 * block, as delay_sketch_agg would take them one by one.
 */
Datum
acmetrace_sketch_samples_trans(PG_FUNCTION_ARGS)
{
	SkEO	   *eo = at_eo_rw(fcinfo, 0, &sk_eo_methods);
	double		alpha = AT_SK_DEFAULT_ERROR;
	size_t		len;
	const unsigned char *b;
	at_samples_iter it;
	double		v[AT_SAMPLES_CHUNK];
	int			k,
				constant;

	if (PG_NARGS() > 2)
	{
		alpha = error_arg(fcinfo, eo == NULL && PG_ARGISNULL(0));
	}
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (eo == NULL)
	{
		MemoryContext cxt = at_agg_context(fcinfo, "delay_sketch_agg");

		eo = PG_ARGISNULL(0) ? sk_eo_new(cxt, alpha) :
			sk_eo_copy(cxt, PG_GETARG_DATUM(0), ERRCODE_DATA_CORRUPTED);
	}
	if (PG_NARGS() > 2 && alpha != eo->sk.alpha)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("relative_error changed from %g to %g within one delay_sketch_agg", eo->sk.alpha, alpha),
				 errhint("Pass one constant relative_error per aggregate.")));
	b = samples_bytes(PG_GETARG_DATUM(1), &len);
	at_samples_iter_init(&it, b, len);
	while ((k = at_samples_iter_next(&it, v, &constant)) > 0)
		for (int i = 0; i < k; i++)
		{
			double		x = constant ? v[0] : v[i];
			at_sk_err	e = at_sk_add_fast(&eo->sk, x);

			if (unlikely(e != AT_SK_OK))
				sk_raise(e, x);
		}
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/*
 * state += arg 1, both delay_sketches (flat, TOASTed or expanded) or NULL:
 * arg 0 is updated in place when it is our R/W object, else copied into a
 * new one under the aggregate's context; arg 1 is never modified.
 */
static Datum
merge_args(FunctionCallInfo fcinfo, const char *fn)
{
	SkEO	   *eo = at_eo_rw(fcinfo, 0, &sk_eo_methods);
	const at_sketch *in;
	at_sketch	tmp;
	bool		decoded;
	at_sk_err	e;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	/* stored values were checked on the way in: a bad one is corrupt */
	in = sk_view(PG_GETARG_DATUM(1), &tmp, &decoded, ERRCODE_DATA_CORRUPTED);
	if (eo == NULL)
	{
		MemoryContext cxt = at_agg_context(fcinfo, fn);

		/* arg 1 may live in a short-lived context: copy it rather than adopt it */
		eo = PG_ARGISNULL(0) ? sk_eo_new(cxt, in->alpha) :
			sk_eo_copy(cxt, PG_GETARG_DATUM(0), ERRCODE_DATA_CORRUPTED);
	}
	else if (in == &eo->sk)
	{
		/* the same object twice: merge from a copy */
		at_sk_init(&tmp, eo->sk.alpha, at_cxt_mem, CurrentMemoryContext);
		e = at_sk_merge(&tmp, &eo->sk);
		if (e != AT_SK_OK)
			sk_raise(e, get_float8_nan());
		in = &tmp;
		decoded = true;
	}
	e = at_sk_merge(&eo->sk, in);
	if (e != AT_SK_OK)
		sk_raise(e, get_float8_nan());
	if (decoded)
		at_sk_free(&tmp);
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/*
 * acmetrace._sketch_combine(delay_sketch, delay_sketch), the rollup's
 * transition and combine function; also the 0.1.0 SQL's combine (internal,
 * internal), whose arguments are our objects.
 */
Datum
acmetrace_sketch_combine(PG_FUNCTION_ARGS)
{
	return merge_args(fcinfo, "delay_sketch combine");
}

/* The 0.1.0 SQL's rollup transition (internal, delay_sketch). */
Datum
acmetrace_sketch_rollup_trans(PG_FUNCTION_ARGS)
{
	return merge_args(fcinfo, "rollup");
}

/* ---- adapters for the 0.1.0 SQL (STYPE internal) ---- */

static const at_sketch *
internal_state(FunctionCallInfo fcinfo)
{
	SkEO	   *eo = at_eo_rw(fcinfo, 0, &sk_eo_methods);

	if (eo == NULL)				/* not ours: nothing SQL can pass as internal */
		elog(ERROR, "delay_sketch aggregate state expected");
	return &eo->sk;
}

/* (internal) -> bytea: the type's serialized bytes, as 0.1.0 wrote them. */
Datum
acmetrace_sketch_serialize(PG_FUNCTION_ARGS)
{
	at_agg_context(fcinfo, "delay_sketch serialize");
	PG_RETURN_BYTEA_P(sk_flatten(internal_state(fcinfo)));
}

/*
 * (bytea, internal) -> internal.  The object lives in the current
 * (per-input-tuple) context: the combine function merges it into the state
 * and never adopts it, so one per partial need not pile up in the
 * aggregate's context.
 */
Datum
acmetrace_sketch_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	SkEO	   *eo;

	at_agg_context(fcinfo, "delay_sketch deserialize");
	eo = at_eo_new(CurrentMemoryContext, &sk_eo_methods, sizeof(SkEO), "delay_sketch");
	sk_read(&eo->sk, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), eo->hdr.eoh_context,
			ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/* (internal) -> delay_sketch */
Datum
acmetrace_sketch_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(sk_flatten(internal_state(fcinfo)));
}
