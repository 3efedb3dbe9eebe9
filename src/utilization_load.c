/*
 * utilization_load.c: the streaming loader of wide utilization files.
 *
 *   \copy acmetrace.utilization_lines FROM 'GPU_UTIL.csv'
 *
 * acmetrace_internal.utilization_load() fires three times per statement:
 *   BEFORE STATEMENT  reads acmetrace.metric, acmetrace.cluster and
 *                     acmetrace.time_zone, takes a lock per metric and
 *                     cluster (loads of one series set run one at a time),
 *                     and sets up the load's state;
 *   BEFORE ROW        takes a line (the first is the header), splits it and
 *                     appends its cells to the open block of their series,
 *                     then returns NULL: nothing is stored in utilization_lines;
 *   AFTER STATEMENT   writes the blocks still open.
 * A series' open block holds one UTC day; a sample of another day writes it
 * to acmetrace.utilization_blocks first, merged with what is stored there.
 * So memory is one open block per series, whatever the file's size, and
 * there is no row per sample anywhere.  The statement is one transaction
 * step: an error anywhere loads nothing of the file.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "samples_type.h"
#include "unpivot.h"

PG_FUNCTION_INFO_V1(acmetrace_utilization_load);

#define SERIES_NAME_MAX 255

typedef struct open_block
{
	char		name[SERIES_NAME_MAX + 1];	/* hash key (key files) */
	int32		day;			/* DateADT of the open block; n == 0: none */
	int32		n;
	int32		cap;
	bool		sorted;			/* strictly increasing times so far */
	int64	   *ts;
	double	   *v;
} open_block;

typedef struct load_state
{
	MemoryContext cxt;
	char	   *metric;
	char	   *cluster;
	text	   *zone;			/* for times without an offset */
	int64		lineno;			/* lines taken, the header included */
	bool		have_header;
	char	   *header;			/* its bytes: a repeated header is skipped */
	int			header_len;
	int			ncols;
	int			key_col;		/* Philly's machineId column, or -1 */
	char	  **names;
	at_field   *fields;			/* room for ncols + 1 */
	char	   *line;
	int			line_cap;
	open_block **col_block;		/* wide files: column -> its series */
	HTAB	   *by_name;		/* key files: "<key>/<column>" -> series */
	open_block **all;			/* every series, for the final flush */
	int			nall;
	int			capall;
	int64		samples;		/* cells with a value */
	int64		dups;			/* of them, already stored (or repeated) */
	int64		blocks;			/* blocks written */
	MemoryContext flush_cxt;
} load_state;

static load_state *current = NULL;
static SPIPlanPtr plan_insert = NULL;
static SPIPlanPtr plan_select = NULL;
static SPIPlanPtr plan_update = NULL;

static void
forget_state(void *arg)
{
	current = NULL;
}

/* ---- settings ---- */

static void
zone_context(void *arg)
{
	errcontext("reading acmetrace.time_zone, the zone of times without an offset");
}

