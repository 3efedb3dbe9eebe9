/*
 * usage_scan.c: acmetrace_internal.usage_scan_pass(cluster, zone, offset),
 * the rows of acmetrace.summary_usage in one pass over a cluster's ended
 * jobs (src/core/usage.h), for usage_summarize
 * (src/install/analyses/usage.sql), which inserts them.  A plain SQL query
 * hands its rows to a DestReceiver, as in summary_scan.c; the groups are
 * kept in a hash table, their users and vcs numbered (at_intern), the
 * waits listed and counted once sorted.  The last row, all NULL, says
 * the pass went through; no rows at all when a value does not fit it (a
 * numeric that is not a decimal of at most 18 digits, 9 after the point):
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
#include "usage.h"

PG_FUNCTION_INFO_V1(acmetrace_usage_scan_pass);

#ifdef AT_HAVE_INT128

/* a distinct numeric, by its at_intern id */
typedef struct NumInfo
{
	int			kind;
	at_decimal	dec;
} NumInfo;

typedef struct UsagePass
{
	DestReceiver pub;
	at_zone		zone;
	HTAB	   *groups;			/* at_usage_group by key */
	at_usage_group **by_idx;	/* ... by number */
	size_t		ngroups;
	size_t		groups_cap;
	at_intern	users;
	at_intern	vcs;
	at_usage_wait *waits;		/* (group number, wait) */
	size_t		nwaits;
	size_t		waits_cap;
	at_intern	numerics;		/* distinct numerics by their bytes */
	NumInfo    *nums;
	size_t		nums_cap;
	MemoryContext cxt;			/* the pass's: the receiver runs in SPI's */
	bool		ok;
	int64		rows;
} UsagePass;

/* A text's number in t, -1 for NULL. */
static int32
text_id(at_intern *t, Datum d, bool isnull)
{
	struct varlena *s;
	int32		id;

	if (isnull)
		return -1;
	s = PG_DETOAST_DATUM_PACKED(d);
	id = at_intern_id(t, VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s));
	if (id < 0)
		at_no_memory();
	return id;
}

/* What a numeric column is: NULL, a decimal, or another numeric. */
static int
num_of(UsagePass *st, Datum d, bool isnull, at_decimal *dec)
{
	int32		id = isnull ? -1 : text_id(&st->numerics, d, false);

	if (isnull)
		return AT_TS_NUM_NULL;
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
		st->nums[id].kind = at_decimal_parse(DatumGetCString(DirectFunctionCall1(numeric_out, d)), &st->nums[id].dec)
			? AT_TS_NUM_DEC : AT_TS_NUM_OTHER;
	*dec = st->nums[id].dec;
	return st->nums[id].kind;
}

/* The group of key, numbered when new. */
static at_usage_group *
group_of(UsagePass *st, const at_usage_key *key)
{
	bool		found;
	at_usage_group *g = hash_search(st->groups, key, HASH_ENTER, &found);

	if (!found)
	{
		memset((char *) g + sizeof(at_usage_key), 0, sizeof(at_usage_group) - sizeof(at_usage_key));
		if (st->ngroups == st->groups_cap)
		{
			st->groups_cap = Max(st->groups_cap * 2, 1024);
			st->by_idx = st->by_idx ? repalloc_huge(st->by_idx, st->groups_cap * sizeof(at_usage_group *))
				: MemoryContextAllocExtended(st->cxt, st->groups_cap * sizeof(at_usage_group *), MCXT_ALLOC_HUGE);
		}
		g->idx = (int64) st->ngroups;
		st->by_idx[st->ngroups++] = g;
	}
	return g;
}

