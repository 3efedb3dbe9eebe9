/*
 * occupancy_agg.c: acmetrace.occupancy_agg(start, end, gpus) -> occupancy.
 *
 * The state keeps each job (24 bytes) in chunks that grow to 64K jobs, so
 * it never copies itself to grow.  Start and end events are sorted with
 * PostgreSQL's sort template: by each parallel worker when it serializes
 * its state (the versioned format of src/core/occupancy.h, which
 * deserialize checks), else by the final function.  Combine keeps each
 * partial state's lists as a run; the final function sweeps the runs
 * together (src/core/occupancy.c).
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

#define CHUNK_MIN 64
#define CHUNK_MAX 65536

typedef struct OccChunk
{
	struct OccChunk *next;
	uint32		n;
	uint32		cap;
	at_occ_job	jobs[FLEXIBLE_ARRAY_MEMBER];
} OccChunk;

/*
 * Jobs added by the transition function wait unsorted in chunks.  A partial
 * aggregate's serialize sorts them into start and end lists; the leader
 * keeps each worker's lists as a run and sweeps the runs together, so it
 * neither sorts nor merges.
 */
#define MAX_RUNS 8

typedef struct OccState
{
	uint64		nraw;			/* jobs in the chunks */
	OccChunk   *head;
	OccChunk   *tail;
	int			nruns;			/* sorted runs (from partial states) */
	at_occ_list starts[MAX_RUNS];
	at_occ_list ends[MAX_RUNS];
	bool		deserialized;	/* made by deserialize: combine may take its runs */
} OccState;

static OccChunk *
new_chunk(MemoryContext cxt, OccState *st, uint32 cap)
{
	/* a deserialized state is one chunk, possibly over 1 GB */
	OccChunk   *c = MemoryContextAllocHuge(cxt, offsetof(OccChunk, jobs) + (Size) cap * sizeof(at_occ_job));

	c->next = NULL;
	c->n = 0;
	c->cap = cap;
	if (st->tail)
		st->tail->next = c;
	else
		st->head = c;
	st->tail = c;
	return c;
}

static void
add_job(MemoryContext cxt, OccState *st, const at_occ_job *job)
{
	OccChunk   *c = st->tail;

	if (c == NULL || c->n == c->cap)
		c = new_chunk(cxt, st, c == NULL ? CHUNK_MIN : Min(Max(c->cap, CHUNK_MIN / 2) * 2, CHUNK_MAX));
	c->jobs[c->n++] = *job;
	st->nraw++;
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
	OccState   *st = PG_ARGISNULL(0) ? NULL : (OccState *) PG_GETARG_POINTER(0);
	at_occ_job	job;
	TimestampTz start,
				end;
	int32		gpus;

	if (st == NULL)
		st = MemoryContextAllocZero(cxt, sizeof(OccState));
	/* NULL start or GPUs: the job never held GPUs */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_POINTER(st);
	start = PG_GETARG_TIMESTAMPTZ(1);
	end = PG_ARGISNULL(2) ? 0 : PG_GETARG_TIMESTAMPTZ(2);
	gpus = PG_GETARG_INT32(3);
	switch (at_occ_classify(start, !PG_ARGISNULL(2), end, gpus, &job))
	{
		case AT_OCC_ROW_ADD:
			add_job(cxt, st, &job);
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
	OccState   *st = PG_ARGISNULL(0) ? NULL : (OccState *) PG_GETARG_POINTER(0);
	const OccData *o;
	at_occ_job *jobs;
	long long	n;

	if (st == NULL)
		st = MemoryContextAllocZero(cxt, sizeof(OccState));
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	o = occ_read(PG_GETARG_DATUM(1));
	jobs = MemoryContextAllocHuge(CurrentMemoryContext, (Size) o->nsteps * 2 * sizeof(at_occ_job));
	n = at_occ_to_jobs(o->steps, o->nsteps, jobs, jobs + o->nsteps);
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("rollup: an occupancy rises by more than %d GPUs in one step", PG_INT32_MAX),
				 errhint("occupancy_agg never makes such a step; check where the value came from.")));
	for (long long i = 0; i < n; i++)
		add_job(cxt, st, &jobs[i]);
	pfree(jobs);
	if ((Pointer) o != DatumGetPointer(PG_GETARG_DATUM(1)))
		pfree((void *) o);
	PG_RETURN_POINTER(st);
}

