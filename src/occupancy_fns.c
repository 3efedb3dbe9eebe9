/*
 * occupancy_fns.c: reading an acmetrace.occupancy.
 *
 *   gpus_at(occ, t)                 GPUs allocated at instant t
 *   peak(occ)                       highest allocation
 *   occupancy_steps(occ)            the steps (at, gpus)
 *   occupancy_levels(occ, from, to) seconds spent at each allocation level
 *   mean_gpus(occ, from, to)        time-weighted mean allocation
 *   allocation_pct(occ, capacity, from, to)   100 * mean_gpus / capacity
 *   (allocation_rate: the same as a fraction, for the 0.1.0 to 0.3.0 scripts)
 *
 * Every one reads its argument through occ_arg(), which caches it.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "occupancy_type.h"

#define ST_SORT occ_sort_levels
#define ST_ELEMENT_TYPE at_occ_level
#define ST_COMPARE(a, b) (((a)->gpus > (b)->gpus) - ((a)->gpus < (b)->gpus))
#define ST_SCOPE static
#define ST_CHECK_FOR_INTERRUPTS
#define ST_DEFINE
#include "lib/sort_template.h"

PG_FUNCTION_INFO_V1(acmetrace_gpus_at);
PG_FUNCTION_INFO_V1(acmetrace_peak);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_steps);
PG_FUNCTION_INFO_V1(acmetrace_occupancy_levels);
PG_FUNCTION_INFO_V1(acmetrace_mean_gpus);
PG_FUNCTION_INFO_V1(acmetrace_allocation_rate);
PG_FUNCTION_INFO_V1(acmetrace_allocation_pct);

Datum
acmetrace_gpus_at(PG_FUNCTION_ARGS)
{
	const OccData *o = occ_arg(fcinfo, 0);

	/* rows often come in time order: search from where the last one landed */
	PG_RETURN_INT64(at_occ_at_hint(o->steps, o->nsteps, PG_GETARG_TIMESTAMPTZ(1), occ_arg_hint(fcinfo)));
}

Datum
acmetrace_peak(PG_FUNCTION_ARGS)
{
	const OccData *o = occ_arg(fcinfo, 0);

	PG_RETURN_INT64(at_occ_peak(o->steps, o->nsteps));
}

Datum
acmetrace_occupancy_steps(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const OccData *o = occ_arg(fcinfo, 0);
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < o->nsteps; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = TimestampTzGetDatum(o->steps[i].t);
		values[1] = Int64GetDatum(o->steps[i].gpus);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* The window [from, to) of the time-weighted functions. */
static void
get_window(FunctionCallInfo fcinfo, int argno, TimestampTz *from, TimestampTz *to)
{
	*from = PG_GETARG_TIMESTAMPTZ(argno);
	*to = PG_GETARG_TIMESTAMPTZ(argno + 1);
	if (TIMESTAMP_NOT_FINITE(*from) || TIMESTAMP_NOT_FINITE(*to))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the time window must be finite"),
				 errhint("Pass the trace's period, e.g. min(submit_time) and max(end_time).")));
	if (*from >= *to)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the time window is empty: from_time must be earlier than to_time")));
}

Datum
acmetrace_occupancy_levels(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const OccData *o = occ_arg(fcinfo, 0);
	TimestampTz from,
				to;
	at_occ_level *lv;
	Size		n,
				i;

	get_window(fcinfo, 1, &from, &to);
	InitMaterializedSRF(fcinfo, 0);
	lv = palloc_extended(at_occ_segments_max(o->steps, o->nsteps, from, to) * sizeof(at_occ_level),
						 MCXT_ALLOC_HUGE);
	n = at_occ_segments(o->steps, o->nsteps, from, to, lv);
	occ_sort_levels(lv, n);
	n = at_occ_merge_levels(lv, n);
	for (i = 0; i < n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(lv[i].gpus);
		values[1] = Float8GetDatum((double) lv[i].usec / USECS_PER_SEC);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(lv);
	return (Datum) 0;
}

Datum
acmetrace_mean_gpus(PG_FUNCTION_ARGS)
{
	const OccData *o = occ_arg(fcinfo, 0);
	TimestampTz from,
				to;

	get_window(fcinfo, 1, &from, &to);
	/* unsigned: 4714 BC to 294276 AD is more than INT64_MAX microseconds */
	PG_RETURN_FLOAT8(at_occ_integral(o->steps, o->nsteps, from, to) / (double) ((uint64) to - (uint64) from));
}

/* mean_gpus / capacity over the window of arguments 2 and 3 */
static double
allocation_fraction(FunctionCallInfo fcinfo)
{
	const OccData *o = occ_arg(fcinfo, 0);
	int64		capacity = PG_GETARG_INT64(1);
	TimestampTz from,
				to;

	if (capacity <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be positive, not %lld", (long long) capacity),
				 errhint("acmetrace.clusters.gpu_capacity holds the known capacities (Seren 2288, Kalos 2416).")));
	get_window(fcinfo, 2, &from, &to);
	return at_occ_integral(o->steps, o->nsteps, from, to) / (double) ((uint64) to - (uint64) from) / (double) capacity;
}

Datum
acmetrace_allocation_rate(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(allocation_fraction(fcinfo));
}

Datum
acmetrace_allocation_pct(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(100.0 * allocation_fraction(fcinfo));
}