/* Columns: user_id, vc, gpu_num, state (AT_TS_*), submit, start, end, wait_s, gpu_time, duration. */
static bool
usage_receive(TupleTableSlot *slot, DestReceiver *self)
{
	UsagePass  *st = (UsagePass *) self;
	bool	   *nul;
	Datum	   *v;
	at_usage_job j = {0};
	at_usage_key key;
	at_usage_group *g;
	int			wait;

	if ((++st->rows & 0xffff) == 0)
		CHECK_FOR_INTERRUPTS();
	if (!st->ok)
		return true;
	slot_getallattrs(slot);
	v = slot->tts_values;
	nul = slot->tts_isnull;
	j.has_gpus = !nul[2];
	j.gpus = nul[2] ? 0 : DatumGetInt32(v[2]);
	j.state = DatumGetInt32(v[3]);
	j.has_submit = !nul[4];
	j.submit = nul[4] ? 0 : DatumGetTimestampTz(v[4]);
	j.has_start = !nul[5];
	j.start = nul[5] ? 0 : DatumGetTimestampTz(v[5]);
	j.end = DatumGetTimestampTz(v[6]);
	j.has_wait = !nul[7];
	j.wait = nul[7] ? 0 : DatumGetFloat8(v[7]);
	if (at_usage_needs_num(&j))
	{
		j.gpu_time_kind = num_of(st, v[8], nul[8], &j.gpu_time);
		if (j.gpu_time_kind == AT_TS_NUM_NULL)
			j.duration_kind = num_of(st, v[9], nul[9], &j.duration);
	}
	memset(&key, 0, sizeof(key));
	key.day = at_local_day(&st->zone, j.end);
	key.user = text_id(&st->users, v[0], nul[0]);
	key.vc = text_id(&st->vcs, v[1], nul[1]);
	g = group_of(st, &key);
	if (!at_usage_add(g, &j, &wait))
		st->ok = false;
	else if (wait)
	{
		if (st->nwaits == st->waits_cap)
		{
			st->waits_cap = Max(st->waits_cap * 2, 4096);
			st->waits = st->waits ? repalloc_huge(st->waits, st->waits_cap * sizeof(at_usage_wait))
				: MemoryContextAllocExtended(st->cxt, st->waits_cap * sizeof(at_usage_wait), MCXT_ALLOC_HUGE);
		}
		st->waits[st->nwaits].group = (uint64) g->idx;
		st->waits[st->nwaits++].value = j.wait;
	}
	return true;
}

static void
usage_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
usage_noop(DestReceiver *self)
{
}

/* The pass's state; zone NULL: the fixed offset. */
static UsagePass *
usage_new(text *zone, int32 offset)
{
	UsagePass  *st = palloc0(sizeof(UsagePass));
	HASHCTL		hc;

	st->pub.receiveSlot = usage_receive;
	st->pub.rStartup = usage_startup;
	st->pub.rShutdown = usage_noop;
	st->pub.rDestroy = usage_noop;
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
	hc.keysize = sizeof(at_usage_key);
	hc.entrysize = sizeof(at_usage_group);
	hc.hcxt = CurrentMemoryContext;
	st->groups = hash_create("acmetrace summary_usage", 4096, &hc, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	if (!at_intern_init(&st->users, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->vcs, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->numerics, at_cxt_mem, CurrentMemoryContext))
		at_no_memory();
	return st;
}

/* The cluster's ended jobs through the pass. */
static void
usage_run(UsagePass *st, const char *cluster)
{
	SPIExecuteOptions opts = {0};
	int			rc;

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	opts.read_only = false;		/* a new snapshot: the rows the statement just wrote */
	opts.dest = &st->pub;
	rc = SPI_execute_extended(psprintf("SELECT j.user_id, j.vc, j.gpu_num, "
									   "CASE j.final_state WHEN 'FAILED' THEN %d WHEN 'CANCELLED' THEN %d ELSE %d END, "
									   "j.submit_time, j.start_time, j.end_time, j.wait_s, j.gpu_time, j.duration "
									   "FROM acmetrace.jobs j WHERE j.cluster = %s AND j.end_time IS NOT NULL",
									   AT_TS_FAILED, AT_TS_CANCELLED, AT_TS_OTHER, quote_literal_cstr(cluster)), &opts);
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "usage_scan_pass: query failed: %s", SPI_result_code_string(rc));
	SPI_finish();
}