static void
list_alloc(MemoryContext cxt, at_occ_list *l, Size n)
{
	l->t = MemoryContextAllocHuge(cxt, Max(n, 1) * sizeof(int64));
	l->g = MemoryContextAllocHuge(cxt, Max(n, 1) * sizeof(int32));
	l->n = 0;
}

static void
list_free(at_occ_list *l)
{
	if (l->t)
		pfree(l->t);
	if (l->g)
		pfree(l->g);
	l->t = NULL;
	l->g = NULL;
	l->n = 0;
}

/* Sort events of one kind from the raw jobs into a list (in cxt). */
static void
sort_raw_events(OccState *st, bool ends, at_occ_step *ev, at_occ_list *out)
{
	OccChunk   *c;
	Size		k = 0;

	for (c = st->head; c != NULL; c = c->next)
		k += ends ? at_occ_end_events(c->jobs, c->n, ev + k) : at_occ_start_events(c->jobs, c->n, ev + k);
	occ_sort_events(ev, k);
	list_alloc(CurrentMemoryContext, out, k);
	at_occ_list_fill(out, ev, k);
}

/*
 * All of the state's jobs as sorted runs, without changing the state (a
 * final function may run more than once on one state): its own runs, plus
 * one made of its raw jobs.  Returns the run count; room for MAX_RUNS + 1.
 */
static int
state_runs(OccState *st, at_occ_list *starts, at_occ_list *ends)
{
	int			k = st->nruns;
	at_occ_step *ev;

	memcpy(starts, st->starts, k * sizeof(at_occ_list));
	memcpy(ends, st->ends, k * sizeof(at_occ_list));
	if (st->nraw == 0)
		return k;
	if (st->nraw > MaxAllocHugeSize / sizeof(at_occ_step))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy_agg over %llu jobs is too large", (unsigned long long) st->nraw)));
	ev = MemoryContextAllocHuge(CurrentMemoryContext, st->nraw * sizeof(at_occ_step));
	sort_raw_events(st, false, ev, &starts[k]);
	sort_raw_events(st, true, ev, &ends[k]);
	pfree(ev);
	return k + 1;
}

/* Merge runs [0, k) into one list (in cxt). */
static void
merge_runs(MemoryContext cxt, const at_occ_list *runs, int k, at_occ_list *out)
{
	Size		total = 0;
	int			r;

	for (r = 0; r < k; r++)
		total += runs[r].n;
	list_alloc(cxt, out, total);
	for (r = 0; r < k; r++)
	{
		at_occ_list merged;

		if (r == 0)
		{
			memcpy(out->t, runs[0].t, runs[0].n * sizeof(int64));
			memcpy(out->g, runs[0].g, runs[0].n * sizeof(int32));
			out->n = runs[0].n;
			continue;
		}
		list_alloc(cxt, &merged, out->n + runs[r].n);
		at_occ_list_merge(out, &runs[r], &merged);
		list_free(out);
		*out = merged;
	}
}

/* Make room for one more run: fold all runs into one. */
static void
fold_runs(MemoryContext cxt, OccState *st)
{
	at_occ_list s,
				e;
	int			r;

	merge_runs(cxt, st->starts, st->nruns, &s);
	merge_runs(cxt, st->ends, st->nruns, &e);
	for (r = 0; r < st->nruns; r++)
	{
		list_free(&st->starts[r]);
		list_free(&st->ends[r]);
	}
	st->starts[0] = s;
	st->ends[0] = e;
	st->nruns = 1;
}

