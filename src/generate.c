/*
 * generate.c: fmgr glue for the synthetic trace generators in src/core/.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "generate_jobs.h"
#include "generate_util.h"

PG_FUNCTION_INFO_V1(acmetrace_generate_jobs);
PG_FUNCTION_INFO_V1(acmetrace_generate_util);

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
		char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
		int32		n = PG_GETARG_INT32(1);
		int32		seed = PG_GETARG_INT32(2);
		const at_profile *p = at_profile_by_name(name);
		MemoryContext old;
		TupleDesc	tupdesc;

		if (p == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no generator profile for cluster \"%s\"", name),
					 errhint("Profiles: seren, kalos. Load the result under any name with SET acmetrace.cluster.")));
		if (n < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("number of jobs must be >= 0, got %d", n)));

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != 13)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("generate_jobs must return the 13 columns of acmetrace.trace_seren")));
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		funcctx->max_calls = (uint64) n;
		/* memory of the pending and running jobs only, whatever n */
		at_generate_jobs_create(at_cxt_mem, funcctx->multi_call_memory_ctx, p, n, (uint64) (uint32) seed, &gen);
		funcctx->user_fctx = gen;
		MemoryContextSwitchTo(old);
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
		if (samples < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("samples must be >= 0, got %d", samples)));
		if (step < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("step_s must be >= 1 second, got %d", step)));
		if (!(blank >= 0.0 && blank <= 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("blank_share must be between 0 and 1, got %g", blank)));
		if (TIMESTAMP_NOT_FINITE(start))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("start must be a finite timestamp")));

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
		funcctx->user_fctx = st;
		funcctx->max_calls = (uint64) samples + 1;
		MemoryContextSwitchTo(old);
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
