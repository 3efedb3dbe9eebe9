/*
 * occupancy_agg.c: acmetrace.occupancy_agg(start, end, gpus) and
 * rollup(occupancy), and their state type acmetrace.occupancy_state.
 *
 * The state is the core's at_occ_state (src/core/occupancy.h): jobs waiting
 * unsorted in chunks, sorted runs from partial states.  It is kept as an
 * expanded object (utils/expandeddatum.h) in a context of its own under the
 * aggregate's, updated in place, and written in its flat form only when it
 * leaves the aggregate: a parallel worker's tuple, Citus's text partial, a
 * table column.  The flat form is the core's serialized state (one sorted
 * start and one end list, big-endian, versioned) after a varlena header:
 * the same bytes the 0.x internal-state serialize function wrote, so that
 * symbol, still named by released install scripts, writes it unchanged.
 * Every way in (text and binary, in occupancy_type.c, a flat value in the
 * aggregate's functions) goes through occ_state_decode, which checks
 * everything.
 *
 * rollup(occupancy) sums step functions with the same state: each input
 * becomes the jobs whose occupancy it is (at_occ_to_jobs).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "occupancy_type.h"

/* the aggregates' support functions, old (internal state) and new SQL alike */
PG_FUNCTION_INFO_V1(acmetrace_occupancy_trans);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_rollup_trans);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_combine);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_final);
/* only the 0.1.0 - 0.3.0 SQL names these (STYPE = internal) */
PG_FUNCTION_INFO_V1(acmetrace_occupancy_serialize);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_deserialize);

/* The expanded state: everything it holds lives in hdr.eoh_context. */
typedef struct OccStateEO
{
	ExpandedObjectHeader hdr;
	at_occ_state st;
} OccStateEO;

static Size occ_state_flat_size(ExpandedObjectHeader *eohptr);
static void occ_state_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods occ_state_methods = {
	occ_state_flat_size,
	occ_state_flatten_into
};

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
		case AT_OCC_ESELF:
			elog(ERROR, "occupancy_agg: a state combined with itself");
			break;
		case AT_OCC_ENOMEM:
			at_no_memory();
	}
}

static inline void
occ_agg_check(at_occ_err e, const at_occ_state *st)
{
	if (unlikely(e != AT_OCC_OK))
		occ_agg_raise(e, st);
}

/* ---- the expanded object ---- */

/* A new empty state under the aggregate's context (fn: for the error outside one). */
static OccStateEO *
occ_state_new(FunctionCallInfo fcinfo, const char *fn)
{
	OccStateEO *eo = at_agg_eo_new(fcinfo, fn, &occ_state_methods, OccStateEO, "acmetrace occupancy_state");

	at_occ_state_init(&eo->st, at_cxt_mem, eo->hdr.eoh_context, occ_sort_steps);
	return eo;
}

/*
 * The state in d, read only: an expanded object's own state, or a flat
 * value decoded into *tmp with memory from cxt (the caller frees *tmp).
 * Flat values were checked on their way in, so a bad one is corruption.
 */
static const at_occ_state *
occ_state_read(Datum d, at_occ_state *tmp, MemoryContext cxt)
{
	struct varlena *v;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &occ_state_methods)
			return &((OccStateEO *) eoh)->st;
	}
	v = PG_DETOAST_DATUM_PACKED(d);
	occ_state_decode(tmp, (const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), cxt, ERRCODE_DATA_CORRUPTED);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return tmp;
}

/* An expanded state's flat form, palloc'd. */
static struct varlena *
occ_state_flat(ExpandedObjectHeader *eoh)
{
	Size		size = EOH_get_flat_size(eoh);
	struct varlena *flat = palloc(size);

	EOH_flatten_into(eoh, flat, size);
	return flat;
}

/*
 * dst += the state in d, which is not modified.  A flat state is decoded
 * in dst's context, so dst takes its lists rather than copying them.
 */
