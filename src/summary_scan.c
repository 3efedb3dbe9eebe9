/*
 * summary_scan.c: acmetrace_internal.summary_scan(cluster, capacity), the
 * exact distributions of acmetrace.summary_values in one pass over a
 * cluster's jobs.
 *
 * The jobs come from a plain SQL query whose rows are handed to a
 * DestReceiver, uncopied; each adds its values to hash counts
 * (src/core/summary.h) and its interval to an occupancy state, as
 * occupancy_agg does.  After the pass the occupancy is swept once and each
 * GPU job's wait is counted in the bin of GPUs allocated when it was
 * submitted: width_bucket(gpus_at(occupancy, submit_time), 0, capacity, 10),
 * PostgreSQL's own width_bucket, so the bins are those the scan computes.
 *
 * Rows out: (measure, type, all_types, gpu, occupancy_bin, cancelled, vals,
 * counts), and last one 'facts' row: vals = {capacity, peak}, counts =
 * {jobs, exact, odd} (exact: every value finite; odd: a job ends before it
 * starts or holds a negative GPU count, so there is no occupancy).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "occupancy.h"
#include "summary.h"

#define ST_SORT summary_sort_events
#define ST_ELEMENT_TYPE at_occ_step
#define ST_COMPARE(a, b) ((a)->t != (b)->t ? ((a)->t > (b)->t) - ((a)->t < (b)->t) : \
						  ((a)->gpus > (b)->gpus) - ((a)->gpus < (b)->gpus))
#define ST_SCOPE static
#define ST_CHECK_FOR_INTERRUPTS
#define ST_DEFINE
#include "lib/sort_template.h"

PG_FUNCTION_INFO_V1(acmetrace_summary_scan);

/* type codes in group numbers: 0 all types, 1 NULL type, 2 + intern id */
#define TYPE_ALL	0
#define TYPE_NULL	1

typedef struct PendingWait
{
	int64		submit;
	double		wait;
	uint32		type_code;
} PendingWait;

typedef struct SummaryPass
{
	DestReceiver pub;
	at_intern	types;
	text	  **type_names;		/* by intern id */
	int			ntype_names;
	int			type_room;
	at_vmap		wait;			/* (type_code << 1 | cancelled, wait) */
	at_vmap		duration;		/* (type_code << 1 | gpu, duration) */
	at_vmap		queue;			/* (gpu, queue) */
	at_occ_state occ;			/* every job, as occupancy_agg */
	at_occ_state gpu_occ;		/* GPU jobs not ending before they start */
	PendingWait *pending;
	int64		npending;
	int64		pending_room;
	at_intern	numerics;		/* distinct numeric values seen, by their bytes */
	double	   *numeric_vals;	/* ... and as float8, by intern id */
	int64		numeric_room;
	MemoryContext cxt;			/* outlives SPI's: what the pass keeps */
	int64		jobs;
	bool		exact;
	bool		odd;
} SummaryPass;

static void
oom(void)
{
	ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory building the summaries")));
}

