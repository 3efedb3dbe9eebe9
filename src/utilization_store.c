/*
 * utilization_store.c: the loaders' writes (utilization_load.c for wide
 * files, prometheus_load.c for Prometheus's samples).
 *
 * A series' open block waits as one acmetrace.samples value of its day
 * (merged with one of the same series and day waiting already: the same
 * series twice in a file); a flush writes the waiting blocks with their
 * summary columns in one INSERT of arrays, then merges those whose day is
 * stored already (an earlier file) with it in one SELECT and one UPDATE
 * (src/core/samples.c): a sample stored with the same value is counted as
 * a duplicate, with another value it is an error.  Few statements, so the
 * table's statement triggers (the hour rollup, acmetrace.utilization_hours)
 * run once per flush, not once per block.  The row trigger adds each
 * block's hour summaries (hour_* columns) on every insert and update.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "samples_type.h"
#include "utilization_store.h"

static SPIPlanPtr plan_insert = NULL;
static SPIPlanPtr plan_select = NULL;
static SPIPlanPtr plan_update = NULL;
/* the distributed warehouse's (Citus): no RETURNING, no FOR UPDATE */
static SPIPlanPtr plan_insert_d = NULL;
static SPIPlanPtr plan_select_d = NULL;
static Oid	samples_oid = InvalidOid;

/* The columns of a block after its key, as unnest() hands them */
#define BLOCK_COLS "$3::text[], $4::date[], $5::int4[], $6::float8[], $7::float8[], $8::numeric[], " \
	"$9::timestamptz[], $10::timestamptz[], $11::acmetrace.samples[]) " \
	"AS u(series, day, n, min, max, sum, first_ts, last_ts, samples)"

static void finish_flush(util_store *st);

static SPIPlanPtr
prepare_one(const char *sql, int nargs)
{
	Oid			types[11] = {TEXTOID, TEXTOID, TEXTARRAYOID, DATEARRAYOID, INT4ARRAYOID, FLOAT8ARRAYOID,
	FLOAT8ARRAYOID, NUMERICARRAYOID, TIMESTAMPTZARRAYOID, TIMESTAMPTZARRAYOID, InvalidOid};
	SPIPlanPtr	plan;

	types[10] = get_array_type(samples_oid);
	plan = SPI_prepare(sql, nargs, types);
	if (plan == NULL)
		elog(ERROR, "acmetrace: preparing a block statement failed: %s", SPI_result_code_string(SPI_result));
	SPI_keepplan(plan);
	return plan;
}

/*
 * One statement per flush for each of insert, select and update, so the
 * statement triggers of the blocks (the hour rollup) run once per flush.
 */