static void
begin_load(void)
{
	char	   *metric = at_setting("acmetrace.metric");
	char	   *cluster = at_setting("acmetrace.cluster");
	char	   *zone = at_setting("acmetrace.time_zone");
	MemoryContext cxt;
	MemoryContextCallback *cb;
	load_state *st;
	int64		key;

	/* the settings' check hooks (settings.c) refused malformed names at SET */
	if (metric == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("set acmetrace.metric to the metric this file holds (got nothing)"),
				 errhint("For example SET acmetrace.metric = 'NODE_CPU_UTILIZATION'; names are letters, digits and _.")));
	if (cluster == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("set acmetrace.cluster to the cluster this file describes (got nothing)"),
				 errhint("For example SET acmetrace.cluster = 'seren'; names are lower case letters, digits and _.")));
	if (zone == NULL)
		zone = "UTC";
	/* an unknown zone is an error now, not at the first line without an offset */
	{
		ErrorContextCallback errcb;

		errcb.callback = zone_context;
		errcb.arg = NULL;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		DirectFunctionCall2(timestamp_zone, CStringGetTextDatum(zone), TimestampGetDatum(0));
		error_context_stack = errcb.previous;
	}

	/* one load per metric and cluster at a time: no deadlocks between loads */
	key = (int64) ((uint64) DatumGetUInt32(hash_any((const unsigned char *) metric, strlen(metric))) << 32 |
				   DatumGetUInt32(hash_any((const unsigned char *) cluster, strlen(cluster))));
	DirectFunctionCall1(pg_advisory_xact_lock_int8, Int64GetDatum(key));

	cxt = AllocSetContextCreate(CurTransactionContext, "acmetrace utilization load", ALLOCSET_DEFAULT_SIZES);
	st = MemoryContextAllocZero(cxt, sizeof(load_state));
	st->cxt = cxt;
	st->metric = MemoryContextStrdup(cxt, metric);
	st->cluster = MemoryContextStrdup(cxt, cluster);
	st->zone = (text *) MemoryContextAlloc(cxt, VARHDRSZ + strlen(zone));
	SET_VARSIZE(st->zone, VARHDRSZ + strlen(zone));
	memcpy(VARDATA(st->zone), zone, strlen(zone));
	st->key_col = -1;
	st->flush_cxt = AllocSetContextCreate(cxt, "acmetrace utilization flush", ALLOCSET_DEFAULT_SIZES);
	cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	cb->func = forget_state;
	cb->arg = NULL;
	MemoryContextRegisterResetCallback(cxt, cb);
	if (current != NULL)
		MemoryContextDelete(current->cxt);
	current = st;
}

/* ---- the header ---- */

static void
take_header(load_state *st, const char *data, int len)
{
	MemoryContext old = MemoryContextSwitchTo(st->cxt);
	char	   *copy = pnstrdup(data, len);
	size_t		max = 2,
				nf,
				pos;
	at_csv_status s;

	for (int i = 0; i < len; i++)
		max += copy[i] == ',';
	if (max > MaxAllocSize / sizeof(at_field))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("header has %zu columns, more than the loader can split", max - 1)));
	st->fields = palloc(sizeof(at_field) * max);
	s = at_csv_split(copy, len, st->fields, max, &nf, &pos);
	if (s != AT_CSV_OK)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("malformed header: %s at byte %zu", at_csv_status_text(s), pos + 1)));
	if (pg_strncasecmp(st->fields[0].start, "time", 4) != 0 || st->fields[0].len != 4)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("the first line must be the header (Time,...), got \"%s\"",
						pnstrdup(data, pg_mbcliplen(data, len, 60))),
				 errhint("Copy the whole file, header included, in one \\copy.")));
	if (nf < 2)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("header has 1 column, need a time column and at least one value column"),
				 errhint("The header is the file's first line, e.g. Time,10.140.1.10,10.140.1.54")));
	st->ncols = (int) nf;
	st->names = palloc(sizeof(char *) * nf);
	for (int i = 0; i < (int) nf; i++)
	{
		st->names[i] = pnstrdup(st->fields[i].start, st->fields[i].len);
		if (i > 0 && st->fields[i].len == 0)
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("header column %d has no name", i + 1)));
		if (i > 0 && st->fields[i].len > SERIES_NAME_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_NAME_TOO_LONG),
					 errmsg("header column %d is %zu bytes long, the limit is %d", i + 1, st->fields[i].len,
							SERIES_NAME_MAX)));
	}
	/* Philly's cluster_gpu_util: a row per machine, series "<machineId>/<column>" */
	if (nf > 2 && strcmp(st->names[1], "machineId") == 0)
		st->key_col = 1;
	st->fields = repalloc(st->fields, sizeof(at_field) * (nf + 1));
	if (st->key_col < 0)
	{
		st->col_block = palloc0(sizeof(open_block *) * nf);
		for (int i = 1; i < (int) nf; i++)
		{
			open_block *b = palloc0(sizeof(open_block));

			strlcpy(b->name, st->names[i], sizeof b->name);
			b->sorted = true;
			st->col_block[i] = b;
		}
		st->all = palloc(sizeof(open_block *) * nf);
		for (int i = 1; i < (int) nf; i++)
			st->all[st->nall++] = st->col_block[i];
		st->capall = (int) nf;
	}
	else
	{
		HASHCTL		ctl;

		ctl.keysize = SERIES_NAME_MAX + 1;
		ctl.entrysize = sizeof(open_block);
		ctl.hcxt = st->cxt;
		st->by_name = hash_create("acmetrace utilization series", 256, &ctl,
								  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
		st->capall = 64;
		st->all = palloc(sizeof(open_block *) * st->capall);
	}
	st->header = pnstrdup(data, len);
	st->header_len = len;
	st->have_header = true;
	MemoryContextSwitchTo(old);
}

