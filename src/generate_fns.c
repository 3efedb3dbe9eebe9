/*
 * generate_fns.c: fmgr glue for the synthetic trace generators in src/core/.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "generate_jobs.h"
#include "generate_util.h"

PG_FUNCTION_INFO_V1(acmetrace_generate_jobs);
PG_FUNCTION_INFO_V1(acmetrace_generate_util);
PG_FUNCTION_INFO_V1(acmetrace_generate_trace_util);
PG_FUNCTION_INFO_V1(acmetrace_generate_placement);

/* The profile of a name, or an ERROR naming it. */
static const at_profile *
profile_arg(text *arg)
{
	char	   *name = text_to_cstring(arg);
	const at_profile *p = at_profile_by_name(name);

	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no generator profile for cluster \"%s\"", name),
				 errhint("Profiles: seren, kalos. Load the result under any name with SET acmetrace.cluster.")));
	return p;
}

/* The descriptor of a function returning natts columns (set up in the SRF's memory context). */
static TupleDesc
composite_result(FunctionCallInfo fcinfo, int natts, const char *what)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != natts)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s must return %d columns", what, natts)));
	return BlessTupleDesc(tupdesc);
}

/* The checks both utilization generators make: samples, a share, a start. */
static void
check_window(int32 samples, float8 share, const char *share_name, TimestampTz start)
{
	if (samples < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("samples must be >= 0, got %d", samples)));
	if (!(share >= 0.0 && share <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between 0 and 1, got %g", share_name, share)));
	if (TIMESTAMP_NOT_FINITE(start))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("start must be a finite timestamp")));
}

/* A file generator set up: state st, the header and a line per sample; back to old. */
static void
lines_ready(FuncCallContext *funcctx, void *st, int32 samples, MemoryContext old)
{
	funcctx->user_fctx = st;
	funcctx->max_calls = (uint64) samples + 1;
	MemoryContextSwitchTo(old);
}

static void
check_jobs(int32 n)
{
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of jobs must be >= 0, got %d", n)));
}

/* The jobs a generator runs: generate_jobs(profile, n, seed). */
typedef struct jobs_args
{
	const at_profile *p;
	int32		n;
	uint64		seed;
	MemoryContext old;			/* the context before the first call's */
} jobs_args;

/*
 * The first call of a generator over the jobs of arguments 0 to 2
 * (profile, n, seed): they are checked, the SRF set up (with a descriptor
 * of natts columns unless natts is 0) and its memory context switched to.
 */
static FuncCallContext *
generator_first_call(FunctionCallInfo fcinfo, int natts, const char *what, jobs_args *a)
{
	FuncCallContext *funcctx;

	a->p = profile_arg(PG_GETARG_TEXT_PP(0));
	a->n = PG_GETARG_INT32(1);
	a->seed = (uint64) (uint32) PG_GETARG_INT32(2);
	check_jobs(a->n);
	funcctx = SRF_FIRSTCALL_INIT();
	a->old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
	if (natts > 0)
		funcctx->tuple_desc = composite_result(fcinfo, natts, what);
	return funcctx;
}

/* The ERROR of the generator what when st is not AT_SCHED_OK: "what doing: why". */
static void
check_start(at_sched_status st, const char *what, const char *doing)
{
	if (st != AT_SCHED_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("%s %s: %s", what, doing, at_sched_status_text(st))));
}

/*
 * generate_jobs(profile text, n int, seed int) -> SETOF acmetrace.trace_seren
 * Value-per-call, so a million jobs stream without being materialized; jobs
 * come in the order the scheduler decides them, not in job_id order.
 */
