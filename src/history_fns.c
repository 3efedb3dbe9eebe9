/*
 * history_fns.c: fmgr glue of the users'-history duration predictor
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

/* The jobs in submit order; hour and weekday of submission in the cluster's own time zone. */
static const char history_sql[] =
	"SELECT j.job_id, j.user_id, j.type, j.gpu_num, j.submit_time, j.start_time, j.end_time, "
	"j.node_num::float8, j.cpu_num::float8, "
	"extract(hour FROM j.submit_time AT TIME ZONE coalesce(c.time_zone, 'UTC'))::float8, "
	"extract(isodow FROM j.submit_time AT TIME ZONE coalesce(c.time_zone, 'UTC'))::float8 "
	"FROM acmetrace.jobs j LEFT JOIN acmetrace.clusters c ON c.cluster = j.cluster "
	"WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.submit_time IS NOT NULL "
	"ORDER BY j.submit_time, j.job_id";

/* One pass's state, for each row (at_spi_each_row). */
typedef struct history_pass
{
	at_history *h;
	bool		features;
	ReturnSetInfo *rsinfo;
	MemoryContext rowcxt;		/* what one row needs, freed after it */
} history_pass;

/* job_id, type, submit_time, run_s, features: what is known at its submit time */
static void
features_row(history_pass *p, HeapTuple tup, TupleDesc td, const at_history_key *k, TimestampTz submit,
			 Datum *values)
{
	double		other[4],
				f[AT_HISTORY_FEATURES];
	Datum		fd[AT_HISTORY_FEATURES];
	bool		isnull;

	/* node_num, cpu_num, hour, weekday: NULL is missing (NaN) */
	for (int c = 0; c < 4; c++)
	{
		Datum		v = SPI_getbinval(tup, td, 8 + c, &isnull);

		other[c] = isnull ? get_float8_nan() : DatumGetFloat8(v);
	}
	if (at_history_features(p->h, k, unix_s(submit), other, f) != 0)
		at_no_memory();
	for (int i = 0; i < AT_HISTORY_FEATURES; i++)
		fd[i] = Float8GetDatum(f[i]);
	values[2] = TimestampTzGetDatum(submit);
	values[4] = PointerGetDatum(construct_array(fd, AT_HISTORY_FEATURES, FLOAT8OID, sizeof(float8),
												FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* job_id, type, gpu_num, submit_time, run_s, predicted_s, level */
static void
predict_row(history_pass *p, const at_history_key *k, TimestampTz submit, Datum *values, bool *nulls)
{
	double		pred = 0;
	int			level = at_history_predict(p->h, k, unix_s(submit), &pred);

	if (level == -2)
		at_no_memory();
	values[2] = Int32GetDatum(k->gpus);
	values[3] = TimestampTzGetDatum(submit);
	if (level >= 0)
	{
		values[5] = Float8GetDatum(pred);
		values[6] = Int32GetDatum(level);
	}
	else
		nulls[5] = nulls[6] = true;
}

/*
 * One job, in submit order: predicted or described by what is known at
 * its submit time, then counted from its end on.
 */
static void
history_row(HeapTuple tup, TupleDesc td, void *arg)
{
	history_pass *p = arg;
	at_job_times jt;
	bool		finite = at_job_times_get(tup, td, 5, &jt),
				null_user,
				null_type,
				isnull,
				has_run;
	at_history_key k;
	double		run = 0;
	Datum		values[7];
	bool		nulls[7] = {false};
	Datum		user,
				type;
	MemoryContext spi = MemoryContextSwitchTo(p->rowcxt);

	k.gpus = DatumGetInt32(SPI_getbinval(tup, td, 4, &isnull));
	user = SPI_getbinval(tup, td, 2, &null_user);
	type = SPI_getbinval(tup, td, 3, &null_type);
	if (!finite)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("job %s has an infinite time", SPI_getvalue(tup, td, 1))));
	k.user = null_user ? 0 : text_hash(user);
	k.type = null_type ? 0 : text_hash(type);
	/* (tuplestore_putvalues copies the row into the tuplestore's memory) */
	values[0] = SPI_getbinval(tup, td, 1, &isnull);
	values[1] = type;
	nulls[1] = null_type;
	has_run = jt.has_start && jt.has_end;
	if (has_run)
		run = (double) (jt.end - jt.start) / USECS_PER_SEC;
	if (p->features)
		features_row(p, tup, td, &k, jt.submit, values);
	else
		predict_row(p, &k, jt.submit, values, nulls);
	/* run_s: column 3 of the features, 4 of the predictions */
	values[p->features ? 3 : 4] = Float8GetDatum(run);
	nulls[p->features ? 3 : 4] = !has_run;
	tuplestore_putvalues(p->rsinfo->setResult, p->rsinfo->setDesc, values, nulls);
	MemoryContextSwitchTo(spi);
	MemoryContextReset(p->rowcxt);

	/* known to the jobs submitted from its end on */
	if (has_run && jt.end >= jt.start && !at_history_ended(p->h, &k, unix_s(jt.end), run))
		at_no_memory();
}

/*
 * One ordered pass over a cluster's GPU jobs: each predicted (features
 * false: run_s, predicted_s and level) or described by what is known at
 * its submit time (features true: run_s and a float8[] of
 * AT_HISTORY_FEATURES, see acmetrace.job_feature_names), then counted from
 * its end on.
 */
static Datum
history_scan(FunctionCallInfo fcinfo, bool features)
{
	text	   *cluster = PG_GETARG_TEXT_PP(0);
	int32		window = PG_GETARG_INT32(1);
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	history_pass p;

	if (window < 1 || window > AT_HISTORY_MAX_WINDOW)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("last_jobs must be between 1 and %d, got %d", AT_HISTORY_MAX_WINDOW, window)));
	InitMaterializedSRF(fcinfo, 0);
	p.features = features;
	p.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	if (at_history_create(at_cxt_mem, CurrentMemoryContext, window, &p.h) != 0)
		elog(ERROR, "at_history_create failed");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	p.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "acmetrace history row", ALLOCSET_SMALL_SIZES);
	args[0] = PointerGetDatum(cluster);
	at_spi_each_row(SPI_cursor_open_with_args(NULL, history_sql, 1, argtypes, args, NULL, true, 0),
					history_row, &p);
	SPI_finish();
	at_history_destroy(p.h);
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
