/*
 * unpivot_fns.c: acmetrace.unpivot(header text, line text, key_column text)
 *              -> SETOF (ts timestamptz, series text, value float8)
 *
 * Turns one line of a wide utilization CSV (a time column, then one column
 * per server or GPU) into long rows.  A key column (Philly's machineId)
 * names the machine a line describes: its cells are not values, and each
 * series is "<key cell>/<column>".  The parsed header is cached in
 * fn_extra, so a query over a million lines splits a 2,600-column header
 * once.  The header, splitting and number parsing are in src/core/unpivot.c;
 * the header errors here are the wide-file loader's too.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "glue.h"
#include "unpivot.h"
#include "utilization.h"

PG_FUNCTION_INFO_V1(acmetrace_unpivot);

typedef struct unpivot_cache
{
	MemoryContext header_cxt;	/* everything parsed from the header (first: at_fn_cache_renew) */
	at_header	h;				/* the header (h.text NULL: none) and the line's scratch */
	char	   *key;			/* the key column's name, or NULL */
	Datum	   *series;			/* text Datums of h.names (value columns only) */
} unpivot_cache;

static bool
same_key(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* A header's bytes, for messages: at most 60 bytes and never half a character. */
static char *
header_start(const char *text, int len)
{
	return pnstrdup(text, pg_mbcliplen(text, len, 60));
}

void
unpivot_header_error(int status, const at_header *h, const char *text, int len, const char *key, bool loader)
{
	switch ((at_header_status) status)
	{
		case AT_HEADER_OK:
		case AT_HEADER_NO_MEMORY:
			break;
		case AT_HEADER_TOO_WIDE:
			if (loader)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("header has %zu columns, more than the loader can split", h->err)));
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("header has %zu columns, more than the %zu unpivot can split",
							h->err, (size_t) (MaxAllocSize / sizeof(at_field) - 1))));
			break;
		case AT_HEADER_MALFORMED:
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("malformed header: %s at byte %zu", at_csv_status_text(h->csv), h->err + 1)));
			break;
		case AT_HEADER_NO_TIME:
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("the first line must be the header (Time,...), got \"%s\"", header_start(text, len)),
					 errhint("Copy the whole file, header included, in one \\copy.")));
			break;
		case AT_HEADER_ONE_COLUMN:
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("header has %zu column, need a time column and at least one value column", h->err),
					 errhint("The header is the file's first line, e.g. Time,10.140.1.10,10.140.1.54")));
			break;
		case AT_HEADER_NO_NAME:
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("header column %d has no name", (int) h->err + 1)));
			break;
		case AT_HEADER_NAME_TOO_LONG:
			ereport(ERROR,
					(errcode(ERRCODE_NAME_TOO_LONG),
					 errmsg("header column %d is %zu bytes long, the limit is %d", (int) h->err + 1, h->err_len,
							AT_SERIES_NAME_MAX)));
			break;
		case AT_HEADER_NO_KEY:
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key_column \"%s\" is not a value column of the header", key),
					 errhint("Name a header column after the first (time) one, e.g. machineId; the header starts \"%s\".",
							 header_start(text, len))));
			break;
		case AT_HEADER_KEY_ONLY:
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("header has no value column besides key_column \"%s\"", key)));
			break;
	}
	at_no_memory();
}

static unpivot_cache *
get_cache(FunctionCallInfo fcinfo, text *header, const char *key)
{
	unpivot_cache *c = (unpivot_cache *) fcinfo->flinfo->fn_extra;
	const char *s = VARDATA_ANY(header);
	int			len = VARSIZE_ANY_EXHDR(header);
	at_header_rules rules = {MaxAllocSize / sizeof(at_field), 0, false, key, false};
	at_header_status st;
	MemoryContext old;

	if (c != NULL && at_header_same(&c->h, s, len) && same_key(c->key, key))
		return c;

	/* a new header: parsed into the cache's context, reset whenever it changes */
	c = at_fn_cache_renew(fcinfo, sizeof(unpivot_cache), "acmetrace unpivot header", ALLOCSET_SMALL_SIZES);
	c->h.text = NULL;			/* invalid until the parse below succeeds */
	st = at_header_parse(&c->h, s, len, &rules, at_cxt_mem, c->header_cxt);
	if (st != AT_HEADER_OK)
		unpivot_header_error(st, &c->h, s, len, key, false);
	old = MemoryContextSwitchTo(c->header_cxt);
	c->series = palloc0(sizeof(Datum) * c->h.ncols);
	for (int i = 1; i < c->h.ncols; i++)
		c->series[i] = CStringGetTextDatum(c->h.names[i]);
	c->key = key ? pstrdup(key) : NULL;
	MemoryContextSwitchTo(old);
	return c;
}

