/*
 * occupancy_agg.c: acmetrace.occupancy_agg(start, end, gpus) -> occupancy.
 *
 * The state is the core's at_occ_state (src/core/occupancy.h): jobs in
 * chunks, sorted runs from partial states, folded when there are too many,
 * and its versioned serialized form, which deserialize checks.  This file
 * only handles arguments, memory contexts and errors: the state lives in
 * the aggregate's context (at_cxt_mem), scratch lists in the calling
 * context, and events are sorted with PostgreSQL's sort template.
 *
 * rollup(occupancy) sums step functions with the same state: each input
 * becomes the jobs whose occupancy it is (at_occ_to_jobs).
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "occupancy_type.h"

#define ST_SORT occ_sort_events
#define ST_ELEMENT_TYPE at_occ_step
#define ST_COMPARE(a, b) (((a)->t > (b)->t) - ((a)->t < (b)->t))
#define ST_SCOPE static
#define ST_CHECK_FOR_INTERRUPTS
#define ST_DEFINE
#include "lib/sort_template.h"

PG_FUNCTION_INFO_V1(acmetrace_occupancy_trans);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_combine);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_serialize);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_deserialize);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_final);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_rollup_trans);

static at_occ_state *
new_state(MemoryContext cxt)
{
	at_occ_state *st = MemoryContextAlloc(cxt, sizeof(at_occ_state));

	at_occ_state_init(st, at_cxt_mem, cxt, occ_sort_events);
	return st;
}

/*
 * An error of the core's state functions.  at_cxt_mem raises its own error
 * rather than return NULL, so AT_OCC_ENOMEM is reported only for form.
 */
static pg_noinline void
occ_agg_raise(at_occ_err e, const at_occ_state *st)
{
	switch (e)
	{
		case AT_OCC_OK:
			return;
		case AT_OCC_ETOOMANY:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("occupancy_agg over %llu jobs is too large", (unsigned long long) st->nraw)));
			break;
		case AT_OCC_ERISE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("rollup: an occupancy rises by more than %d GPUs in one step", PG_INT32_MAX),
					 errhint("occupancy_agg never makes such a step; check where the value came from.")));
			break;
		case AT_OCC_ENEGATIVE:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("occupancy_agg: GPUs released before they were allocated"),
					 errdetail("The aggregate's state is inconsistent.")));
			break;
		case AT_OCC_ENOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
			break;
	}
}

static inline void
occ_agg_check(at_occ_err e, const at_occ_state *st)
{
	if (unlikely(e != AT_OCC_OK))
		occ_agg_raise(e, st);
}

static char *
ts_text(TimestampTz t)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(t)));
}

Datum
acmetrace_occupancy_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "occupancy_agg_transfn");
	at_occ_state *st = PG_ARGISNULL(0) ? NULL : (at_occ_state *) PG_GETARG_POINTER(0);
	at_occ_job	job;
	TimestampTz start,
				end;
	int32		gpus;

	if (st == NULL)
		st = new_state(cxt);
	/* NULL start or GPUs: the job never held GPUs */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_POINTER(st);
	start = PG_GETARG_TIMESTAMPTZ(1);
	end = PG_ARGISNULL(2) ? 0 : PG_GETARG_TIMESTAMPTZ(2);
	gpus = PG_GETARG_INT32(3);
	switch (at_occ_classify(start, !PG_ARGISNULL(2), end, gpus, &job))
	{
		case AT_OCC_ROW_ADD:
			occ_agg_check(at_occ_state_add(st, &job), st);
			break;
		case AT_OCC_ROW_SKIP:
			break;
		case AT_OCC_ROW_END_BEFORE_START:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("occupancy_agg: job ends before it starts (start %s, end %s)",
							ts_text(start), ts_text(end)),
					 errhint("Leave such rows out, e.g. WHERE end_time >= start_time; "
							 "acmetrace.audit() lists them as end_before_start.")));
			break;
		case AT_OCC_ROW_NEGATIVE_GPUS:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("occupancy_agg: negative GPU count %d (start %s)", gpus, ts_text(start))));
			break;
	}
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_occupancy_rollup_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "rollup_transfn");
	at_occ_state *st = PG_ARGISNULL(0) ? NULL : (at_occ_state *) PG_GETARG_POINTER(0);
	const OccData *o;

	if (st == NULL)
		st = new_state(cxt);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	o = occ_read(PG_GETARG_DATUM(1));
	occ_agg_check(at_occ_state_add_steps(st, o->steps, o->nsteps), st);
	if ((Pointer) o != DatumGetPointer(PG_GETARG_DATUM(1)))
		pfree((void *) o);
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_occupancy_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "occupancy_agg_combinefn");
	at_occ_state *s1 = PG_ARGISNULL(0) ? NULL : (at_occ_state *) PG_GETARG_POINTER(0);
	at_occ_state *s2 = PG_ARGISNULL(1) ? NULL : (at_occ_state *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = new_state(cxt);
	/* s2's raw jobs are copied; its runs taken if deserialize made them in cxt */
	occ_agg_check(at_occ_state_combine(s1, s2), s1);
	PG_RETURN_POINTER(s1);
}

Datum
acmetrace_occupancy_serialize(PG_FUNCTION_ARGS)
{
	at_occ_state *st = (at_occ_state *) PG_GETARG_POINTER(0);
	at_occ_flat f;
	bytea	   *out;
	Size		size;

	at_agg_context(fcinfo, "occupancy_agg_serialfn");
	/* the serialized form holds one sorted list of each kind */
	occ_agg_check(at_occ_state_flatten(st, at_cxt_mem, CurrentMemoryContext, &f), st);
	if (f.starts.n + f.ends.n > (MaxAllocSize - VARHDRSZ - AT_OCC_STATE_HEADER) / AT_OCC_STATE_ENTRY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy_agg state of %zu jobs is too large to pass between processes",
						(size_t) f.starts.n),
				 errhint("SET max_parallel_workers_per_gather = 0, or aggregate fewer jobs per group.")));
	size = VARHDRSZ + at_occ_state_size(f.starts.n, f.ends.n);
	out = palloc(size);
	SET_VARSIZE(out, size);
	at_occ_state_write((uint8 *) VARDATA(out), &f.starts, &f.ends);
	at_occ_flat_free(&f, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_BYTEA_P(out);
}

Datum
acmetrace_occupancy_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "occupancy_agg_deserialfn");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	at_occ_state *st;
	const char *msg;

	/* in the aggregate's context, so that combine can take the lists */
	st = MemoryContextAlloc(cxt, sizeof(at_occ_state));
	msg = at_occ_state_decode(st, (const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
							  MIN_TIMESTAMP, END_TIMESTAMP, at_cxt_mem, cxt, occ_sort_events);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid occupancy_agg state: %s", msg)));
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_occupancy_final(PG_FUNCTION_ARGS)
{
	at_occ_state *st = PG_ARGISNULL(0) ? NULL : (at_occ_state *) PG_GETARG_POINTER(0);
	at_occ_runs runs;
	long long	nsteps;
	OccData    *result;

	runs.k = runs.owned = 0;
	if (st != NULL)
		occ_agg_check(at_occ_state_runs(st, at_cxt_mem, CurrentMemoryContext, &runs), st);
	/* sweep straight into the result */
	result = occ_alloc(at_occ_runs_events(&runs));
	nsteps = at_occ_runs_sweep(&runs, result->steps);
	if (nsteps < 0)
		occ_agg_raise(AT_OCC_ENEGATIVE, st);
	at_occ_runs_free(&runs, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_POINTER(occ_finish(result, (Size) nsteps));
}
