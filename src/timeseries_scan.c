/*
 * timeseries_scan.c: acmetrace_internal.timeseries_scan(cluster, zone,
 * offset), the rows of summary_hours, summary_days and summary_extents in
 * one pass over a cluster's jobs (src/core/timeseries.h), for
 * timeseries_summarize (src/install/analyses/timeseries_jobs.sql), which
 * inserts them.  A plain SQL query hands its rows to a DestReceiver, as in
 * summary_scan.c; hours and days are kept in hash tables, the waits'
 * value counts in the core's at_vmap.  The waits' exact sum is PostgreSQL's
 * numeric arithmetic over the distinct (day, wait) pairs, so it is the SQL
 * sum to the digit.
 *
 * Rows out: (kind, t1, t2, t3, day, n1, n2, n3, n4, s1, s2, s3, waits,
 * wait_sum, vals, counts):
 *   'hour':   t1 the hour, n1 start_gpus, n2 end_gpus, s1 corr_s;
 *   'day':    day, n1..n4 submitted, completed, failed, cancelled,
 *             s1..s3 gpu_s, failed_gpu_s, cancelled_gpu_s, the waits;
 *   'extent': t1 first_event, t2 last_event, t3 first_start, last.
 * No rows at all when a value does not fit the pass (a numeric that is not
 * a decimal of at most 18 digits, 9 after the point; an infinite wait):
 * the caller then runs the SQL.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "timeseries.h"

PG_FUNCTION_INFO_V1(acmetrace_timeseries_scan);

#ifdef AT_HAVE_INT128

/* a day of summary_days: the core's sums and where its waits are in the sorted value counts */
typedef struct DayEntry
{
	int32		key;
	at_ts_day	d;
	size_t		wfirst;
	size_t		wn;
} DayEntry;

/* a distinct numeric, by its at_intern id */
typedef struct NumInfo
{
	int			kind;
	at_decimal	dec;
} NumInfo;

typedef struct TsPass
{
	DestReceiver pub;
	at_zone		zone;
	at_ts_extent extent;
	HTAB	   *hours;			/* at_ts_hour by hour */
	HTAB	   *days;			/* DayEntry by day */
	at_vmap		waits;			/* (day, wait) counts */
	at_intern	numerics;		/* distinct numerics by their bytes */
	NumInfo    *nums;
	size_t		nums_cap;
	DayEntry   *last_day;		/* the day and hour last asked for: a trace */
	at_ts_hour *last_hour;		/* in time order asks for them again */
	MemoryContext cxt;			/* the pass's: the receiver runs in SPI's */
	bool		ok;				/* every value fit */
	int64		rows;
} TsPass;

/* What a numeric column is: NULL, a decimal, or another numeric. */
static int
num_of(TsPass *st, Datum d, bool isnull, at_decimal *dec)
{
	struct varlena *s;
	int32		id;

	if (isnull)
		return AT_TS_NUM_NULL;
	s = PG_DETOAST_DATUM_PACKED(d);
	id = at_intern_id(&st->numerics, VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s));
	if (id < 0)
		at_no_memory();
	if ((size_t) id >= st->nums_cap)
	{
		size_t		cap = Max(st->nums_cap * 2, 1024);

		st->nums = st->nums ? repalloc_huge(st->nums, cap * sizeof(NumInfo))
			: MemoryContextAllocExtended(st->cxt, cap * sizeof(NumInfo), MCXT_ALLOC_HUGE);
		/* kind 0 (never stored): not seen yet */
		memset(st->nums + st->nums_cap, 0, (cap - st->nums_cap) * sizeof(NumInfo));
		st->nums_cap = cap;
	}
	if (st->nums[id].kind == 0)
	{
		/* first sight: numeric_out's text as a decimal */
		st->nums[id].kind = at_decimal_parse(DatumGetCString(DirectFunctionCall1(numeric_out, d)), &st->nums[id].dec)
			? AT_TS_NUM_DEC : AT_TS_NUM_OTHER;
	}
	*dec = st->nums[id].dec;
	return st->nums[id].kind;
}