/*
 * A line's first cell, for messages only, so made on the error path: at
 * most 64 bytes and never half a character, which a client encoding could
 * not convert.
 */
static char *
line_label(const text *line)
{
	const char *s = VARDATA_ANY(line);
	char	   *label = pnstrdup(s, pg_mbcliplen(s, VARSIZE_ANY_EXHDR(line), 64));

	label[strcspn(label, ",\r\n")] = '\0';
	return label;
}

/* Error context: name the line being unpivoted by its first cell. */
static void
unpivot_context(void *arg)
{
	errcontext("acmetrace.unpivot, line at \"%s\"", line_label((const text *) arg));
}

/* The error of a line at_header_split_line refused with status. */
static void
pg_attribute_noreturn()
line_error(at_line_status status, const at_header *h, const text *line)
{
	if (status == AT_LINE_MALFORMED)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("malformed line at \"%s\": %s at byte %zu", line_label(line), at_csv_status_text(h->csv),
						h->err + 1)));
	if (status == AT_LINE_CELLS)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line at \"%s\" has %s%zu cells, the header has %d",
						line_label(line), h->err_more ? "more than " : "", h->err, h->ncols),
				 errhint("Every line needs one cell per header column; leave a cell empty for a missing value.")));
	at_no_memory();
}

/*
 * (header, line [, key_column]).  Not strict: a NULL header or line gives no
 * rows, a NULL key_column means none.  Called with two arguments (the SQL of
 * releases before 0.4.0, until ALTER EXTENSION UPDATE), a second column
 * named machineId is the key, as those releases did.
 */
Datum
acmetrace_unpivot(PG_FUNCTION_ARGS)
{
	text	   *header;
	text	   *line;
	const char *key = NULL;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	unpivot_cache *c;
	at_header  *h;
	at_line_status st;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	ErrorContextCallback errcb;
	double		v;
	int			r;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	header = PG_GETARG_TEXT_PP(0);
	line = PG_GETARG_TEXT_PP(1);
	if (PG_NARGS() > 2)
	{
		if (!PG_ARGISNULL(2))
			key = text_to_cstring(PG_GETARG_TEXT_PP(2));
	}
	else if (at_header_legacy_key(VARDATA_ANY(header), VARSIZE_ANY_EXHDR(header)))
		key = "machineId";
	c = get_cache(fcinfo, header, key);
	h = &c->h;
	st = at_header_split_line(h, VARDATA_ANY(line), VARSIZE_ANY_EXHDR(line));
	if (st != AT_LINE_OK)
		line_error(st, h, line);

	errcb.callback = unpivot_context;
	errcb.arg = line;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	/* PostgreSQL's own parser: offsets, zone names and abbreviations (PDT) */
	values[0] = DirectFunctionCall3(timestamptz_in, CStringGetDatum(h->fields[0].start),
									ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));

	for (int i = 0; (r = at_header_next_value(h, &i, &v)) != 0;)
	{
		if (r < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid value \"%s\" in column \"%s\"",
							pnstrdup(h->fields[i].start, pg_mbcliplen(h->fields[i].start, (int) h->fields[i].len, 64)),
							h->names[i]),
					 errhint("Cells are decimal numbers; empty, NA and NaN mean no measurement.")));
		/* Philly: one series per machine and GPU column, "m29/gpu0_util" */
		if (h->key_col >= 0)
			values[1] = CStringGetTextDatum(psprintf("%.*s/%s", (int) h->fields[h->key_col].len,
													 h->fields[h->key_col].start, h->names[i]));
		else
			values[1] = c->series[i];
		values[2] = Float8GetDatum(v);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	error_context_stack = errcb.previous;
	return (Datum) 0;
}