static uint32
type_code(SummaryPass *st, bool isnull, Datum d)
{
	text	   *t;
	size_t		before = st->types.n;
	int32		id;

	if (isnull)
		return TYPE_NULL;
	t = DatumGetTextPP(d);
	id = at_intern_id(&st->types, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if (id < 0)
		oom();
	if (st->types.n > before)
	{
		MemoryContext old;

		if (st->ntype_names == st->type_room)
		{
			st->type_room *= 2;
			st->type_names = repalloc_huge(st->type_names, sizeof(text *) * st->type_room);
		}
		old = MemoryContextSwitchTo(st->cxt);
		st->type_names[st->ntype_names++] = (text *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
	}
	return (uint32) id + 2;
}

/*
 * numeric to float8, as the cast does; a trace has few distinct durations
 * and queues, and the cast goes through text, so each is converted once.
 */
static double
numeric_value(SummaryPass *st, Datum d)
{
	struct varlena *n = PG_DETOAST_DATUM_PACKED(d);
	size_t		before = st->numerics.n;
	int32		id = at_intern_id(&st->numerics, VARDATA_ANY(n), VARSIZE_ANY_EXHDR(n));

	if (id < 0)
		oom();
	if (st->numerics.n > before)
	{
		if (id == st->numeric_room)
		{
			st->numeric_room *= 2;
			st->numeric_vals = repalloc_huge(st->numeric_vals, sizeof(double) * st->numeric_room);
		}
		st->numeric_vals[id] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
	}
	return st->numeric_vals[id];
}

static void
vadd(at_vmap *m, uint64 group, double v)
{
	if (!at_vmap_add(m, group, v))
		oom();
}

/* Columns: type, cancelled, gpu_num, submit, start, end, wait_s, duration, queue. */
static bool
scan_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SummaryPass  *st = (SummaryPass *) self;
	bool	   *nul;
	Datum	   *v;
	uint32		tc;
	bool		cancelled;
	bool		has_gpus;
	int32		gpus = 0;

	slot_getallattrs(slot);
	v = slot->tts_values;
	nul = slot->tts_isnull;
	st->jobs++;
	tc = type_code(st, nul[0], v[0]);
	cancelled = !nul[1] && DatumGetBool(v[1]);
	has_gpus = !nul[2];
	if (has_gpus)
		gpus = DatumGetInt32(v[2]);

	/* occupancy: NULL start or GPUs hold nothing (occupancy_agg's rule) */
	if (!nul[4] && has_gpus)
	{
		at_occ_job	job;
		at_occ_row	row = at_occ_classify(DatumGetTimestampTz(v[4]), !nul[5],
										  nul[5] ? 0 : DatumGetTimestampTz(v[5]), gpus, &job);

		if (row == AT_OCC_ROW_ADD)
		{
			if (!st->odd && at_occ_state_add(&st->occ, &job) != AT_OCC_OK)
				oom();
			if (gpus > 0 && at_occ_state_add(&st->gpu_occ, &job) != AT_OCC_OK)
				oom();
		}
		else if (row != AT_OCC_ROW_SKIP)
			st->odd = true;
	}

	/* waits of GPU jobs that started at or after submission (NaN >= 0 in SQL) */
	if (has_gpus && gpus > 0 && !nul[6] && (DatumGetFloat8(v[6]) >= 0 || isnan(DatumGetFloat8(v[6]))))
	{
		double		w = DatumGetFloat8(v[6]);

		if (!isfinite(w))
			st->exact = false;
		else
		{
			vadd(&st->wait, ((uint64) tc << 1) | cancelled, w);
			if (st->npending == st->pending_room)
			{
				st->pending_room *= 2;
				st->pending = repalloc_huge(st->pending, sizeof(PendingWait) * st->pending_room);
			}
			st->pending[st->npending].submit = DatumGetTimestampTz(v[3]);	/* not NULL: wait is */
			st->pending[st->npending].wait = w;
			st->pending[st->npending].type_code = tc;
			st->npending++;
		}
	}
	if (has_gpus && gpus >= 0)
	{
		uint64		g = gpus > 0;

		if (!nul[7])
		{
			double		d = numeric_value(st, v[7]);

			if (!isfinite(d))
				st->exact = false;
			else
			{
				vadd(&st->duration, ((uint64) tc << 1) | g, d);
				vadd(&st->duration, ((uint64) TYPE_ALL << 1) | g, d);
			}
		}
		if (!nul[8])
		{
			double		q = numeric_value(st, v[8]);

			if (!isfinite(q))
				st->exact = false;
			else
				vadd(&st->queue, g, q);
		}
	}
	return true;
}

static void
scan_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
scan_noop(DestReceiver *self)
{
}

/* Steps of a state (empty: none). */
static at_occ_step *
sweep(const at_occ_state *st, size_t *n)
{
	at_occ_runs runs;
	at_occ_step *out;
	long long	k;

	runs.k = runs.owned = 0;
	if (at_occ_state_runs(st, at_cxt_mem, CurrentMemoryContext, &runs) != AT_OCC_OK)
		oom();
	out = palloc_extended(sizeof(at_occ_step) * Max(at_occ_runs_events(&runs), 1), MCXT_ALLOC_HUGE);
	k = at_occ_runs_sweep(&runs, out);
	if (k < 0)
		elog(ERROR, "summary_scan: occupancy sweep went negative");
	*n = (size_t) k;
	return out;
}

typedef struct OutRow
{
	const char *measure;
	int			type_code;		/* -1: NULL column */
	bool		all_types;
	int			gpu;			/* -1: NULL */
	int			bin;			/* -1: NULL */
	int			cancelled;		/* -1: NULL */
} OutRow;

static void
put_row(Tuplestorestate *ts, TupleDesc td, SummaryPass *st, const OutRow *r,
		const at_vmap_entry *e, size_t n)
{
	Datum		vals[8];
	bool		nulls[8] = {0};
	Datum	   *vd = palloc(sizeof(Datum) * n);
	Datum	   *cd = palloc(sizeof(Datum) * n);

	for (size_t i = 0; i < n; i++)
	{
		vd[i] = Float8GetDatum(e[i].value);
		cd[i] = Int64GetDatum(e[i].count);
	}
	vals[0] = CStringGetTextDatum(r->measure);
	if (r->type_code >= 2)
		vals[1] = PointerGetDatum(st->type_names[r->type_code - 2]);
	else
		nulls[1] = true;
	vals[2] = BoolGetDatum(r->all_types);
	nulls[3] = r->gpu < 0;
	vals[3] = BoolGetDatum(r->gpu > 0);
	nulls[4] = r->bin < 0;
	vals[4] = Int32GetDatum(r->bin);
	nulls[5] = r->cancelled < 0;
	vals[5] = BoolGetDatum(r->cancelled > 0);
	vals[6] = PointerGetDatum(construct_array(vd, (int) n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[7] = PointerGetDatum(construct_array(cd, (int) n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	tuplestore_putvalues(ts, td, vals, nulls);
	pfree(vd);
	pfree(cd);
}

typedef void (*row_of_group) (uint64 group, OutRow *r);

static void
wait_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"wait", (int) (g >> 1), false, -1, -1, (int) (g & 1)};
}

static void
occ_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"wait_by_occupancy", (int) (g >> 32), false, -1, (int) (g & 0xffffffff), -1};
}

static void
duration_row(uint64 g, OutRow *r)
{
	int			tc = (int) (g >> 1);

	*r = (OutRow) {"duration", tc, tc == TYPE_ALL, (int) (g & 1), -1, -1};
}

static void
queue_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"queue", TYPE_ALL, true, (int) (g & 1), -1, -1};
}