/* The entry of day, zeroed when new. */
static DayEntry *
day_of(TsPass *st, int32 day)
{
	bool		found;

	if (st->last_day == NULL || st->last_day->key != day)
	{
		st->last_day = hash_search(st->days, &day, HASH_ENTER, &found);
		if (!found)
			memset((char *) st->last_day + sizeof(int32), 0, sizeof(DayEntry) - sizeof(int32));
	}
	return st->last_day;
}

/* The entry of hour, zeroed when new. */
static at_ts_hour *
hour_of(TsPass *st, int64 hour)
{
	bool		found;

	if (st->last_hour == NULL || st->last_hour->hour != hour)
	{
		st->last_hour = hash_search(st->hours, &hour, HASH_ENTER, &found);
		if (!found)
			memset((char *) st->last_hour + sizeof(int64), 0, sizeof(at_ts_hour) - sizeof(int64));
	}
	return st->last_hour;
}

/* Columns: gpu_num, submit, start, end, wait_s, state (AT_TS_*), gpu_time, duration. */
static bool
ts_receive(TupleTableSlot *slot, DestReceiver *self)
{
	TsPass	   *st = (TsPass *) self;
	bool	   *nul;
	Datum	   *v;
	at_ts_job	j = {0};
	at_ts_hour	ev[2];
	int			n,
				w;

	if ((++st->rows & 0xffff) == 0)
		CHECK_FOR_INTERRUPTS();
	if (!st->ok)
		return true;
	slot_getallattrs(slot);
	v = slot->tts_values;
	nul = slot->tts_isnull;
	j.has_gpus = !nul[0];
	j.gpus = nul[0] ? 0 : DatumGetInt32(v[0]);
	j.has_submit = !nul[1];
	j.submit = nul[1] ? 0 : DatumGetTimestampTz(v[1]);
	j.has_start = !nul[2];
	j.start = nul[2] ? 0 : DatumGetTimestampTz(v[2]);
	j.has_end = !nul[3];
	j.end = nul[3] ? 0 : DatumGetTimestampTz(v[3]);
	j.has_wait = !nul[4];
	j.wait = nul[4] ? 0 : DatumGetFloat8(v[4]);
	j.state = DatumGetInt32(v[5]);

	at_ts_extent_add(&st->extent, &j);
	n = at_ts_hour_events(&j, ev);
	for (int i = 0; i < n; i++)
		if (!at_ts_hour_add(hour_of(st, ev[i].hour), &ev[i]))
			st->ok = false;
	if (at_ts_finite(j.has_submit, j.submit))
		day_of(st, at_local_day(&st->zone, j.submit))->d.submitted++;
	if (at_ts_finite(j.has_end, j.end))
	{
		DayEntry   *d = day_of(st, at_local_day(&st->zone, j.end));

		if (at_ts_needs_num(&j))
		{
			j.gpu_time_kind = num_of(st, v[6], nul[6], &j.gpu_time);
			/* duration only if gpu_time is NULL (coalesce) */
			if (j.gpu_time_kind == AT_TS_NUM_NULL)
				j.duration_kind = num_of(st, v[7], nul[7], &j.duration);
		}
		if (!at_ts_day_end(&d->d, &j))
			st->ok = false;
	}
	w = at_ts_counts_wait(&j);
	if (w < 0)
		st->ok = false;
	else if (w > 0 && !at_vmap_add(&st->waits, (uint64) (uint32) at_local_day(&st->zone, j.start), j.wait))
		at_no_memory();
	return true;
}

static void
ts_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
ts_noop(DestReceiver *self)
{
}