static void
prepare_plans(void)
{
	if (plan_update != NULL)
		return;
	samples_oid = DatumGetObjectId(DirectFunctionCall1(regtypein, CStringGetDatum("acmetrace.samples")));
	plan_insert = prepare_one("INSERT INTO acmetrace.utilization_blocks "
							  "(metric, cluster, series, day, n, min, max, sum, first_ts, last_ts, samples) "
							  "SELECT $1, $2, u.* FROM unnest(" BLOCK_COLS " "
							  "ON CONFLICT (metric, cluster, day, series) DO NOTHING RETURNING series, day", 11);
	plan_select = prepare_one("SELECT b.series, b.day, b.samples FROM acmetrace.utilization_blocks b, "
							  "unnest($3::text[], $4::date[]) AS u(series, day) "
							  "WHERE b.metric = $1 AND b.cluster = $2 AND b.series = u.series AND b.day = u.day "
							  "FOR UPDATE OF b", 4);
	plan_update = prepare_one("UPDATE acmetrace.utilization_blocks b SET n = u.n, min = u.min, max = u.max, "
							  "sum = u.sum, first_ts = u.first_ts, last_ts = u.last_ts, samples = u.samples "
							  "FROM unnest(" BLOCK_COLS " WHERE b.metric = $1 AND b.cluster = $2 "
							  "AND b.series = u.series AND b.day = u.day", 11);
	/*
	 * Citus miscounts an INSERT ... ON CONFLICT DO NOTHING RETURNING that
	 * skips rows and refuses FOR UPDATE over many shards: there the stored
	 * blocks are read first and only the others inserted (the loaders'
	 * advisory lock, util_store_lock, keeps other writers out meanwhile).
	 */
	plan_insert_d = prepare_one("INSERT INTO acmetrace.utilization_blocks "
								"(metric, cluster, series, day, n, min, max, sum, first_ts, last_ts, samples) "
								"SELECT $1, $2, u.* FROM unnest(" BLOCK_COLS, 11);
	plan_select_d = prepare_one("SELECT b.series, b.day, b.samples FROM acmetrace.utilization_blocks b, "
								"unnest($3::text[], $4::date[]) AS u(series, day) "
								"WHERE b.metric = $1 AND b.cluster = $2 AND b.series = u.series AND b.day = u.day", 4);
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

/* What a flush does with a pending block */
typedef enum
{
	PB_NEW,						/* not written yet */
	PB_INSERTED,				/* its day was not stored: inserted */
	PB_UPDATE,					/* merged with the stored block, which it grows */
	PB_SAME						/* all its samples were stored already */
} pb_state;

typedef struct pb_key
{
	char		name[AT_SERIES_NAME_MAX + 1];
	int32		day;
} pb_key;

/* A block waiting for the flush, one per series and day */
typedef struct pending_block
{
	pb_key		key;
	Datum		samples;
	pb_state	state;
} pending_block;

static void
key_of(pb_key *k, const char *name, size_t len, int32 day)
{
	memset(k, 0, sizeof(pb_key));
	memcpy(k->name, name, Min(len, AT_SERIES_NAME_MAX));
	k->day = day;
}

/*
 * The samples of old and new merged (a sample of new at a time of old
 * with the same value counted as a duplicate, another value an error),
 * NULL when new adds none.
 */
static Datum
merge_samples(util_store *st, const char *name, Datum old, Datum new)
{
	size_t		len[2];
	const unsigned char *bytes[2] = {samples_bytes(old, &len[0]), samples_bytes(new, &len[1])};
	at_samples_info info[2];
	int64	   *ts[3];
	double	   *v[3];
	int64		dups = 0;
	int32		n;
	at_samples_conflict c;

	for (int i = 0; i < 2; i++)
	{
		at_samples_info_read(bytes[i], &info[i]);
		ts[i] = palloc(sizeof(int64) * info[i].n);
		v[i] = palloc(sizeof(double) * info[i].n);
		at_samples_decode(bytes[i], len[i], ts[i], v[i]);
	}
	ts[2] = palloc(sizeof(int64) * ((int64) info[0].n + info[1].n));
	v[2] = palloc(sizeof(double) * ((int64) info[0].n + info[1].n));
	n = at_samples_merge(ts[0], v[0], info[0].n, ts[1], v[1], info[1].n, ts[2], v[2], &dups, &c);
	if (n < 0)
		samples_conflict_error(name, &c);
	if ((int64) n > AT_SAMPLES_MAX)
		util_day_full(name);
	st->dups += dups;
	return n > info[0].n ? samples_make(ts[2], v[2], n) : (Datum) 0;
}

/* The statements' arguments: the key, and the blocks of state s as columns. */
static int
block_args(util_store *st, pb_state s, Datum *args)
{
	Datum	   *col[9];
	int			n = 0;
	HASH_SEQ_STATUS seq;
	pending_block *p;
	int16		len;
	bool		byval;
	char		align;

	for (int i = 0; i < 9; i++)
		col[i] = palloc(sizeof(Datum) * st->npending);
	hash_seq_init(&seq, st->pending);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		size_t		blen;
		const unsigned char *bytes;
		at_samples_info info;

		if (p->state != s)
			continue;
		bytes = samples_bytes(p->samples, &blen);
		at_samples_info_read(bytes, &info);
		col[0][n] = CStringGetTextDatum(p->key.name);
		col[1][n] = DateADTGetDatum(p->key.day);
		if (!st->any_day || p->key.day < st->day_lo)
			st->day_lo = p->key.day;
		if (!st->any_day || p->key.day > st->day_hi)
			st->day_hi = p->key.day;
		st->any_day = true;
		col[2][n] = Int32GetDatum(info.n);
		col[3][n] = Float8GetDatum(info.min);
		col[4][n] = Float8GetDatum(info.max);
		col[5][n] = samples_sum(bytes, blen, &info);
		col[6][n] = TimestampTzGetDatum(info.first_ts);
		col[7][n] = TimestampTzGetDatum(info.last_ts);
		col[8][n] = p->samples;
		n++;
	}
	args[0] = CStringGetTextDatum(st->metric);
	args[1] = CStringGetTextDatum(st->cluster);
	args[2] = PointerGetDatum(construct_array(col[0], n, TEXTOID, -1, false, TYPALIGN_INT));
	args[3] = PointerGetDatum(construct_array(col[1], n, DATEOID, 4, true, TYPALIGN_INT));
	args[4] = PointerGetDatum(construct_array(col[2], n, INT4OID, 4, true, TYPALIGN_INT));
	args[5] = PointerGetDatum(construct_array(col[3], n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[6] = PointerGetDatum(construct_array(col[4], n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[7] = PointerGetDatum(construct_array(col[5], n, NUMERICOID, -1, false, TYPALIGN_INT));
	args[8] = PointerGetDatum(construct_array(col[6], n, TIMESTAMPTZOID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[9] = PointerGetDatum(construct_array(col[7], n, TIMESTAMPTZOID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	get_typlenbyvalalign(samples_oid, &len, &byval, &align);
	args[10] = PointerGetDatum(construct_array(col[8], n, samples_oid, len, byval, align));
	return n;
}

/* The pending block a row of the statement names (series, day, ...). */
static pending_block *
pending_of(util_store *st, HeapTuple row, TupleDesc desc)
{
	bool		isnull;
	text	   *name = DatumGetTextPP(SPI_getbinval(row, desc, 1, &isnull));
	pb_key		k;
	pending_block *p;

	key_of(&k, VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
		   DatumGetDateADT(SPI_getbinval(row, desc, 2, &isnull)));
	p = hash_search(st->pending, &k, HASH_FIND, NULL);
	if (p == NULL)
		elog(ERROR, "acmetrace: the block of series \"%s\" is not among the flushed", k.name);
	return p;
}

/* Merges the pending blocks whose days are stored with them, in one update. */
static void
merge_stored(util_store *st, Datum *args)
{
	int			rc;
	int64		updates = 0;

	rc = SPI_execute_plan(st->distributed == 2 ? plan_select_d : plan_select, args, NULL, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "acmetrace: block select failed: %s", SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		pending_block *p = pending_of(st, row, SPI_tuptable->tupdesc);
		bool		isnull;
		Datum		merged = merge_samples(st, p->key.name,
										   SPI_getbinval(row, SPI_tuptable->tupdesc, 3, &isnull), p->samples);

		p->state = merged ? PB_UPDATE : PB_SAME;
		if (merged)
		{
			p->samples = merged;
			updates++;
		}
	}
	if (updates == 0)
		return;
	block_args(st, PB_UPDATE, args);
	rc = SPI_execute_plan(plan_update, args, NULL, false, 0);
	if (rc != SPI_OK_UPDATE || SPI_processed != (uint64) updates)
		elog(ERROR, "acmetrace: block update failed: %s", SPI_result_code_string(rc));
	st->blocks += updates;
}

void
util_store_flush(util_store *st)
{
	Datum		args[11];
	int			n;
	int			rc;

	if (st->npending == 0)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "acmetrace: SPI_connect failed");
	MemoryContextSwitchTo(st->cxt);
	prepare_plans();
	if (util_blocks_distributed(st))
	{
		/* the stored first (merged, updated), then the new inserted */
		block_args(st, PB_NEW, args);
		merge_stored(st, args);
		n = block_args(st, PB_NEW, args);
		if (n > 0)
		{
			rc = SPI_execute_plan(plan_insert_d, args, NULL, false, 0);
			if (rc != SPI_OK_INSERT)
				elog(ERROR, "acmetrace: block insert failed: %s", SPI_result_code_string(rc));
			st->blocks += n;
		}
		finish_flush(st);
		return;
	}
	n = block_args(st, PB_NEW, args);
	rc = SPI_execute_plan(plan_insert, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "acmetrace: block insert failed: %s", SPI_result_code_string(rc));
	for (uint64 i = 0; i < SPI_processed; i++)
		pending_of(st, SPI_tuptable->vals[i], SPI_tuptable->tupdesc)->state = PB_INSERTED;
	st->blocks += SPI_processed;
	if (SPI_processed < (uint64) n)
	{
		block_args(st, PB_NEW, args);
		merge_stored(st, args);
	}
	finish_flush(st);
}

/* The end of a flush: SPI closed, the pending blocks forgotten. */
static void
finish_flush(util_store *st)
{
	SPI_finish();
	hash_destroy(st->pending);
	st->pending = NULL;
	st->npending = 0;
	st->pending_bytes = 0;
	MemoryContextReset(st->pending_cxt);
	MemoryContextReset(st->cxt);
}

/* Flush when this many blocks, or bytes of samples, wait */
#define FLUSH_BLOCKS 4096
#define FLUSH_BYTES (64 * 1024 * 1024)

void
util_store_block(util_store *st, at_series *b)
{
	MemoryContext old;
	at_samples_conflict c;
	pb_key		k;
	pending_block *p;
	bool		found;
	Datum		samples;

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
	if (st->pending == NULL)
	{
		HASHCTL		ctl = {.keysize = sizeof(pb_key),.entrysize = sizeof(pending_block)};

		if (st->pending_cxt == NULL)
			st->pending_cxt = AllocSetContextCreate(MemoryContextGetParent(st->cxt), "acmetrace pending blocks",
													ALLOCSET_DEFAULT_SIZES);
		ctl.hcxt = st->pending_cxt;
		st->pending = hash_create("acmetrace pending blocks", 256, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	key_of(&k, b->name, strlen(b->name), b->day);
	p = hash_search(st->pending, &k, HASH_ENTER, &found);
	samples = samples_make(b->ts, b->v, b->n);
	if (found)					/* the same series and day again in this flush */
	{
		Datum		merged = merge_samples(st, b->name, p->samples, samples);

		samples = merged ? merged : (Datum) 0;
	}
	else
	{
		p->state = PB_NEW;
		p->samples = (Datum) 0;
		st->npending++;
	}
	if (samples != (Datum) 0)
	{
		p->samples = PointerGetDatum(MemoryContextAlloc(st->pending_cxt, VARSIZE_ANY(samples)));
		memcpy(DatumGetPointer(p->samples), DatumGetPointer(samples), VARSIZE_ANY(samples));
		st->pending_bytes += VARSIZE_ANY(samples);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->cxt);
	at_series_empty(b);
	if (st->npending >= FLUSH_BLOCKS || st->pending_bytes >= FLUSH_BYTES)
		util_store_flush(st);
}


void
util_store_finish(util_store *st)
{
	util_store_flush(st);
	util_store_hours(st);
}

void
util_store_report(const util_store *st, const at_series_set *set)
{
	ereport(NOTICE,
			(errmsg("%s of cluster %s: %lld samples stored, %lld duplicates skipped, %zu series",
					st->metric, st->cluster, (long long) (set->samples - st->dups),
					(long long) st->dups, set->nall)));
}