Datum
acmetrace_generate_jobs(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	at_generate_jobs *gen = NULL;
	at_job		job;
	at_sched_status st;
	Datum		values[13];
	bool		nulls[13];
	char		buf[32];
	HeapTuple	tuple;

	if (SRF_IS_FIRSTCALL())
	{
		jobs_args a;

		funcctx = generator_first_call(fcinfo, 13, "generate_jobs", &a);
		funcctx->max_calls = (uint64) a.n;
		/* memory of the pending and running jobs only, whatever n */
		check_start(at_generate_jobs_create(at_cxt_mem, funcctx->multi_call_memory_ctx, a.p, a.n, a.seed, &gen),
					"generate_jobs", "cannot start");
		funcctx->user_fctx = gen;
		MemoryContextSwitchTo(a.old);
	}

	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr >= funcctx->max_calls)
		SRF_RETURN_DONE(funcctx);

	gen = (at_generate_jobs *) funcctx->user_fctx;
	if (!at_generate_jobs_next(gen, &job, &st))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("generate_jobs stopped after %llu of %llu jobs: %s",
						(unsigned long long) funcctx->call_cntr, (unsigned long long) funcctx->max_calls,
						at_sched_status_text(st))));
	memset(nulls, 0, sizeof(nulls));
	snprintf(buf, sizeof buf, INT64_FORMAT, (int64) job.job_id);
	values[0] = CStringGetTextDatum(buf);
	snprintf(buf, sizeof buf, "u%04d", job.user);
	values[1] = CStringGetTextDatum(buf);
	values[2] = Int32GetDatum(job.node_num);
	values[3] = Int32GetDatum(job.gpu_num);
	values[4] = Int32GetDatum(job.cpu_num);
	values[5] = CStringGetTextDatum(at_type_names[job.type]);
	values[6] = CStringGetTextDatum(at_state_names[job.state]);
	values[7] = TimestampTzGetDatum(at_unix_to_timestamptz(job.submit));
	values[9] = TimestampTzGetDatum(at_unix_to_timestamptz(job.end));
	if (job.start >= 0)
	{
		int64		run = job.end - job.start;

		values[8] = TimestampTzGetDatum(at_unix_to_timestamptz(job.start));
		values[10] = NumericGetDatum(int64_to_numeric(run));
		values[11] = NumericGetDatum(int64_to_numeric(job.start - job.submit));
		/* published gpu_time is a float written with ".0" */
		snprintf(buf, sizeof buf, INT64_FORMAT ".0", run * job.gpu_num);
	}
	else
	{
		/* cancelled while queued: no start, no run, no queue figure */
		nulls[8] = true;
		values[10] = NumericGetDatum(int64_to_numeric(0));
		nulls[11] = true;
		snprintf(buf, sizeof buf, "0.0");
	}
	values[12] = DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
									 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	tuple = heap_form_tuple(funcctx->tuple_desc, values, nulls);
	SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(tuple));
}

typedef struct util_state
{
	at_rng		rng;
	char	   *buf;
	int32		series;
	int64		start;			/* Unix seconds */
	int64		step;
	uint64		seed;
	double		blank_share;
} util_state;

/*
 * generate_util(series int, samples int, seed int, start timestamptz,
 *               step_s int, blank_share float8) -> SETOF text
 * The header line, then one line per sample: a wide CSV file, for COPY TO.
 */
Datum
acmetrace_generate_util(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	util_state *st;
	size_t		len;

	if (SRF_IS_FIRSTCALL())
	{
		int32		series = PG_GETARG_INT32(0);
		int32		samples = PG_GETARG_INT32(1);
		int32		seed = PG_GETARG_INT32(2);
		TimestampTz start = PG_GETARG_TIMESTAMPTZ(3);
		int32		step = PG_GETARG_INT32(4);
		float8		blank = PG_GETARG_FLOAT8(5);
		MemoryContext old;

		if (series < 1 || series > 100000)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("series must be between 1 and 100000, got %d", series)));
		if (step < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("step_s must be >= 1 second, got %d", step)));
		check_window(samples, blank, "blank_share", start);

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		st = palloc(sizeof(util_state));
		st->buf = palloc(at_util_line_size(series));
		st->series = series;
		st->start = start / USECS_PER_SEC + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
		st->step = step;
		st->seed = (uint64) (uint32) seed;
		st->blank_share = blank;
		at_rng_seed(&st->rng, st->seed);
		lines_ready(funcctx, st, samples, old);
	}

	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr >= funcctx->max_calls)
		SRF_RETURN_DONE(funcctx);
	st = (util_state *) funcctx->user_fctx;
	if (funcctx->call_cntr == 0)
		len = at_util_header(st->buf, st->series);
	else
		len = at_util_line(st->buf, st->series,
						   st->start + (int64) (funcctx->call_cntr - 1) * st->step,
						   st->seed, st->blank_share, &st->rng);
	SRF_RETURN_NEXT(funcctx, PointerGetDatum(cstring_to_text_with_len(st->buf, (int) len)));
}

typedef struct trace_util_state
{
	at_util_trace *u;
	char	   *buf;
	const char *metric;
} trace_util_state;

/* The header of a per-GPU file: Time and every GPU's series name. */
static text *
trace_util_header(const trace_util_state *st)
{
	int32		gpus = at_util_trace_series(st->u);
	StringInfoData hdr;

	/* longer than a line: built in its own buffer */
	initStringInfo(&hdr);
	appendStringInfoString(&hdr, "Time");
	for (int32 i = 0; i < gpus; i++)
	{
		char		name[32];

		at_placement_series_name(i, name);
		appendStringInfoChar(&hdr, ',');
		appendStringInfoString(&hdr, name);
	}
	return cstring_to_text_with_len(hdr.data, hdr.len);
}