/* The pass's state; zone NULL: the fixed offset. */
static TsPass *
ts_new(text *zone, int32 offset)
{
	TsPass	   *st = palloc0(sizeof(TsPass));
	HASHCTL		hc;

	st->pub.receiveSlot = ts_receive;
	st->pub.rStartup = ts_startup;
	st->pub.rShutdown = ts_noop;
	st->pub.rDestroy = ts_noop;
	st->pub.mydest = DestNone;
	st->ok = true;
	st->cxt = CurrentMemoryContext;
	if (zone == NULL)
	{
		st->zone.fixed = 1;
		st->zone.offset_s = offset;
		/* real offsets are within 15 hours; a day keeps the date arithmetic in range */
		if (offset < -SECS_PER_DAY || offset > SECS_PER_DAY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("UTC offset %d s is out of range", (int) offset),
					 errhint("Pass an offset within a day, as pg_timezone_abbrevs lists them.")));
	}
	else
	{
		char	   *zname = text_to_cstring(zone);

		st->zone.lookup = at_pg_zone_lookup;
		st->zone.arg = pg_tzset(zname);
		if (st->zone.arg == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown time zone \"%s\"", zname),
					 errhint("Pass a name of pg_timezone_names, or NULL and a UTC offset.")));
	}
	hc.keysize = sizeof(int64);
	hc.entrysize = sizeof(at_ts_hour);
	hc.hcxt = CurrentMemoryContext;
	st->hours = hash_create("acmetrace summary_hours", 4096, &hc, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	hc.keysize = sizeof(int32);
	hc.entrysize = sizeof(DayEntry);
	st->days = hash_create("acmetrace summary_days", 1024, &hc, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	if (!at_vmap_init(&st->waits, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->numerics, at_cxt_mem, CurrentMemoryContext))
		at_no_memory();
	return st;
}

/* The cluster's jobs through the pass. */
static void
ts_run(TsPass *st, const char *cluster)
{
	SPIExecuteOptions opts = {0};
	int			rc;

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	opts.read_only = false;		/* a new snapshot: the rows the statement just wrote */
	opts.dest = &st->pub;
	rc = SPI_execute_extended(psprintf("SELECT j.gpu_num, j.submit_time, j.start_time, j.end_time, j.wait_s, "
									   "CASE j.final_state WHEN 'COMPLETED' THEN %d WHEN 'FAILED' THEN %d "
									   "WHEN 'CANCELLED' THEN %d ELSE %d END, j.gpu_time, j.duration "
									   "FROM acmetrace.jobs j WHERE j.cluster = %s",
									   AT_TS_COMPLETED, AT_TS_FAILED, AT_TS_CANCELLED, AT_TS_OTHER,
									   quote_literal_cstr(cluster)), &opts);
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "timeseries_scan: query failed: %s", SPI_result_code_string(rc));
	SPI_finish();
}