static void
occ_state_merge(OccStateEO *dst, Datum d)
{
	at_occ_state tmp;
	const at_occ_state *src = occ_state_read(d, &tmp, dst->hdr.eoh_context);

	if (src == &dst->st)
	{
		/* with itself (no plan does it, SQL could): through its flat form */
		struct varlena *flat = occ_state_flat(&dst->hdr);

		occ_state_decode(&tmp, (const uint8 *) VARDATA(flat), VARSIZE(flat) - VARHDRSZ, dst->hdr.eoh_context,
						 ERRCODE_DATA_CORRUPTED);
		pfree(flat);
		src = &tmp;
	}
	/* a state not decoded here is only copied from: the cast is safe */
	occ_agg_check(at_occ_state_combine(&dst->st, (at_occ_state *) src), &dst->st);
	if (src == &tmp)
		at_occ_state_free(&tmp);
}

/*
 * Argument 0 of a transition or combine function as our read-write object
 * (the row is added to it in place), or a new one under the aggregate's
 * context holding what argument 0 held (NULL: nothing).
 */
static OccStateEO *
occ_state_arg(FunctionCallInfo fcinfo, const char *fn)
{
	OccStateEO *eo = at_eo_rw(fcinfo, 0, &occ_state_methods);

	if (eo == NULL)
	{
		eo = occ_state_new(fcinfo, fn);
		if (!PG_ARGISNULL(0))
			occ_state_merge(eo, PG_GETARG_DATUM(0));
	}
	return eo;
}

static Size
occ_state_flat_size(ExpandedObjectHeader *eohptr)
{
	OccStateEO *eo = (OccStateEO *) eohptr;
	size_t		ns,
				ne;

	at_occ_state_counts(&eo->st, &ns, &ne);
	if (ns + ne > (MaxAllocSize - VARHDRSZ - AT_OCC_STATE_HEADER) / AT_OCC_STATE_ENTRY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy_agg state of %zu jobs is too large to store or pass between processes", ns),
				 errhint("SET max_parallel_workers_per_gather = 0, or aggregate fewer jobs per group.")));
	return VARHDRSZ + at_occ_state_size(ns, ne);
}

/* The state's jobs sorted into one start and one end list (not kept). */
static void
occ_state_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	OccStateEO *eo = (OccStateEO *) eohptr;
	MemoryContext scratch = AllocSetContextCreate(CurrentMemoryContext, "acmetrace occupancy_state flatten",
												  ALLOCSET_DEFAULT_SIZES);
	at_occ_flat f;

	occ_agg_check(at_occ_state_flatten(&eo->st, at_cxt_mem, scratch, &f), &eo->st);
	if (allocated_size != VARHDRSZ + at_occ_state_size(f.starts.n, f.ends.n))
		elog(ERROR, "occupancy_state: flat size %zu, not the %zu announced",
			 VARHDRSZ + at_occ_state_size(f.starts.n, f.ends.n), (size_t) allocated_size);
	SET_VARSIZE(result, allocated_size);
	at_occ_state_write((uint8 *) VARDATA(result), &f.starts, &f.ends);
	MemoryContextDelete(scratch);
}

/* ---- the aggregates ---- */

static char *
ts_text(TimestampTz t)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(t)));
}

/*
 * (occupancy_state, start, end, gpus) -> occupancy_state; also the 0.x
 * (internal, ...) -> internal, where nodeAgg keeps the same pointer.
 */