Datum
acmetrace_occupancy_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "occupancy_agg_combinefn");
	OccState   *s1 = PG_ARGISNULL(0) ? NULL : (OccState *) PG_GETARG_POINTER(0);
	OccState   *s2 = PG_ARGISNULL(1) ? NULL : (OccState *) PG_GETARG_POINTER(1);
	OccChunk   *c;
	int			r;

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = MemoryContextAllocZero(cxt, sizeof(OccState));
	/* raw jobs: s2 may live in a shorter-lived context, so copy them */
	for (c = s2->head; c != NULL; c = c->next)
	{
		OccChunk   *copy;

		if (c->n == 0)
			continue;
		copy = new_chunk(cxt, s1, c->n);
		memcpy(copy->jobs, c->jobs, (Size) c->n * sizeof(at_occ_job));
		copy->n = c->n;
		s1->nraw += c->n;
	}
	/* runs: deserialize made them in cxt for us, so take them; else copy */
	for (r = 0; r < s2->nruns; r++)
	{
		if (s1->nruns == MAX_RUNS)
			fold_runs(cxt, s1);
		if (s2->deserialized)
		{
			s1->starts[s1->nruns] = s2->starts[r];
			s1->ends[s1->nruns] = s2->ends[r];
		}
		else
		{
			merge_runs(cxt, &s2->starts[r], 1, &s1->starts[s1->nruns]);
			merge_runs(cxt, &s2->ends[r], 1, &s1->ends[s1->nruns]);
		}
		s1->nruns++;
	}
	if (s2->deserialized)
		s2->nruns = 0;
	PG_RETURN_POINTER(s1);
}

Datum
acmetrace_occupancy_serialize(PG_FUNCTION_ARGS)
{
	OccState   *st = (OccState *) PG_GETARG_POINTER(0);
	at_occ_list rs[MAX_RUNS + 1],
				re[MAX_RUNS + 1],
				starts,
				ends;
	int			k;
	bytea	   *out;
	Size		size;

	at_agg_context(fcinfo, "occupancy_agg_serialfn");
	/* the serialized form holds one sorted list of each kind */
	k = state_runs(st, rs, re);
	if (k == 1)
	{
		starts = rs[0];
		ends = re[0];
	}
	else
	{
		merge_runs(CurrentMemoryContext, rs, k, &starts);
		merge_runs(CurrentMemoryContext, re, k, &ends);
	}
	if (starts.n + ends.n > (MaxAllocSize - VARHDRSZ - AT_OCC_STATE_HEADER) / AT_OCC_STATE_ENTRY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("occupancy_agg state of %zu jobs is too large to pass between processes",
						(size_t) starts.n),
				 errhint("SET max_parallel_workers_per_gather = 0, or aggregate fewer jobs per group.")));
	size = VARHDRSZ + at_occ_state_size(starts.n, ends.n);
	out = palloc(size);
	SET_VARSIZE(out, size);
	at_occ_state_write((uint8 *) VARDATA(out), &starts, &ends);
	PG_RETURN_BYTEA_P(out);
}

Datum
acmetrace_occupancy_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = at_agg_context(fcinfo, "occupancy_agg_deserialfn");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	const uint8 *p = (const uint8 *) VARDATA_ANY(b);
	OccState   *st;
	size_t		ns,
				ne;
	const char *msg;

	msg = at_occ_state_open(p, VARSIZE_ANY_EXHDR(b), &ns, &ne);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid occupancy_agg state: %s", msg)));
	/* in the aggregate's context, so that combine can keep the lists */
	st = MemoryContextAllocZero(cxt, sizeof(OccState));
	st->deserialized = true;
	st->nruns = 1;
	list_alloc(cxt, &st->starts[0], ns);
	list_alloc(cxt, &st->ends[0], ne);
	at_occ_state_read(p, &st->starts[0], &st->ends[0]);
	msg = at_occ_lists_check(&st->starts[0], &st->ends[0], MIN_TIMESTAMP, END_TIMESTAMP);
	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid occupancy_agg state: %s", msg)));
	PG_RETURN_POINTER(st);
}

Datum
acmetrace_occupancy_final(PG_FUNCTION_ARGS)
{
	OccState   *st = PG_ARGISNULL(0) ? NULL : (OccState *) PG_GETARG_POINTER(0);
	at_occ_list starts[MAX_RUNS + 1],
				ends[MAX_RUNS + 1];
	size_t		pos[2 * (MAX_RUNS + 1)];
	int			k = st ? state_runs(st, starts, ends) : 0;
	Size		room = 0;
	long long	nsteps;
	OccData    *result;
	int			r;

	for (r = 0; r < k; r++)
		room += starts[r].n + ends[r].n;
	/* sweep straight into the result */
	result = occ_alloc(room);
	nsteps = at_occ_sweep_runs(starts, ends, k, pos, result->steps);
	if (nsteps < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("occupancy_agg: GPUs released before they were allocated"),
				 errdetail("The aggregate's state is inconsistent.")));
	PG_RETURN_POINTER(occ_finish(result, (Size) nsteps));
}
