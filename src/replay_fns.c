/*
 * replay_fns.c: fmgr glue of acmetrace.replay and acmetrace.replay_summary
 * (src/core/replay.c): a loaded cluster's GPU jobs, read in submit order
 * through SPI, run again through the scheduler under a policy and a
 * capacity; each job as replayed, or their summary.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/varlena.h"

#include "glue.h"
#include "replay.h"

PG_FUNCTION_INFO_V1(acmetrace_replay);
PG_FUNCTION_INFO_V1(acmetrace_replay_summary);

/* The checked arguments of replay. */
typedef struct replay_args
{
	char	   *cluster;
	const char *pname;
	at_replay_policy pol;
	int64		capacity;		/* -1: the cluster's recorded one */
	bool		backfill;
	Oid			predictions;	/* InvalidOid: none */
} replay_args;

/* The jobs read, beside what the result reports of each. */
typedef struct replay_rows
{
	const replay_args *a;
	MemoryContext outer;		/* the arrays live beyond SPI_finish */
	at_replay_job *jobs;
	char	  **ids;
	char	  **types;
	TimestampTz *rec_start;
	bool	   *has_start;
	int64		n,
				room,
				t0;
} replay_rows;

/* The scheduler's tick: a long replay can be cancelled. */
static void
replay_tick(void *arg)
{
	(void) arg;
	CHECK_FOR_INTERRUPTS();
}

static char *
relation_name(Oid rel)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)), get_rel_name(rel));
}

static void
read_args(FunctionCallInfo fcinfo, replay_args *a)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		at_raise_plain(ERRCODE_NULL_VALUE_NOT_ALLOWED, "replay's cluster, policy and backfill must not be NULL",
					   NULL, "For example SELECT * FROM acmetrace.replay('synth', 'fifo').");
	a->cluster = text_to_cstring(PG_GETARG_TEXT_PP(0));
	a->pname = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (!at_replay_policy_by_name(a->pname, &a->pol))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown replay policy \"%s\"", a->pname),
				 errhint("Policies: fifo, priority (by job type), sjf (shortest predicted first).")));
	a->capacity = -1;
	if (!PG_ARGISNULL(2))
	{
		a->capacity = PG_GETARG_INT32(2);
		if (a->capacity < AT_REPLAY_GPUS_PER_NODE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("replay capacity must be at least %d GPUs (a node), got " INT64_FORMAT,
							AT_REPLAY_GPUS_PER_NODE, a->capacity)));
	}
	a->backfill = PG_GETARG_BOOL(3);
	a->predictions = PG_ARGISNULL(4) ? InvalidOid : PG_GETARG_OID(4);
	if (OidIsValid(a->predictions) && a->pol != AT_REPLAY_SJF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("predictions are used by the sjf policy only, not by \"%s\"", a->pname),
				 errhint("Pass predictions with policy => 'sjf', or leave them out.")));
	if (OidIsValid(a->predictions) &&
		(get_attnum(a->predictions, "job_id") == InvalidAttrNumber ||
		 get_attnum(a->predictions, "predicted_s") == InvalidAttrNumber))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("predictions relation %s has no job_id or no predicted_s column",
						relation_name(a->predictions)),
				 errhint("It needs job_id (text) and predicted_s (seconds, any number type).")));
}

/* The capacity to replay with (inside SPI): the argument's or the cluster's recorded one, checked. */
static int64
replay_capacity(const replay_args *a)
{
	int64		capacity = a->capacity;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];

	if (capacity < 0)
	{
		bool		isnull = true;

		args[0] = CStringGetTextDatum(a->cluster);
		if (SPI_execute_with_args("SELECT gpu_capacity FROM acmetrace.clusters WHERE cluster = $1",
								  1, argtypes, args, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		{
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

			if (!isnull)
				capacity = DatumGetInt32(d);
		}
		if (capacity < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cluster \"%s\" has no recorded GPU capacity", a->cluster),
					 errhint("Pass one: acmetrace.replay('%s', 'fifo', capacity => 2288).", a->cluster)));
	}
	if (!at_replay_capacity_ok(capacity))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replay capacity must be a multiple of %d GPUs (nodes of %d) up to %d, got " INT64_FORMAT,
						AT_REPLAY_GPUS_PER_NODE, AT_REPLAY_GPUS_PER_NODE,
						AT_SCHED_MAX_NODES * AT_REPLAY_GPUS_PER_NODE, capacity),
				 errhint("Use %lld or %lld.",
						 (long long) Max(AT_REPLAY_GPUS_PER_NODE,
										 capacity / AT_REPLAY_GPUS_PER_NODE * AT_REPLAY_GPUS_PER_NODE),
						 (long long) Max(AT_REPLAY_GPUS_PER_NODE,
										 (capacity + AT_REPLAY_GPUS_PER_NODE - 1) / AT_REPLAY_GPUS_PER_NODE *
										 AT_REPLAY_GPUS_PER_NODE))));
	return capacity;
}