/* A sum of the core's as numeric, NULL with no terms. */
static Datum
sum_numeric(const at_roll_sum *s, bool *isnull)
{
	char		buf[AT_ROLL_TEXT];

	*isnull = s->n == 0;
	if (*isnull)
		return (Datum) 0;
	return DirectFunctionCall3(numeric_in, CStringGetDatum(at_roll_text(buf, s->sum, s->scale)),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* The text numbered id in t, NULL for -1. */
static Datum
text_of(const at_intern *t, int32 id, bool *isnull)
{
	size_t		len;
	const char *s;

	*isnull = id < 0;
	if (*isnull)
		return (Datum) 0;
	s = at_intern_str(t, id, &len);
	return PointerGetDatum(cstring_to_text_with_len(s, (int) len));
}

#define USAGE_COLS 14

/* One row: (end_day, user_id, vc, jobs, gpu_jobs, gpu_time, failed, cancelled, wait_n, wait_sum, vals, counts, first, last). */
static void
put_group(ReturnSetInfo *rsinfo, UsagePass *st, const at_usage_group *g, const at_vmap_entry *w, size_t n)
{
	Datum		vals[USAGE_COLS];
	bool		nulls[USAGE_COLS] = {0};
	Datum	   *wv = palloc(Max(n, 1) * sizeof(Datum));
	Datum	   *wc = palloc(Max(n, 1) * sizeof(Datum));
	Interval   *iv = palloc0(sizeof(Interval));

	for (size_t i = 0; i < n; i++)
	{
		wv[i] = Float8GetDatum(w[i].value);
		wc[i] = Int64GetDatum(w[i].count);
	}
	vals[0] = DateADTGetDatum(g->key.day);
	vals[1] = text_of(&st->users, g->key.user, &nulls[1]);
	vals[2] = text_of(&st->vcs, g->key.vc, &nulls[2]);
	vals[3] = Int64GetDatum(g->jobs);
	vals[4] = Int64GetDatum(g->gpu_jobs);
	vals[5] = sum_numeric(&g->gpu_time, &nulls[5]);
	vals[6] = sum_numeric(&g->failed, &nulls[6]);
	vals[7] = sum_numeric(&g->cancelled, &nulls[7]);
	vals[8] = Int64GetDatum(g->wait_n);
	iv->day = (int32) g->wait_days;
	iv->time = g->wait_us;
	vals[9] = IntervalPGetDatum(iv);
	nulls[9] = g->wait_n == 0;
	vals[10] = PointerGetDatum(construct_array(wv, (int) n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[11] = PointerGetDatum(construct_array(wc, (int) n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[12] = TimestampTzGetDatum(g->first_submit);
	nulls[12] = !g->has_first;
	vals[13] = TimestampTzGetDatum(g->last_end);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	pfree(wv);
	pfree(wc);
}

/* Every group with its run of the sorted value counts. */
static void
put_groups(ReturnSetInfo *rsinfo, UsagePass *st)
{
	at_vmap_entry *w = palloc_extended(Max(st->nwaits, 1) * sizeof(at_vmap_entry), MCXT_ALLOC_HUGE);
	at_usage_wait *scratch = palloc_extended(Max(st->nwaits, 1) * sizeof(at_usage_wait), MCXT_ALLOC_HUGE);
	size_t	   *start = palloc_extended((st->ngroups + 1) * sizeof(size_t), MCXT_ALLOC_HUGE);
	size_t		nw = at_usage_waits_counted(st->waits, st->nwaits, st->ngroups, scratch, start, w);
	size_t		k = 0;

	for (size_t i = 0; i < st->ngroups; i++)
	{
		size_t		first = k;

		while (k < nw && w[k].group == (uint64) i)
			k++;
		put_group(rsinfo, st, st->by_idx[i], w + first, k - first);
	}
	/* last, the pass's mark: it went through (end_day NULL) */
	{
		Datum		vals[USAGE_COLS] = {0};
		bool		nulls[USAGE_COLS];

		memset(nulls, true, sizeof(nulls));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	}
}

Datum
acmetrace_usage_scan_pass(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	UsagePass  *st;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || (PG_ARGISNULL(1) && PG_ARGISNULL(2)))
		return (Datum) 0;
	st = usage_new(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2));
	usage_run(st, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (st->ok)
		put_groups(rsinfo, st);
	return (Datum) 0;
}

#else

/* Without 128-bit integers: no rows, so the SQL does the work. */
Datum
acmetrace_usage_scan_pass(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);
	return (Datum) 0;
}

#endif
