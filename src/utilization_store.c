/*
 * utilization_store.c: the loaders' writes (utilization_load.c for wide
 * files, prometheus_load.c for Prometheus's samples).
 *
 * A series' open block goes to acmetrace.utilization_blocks as one
 * acmetrace.samples value of its day, with its summary columns; when the
 * day is stored already (an earlier file, or the same series twice in
 * one), the two are merged (src/core/samples.c): a sample stored with the
 * same value is counted as a duplicate, with another value it is an error.
 * The table's row trigger adds the block's hour summaries (hour_* columns)
 * on every insert and update of samples.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "samples_type.h"
#include "utilization_store.h"

static SPIPlanPtr plan_insert = NULL;
static SPIPlanPtr plan_select = NULL;
static SPIPlanPtr plan_update = NULL;

static void
prepare_plans(void)
{
	Oid			types[11] = {TEXTOID, TEXTOID, TEXTOID, DATEOID, INT4OID, FLOAT8OID, FLOAT8OID,
	NUMERICOID, TIMESTAMPTZOID, TIMESTAMPTZOID, InvalidOid};
	Oid			samples_type;

	if (plan_insert != NULL)
		return;
	samples_type = DatumGetObjectId(DirectFunctionCall1(regtypein, CStringGetDatum("acmetrace.samples")));
	types[10] = samples_type;
	plan_insert = SPI_prepare("INSERT INTO acmetrace.utilization_blocks "
							  "(metric, cluster, series, day, n, min, max, sum, first_ts, last_ts, samples) "
							  "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
							  "ON CONFLICT (metric, cluster, day, series) DO NOTHING", 11, types);
	if (plan_insert == NULL)
		elog(ERROR, "acmetrace: preparing the block insert failed: %s", SPI_result_code_string(SPI_result));
	plan_select = SPI_prepare("SELECT samples FROM acmetrace.utilization_blocks "
							  "WHERE metric = $1 AND cluster = $2 AND series = $3 AND day = $4 FOR UPDATE",
							  4, types);
	if (plan_select == NULL)
		elog(ERROR, "acmetrace: preparing the block select failed: %s", SPI_result_code_string(SPI_result));
	plan_update = SPI_prepare("UPDATE acmetrace.utilization_blocks "
							  "SET n = $5, min = $6, max = $7, sum = $8, first_ts = $9, last_ts = $10, samples = $11 "
							  "WHERE metric = $1 AND cluster = $2 AND series = $3 AND day = $4", 11, types);
	if (plan_update == NULL)
		elog(ERROR, "acmetrace: preparing the block update failed: %s", SPI_result_code_string(SPI_result));
	SPI_keepplan(plan_insert);
	SPI_keepplan(plan_select);
	SPI_keepplan(plan_update);
}

static void
fill_args(Datum *args, const util_store *st, const at_series *b, Datum samples)
{
	size_t		len;
	const unsigned char *bytes = samples_bytes(samples, &len);
	at_samples_info info;

	at_samples_info_read(bytes, &info);
	args[0] = CStringGetTextDatum(st->metric);
	args[1] = CStringGetTextDatum(st->cluster);
	args[2] = CStringGetTextDatum(b->name);
	args[3] = DateADTGetDatum(b->day);
	args[4] = Int32GetDatum(info.n);
	args[5] = Float8GetDatum(info.min);
	args[6] = Float8GetDatum(info.max);
	args[7] = samples_sum(bytes, len, &info);
	args[8] = TimestampTzGetDatum(info.first_ts);
	args[9] = TimestampTzGetDatum(info.last_ts);
	args[10] = samples;
}

void
util_store_add(util_store *st, at_series_set *set, at_series *b, TimestampTz ts, double v)
{
	int32		day = at_day_of(ts);
	at_add_status s = at_series_add(set, b, day, ts, v);

	if (s == AT_ADD_FLUSH)
	{
		util_store_block(st, b);
		s = at_series_add(set, b, day, ts, v);
	}
	if (s == AT_ADD_FULL)
		util_day_full(b->name);
	if (s == AT_ADD_NO_MEMORY)
		at_no_memory();
}

void
util_store_lock(const char *metric, const char *cluster)
{
	int64		key = (int64) ((uint64) DatumGetUInt32(hash_any((const unsigned char *) metric, strlen(metric))) << 32 |
							   DatumGetUInt32(hash_any((const unsigned char *) cluster, strlen(cluster))));

	DirectFunctionCall1(pg_advisory_xact_lock_int8, Int64GetDatum(key));
}

void
util_day_full(const char *series)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("series \"%s\" has more than %d samples in one day", series, AT_SAMPLES_MAX)));
}

/* b's day is stored already (args name it): merge b into that block. */
static void
merge_block(util_store *st, const at_series *b, Datum *args)
{
	bool		isnull;
	Datum		stored;
	size_t		len;
	const unsigned char *bytes;
	at_samples_info info;
	at_samples_conflict c;
	int64	   *ts,
			   *mts;
	double	   *v,
			   *mv;
	int64		dups = 0;
	int32		n;
	int			rc;

	rc = SPI_execute_plan(plan_select, args, NULL, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "acmetrace: the stored block of series \"%s\" vanished", b->name);
	stored = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	bytes = samples_bytes(stored, &len);
	at_samples_info_read(bytes, &info);
	ts = palloc(sizeof(int64) * info.n);
	v = palloc(sizeof(double) * info.n);
	at_samples_decode(bytes, len, ts, v);
	mts = palloc(sizeof(int64) * ((int64) info.n + b->n));
	mv = palloc(sizeof(double) * ((int64) info.n + b->n));
	n = at_samples_merge(ts, v, info.n, b->ts, b->v, b->n, mts, mv, &dups, &c);
	if (n < 0)
		samples_conflict_error(b->name, &c);
	if ((int64) n > AT_SAMPLES_MAX)
		util_day_full(b->name);
	st->dups += dups;
	if (n > info.n)
	{
		fill_args(args, st, b, samples_make(mts, mv, n));
		rc = SPI_execute_plan(plan_update, args, NULL, false, 0);
		if (rc != SPI_OK_UPDATE)
			elog(ERROR, "acmetrace: block update failed: %s", SPI_result_code_string(rc));
		st->blocks++;
	}
}

void
util_store_block(util_store *st, at_series *b)
{
	MemoryContext old;
	at_samples_conflict c;
	Datum		args[11];
	int			rc;

	if (b->n == 0)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	if (!b->sorted)
	{
		int64		dups = 0;

		if (at_samples_sort_dedup(b->ts, b->v, &b->n, &dups, &c) != 0)
			samples_conflict_error(b->name, &c);
		st->dups += dups;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "acmetrace: SPI_connect failed");
	prepare_plans();
	fill_args(args, st, b, samples_make(b->ts, b->v, b->n));
	rc = SPI_execute_plan(plan_insert, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "acmetrace: block insert failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		merge_block(st, b, args);	/* a block is there */
	else
		st->blocks++;
	SPI_finish();
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->cxt);
	at_series_empty(b);
}

