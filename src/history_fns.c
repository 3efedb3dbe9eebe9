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
#include "parser/scansup.h"
#include "pgtime.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
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

/*
 * The jobs in submit order.  Hour and weekday of submission are computed
 * here, not in the query: AT TIME ZONE parsed the zone's name on every row
 * (a tenth of the features' time at a million jobs).
 */
static const char history_sql[] =
	"SELECT j.job_id, j.user_id, j.type, j.gpu_num, j.submit_time, j.start_time, j.end_time, "
	"j.node_num::float8, j.cpu_num::float8 "
	"FROM acmetrace.jobs j "
	"WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.submit_time IS NOT NULL "
	"ORDER BY j.submit_time, j.job_id";
#define HISTORY_COLS 9

/* The zone of the hour and weekday: the cluster's, else UTC. */
static const char history_zone_sql[] =
	"SELECT coalesce((SELECT c.time_zone FROM acmetrace.clusters c WHERE c.cluster = $1), 'UTC')";

/*
 * The cluster's time zone, resolved once as `submit_time AT TIME ZONE zone`
 * resolves it on each call: an abbreviation of fixed offset, else a full
 * zone name; anything else (a dynamic abbreviation, an unknown name) goes
 * through timestamptz_zone itself for every row, errors included.
 */
typedef enum
{
	ZONE_FIXED, ZONE_NAMED, ZONE_EACH_ROW
} zone_kind;

typedef struct local_zone
{
	zone_kind	kind;
	int			offset_s;		/* ZONE_FIXED: seconds east of UTC */
	pg_tz	   *tz;				/* ZONE_NAMED */
	text	   *name;			/* ZONE_EACH_ROW */
} local_zone;

static void
zone_resolve(local_zone *z, const char *name)
{
	size_t		len = strlen(name);
	int			type = UNKNOWN_FIELD,
				val = 0;
	pg_tz	   *tzp = NULL;

	z->kind = ZONE_EACH_ROW;
	z->name = cstring_to_text(name);
	if (len > TZ_STRLEN_MAX)
		return;
	type = DecodeTimezoneAbbrev(0, downcase_truncate_identifier(name, (int) len, false), &val, &tzp);
	if (type == TZ || type == DTZ)
	{
		z->kind = ZONE_FIXED;
		z->offset_s = val;
	}
	else if (type != DYNTZ && (z->tz = pg_tzset(name)) != NULL)
		z->kind = ZONE_NAMED;
}

/* The local hour (0 .. 23) and ISO weekday (1 Monday .. 7 Sunday) of t. */
static void
zone_local(const local_zone *z, TimestampTz t, double *hour, double *isodow)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz,
				ok;
	int			dow;

	if (z->kind == ZONE_NAMED)
		ok = timestamp2tm(t, &tz, &tm, &fsec, NULL, z->tz);
	else
	{
		Timestamp	local = z->kind == ZONE_FIXED
			? t + (int64) z->offset_s * USECS_PER_SEC
			: DatumGetTimestamp(DirectFunctionCall2(timestamptz_zone, PointerGetDatum(z->name),
													TimestampTzGetDatum(t)));

		ok = timestamp2tm(local, NULL, &tm, &fsec, NULL, NULL);
	}
	if (ok != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("submit time %s is out of range in the cluster's time zone", timestamptz_to_str(t)),
				 errhint("The features give the hour and weekday of submission in acmetrace.clusters.time_zone.")));
	dow = j2day(date2j(tm.tm_year, tm.tm_mon, tm.tm_mday));
	*hour = tm.tm_hour;
	*isodow = dow == 0 ? 7 : dow;
}

/* One pass's state, for each row (at_spi_each_row). */
typedef struct history_pass
{
	at_history *h;
	bool		features;
	local_zone	zone;			/* features: the cluster's */
	ReturnSetInfo *rsinfo;
	MemoryContext rowcxt;		/* what one row needs, freed after it */
} history_pass;

/* job_id, type, submit_time, run_s, features: what is known at its submit time */
static void
features_row(history_pass *p, const Datum *col, const bool *colnull, const at_history_key *k,
			 TimestampTz submit, Datum *values)
{
	double		other[4],
				f[AT_HISTORY_FEATURES];
	Datum		fd[AT_HISTORY_FEATURES];

	/* node_num, cpu_num (NULL is missing: NaN), hour, weekday */
	for (int c = 0; c < 2; c++)
		other[c] = colnull[7 + c] ? get_float8_nan() : DatumGetFloat8(col[7 + c]);
	zone_local(&p->zone, submit, &other[2], &other[3]);
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
	Datum		col[HISTORY_COLS];
	bool		colnull[HISTORY_COLS];
	at_job_times jt;
	bool		has_run;
	at_history_key k;
	double		run = 0;
	Datum		values[7];
	bool		nulls[7] = {false};
	MemoryContext spi = MemoryContextSwitchTo(p->rowcxt);

	/* every column at once: SPI_getbinval walked the row for each */
	heap_deform_tuple(tup, td, col, colnull);
	jt.submit = DatumGetTimestampTz(col[4]);
	jt.has_start = !colnull[5];
	jt.start = jt.has_start ? DatumGetTimestampTz(col[5]) : 0;
	jt.has_end = !colnull[6];
	jt.end = jt.has_end ? DatumGetTimestampTz(col[6]) : 0;
	if (TIMESTAMP_NOT_FINITE(jt.submit) || (jt.has_start && TIMESTAMP_NOT_FINITE(jt.start)) ||
		(jt.has_end && TIMESTAMP_NOT_FINITE(jt.end)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("job %s has an infinite time", TextDatumGetCString(col[0]))));
	k.gpus = DatumGetInt32(col[3]);
	k.user = colnull[1] ? 0 : text_hash(col[1]);
	k.type = colnull[2] ? 0 : text_hash(col[2]);
	/* (tuplestore_putvalues copies the row into the tuplestore's memory) */
	values[0] = col[0];
	values[1] = col[2];
	nulls[1] = colnull[2];
	has_run = jt.has_start && jt.has_end;
	if (has_run)
		run = (double) (jt.end - jt.start) / USECS_PER_SEC;
	if (p->features)
		features_row(p, col, colnull, &k, jt.submit, values);
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
	if (features)
	{
		if (SPI_execute_with_args(history_zone_sql, 1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "history: the cluster's time zone could not be read");
		zone_resolve(&p.zone, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	}
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