static void
put_map(Tuplestorestate *ts, TupleDesc td, SummaryPass *st, const at_vmap *m, row_of_group rowf)
{
	at_vmap_entry *e = palloc_extended(sizeof(at_vmap_entry) * Max(m->n, 1), MCXT_ALLOC_HUGE);
	size_t		i = 0;

	at_vmap_sorted(m, e);
	while (i < m->n)
	{
		size_t		j = i;
		OutRow		r;

		while (j < m->n && e[j].group == e[i].group)
			j++;
		rowf(e[i].group, &r);
		put_row(ts, td, st, &r, e + i, j - i);
		i = j;
	}
	pfree(e);
}

static void
occ_sort(at_occ_step *ev, size_t n)
{
	summary_sort_events(ev, n);
}

Datum
acmetrace_summary_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *cluster;
	SummaryPass  *st;
	SPIExecuteOptions opts = {0};
	int			rc;
	at_occ_step *steps = NULL;
	size_t		nsteps = 0;
	int64		capacity = 1;
	int64		peak;
	at_vmap		occmap;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cluster = text_to_cstring(PG_GETARG_TEXT_PP(0));
	InitMaterializedSRF(fcinfo, 0);

	st = palloc0(sizeof(SummaryPass));
	st->pub.receiveSlot = scan_receive;
	st->pub.rStartup = scan_startup;
	st->pub.rShutdown = scan_noop;
	st->pub.rDestroy = scan_noop;
	st->pub.mydest = DestNone;
	st->exact = true;
	st->cxt = CurrentMemoryContext;
	st->type_room = 16;
	st->type_names = palloc(sizeof(text *) * st->type_room);
	st->numeric_room = 1024;
	st->numeric_vals = palloc(sizeof(double) * st->numeric_room);
	st->pending_room = 1024;
	st->pending = palloc(sizeof(PendingWait) * st->pending_room);
	if (!at_intern_init(&st->types, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->wait, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->duration, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->queue, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&occmap, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->numerics, at_cxt_mem, CurrentMemoryContext))
		oom();
	at_occ_state_init(&st->occ, at_cxt_mem, CurrentMemoryContext, occ_sort);
	at_occ_state_init(&st->gpu_occ, at_cxt_mem, CurrentMemoryContext, occ_sort);

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	opts.read_only = false;	/* a new snapshot: the rows the statement just wrote */
	opts.dest = &st->pub;
	rc = SPI_execute_extended(psprintf("SELECT j.type, j.state = 'CANCELLED', j.gpu_num, j.submit_time, j.start_time, "
									   "j.end_time, j.wait_s, j.duration, j.queue "
									   "FROM acmetrace.jobs j WHERE j.cluster = %s",
									   quote_literal_cstr(cluster)), &opts);
	/* SPI calls a SELECT whose rows go to a DestNone receiver a utility */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "summary_scan: query failed: %s", SPI_result_code_string(rc));
	SPI_finish();

	/* occupancy, the capacity its bins divide, and the peak of GPU jobs */
	if (!st->odd)
	{
		steps = sweep(&st->occ, &nsteps);
		peak = at_occ_peak(steps, nsteps);
	}
	else
	{
		size_t		n;
		at_occ_step *s = sweep(&st->gpu_occ, &n);

		peak = at_occ_peak(s, n);
		pfree(s);
	}
	if (!PG_ARGISNULL(1))
		capacity = PG_GETARG_INT32(1);
	else if (peak > 0)
		capacity = peak;
	if (!st->odd && st->exact)
	{
		size_t		hint = 0;

		for (int64 i = 0; i < st->npending; i++)
		{
			PendingWait *p = &st->pending[i];
			int64		gpus_at = at_occ_at_hint(steps, nsteps, p->submit, &hint);
			int32		bin = DatumGetInt32(DirectFunctionCall4(width_bucket_float8,
																Float8GetDatum((double) gpus_at),
																Float8GetDatum(0),
																Float8GetDatum((double) capacity),
																Int32GetDatum(10)));

			vadd(&occmap, ((uint64) p->type_code << 32) | (uint32) bin, p->wait);
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}

	if (st->exact)
	{
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->wait, wait_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &occmap, occ_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->duration, duration_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->queue, queue_row);
	}
	{
		Datum		vals[8];
		bool		nulls[8] = {0};
		Datum		fv[2] = {Float8GetDatum((double) capacity), Float8GetDatum((double) peak)};
		Datum		fc[3] = {Int64GetDatum(st->jobs), Int64GetDatum(st->exact), Int64GetDatum(st->odd)};

		vals[0] = CStringGetTextDatum("facts");
		nulls[1] = nulls[3] = nulls[4] = nulls[5] = true;
		vals[2] = BoolGetDatum(true);
		vals[6] = PointerGetDatum(construct_array(fv, 2, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		vals[7] = PointerGetDatum(construct_array(fc, 3, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	}
	return (Datum) 0;
}
