/*
 * history.c: fmgr glue of the users'-history duration predictor
 * (src/core/history.c): a cluster's GPU jobs in submit order through SPI,
 * each predicted from the jobs that had ended by its submit time.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "glue.h"
#include "history.h"

PG_FUNCTION_INFO_V1(acmetrace_history_predictions);
PG_FUNCTION_INFO_V1(acmetrace_history_features);

/* The history's hash of a text datum's bytes (as at_history_hash of its output). */
static uint64
text_hash(Datum d)
{
	text	   *t = DatumGetTextPP(d);

	return at_history_hash(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

static int64
unix_s(TimestampTz t)
{
	return t / USECS_PER_SEC - (t % USECS_PER_SEC < 0 ? 1 : 0);
}

#define FEATURES (5 + 2 * AT_HISTORY_LEVELS - 1)

/*
 * One ordered pass over a cluster's GPU jobs: each predicted (features
 * false: run_s, predicted_s and level) or described by what is known at
 * its submit time (features true: run_s and a float8[] of FEATURES, see
 * acmetrace.job_feature_names), then counted from its end on.
 */
static Datum
history_scan(FunctionCallInfo fcinfo, bool features)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *cluster = PG_GETARG_TEXT_PP(0);
	int32		window = PG_GETARG_INT32(1);
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	Portal		portal;
	at_history *h;
	MemoryContext outer = CurrentMemoryContext,
				rowcxt;

	if (window < 1 || window > AT_HISTORY_MAX_WINDOW)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("last_jobs must be between 1 and %d, got %d", AT_HISTORY_MAX_WINDOW, window)));
	InitMaterializedSRF(fcinfo, 0);
	if (at_history_create(at_cxt_mem, outer, window, &h) != 0)
		elog(ERROR, "at_history_create failed");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* what one row needs, freed after it */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "acmetrace history row", ALLOCSET_SMALL_SIZES);
	args[0] = PointerGetDatum(cluster);
	/* hour and weekday of submission in the cluster's own time zone */
	portal = SPI_cursor_open_with_args(NULL,
									   "SELECT j.job_id, j.user_id, j.type, j.gpu_num, j.submit_time, j.start_time, j.end_time, "
									   "j.node_num::float8, j.cpu_num::float8, "
									   "extract(hour FROM j.submit_time AT TIME ZONE coalesce(c.time_zone, 'UTC'))::float8, "
									   "extract(isodow FROM j.submit_time AT TIME ZONE coalesce(c.time_zone, 'UTC'))::float8 "
									   "FROM acmetrace.jobs j LEFT JOIN acmetrace.clusters c ON c.cluster = j.cluster "
									   "WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.submit_time IS NOT NULL "
									   "ORDER BY j.submit_time, j.job_id",
									   1, argtypes, args, NULL, true, 0);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	td = SPI_tuptable->tupdesc;
			bool		null_start,
						null_end,
						null_user,
						null_type,
						isnull;
			Datum		user,
						type;
			int32		gpus = DatumGetInt32(SPI_getbinval(tup, td, 4, &isnull));
			TimestampTz submit = DatumGetTimestampTz(SPI_getbinval(tup, td, 5, &isnull));
			TimestampTz start = DatumGetTimestampTz(SPI_getbinval(tup, td, 6, &null_start));
			TimestampTz end = DatumGetTimestampTz(SPI_getbinval(tup, td, 7, &null_end));
			at_history_key k;
			double		pred = 0;
			int			level = 0;
			Datum		values[7];
			bool		nulls[7] = {false};
			Datum		f[FEATURES];
			MemoryContext spi = MemoryContextSwitchTo(rowcxt);

			CHECK_FOR_INTERRUPTS();
			user = SPI_getbinval(tup, td, 2, &null_user);
			type = SPI_getbinval(tup, td, 3, &null_type);
			if (TIMESTAMP_NOT_FINITE(submit) || (!null_start && TIMESTAMP_NOT_FINITE(start)) ||
				(!null_end && TIMESTAMP_NOT_FINITE(end)))
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("job %s has an infinite time", SPI_getvalue(tup, td, 1))));
			k.user = null_user ? 0 : text_hash(user);
			k.type = null_type ? 0 : text_hash(type);
			k.gpus = gpus;
			if (features)
			{
				double		ml[AT_HISTORY_LEVELS];
				int32_t		n[AT_HISTORY_LEVELS];

				if (at_history_levels(h, &k, unix_s(submit), ml, n) != 0)
					ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
				f[0] = Float8GetDatum((double) gpus);
				/* node_num, cpu_num, hour, weekday: NULL is missing (NaN) */
				for (int c = 0; c < 4; c++)
				{
					Datum		v = SPI_getbinval(tup, td, 8 + c, &isnull);

					f[1 + c] = isnull ? Float8GetDatum(get_float8_nan()) : v;
				}
				for (int l = 0; l < AT_HISTORY_LEVELS; l++)
					f[5 + l] = Float8GetDatum(ml[l]);
				for (int l = 0; l < AT_HISTORY_LEVELS - 1; l++)
					f[5 + AT_HISTORY_LEVELS + l] = Float8GetDatum((double) n[l]);
			}
			else
			{
				level = at_history_predict(h, &k, unix_s(submit), &pred);
				if (level == -2)
					ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
			}

			/* (tuplestore_putvalues copies the row into the tuplestore's memory) */
			values[0] = SPI_getbinval(tup, td, 1, &isnull);
			values[1] = type;
			nulls[1] = null_type;
			if (features)
			{
				/* job_id, type, submit_time, run_s, features */
				values[2] = TimestampTzGetDatum(submit);
				if (!null_start && !null_end)
					values[3] = Float8GetDatum((double) (end - start) / USECS_PER_SEC);
				else
					nulls[3] = true;
				values[4] = PointerGetDatum(construct_array(f, FEATURES, FLOAT8OID, sizeof(float8),
															FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
			}
			else
			{
				values[2] = Int32GetDatum(gpus);
				values[3] = TimestampTzGetDatum(submit);
				if (!null_start && !null_end)
					values[4] = Float8GetDatum((double) (end - start) / USECS_PER_SEC);
				else
					nulls[4] = true;
				if (level >= 0)
				{
					values[5] = Float8GetDatum(pred);
					values[6] = Int32GetDatum(level);
				}
				else
					nulls[5] = nulls[6] = true;
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(spi);
			MemoryContextReset(rowcxt);

			/* known to the jobs submitted from its end on */
			if (!null_start && !null_end && end >= start &&
				!at_history_ended(h, &k, unix_s(end), (double) (end - start) / USECS_PER_SEC))
				ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	at_history_destroy(h);
	return (Datum) 0;
}

/*
 * acmetrace_internal.history_predictions(cluster text, last_jobs int)
 *   -> TABLE (job_id text, type text, gpu_num int, submit_time timestamptz,
 *             run_s float8, predicted_s float8, level int)
 * STRICT; the public acmetrace.predict_history checks and rounds.
 */
Datum
acmetrace_history_predictions(PG_FUNCTION_ARGS)
{
	return history_scan(fcinfo, false);
}

/*
 * acmetrace_internal.history_features(cluster text, last_jobs int)
 *   -> TABLE (job_id text, type text, submit_time timestamptz, run_s float8, features float8[])
 * STRICT; acmetrace.job_features checks its arguments.
 */
Datum
acmetrace_history_features(PG_FUNCTION_ARGS)
{
	return history_scan(fcinfo, true);
}