/* ---- times ---- */

/* A time with its own offset or zone: anything past the date that is not the time. */
static bool
has_zone(const char *s)
{
	size_t		n = strlen(s);

	for (size_t i = 10; i < n; i++)
	{
		char		c = s[i];

		if (c == '+' || c == '-' || c == 'Z' || c == 'z')
			return true;
		if (isalpha((unsigned char) c) && !(i == 10 && (c == 'T' || c == 't')))
			return true;
	}
	return false;
}

static void
bad_time(load_state *st, const char *s)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
			 errmsg("line %lld: invalid time \"%s\"", (long long) st->lineno, s),
			 errhint("Times are text such as 2023-07-01 08:00:00+08:00 (without an offset they are read in acmetrace.time_zone) or Unix epoch seconds.")));
}

/* Epoch seconds, [-]digits[.digits], to the microsecond (rounded half up). */
static bool
epoch_time(load_state *st, const char *s, TimestampTz *out)
{
	const char *p = s;
	bool		neg = false;
	int64		sec = 0,
				us = 0;
	int			fd = 0;

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (*p < '0' || *p > '9')
		return false;
	/* past 2^40 s (34,000 years) is out of PostgreSQL's range anyway */
	for (; *p >= '0' && *p <= '9'; p++)
	{
		sec = sec * 10 + (*p - '0');
		if (sec > (INT64CONST(1) << 40))
			bad_time(st, s);
	}
	if (*p == '.')
	{
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++, fd++)
			if (fd < 7)
				us = us * 10 + (*p - '0');
		for (int i = fd; i < 7; i++)
			us *= 10;
		us = (us + 5) / 10;
	}
	if (*p != '\0')
		return false;
	{
		int64		t = sec * USECS_PER_SEC + us;
		TimestampTz ts;

		if (neg)
			t = -t;
		ts = t - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
		if (!IS_VALID_TIMESTAMP(ts))
			bad_time(st, s);
		*out = ts;
	}
	return true;
}

static TimestampTz
line_time(load_state *st, char *s)
{
	TimestampTz ts;

	while (*s == ' ' || *s == '\t')
		s++;
	for (size_t n = strlen(s); n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'); n--)
		s[n - 1] = '\0';
	if (*s == '\0')
		bad_time(st, s);
	if (epoch_time(st, s, &ts))
		return ts;
	if (has_zone(s))
		ts = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in, CStringGetDatum(s),
													 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	else
	{
		Datum		local = DirectFunctionCall3(timestamp_in, CStringGetDatum(s),
												ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));

		ts = DatumGetTimestampTz(DirectFunctionCall2(timestamp_zone, PointerGetDatum(st->zone), local));
	}
	if (TIMESTAMP_NOT_FINITE(ts))
		bad_time(st, s);
	return ts;
}

/* ---- writing blocks ---- */

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
fill_args(Datum *args, load_state *st, open_block *b, Datum samples)
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