/* The cursor over the cluster's GPU jobs in submit order, with their predictions if any. */
static Portal
open_jobs(const replay_args *a)
{
	StringInfoData sql;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];

	initStringInfo(&sql);
	appendStringInfoString(&sql,
						   "SELECT j.job_id, j.type, j.gpu_num, j.submit_time, j.start_time, j.end_time, ");
	if (OidIsValid(a->predictions))
		appendStringInfo(&sql, "p.predicted_s::float8 FROM acmetrace.jobs j LEFT JOIN %s p USING (job_id) ",
						 relation_name(a->predictions));
	else
		appendStringInfoString(&sql, "NULL::float8 FROM acmetrace.jobs j ");
	appendStringInfoString(&sql,
						   "WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.submit_time IS NOT NULL "
						   "ORDER BY j.submit_time, j.job_id");
	args[0] = CStringGetTextDatum(a->cluster);
	return SPI_cursor_open_with_args(NULL, sql.data, 1, argtypes, args, NULL, true, 0);
}

/* Room for one more job in rows' arrays (in rows->outer). */
static void
grow_rows(replay_rows *rows)
{
	MemoryContext spi = MemoryContextSwitchTo(rows->outer);

	if (rows->jobs == NULL)
	{
		rows->jobs = palloc(sizeof(at_replay_job) * rows->room);
		rows->ids = palloc(sizeof(char *) * rows->room);
		rows->types = palloc(sizeof(char *) * rows->room);
		rows->rec_start = palloc(sizeof(TimestampTz) * rows->room);
		rows->has_start = palloc(sizeof(bool) * rows->room);
	}
	else if (rows->n == rows->room)
	{
		rows->room *= 2;
		rows->jobs = repalloc_huge(rows->jobs, sizeof(at_replay_job) * rows->room);
		rows->ids = repalloc_huge(rows->ids, sizeof(char *) * rows->room);
		rows->types = repalloc_huge(rows->types, sizeof(char *) * rows->room);
		rows->rec_start = repalloc_huge(rows->rec_start, sizeof(TimestampTz) * rows->room);
		rows->has_start = repalloc_huge(rows->has_start, sizeof(bool) * rows->room);
	}
	MemoryContextSwitchTo(spi);
}

/* One row of open_jobs's cursor into rows (at_spi_each_row). */
static void
read_job(HeapTuple tup, TupleDesc td, void *arg)
{
	replay_rows *rows = arg;
	const replay_args *a = rows->a;
	int64		n = rows->n;
	at_replay_record rec;
	at_job_times jt;
	bool		finite = at_job_times_get(tup, td, 4, &jt),
				null_type,
				isnull;
	MemoryContext spi;

	rec.gpus = DatumGetInt32(SPI_getbinval(tup, td, 3, &isnull));
	rec.pred = DatumGetFloat8(SPI_getbinval(tup, td, 7, &isnull));
	rec.has_pred = !isnull;
	(void) SPI_getbinval(tup, td, 2, &null_type);
	rec.type = null_type ? NULL : SPI_getvalue(tup, td, 2);
	grow_rows(rows);
	spi = MemoryContextSwitchTo(rows->outer);
	rows->ids[n] = pstrdup(SPI_getvalue(tup, td, 1));
	rows->types[n] = rec.type ? pstrdup(rec.type) : NULL;
	MemoryContextSwitchTo(spi);
	if (!finite)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("job %s of cluster \"%s\" has an infinite time", rows->ids[n], a->cluster)));
	rec.submit = at_timestamptz_to_unix(jt.submit);
	rec.has_start = jt.has_start;
	rec.start = jt.has_start ? at_timestamptz_to_unix(jt.start) : 0;
	rec.has_end = jt.has_end;
	rec.end = jt.has_end ? at_timestamptz_to_unix(jt.end) : 0;
	if (n == 0)
		rows->t0 = rec.submit;
	at_replay_job_of(&rows->jobs[n], &rec, rows->t0, a->pol, OidIsValid(a->predictions));
	rows->rec_start[n] = jt.start;
	rows->has_start[n] = jt.has_start;
	if (rec.gpus > a->capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("job %s needs %d GPUs, more than the replay capacity " INT64_FORMAT,
						rows->ids[n], rec.gpus, a->capacity),
				 errhint("Replay with a capacity of at least %d.",
						 (rec.gpus + AT_REPLAY_GPUS_PER_NODE - 1) / AT_REPLAY_GPUS_PER_NODE * AT_REPLAY_GPUS_PER_NODE)));
	rows->n++;
}

