/*
 * gbdt_agg.c: fmgr glue of gbdt_train, the aggregate that trains boosted
 * regression trees (src/core/gbdt.c): the transition function gathers the
 * rows into an expanded gbdt_state (gbdt_type.h) updated in place, the
 * combine function merges states, the final function trains.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "glue.h"
#include "gbdt_type.h"

PG_FUNCTION_INFO_V1(acmetrace_gbdt_trans);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_combine);
PG_FUNCTION_INFO_V1(acmetrace_gbdt_final);

#define RETURN_EO(eo) PG_RETURN_DATUM(EOHPGetRWDatum(&(eo)->hdr))

/* Rows that fit one flat state. */
static int64
rows_limit(int32 nfeatures)
{
	return at_gbdt_rows_max(nfeatures, MaxAllocSize - VARHDRSZ);
}

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
	switch (at_gbdt_rows_combine(into, from, rows_limit(into->nfeatures), at_cxt_mem, cxt))
	{
		case AT_GBDT_COMBINED:
			break;
		case AT_GBDT_COMBINE_OTHER:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot combine gbdt_states of %d and %d features, or of other parameters",
							into->nfeatures, from->nfeatures),
					 errhint("Combine states of one gbdt_train called with the same parameters.")));
			break;
		case AT_GBDT_COMBINE_TOO_MANY:
			too_many_rows(into->nfeatures);
			break;
		case AT_GBDT_COMBINE_NOMEM:
			at_no_memory();
			break;
	}
}

/* A state argument returned as it is (NULL stays NULL). */
static Datum
arg0_as_is(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/*
 * gbdt_train's parameters into p: the defaults, or arguments 3 to 5; the
 * same as the state's, if any (eo).
 */
static void
read_params(FunctionCallInfo fcinfo, const GbdtEO *eo, at_gbdt_params *p)
{
	at_gbdt_params_default(p);
	if (PG_NARGS() > 3)
	{
		for (int a = 3; a < 6; a++)
			if (PG_ARGISNULL(a))
				param_error("rounds, depth and learning_rate must not be NULL");
		p->rounds = PG_GETARG_INT32(3);
		p->depth = PG_GETARG_INT32(4);
		p->learning_rate = PG_GETARG_FLOAT8(5);
	}
	if (eo == NULL)
	{
		const char *msg = at_gbdt_check_params(p);

		if (msg)
			param_error(msg);
	}
	else if (p->rounds != eo->r.params.rounds || p->depth != eo->r.params.depth ||
			 p->learning_rate != eo->r.params.learning_rate)
		param_error("rounds, depth and learning_rate changed within one aggregate");
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

	read_params(fcinfo, eo, &p);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || isnan(PG_GETARG_FLOAT8(2)))
	{
		if (eo == NULL)
			return arg0_as_is(fcinfo);
		RETURN_EO(eo);
	}
	y = PG_GETARG_FLOAT8(2);
	if (isinf(y))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_train: the target is %s", y > 0 ? "Infinity" : "-Infinity"),
				 errhint("Targets are finite numbers; leave out rows without one (a NULL target is skipped).")));
	x = gbdt_features_arg(PG_GETARG_ARRAYTYPE_P(1), "gbdt_train", &n);
	if (n < 1 || n > AT_GBDT_MAX_FEATURES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gbdt_train: a row has %d features; 1 to %d are allowed", n, AT_GBDT_MAX_FEATURES),
				 errhint("Every row passes the same number of features.")));
	if (eo == NULL)
	{
		eo = at_agg_eo_new(fcinfo, "gbdt_train", &gbdt_state_methods, GbdtEO, "acmetrace gbdt_state");
		at_gbdt_rows_init(&eo->r, &p, n);
		/* an INITCOND or a caller's own state to go on from */
		if (!PG_ARGISNULL(0))
		{
			at_gbdt_rows tmp;
			const at_gbdt_rows *from = gbdt_rows_view(PG_GETARG_DATUM(0), &tmp);

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
		at_no_memory();
	RETURN_EO(eo);
}

/* (gbdt_state, gbdt_state) -> gbdt_state, not strict: arg 0 updated in place when it is ours. */
Datum
acmetrace_gbdt_combine(PG_FUNCTION_ARGS)
{
	GbdtEO	   *eo = at_eo_rw(fcinfo, 0, &gbdt_state_methods);
	at_gbdt_rows tmp,
				tmp0;
	const at_gbdt_rows *src,
			   *from;

	if (PG_ARGISNULL(1))
		return arg0_as_is(fcinfo);
	src = gbdt_rows_view(PG_GETARG_DATUM(1), &tmp);
	if (eo == NULL)
	{
		/* a state of our own: a copy of arg 0's rows, or of src's when arg 0 is NULL */
		eo = at_agg_eo_new(fcinfo, "gbdt_train combine", &gbdt_state_methods, GbdtEO, "acmetrace gbdt_state");
		from = PG_ARGISNULL(0) ? src : gbdt_rows_view(PG_GETARG_DATUM(0), &tmp0);
		at_gbdt_rows_init(&eo->r, &from->params, from->nfeatures);
		merge_rows(&eo->r, from, eo->hdr.eoh_context);
		if (PG_ARGISNULL(0))
			RETURN_EO(eo);
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
		r = (at_gbdt_rows *) gbdt_rows_view(PG_GETARG_DATUM(0), &tmp);
		if (r != &tmp)
		{
			/* a read-only view of someone's object: train on a copy */
			at_gbdt_rows_init(&tmp, &r->params, r->nfeatures);
			if (!at_gbdt_rows_merge(&tmp, r, at_cxt_mem, CurrentMemoryContext))
				at_no_memory();
			r = &tmp;
		}
	}
	if (r->n == 0)
		PG_RETURN_NULL();
	if (at_gbdt_train(r, at_cxt_mem, CurrentMemoryContext, train_tick, NULL, &m) != 0)
		at_no_memory();
	out = gbdt_model_flat(&m);
	at_gbdt_free(&m, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_BYTEA_P(out);
}