/* Writes b's open block (merged with the stored one) and empties it. */
static void
flush_block(load_state *st, open_block *b)
{
	MemoryContext old;
	at_samples_conflict c;
	Datum		args[11];
	int			rc;

	if (b->n == 0)
		return;
	old = MemoryContextSwitchTo(st->flush_cxt);
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
	{
		/* a block is there: merge */
		bool		isnull;
		Datum		stored;
		size_t		len;
		const unsigned char *bytes;
		at_samples_info info;
		int64	   *ts,
				   *mts;
		double	   *v,
				   *mv;
		int64		dups = 0;
		int32		n;

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
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("series \"%s\" has more than %d samples in one day", b->name, AT_SAMPLES_MAX)));
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
	else
		st->blocks++;
	SPI_finish();
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->flush_cxt);
	b->n = 0;
	b->sorted = true;
}

static void
append(load_state *st, open_block *b, int32 day, TimestampTz ts, double v)
{
	if (b->n > 0 && b->day != day)
		flush_block(st, b);
	if (b->n == 0)
		b->day = day;
	else if (ts <= b->ts[b->n - 1])
		b->sorted = false;
	if (b->n == b->cap)
	{
		int32		cap = b->cap == 0 ? 64 : b->cap * 2;

		if (b->cap >= AT_SAMPLES_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("series \"%s\" has more than %d samples in one day", b->name, AT_SAMPLES_MAX)));
		if (b->ts == NULL)
		{
			b->ts = MemoryContextAllocHuge(st->cxt, sizeof(int64) * cap);
			b->v = MemoryContextAllocHuge(st->cxt, sizeof(double) * cap);
		}
		else
		{
			b->ts = repalloc_huge(b->ts, sizeof(int64) * cap);
			b->v = repalloc_huge(b->v, sizeof(double) * cap);
		}
		b->cap = cap;
	}
	b->ts[b->n] = ts;
	b->v[b->n] = v;
	b->n++;
	st->samples++;
}

static open_block *
key_block(load_state *st, const at_field *key, int col)
{
	char		name[SERIES_NAME_MAX + 1];
	int			len = snprintf(name, sizeof name, "%.*s/%s", (int) key->len, key->start, st->names[col]);
	open_block *b;
	bool		found;

	if (len > SERIES_NAME_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("line %lld: series name \"%.*s/%s\" is longer than %d bytes", (long long) st->lineno,
						(int) Min(key->len, 64), key->start, st->names[col], SERIES_NAME_MAX)));
	b = hash_search(st->by_name, name, HASH_ENTER, &found);
	if (!found)
	{
		b->n = b->cap = 0;
		b->ts = NULL;
		b->v = NULL;
		b->sorted = true;
		if (st->nall == st->capall)
		{
			st->capall *= 2;
			st->all = repalloc(st->all, sizeof(open_block *) * st->capall);
		}
		st->all[st->nall++] = b;
	}
	return b;
}

/* ---- a line ---- */

static void
line_context(void *arg)
{
	errcontext("acmetrace utilization load, line %lld", (long long) ((load_state *) arg)->lineno);
}

static char *
cell_text(const at_field *f)
{
	return pnstrdup(f->start, pg_mbcliplen(f->start, (int) f->len, 64));
}