/* Line `call` (from 1) of a per-GPU file: its time and cells. */
static text *
trace_util_line(trace_util_state *st, uint64 call)
{
	int64		t;
	int			empty;
	at_sched_status sst;
	int64		n;
	char		ts[26];

	/* the cells after the 25 bytes of the time, which they tell */
	n = at_util_trace_cells(st->u, st->buf + 25, &t, &empty, &sst);
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("generate_util stopped at sample %llu: %s",
						(unsigned long long) call, at_sched_status_text(sst))));
	at_format_utc(t, ts);
	memcpy(st->buf, ts, 25);
	return cstring_to_text_with_len(st->buf, (int) n + 25);
}

/*
 * generate_util(profile text, n int, seed int, metric text, start timestamptz,
 *               samples int, offline_share float8) -> SETOF text
 * A per-GPU file of the cluster running generate_jobs(profile, n, seed):
 * the header, then a line per 15 s sample from start.
 */
Datum
acmetrace_generate_trace_util(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	trace_util_state *st;

	if (SRF_IS_FIRSTCALL())
	{
		jobs_args a;
		char	   *metric = text_to_cstring(PG_GETARG_TEXT_PP(3));
		TimestampTz start = PG_GETARG_TIMESTAMPTZ(4);
		int32		samples = PG_GETARG_INT32(5);
		float8		offline = PG_GETARG_FLOAT8(6);
		at_sched_status sst;
		int			rc;

		funcctx = generator_first_call(fcinfo, 0, "generate_util", &a);
		check_window(samples, offline, "offline_share", start);
		st = palloc0(sizeof(trace_util_state));
		rc = at_util_trace_create(at_cxt_mem, funcctx->multi_call_memory_ctx, a.p, a.n, a.seed,
								  metric, at_timestamptz_to_unix(start), 15, samples, offline, &st->u, &sst);
		if (rc == -1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no per-GPU model for metric \"%s\" of cluster \"%s\"", metric, a.p->name),
					 errhint("Metrics: GPU_UTIL, SM_ACTIVE, SM_OCCUPANCY, FB_USED (upper case).")));
		if (rc != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("generate_util cannot place the jobs: %s", at_sched_status_text(sst))));
		st->buf = palloc(at_util_line_size(at_util_trace_series(st->u)) + 64);
		st->metric = metric;
		lines_ready(funcctx, st, samples, a.old);
	}

	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr >= funcctx->max_calls)
		SRF_RETURN_DONE(funcctx);
	st = (trace_util_state *) funcctx->user_fctx;
	if (funcctx->call_cntr == 0)
		SRF_RETURN_NEXT(funcctx, PointerGetDatum(trace_util_header(st)));
	SRF_RETURN_NEXT(funcctx, PointerGetDatum(trace_util_line(st, funcctx->call_cntr)));
}

/*
 * generate_placement(profile text, n int, seed int)
 *   -> TABLE (job_id text, start_time timestamptz, end_time timestamptz, series text[])
 * Every GPU job of generate_jobs(profile, n, seed) that ran, in start
 * order, with the series names of the GPUs it ran on.
 */
Datum
acmetrace_generate_placement(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	at_placement *pl;
	at_placement_event ev;
	at_sched_status sst;

	if (SRF_IS_FIRSTCALL())
	{
		jobs_args a;

		funcctx = generator_first_call(fcinfo, 4, "generate_placement", &a);
		check_start(at_placement_create(at_cxt_mem, funcctx->multi_call_memory_ctx, a.p, a.n, a.seed, &pl),
					"generate_placement", "cannot start");
		funcctx->user_fctx = pl;
		MemoryContextSwitchTo(a.old);
	}

	funcctx = SRF_PERCALL_SETUP();
	pl = (at_placement *) funcctx->user_fctx;
	while (at_placement_next(pl, INT64_MAX, &ev, &sst))
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		Datum	   *names = palloc(sizeof(Datum) * ev.gpus);
		char		buf[32];
		HeapTuple	tuple;

		if (ev.kind != AT_PLACEMENT_START)
			continue;
		for (int32 i = 0; i < ev.gpus; i++)
		{
			at_placement_series_name(ev.gpu[i], buf);
			names[i] = CStringGetTextDatum(buf);
		}
		snprintf(buf, sizeof buf, INT64_FORMAT, (int64) ev.job_id);
		values[0] = CStringGetTextDatum(buf);
		values[1] = TimestampTzGetDatum(at_unix_to_timestamptz(ev.start));
		values[2] = TimestampTzGetDatum(at_unix_to_timestamptz(ev.end));
		values[3] = PointerGetDatum(construct_array(names, ev.gpus, TEXTOID, -1, false, TYPALIGN_INT));
		tuple = heap_form_tuple(funcctx->tuple_desc, values, nulls);
		SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(tuple));
	}
	check_start(sst, "generate_placement", "stopped");
	SRF_RETURN_DONE(funcctx);
}