Datum
acmetrace_occupancy_trans(PG_FUNCTION_ARGS)
{
	OccStateEO *eo = occ_state_arg(fcinfo, "occupancy_agg_transfn");
	at_occ_job	job;
	TimestampTz start,
				end;
	int32		gpus;

	/* NULL start or GPUs: the job never held GPUs */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
	start = PG_GETARG_TIMESTAMPTZ(1);
	end = PG_ARGISNULL(2) ? 0 : PG_GETARG_TIMESTAMPTZ(2);
	gpus = PG_GETARG_INT32(3);
	switch (at_occ_classify(start, !PG_ARGISNULL(2), end, gpus, &job))
	{
		case AT_OCC_ROW_ADD:
			occ_agg_check(at_occ_state_add(&eo->st, &job), &eo->st);
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
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/* (occupancy_state, occupancy) -> occupancy_state; also the 0.3.0 internal one. */
Datum
acmetrace_occupancy_rollup_trans(PG_FUNCTION_ARGS)
{
	OccStateEO *eo = occ_state_arg(fcinfo, "rollup_transfn");
	const OccData *o;

	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
	o = occ_read(PG_GETARG_DATUM(1));
	occ_agg_check(at_occ_state_add_steps(&eo->st, o->steps, o->nsteps), &eo->st);
	if ((Pointer) o != DatumGetPointer(PG_GETARG_DATUM(1)))
		pfree((void *) o);
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/*
 * (occupancy_state, occupancy_state) -> occupancy_state, non-strict; also
 * the 0.x (internal, internal) one.  Argument 0 is updated in place when it
 * is our read-write object; argument 1 (flat, read-only or ours) never is.
 */
Datum
acmetrace_occupancy_combine(PG_FUNCTION_ARGS)
{
	OccStateEO *eo;

	at_agg_context(fcinfo, "occupancy_agg_combinefn");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	eo = occ_state_arg(fcinfo, "occupancy_agg_combinefn");
	occ_state_merge(eo, PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/*
 * occupancy_state -> occupancy, and the 0.x internal -> occupancy.  Reads
 * the state without changing it (FINALFUNC_MODIFY = READ_ONLY): the raw
 * jobs are sorted into scratch lists, as a window aggregate finalizes the
 * same state again and again.  NULL (no rows) is the empty occupancy.
 */
Datum
acmetrace_occupancy_final(PG_FUNCTION_ARGS)
{
	at_occ_state tmp;
	const at_occ_state *st = NULL;
	at_occ_runs runs;
	long long	nsteps;
	OccData    *result;

	runs.k = runs.owned = 0;
	if (!PG_ARGISNULL(0))
	{
		st = occ_state_read(PG_GETARG_DATUM(0), &tmp, CurrentMemoryContext);
		occ_agg_check(at_occ_state_runs(st, at_cxt_mem, CurrentMemoryContext, &runs), st);
	}
	/* sweep straight into the result */
	result = occ_alloc(at_occ_runs_events(&runs));
	nsteps = at_occ_runs_sweep(&runs, result->steps);
	if (nsteps < 0)
		occ_agg_raise(AT_OCC_ENEGATIVE, st);
	at_occ_runs_free(&runs, at_cxt_mem, CurrentMemoryContext);
	if (st == &tmp)
		at_occ_state_free(&tmp);
	PG_RETURN_POINTER(occ_finish(result, (Size) nsteps));
}

/*
 * 0.x serialize (internal) -> bytea: the flat form's bytes, the very bytes
 * this function always wrote, so old SQL's partial states keep working.
 */
Datum
acmetrace_occupancy_serialize(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	ExpandedObjectHeader *eoh;

	at_agg_context(fcinfo, "occupancy_agg_serialfn");
	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) ||
		(eoh = DatumGetEOHP(d))->eoh_methods != &occ_state_methods)
		elog(ERROR, "occupancy_agg_serialfn: the argument is not an occupancy_agg state");
	PG_RETURN_BYTEA_P(occ_state_flat(eoh));
}

/* 0.x deserialize (bytea, internal) -> internal: a new object's pointer. */
Datum
acmetrace_occupancy_deserialize(PG_FUNCTION_ARGS)
{
	OccStateEO *eo = occ_state_new(fcinfo, "occupancy_agg_deserialfn");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	/* in the object's context, so that combine can take the lists */
	occ_state_decode(&eo->st, (const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), eo->hdr.eoh_context,
					 ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}