/* The result rows: each job as recorded and as replayed. */
static void
put_results(ReturnSetInfo *rsinfo, const replay_rows *rows)
{
	int64		t0 = rows->t0;

	for (int64 i = 0; i < rows->n; i++)
	{
		Datum		values[9];
		bool		nulls[9] = {false};
		const at_replay_job *j = &rows->jobs[i];

		values[0] = CStringGetTextDatum(rows->ids[i]);
		if (rows->types[i])
			values[1] = CStringGetTextDatum(rows->types[i]);
		else
			nulls[1] = true;
		values[2] = Int32GetDatum(j->gpus);
		values[3] = TimestampTzGetDatum(at_unix_to_timestamptz(t0 + j->submit));
		if (rows->has_start[i])
		{
			values[4] = TimestampTzGetDatum(rows->rec_start[i]);
			values[5] = Int64GetDatum(at_timestamptz_to_unix(rows->rec_start[i]) - t0 - j->submit);
		}
		else
			nulls[4] = nulls[5] = true;
		if (j->start >= 0)
		{
			values[6] = TimestampTzGetDatum(at_unix_to_timestamptz(t0 + j->start));
			values[8] = Int64GetDatum(j->start - j->submit);
		}
		else
			nulls[6] = nulls[8] = true;
		values[7] = TimestampTzGetDatum(at_unix_to_timestamptz(t0 + j->end));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * The cluster's GPU jobs of the arguments (checked) read into rows and
 * replayed: each job's start and end filled in.
 */
static void
replay_run(FunctionCallInfo fcinfo, replay_args *a, replay_rows *rows)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	int64		bad;
	at_sched_config cfg;
	at_sched_status st;

	read_args(fcinfo, a);
	InitMaterializedSRF(fcinfo, 0);
	memset(rows, 0, sizeof *rows);
	rows->a = a;
	rows->outer = CurrentMemoryContext;
	rows->room = 1024;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* an unknown cluster: 42704 naming the loaded ones */
	args[0] = CStringGetTextDatum(a->cluster);
	SPI_execute_with_args("SELECT acmetrace_internal.known_cluster($1)", 1, argtypes, args, NULL, true, 1);
	a->capacity = replay_capacity(a);
	at_spi_each_row(open_jobs(a), read_job, rows);
	SPI_finish();

	at_replay_config(&cfg, a->capacity, a->backfill);
	cfg.tick = replay_tick;
	st = at_replay(at_cxt_mem, CurrentMemoryContext, &cfg, rows->jobs, rows->n, &bad);
	if (st != AT_SCHED_OK)
		ereport(ERROR,
				(errcode(st == AT_SCHED_NOMEM ? ERRCODE_OUT_OF_MEMORY : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replay of cluster \"%s\" stopped%s%s: %s", a->cluster,
						bad >= 0 ? " at job " : "", bad >= 0 ? rows->ids[bad] : "", at_sched_status_text(st))));
}

/*
 * replay(cluster text, policy text, capacity int, backfill bool, predictions regclass)
 *   -> TABLE (job_id, type, gpu_num, submit_time, recorded_start, recorded_queue_s,
 *             start_time, end_time, queue_s)
 * Not STRICT: capacity and predictions may be NULL.
 */
Datum
acmetrace_replay(PG_FUNCTION_ARGS)
{
	replay_args a;
	replay_rows rows;

	replay_run(fcinfo, &a, &rows);
	put_results((ReturnSetInfo *) fcinfo->resultinfo, &rows);
	return (Datum) 0;
}

/* round(x::numeric, 1), as the summary's SQL printed its float8 figures. */
static Datum
round_float(double x)
{
	return DirectFunctionCall2(numeric_round, DirectFunctionCall1(float8_numeric, Float8GetDatum(x)),
							   Int32GetDatum(1));
}

/* round(avg(bigint), 1): the exact numeric sum / n. */
static Datum
round_avg(int64 sum, int64 n)
{
	return DirectFunctionCall2(numeric_round,
							   DirectFunctionCall2(numeric_div, NumericGetDatum(int64_to_numeric(sum)),
												   NumericGetDatum(int64_to_numeric(n))),
							   Int32GetDatum(1));
}

/* Groups 1 .. by type in the database's collation, the jobs without a type last (ORDER BY type). */
static int
group_cmp(const void *x, const void *y)
{
	const char *a = ((const at_replay_group *) x)->type,
			   *b = ((const at_replay_group *) y)->type;

	if (a == NULL || b == NULL)
		return (a == NULL) - (b == NULL);
	return varstr_cmp(a, strlen(a), b, strlen(b), DEFAULT_COLLATION_OID);
}

/* One row of replay_summary: recorded and replayed figures side by side. */
static void
put_summary_row(ReturnSetInfo *rsinfo, const at_replay_group *g)
{
	Datum		v[15];
	bool		nulls[15] = {false};
	const at_replay_side *sides[2] = {&g->rec, &g->rep};

	v[0] = g->all ? CStringGetTextDatum("all") : g->type ? CStringGetTextDatum(g->type) : (Datum) 0;
	nulls[0] = !g->all && g->type == NULL;
	v[1] = Int64GetDatum(g->jobs);
	v[2] = Int64GetDatum(g->started);
	for (int k = 0; k < 2; k++)
	{
		const at_replay_side *s = sides[k];

		/* columns 3 + k (mean queue), 5 + k (median), 7 + k (p90), ... recorded then replayed */
		nulls[3 + k] = nulls[5 + k] = nulls[7 + k] = s->queued == 0;
		if (s->queued > 0)
		{
			v[3 + k] = round_avg(s->queue_sum, s->queued);
			v[5 + k] = round_float(s->median);
			v[7 + k] = round_float(s->p90);
		}
		nulls[9 + k] = s->jct_n == 0;
		if (s->jct_n > 0)
			v[9 + k] = round_float((double) s->jct_sum / (double) s->jct_n);
		nulls[11 + k] = g->both == 0;
		v[11 + k] = Int64GetDatum(s->peak);
		nulls[13 + k] = !s->has_mean_gpus;
		if (s->has_mean_gpus)
			v[13 + k] = round_float(s->mean_gpus);
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
}

/*
 * replay_summary(cluster, policy, capacity, backfill, predictions) -> the
 * all row ('all'), then a row per job type in order: src/core/replay.c's
 * at_replay_summarize over the replay's arrays.
 */
Datum
acmetrace_replay_summary(PG_FUNCTION_ARGS)
{
	replay_args a;
	replay_rows rows;
	at_replay_input in;
	at_replay_group *g;
	int32_t		ng;

	replay_run(fcinfo, &a, &rows);
	in.jobs = rows.jobs;
	in.n = rows.n;
	in.types = (const char *const *) rows.types;
	in.rec_start = rows.rec_start;
	in.has_rec = rows.has_start;
	in.origin = at_unix_to_timestamptz(rows.t0);
	if (!at_replay_summarize(at_cxt_mem, CurrentMemoryContext, &in, &g, &ng))
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory summarizing a replay")));
	qsort(g + 1, ng - 1, sizeof(at_replay_group), group_cmp);
	for (int32_t k = 0; k < ng; k++)
		put_summary_row((ReturnSetInfo *) fcinfo->resultinfo, &g[k]);
	return (Datum) 0;
}
