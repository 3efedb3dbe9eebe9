/*
 * replay.c: fmgr glue of acmetrace.replay (src/core/replay.c): a loaded
 * cluster's GPU jobs, read in submit order through SPI, run again through
 * the scheduler under a policy and a capacity.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "glue.h"
#include "replay.h"

PG_FUNCTION_INFO_V1(acmetrace_replay);

#define GPUS_PER_NODE 8
#define KEY_MAX ((int64) 1 << 40)	/* jobs without a prediction go last */

typedef enum
{
	POLICY_FIFO, POLICY_PRIORITY, POLICY_SJF
} policy;

/* The scheduler class of a job type under the priority policy (as the generator's profiles). */
static int
type_class(const char *type)
{
	if (type == NULL)
		return 0;
	if (strcmp(type, "Pretrain") == 0)
		return 3;
	if (strcmp(type, "SFT") == 0 || strcmp(type, "MLLM") == 0)
		return 2;
	if (strcmp(type, "Debug") == 0)
		return 1;
	return 0;
}

static int64
to_unix(TimestampTz t)
{
	int64		s = t / USECS_PER_SEC - (t % USECS_PER_SEC < 0 ? 1 : 0);

	return s + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
}

static int64
clamp_key(double v)
{
	if (!(v >= 0))
		return 0;
	if (v >= (double) KEY_MAX)
		return KEY_MAX;
	return (int64) v;
}

