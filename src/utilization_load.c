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
 * A series' open block (src/core/utilization.c) holds one UTC day; a sample
 * of another day writes it to acmetrace.utilization_blocks first, merged
 * with what is stored there (utilization_store.c).
 * So memory is one open block per series, whatever the file's size, and
 * there is no row per sample anywhere.  The statement is one transaction
 * step: an error anywhere loads nothing of the file.
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "unpivot.h"
#include "utilization.h"
#include "utilization_store.h"

PG_FUNCTION_INFO_V1(acmetrace_utilization_load);

typedef struct load_state
{
	MemoryContext cxt;
	char	   *metric;
	char	   *cluster;
	text	   *zone;			/* for times without an offset */
	int64		lineno;			/* lines taken, the header included */
	bool		have_header;
	at_header	h;				/* the header and the line split against it */
	at_series_set set;			/* the open blocks */
	util_store	store;			/* where they go */
} load_state;

static load_state *current = NULL;

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
	util_store_lock(metric, cluster);

	cxt = AllocSetContextCreate(CurTransactionContext, "acmetrace utilization load", ALLOCSET_DEFAULT_SIZES);
	st = MemoryContextAllocZero(cxt, sizeof(load_state));
	st->cxt = cxt;
	st->metric = MemoryContextStrdup(cxt, metric);
	st->cluster = MemoryContextStrdup(cxt, cluster);
	st->zone = (text *) MemoryContextAlloc(cxt, VARHDRSZ + strlen(zone));
	SET_VARSIZE(st->zone, VARHDRSZ + strlen(zone));
	memcpy(VARDATA(st->zone), zone, strlen(zone));
	st->store.metric = st->metric;
	st->store.cluster = st->cluster;
	st->store.cxt = AllocSetContextCreate(cxt, "acmetrace utilization flush", ALLOCSET_DEFAULT_SIZES);
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
	at_header_rules r = {MaxAllocSize / sizeof(at_field), AT_SERIES_NAME_MAX, true, NULL, true};
	at_header_status s = at_header_parse(&st->h, data, len, &r, at_cxt_mem, st->cxt);

	if (s != AT_HEADER_OK)
		unpivot_header_error(s, &st->h, data, len, NULL, true);
	if (!at_series_set_init(&st->set, &st->h, at_cxt_mem, st->cxt))
		at_no_memory();
	st->have_header = true;
}

/* ---- times ---- */

static void
pg_attribute_noreturn()
bad_time(load_state *st, const char *s)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
			 errmsg("line %lld: invalid time \"%s\"", (long long) st->lineno, s),
			 errhint("Times are text such as 2023-07-01 08:00:00+08:00 (without an offset they are read in acmetrace.time_zone) or Unix epoch seconds.")));
}

static TimestampTz
line_time(load_state *st, char *s)
{
	TimestampTz ts;
	int64		us;

	s = at_trim_blanks(s);
	if (*s == '\0')
		bad_time(st, s);
	switch (at_parse_epoch(s, &us))
	{
		case AT_EPOCH_RANGE:
			bad_time(st, s);
		case AT_EPOCH_OK:
			ts = us - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
			if (!IS_VALID_TIMESTAMP(ts))
				bad_time(st, s);
			return ts;
		case AT_EPOCH_NOT:
			break;
	}
	if (at_time_has_zone(s))
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

/* The series of value column col of the line. */
static at_series *
series_of(load_state *st, int col)
{
	int			too_long;
	at_series  *b = at_series_of(&st->set, &st->h, col, &too_long);
	const at_field *key = &st->h.fields[Max(st->h.key_col, 0)];

	if (b != NULL)
		return b;
	if (too_long)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("line %lld: series name \"%.*s/%s\" is longer than %d bytes", (long long) st->lineno,
						(int) Min(key->len, 64), key->start, st->h.names[col], AT_SERIES_NAME_MAX)));
	at_no_memory();
}

static void
take_line(load_state *st, const char *data, int len)
{
	at_header  *h = &st->h;
	at_line_status s = at_header_split_line(h, data, len);
	TimestampTz ts;
	double		v;
	int			r;
	ErrorContextCallback errcb;

	if (s == AT_LINE_NO_MEMORY)
		at_no_memory();
	if (s == AT_LINE_MALFORMED)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld: %s at byte %zu", (long long) st->lineno, at_csv_status_text(h->csv), h->err + 1)));
	if (s == AT_LINE_CELLS)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld (\"%s\") has %s%zu cells, the header has %d", (long long) st->lineno,
						cell_text(&h->fields[0]), h->err_more ? "more than " : "", h->err, h->ncols),
				 errhint("Every line needs one cell per header column; leave a cell empty for a missing value.")));
	errcb.callback = line_context;
	errcb.arg = st;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	ts = line_time(st, (char *) h->fields[0].start);
	error_context_stack = errcb.previous;

	for (int i = 0; (r = at_header_next_value(h, &i, &v)) != 0;)
	{
		if (r < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("line %lld, column %d (\"%s\"): invalid value \"%s\"", (long long) st->lineno,
							i + 1, h->names[i], cell_text(&h->fields[i])),
					 errhint("Cells are decimal numbers; empty, NA and NaN mean no measurement.")));
		util_store_add(&st->store, &st->set, series_of(st, i), ts, v);
	}
}

static void
end_load(load_state *st)
{
	for (size_t i = 0; i < st->set.nall; i++)
		util_store_block(&st->store, st->set.all[i]);
	util_store_finish(&st->store);
	util_store_report(&st->store, &st->set);
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
	else if (VARSIZE_ANY_EXHDR(line) > 0 && !at_header_same(&current->h, VARDATA_ANY(line), VARSIZE_ANY_EXHDR(line)))
		take_line(current, VARDATA_ANY(line), VARSIZE_ANY_EXHDR(line));
	if ((Pointer) line != DatumGetPointer(d))
		pfree(line);
	return PointerGetDatum(NULL);
}