static void
take_line(load_state *st, const char *data, int len)
{
	size_t		nf,
				pos;
	at_csv_status s;
	TimestampTz ts;
	int32		day;
	ErrorContextCallback errcb;

	if (len + 1 > st->line_cap)
	{
		st->line_cap = Max(len + 1, st->line_cap * 2);
		st->line = st->line ? repalloc(st->line, st->line_cap) : MemoryContextAlloc(st->cxt, st->line_cap);
	}
	memcpy(st->line, data, len);
	s = at_csv_split(st->line, len, st->fields, st->ncols + 1, &nf, &pos);
	if (s == AT_CSV_TOO_MANY_FIELDS)
		nf = st->ncols + 2;
	else if (s != AT_CSV_OK)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld: %s at byte %zu", (long long) st->lineno, at_csv_status_text(s), pos + 1)));
	/* one trailing comma (Philly) is an empty extra cell, not data */
	if (nf == (size_t) st->ncols + 1 && s == AT_CSV_OK && st->fields[nf - 1].len == 0 && !st->fields[nf - 1].quoted)
		nf--;
	if (nf != (size_t) st->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld (\"%s\") has %s%zu cells, the header has %d", (long long) st->lineno,
						cell_text(&st->fields[0]),
						nf > (size_t) st->ncols + 1 ? "more than " : "",
						nf > (size_t) st->ncols + 1 ? (size_t) st->ncols + 1 : nf, st->ncols),
				 errhint("Every line needs one cell per header column; leave a cell empty for a missing value.")));
	st->line[(st->fields[0].start - st->line) + st->fields[0].len] = '\0';
	errcb.callback = line_context;
	errcb.arg = st;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ts = line_time(st, (char *) st->fields[0].start);
	error_context_stack = errcb.previous;
	day = (int32) (ts >= 0 ? ts / USECS_PER_DAY : -((-ts + USECS_PER_DAY - 1) / USECS_PER_DAY));

	for (int i = 1; i < st->ncols; i++)
	{
		double		v;
		open_block *b;

		if (i == st->key_col)
			continue;
		switch (at_parse_value(st->fields[i].start, st->fields[i].len, &v))
		{
			case AT_VALUE_MISSING:
				continue;		/* blank, NA, NaN: no sample */
			case AT_VALUE_INVALID:
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("line %lld, column %d (\"%s\"): invalid value \"%s\"", (long long) st->lineno,
								i + 1, st->names[i], cell_text(&st->fields[i])),
						 errhint("Cells are decimal numbers; empty, NA and NaN mean no measurement.")));
				break;
			case AT_VALUE_OK:
				break;
		}
		b = st->key_col < 0 ? st->col_block[i] : key_block(st, &st->fields[st->key_col], i);
		append(st, b, day, ts, v);
	}
}

static void
end_load(load_state *st)
{
	for (int i = 0; i < st->nall; i++)
		flush_block(st, st->all[i]);
	if (st->dups > 0)
		ereport(NOTICE,
				(errmsg("%lld of %lld %s samples of cluster %s were already stored with the same value and were skipped",
						(long long) st->dups, (long long) st->samples, st->metric, st->cluster)));
	MemoryContextDelete(st->cxt);	/* clears current */
}

/*
 * The trigger function of acmetrace.utilization_lines: BEFORE and AFTER
 * INSERT FOR EACH STATEMENT, BEFORE INSERT FOR EACH ROW (returns NULL).
 */
Datum
acmetrace_utilization_load(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	HeapTuple	row;
	bool		isnull;
	Datum		d;
	text	   *line;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_INSERT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("acmetrace_internal.utilization_load must be an INSERT trigger")));
	if (TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
	{
		if (TRIGGER_FIRED_BEFORE(td->tg_event))
			begin_load();
		else if (current != NULL)
		{
			if (current->have_header)
				end_load(current);
			else
				MemoryContextDelete(current->cxt);
		}
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_BEFORE(td->tg_event) || current == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("acmetrace_internal.utilization_load: a line arrived outside a load"),
				 errhint("The extension's triggers on acmetrace.utilization_lines are missing or disabled.")));
	row = td->tg_trigtuple;
	d = heap_getattr(row, 1, td->tg_relation->rd_att, &isnull);
	current->lineno++;
	if (isnull)
		return PointerGetDatum(NULL);
	line = DatumGetTextPP(d);
	if (!current->have_header)
		take_header(current, VARDATA_ANY(line), VARSIZE_ANY_EXHDR(line));
	else if (VARSIZE_ANY_EXHDR(line) > 0 &&
			 !(VARSIZE_ANY_EXHDR(line) == current->header_len &&
			   memcmp(VARDATA_ANY(line), current->header, current->header_len) == 0))
		take_line(current, VARDATA_ANY(line), VARSIZE_ANY_EXHDR(line));
	if ((Pointer) line != DatumGetPointer(d))
		pfree(line);
	return PointerGetDatum(NULL);
}