/* The scheduler's tick: a long replay can be cancelled. */
static void
replay_tick(void *arg)
{
	(void) arg;
	CHECK_FOR_INTERRUPTS();
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
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *cluster,
			   *pname;
	policy		pol;
	int64		capacity = -1;
	bool		backfill;
	Oid			predictions = InvalidOid;
	StringInfoData sql;
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	Portal		portal;
	at_replay_job *jobs;
	char	  **ids;
	char	  **types;
	TimestampTz *rec_start;
	bool	   *has_start;
	int64		n = 0,
				room = 1024,
				t0 = 0,
				bad;
	at_sched_config cfg;
	at_sched_status st;
	MemoryContext outer = CurrentMemoryContext;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		at_raise_plain(ERRCODE_NULL_VALUE_NOT_ALLOWED, "replay's cluster, policy and backfill must not be NULL",
					   NULL, "For example SELECT * FROM acmetrace.replay('synth', 'fifo').");
	cluster = text_to_cstring(PG_GETARG_TEXT_PP(0));
	pname = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (pg_strcasecmp(pname, "fifo") == 0)
		pol = POLICY_FIFO;
	else if (pg_strcasecmp(pname, "priority") == 0)
		pol = POLICY_PRIORITY;
	else if (pg_strcasecmp(pname, "sjf") == 0)
		pol = POLICY_SJF;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown replay policy \"%s\"", pname),
				 errhint("Policies: fifo, priority (by job type), sjf (shortest predicted first).")));
	if (!PG_ARGISNULL(2))
	{
		capacity = PG_GETARG_INT32(2);
		if (capacity < GPUS_PER_NODE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("replay capacity must be at least %d GPUs (a node), got " INT64_FORMAT,
							GPUS_PER_NODE, capacity)));
	}
	backfill = PG_GETARG_BOOL(3);
	if (!PG_ARGISNULL(4))
		predictions = PG_GETARG_OID(4);
	if (OidIsValid(predictions) && pol != POLICY_SJF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("predictions are used by the sjf policy only, not by \"%s\"", pname),
				 errhint("Pass predictions with policy => 'sjf', or leave them out.")));

	if (OidIsValid(predictions) &&
		(get_attnum(predictions, "job_id") == InvalidAttrNumber ||
		 get_attnum(predictions, "predicted_s") == InvalidAttrNumber))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("predictions relation %s has no job_id or no predicted_s column",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(predictions)),
												   get_rel_name(predictions))),
				 errhint("It needs job_id (text) and predicted_s (seconds, any number type).")));

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* an unknown cluster: 42704 naming the loaded ones */
	args[0] = CStringGetTextDatum(cluster);
	SPI_execute_with_args("SELECT acmetrace_internal.known_cluster($1)", 1, argtypes, args, NULL, true, 1);

	if (capacity < 0)
	{
		bool		isnull = true;

		args[0] = CStringGetTextDatum(cluster);
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
					 errmsg("cluster \"%s\" has no recorded GPU capacity", cluster),
					 errhint("Pass one: acmetrace.replay('%s', 'fifo', capacity => 2288).", cluster)));
	}
	if (capacity < GPUS_PER_NODE || capacity % GPUS_PER_NODE != 0 ||
		capacity / GPUS_PER_NODE > AT_SCHED_MAX_NODES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replay capacity must be a multiple of %d GPUs (nodes of %d) up to %d, got " INT64_FORMAT,
						GPUS_PER_NODE, GPUS_PER_NODE, AT_SCHED_MAX_NODES * GPUS_PER_NODE, capacity),
				 errhint("Use %lld or %lld.", (long long) Max(GPUS_PER_NODE, capacity / GPUS_PER_NODE * GPUS_PER_NODE),
						 (long long) Max(GPUS_PER_NODE, (capacity + GPUS_PER_NODE - 1) / GPUS_PER_NODE * GPUS_PER_NODE))));

	initStringInfo(&sql);
	appendStringInfoString(&sql,
						   "SELECT j.job_id, j.type, j.gpu_num, j.submit_time, j.start_time, j.end_time, ");
	if (OidIsValid(predictions))
		appendStringInfo(&sql, "p.predicted_s::float8 FROM acmetrace.jobs j LEFT JOIN %s p USING (job_id) ",
						 quote_qualified_identifier(get_namespace_name(get_rel_namespace(predictions)),
													get_rel_name(predictions)));
	else
		appendStringInfoString(&sql, "NULL::float8 FROM acmetrace.jobs j ");
	appendStringInfoString(&sql,
						   "WHERE j.cluster = $1 AND j.gpu_num > 0 AND j.submit_time IS NOT NULL "
						   "ORDER BY j.submit_time, j.job_id");
	args[0] = CStringGetTextDatum(cluster);
	portal = SPI_cursor_open_with_args(NULL, sql.data, 1, argtypes, args, NULL, true, 0);

	/* the job arrays live beyond SPI_finish */
	{
		MemoryContext spi = MemoryContextSwitchTo(outer);

		jobs = palloc(sizeof(at_replay_job) * room);
		ids = palloc(sizeof(char *) * room);
		types = palloc(sizeof(char *) * room);
		rec_start = palloc(sizeof(TimestampTz) * room);
		has_start = palloc(sizeof(bool) * room);
		MemoryContextSwitchTo(spi);
	}
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	td = SPI_tuptable->tupdesc;
			bool		null_type,
						null_start,
						null_end,
						null_pred,
						isnull;
			char	   *type;
			int32		gpus = DatumGetInt32(SPI_getbinval(tup, td, 3, &isnull));
			TimestampTz submit = DatumGetTimestampTz(SPI_getbinval(tup, td, 4, &isnull));
			TimestampTz start = DatumGetTimestampTz(SPI_getbinval(tup, td, 5, &null_start));
			TimestampTz end = DatumGetTimestampTz(SPI_getbinval(tup, td, 6, &null_end));
			double		pred = DatumGetFloat8(SPI_getbinval(tup, td, 7, &null_pred));
			at_replay_job *j;
			MemoryContext spi;

			CHECK_FOR_INTERRUPTS();
			(void) SPI_getbinval(tup, td, 2, &null_type);
			type = null_type ? NULL : SPI_getvalue(tup, td, 2);
			spi = MemoryContextSwitchTo(outer);
			if (n == room)
			{
				room *= 2;
				jobs = repalloc_huge(jobs, sizeof(at_replay_job) * room);
				ids = repalloc_huge(ids, sizeof(char *) * room);
				types = repalloc_huge(types, sizeof(char *) * room);
				rec_start = repalloc_huge(rec_start, sizeof(TimestampTz) * room);
				has_start = repalloc_huge(has_start, sizeof(bool) * room);
			}
			ids[n] = pstrdup(SPI_getvalue(tup, td, 1));
			types[n] = type ? pstrdup(type) : NULL;
			MemoryContextSwitchTo(spi);
			if (TIMESTAMP_NOT_FINITE(submit) || (!null_start && TIMESTAMP_NOT_FINITE(start)) ||
				(!null_end && TIMESTAMP_NOT_FINITE(end)))
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("job %s of cluster \"%s\" has an infinite time", ids[n], cluster)));
			if (n == 0)
				t0 = to_unix(submit);
			j = &jobs[n];
			memset(j, 0, sizeof(*j));
			j->submit = to_unix(submit) - t0;
			j->gpus = gpus;
			rec_start[n] = start;
			has_start[n] = !null_start;
			if (!null_start)
				j->run = null_end ? 0 : Max(0, to_unix(end) - to_unix(start));
			else
			{
				/* cancelled while queued: leaves after its recorded wait */
				j->run = -1;
				j->wait = null_end ? 0 : Max(0, to_unix(end) - to_unix(submit));
			}
			j->priority = pol == POLICY_PRIORITY ? type_class(type) : 0;
			if (pol == POLICY_SJF)
				j->key = OidIsValid(predictions) ? (null_pred ? KEY_MAX : clamp_key(pred)) : Max(0, j->run);
			if (gpus > capacity)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("job %s needs %d GPUs, more than the replay capacity " INT64_FORMAT,
								ids[n], gpus, capacity),
						 errhint("Replay with a capacity of at least %d.",
								 (gpus + GPUS_PER_NODE - 1) / GPUS_PER_NODE * GPUS_PER_NODE)));
			n++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();

	memset(&cfg, 0, sizeof cfg);
	cfg.nodes = (int32) (capacity / GPUS_PER_NODE);
	cfg.gpus_per_node = GPUS_PER_NODE;
	cfg.backfill = backfill;
	cfg.backfill_depth = 256;
	cfg.tick = replay_tick;
	st = at_replay(at_cxt_mem, CurrentMemoryContext, &cfg, jobs, n, &bad);
	if (st != AT_SCHED_OK)
		ereport(ERROR,
				(errcode(st == AT_SCHED_NOMEM ? ERRCODE_OUT_OF_MEMORY : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("replay of cluster \"%s\" stopped%s%s: %s", cluster,
						bad >= 0 ? " at job " : "", bad >= 0 ? ids[bad] : "", at_sched_status_text(st))));

	for (int64 i = 0; i < n; i++)
	{
		Datum		values[9];
		bool		nulls[9] = {false};
		at_replay_job *j = &jobs[i];

		values[0] = CStringGetTextDatum(ids[i]);
		if (types[i])
			values[1] = CStringGetTextDatum(types[i]);
		else
			nulls[1] = true;
		values[2] = Int32GetDatum(j->gpus);
		values[3] = TimestampTzGetDatum(at_unix_to_timestamptz(t0 + j->submit));
		if (has_start[i])
		{
			values[4] = TimestampTzGetDatum(rec_start[i]);
			values[5] = Int64GetDatum(to_unix(rec_start[i]) - t0 - j->submit);
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
	return (Datum) 0;
}