/* A sum of the core's as numeric: 0 with no terms (the SQL's coalesce). */
static Datum
sum_numeric(const at_roll_sum *s)
{
	char		buf[AT_ROLL_TEXT];

	if (s->n == 0)
		return NumericGetDatum(int64_to_numeric(0));
	return DirectFunctionCall3(numeric_in, CStringGetDatum(at_roll_text(buf, s->sum, s->scale)),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

#define TS_COLS 16

/* One day row: its sums and its waits (entries w[d->wfirst ..]). */
static void
put_day(ReturnSetInfo *rsinfo, const DayEntry *d, const at_vmap_entry *w)
{
	Datum		vals[TS_COLS] = {0};
	bool		nulls[TS_COLS];
	Datum	   *wv = palloc(Max(d->wn, 1) * sizeof(Datum));
	Datum	   *wc = palloc(Max(d->wn, 1) * sizeof(Datum));
	Datum		total = NumericGetDatum(int64_to_numeric(0));
	int64		waits = 0;

	memset(nulls, true, sizeof(nulls));
	for (size_t i = 0; i < d->wn; i++)
	{
		const at_vmap_entry *e = &w[d->wfirst + i];

		wv[i] = Float8GetDatum(e->value);
		wc[i] = Int64GetDatum(e->count);
		waits += e->count;
		/* sum(w::numeric * c), as the SQL */
		total = DirectFunctionCall2(numeric_add, total,
									DirectFunctionCall2(numeric_mul, DirectFunctionCall1(float8_numeric, wv[i]),
														NumericGetDatum(int64_to_numeric(e->count))));
	}
	vals[0] = CStringGetTextDatum("day");
	vals[4] = DateADTGetDatum(d->key);
	vals[5] = Int64GetDatum(d->d.submitted);
	vals[6] = Int64GetDatum(d->d.completed);
	vals[7] = Int64GetDatum(d->d.failed);
	vals[8] = Int64GetDatum(d->d.cancelled);
	vals[9] = sum_numeric(&d->d.gpu_s);
	vals[10] = sum_numeric(&d->d.failed_gpu_s);
	vals[11] = sum_numeric(&d->d.cancelled_gpu_s);
	vals[12] = Int64GetDatum(waits);
	vals[13] = total;
	vals[14] = PointerGetDatum(construct_array(wv, (int) d->wn, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[15] = PointerGetDatum(construct_array(wc, (int) d->wn, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	for (int c = 0; c < TS_COLS; c++)
		nulls[c] = !(c == 0 || c >= 4);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	pfree(wv);
	pfree(wc);
}

/* The days: each (day, wait) pair's day entered, then every day out. */
static void
put_days(ReturnSetInfo *rsinfo, TsPass *st)
{
	at_vmap_entry *w = palloc_extended(Max(st->waits.n, 1) * sizeof(at_vmap_entry), MCXT_ALLOC_HUGE);
	HASH_SEQ_STATUS seq;
	DayEntry   *d;

	at_vmap_sorted(&st->waits, w);
	for (size_t i = 0; i < st->waits.n; i++)
	{
		int32		day = (int32) (uint32) w[i].group;
		bool		found;

		d = hash_search(st->days, &day, HASH_ENTER, &found);
		if (!found)
			memset((char *) d + sizeof(int32), 0, sizeof(DayEntry) - sizeof(int32));
		if (d->wn == 0)
			d->wfirst = i;
		d->wn++;
	}
	hash_seq_init(&seq, st->days);
	while ((d = hash_seq_search(&seq)) != NULL)
		put_day(rsinfo, d, w);
}

/* The hours, then the extent. */
static void
put_hours_extent(ReturnSetInfo *rsinfo, TsPass *st)
{
	Datum		vals[TS_COLS] = {0};
	bool		nulls[TS_COLS];
	HASH_SEQ_STATUS seq;
	at_ts_hour *h;
	char		buf[AT_ROLL_TEXT];

	memset(nulls, true, sizeof(nulls));
	nulls[0] = nulls[1] = nulls[5] = nulls[6] = nulls[9] = false;
	vals[0] = CStringGetTextDatum("hour");
	hash_seq_init(&seq, st->hours);
	while ((h = hash_seq_search(&seq)) != NULL)
	{
		vals[1] = TimestampTzGetDatum(h->hour);
		vals[5] = Int64GetDatum(h->start_gpus);
		vals[6] = Int64GetDatum(h->end_gpus);
		vals[9] = DirectFunctionCall3(numeric_in, CStringGetDatum(at_ts_corr_text(buf, h->corr_us)),
									  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	}
	memset(nulls, true, sizeof(nulls));
	vals[0] = CStringGetTextDatum("extent");
	nulls[0] = false;
	nulls[1] = !st->extent.has_first;
	vals[1] = TimestampTzGetDatum(st->extent.first);
	nulls[2] = !st->extent.has_last;
	vals[2] = TimestampTzGetDatum(st->extent.last);
	nulls[3] = !st->extent.has_first_start;
	vals[3] = TimestampTzGetDatum(st->extent.first_start);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
}

Datum
acmetrace_timeseries_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsPass	   *st;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || (PG_ARGISNULL(1) && PG_ARGISNULL(2)))
		return (Datum) 0;
	st = ts_new(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2));
	ts_run(st, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (!st->ok)
		return (Datum) 0;
	put_days(rsinfo, st);
	put_hours_extent(rsinfo, st);
	return (Datum) 0;
}

#else

/* Without 128-bit integers: no rows, so the SQL does the work. */
Datum
acmetrace_timeseries_scan(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
	return (Datum) 0;
}

#endif
