/*
 * unpivot.c: acmetrace.unpivot(header text, line text, key_column text)
 *              -> SETOF (ts timestamptz, series text, value float8)
 *
 * Turns one line of a wide utilization CSV (a time column, then one column
 * per server or GPU) into long rows.  A key column (Philly's machineId)
 * names the machine a line describes: its cells are not values, and each
 * series is "<key cell>/<column>".  The parsed header is cached in
 * fn_extra, so a query over a million lines splits a 2,600-column header
 * once.  Splitting and number parsing are in src/core/unpivot.c.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "unpivot.h"

PG_FUNCTION_INFO_V1(acmetrace_unpivot);

typedef struct unpivot_cache
{
	MemoryContext header_cxt;	/* everything parsed from the header */
	char	   *header;			/* the header's bytes, to recognize it again */
	int			header_len;
	char	   *key;			/* the key column's name, or NULL */
	int			ncols;
	int			key_col;		/* the key column's index, or -1 */
	char	  **names;			/* column names, NUL-terminated */
	Datum	   *series;			/* text Datums of names (value columns only) */
	at_field   *fields;			/* room for ncols + 1 fields */
	char	   *line;			/* scratch copy of the line, split in place */
	int			line_cap;		/* (line lives in fn_mcxt, across headers) */
} unpivot_cache;

static bool
same_key(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

static unpivot_cache *
get_cache(FunctionCallInfo fcinfo, text *header, const char *key)
{
	unpivot_cache *c = (unpivot_cache *) fcinfo->flinfo->fn_extra;
	int			len = VARSIZE_ANY_EXHDR(header);
	MemoryContext old;
	char	   *copy;
	size_t		nf,
				pos,
				max;
	at_csv_status st;
	int			i;

	if (c != NULL && c->header_len == len && memcmp(c->header, VARDATA_ANY(header), len) == 0 &&
		same_key(c->key, key))
		return c;

	/*
	 * A new header: parse it into a context of its own under fn_mcxt (which
	 * lives as long as the plan), reset whenever the header changes.
	 */
	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(unpivot_cache));
		c->header_cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "acmetrace unpivot header",
											  ALLOCSET_SMALL_SIZES);
		fcinfo->flinfo->fn_extra = c;
	}
	else
		MemoryContextReset(c->header_cxt);
	/* invalid until the parse below succeeds */
	c->header_len = -1;
	c->ncols = 0;
	old = MemoryContextSwitchTo(c->header_cxt);
	copy = palloc(len + 1);
	memcpy(copy, VARDATA_ANY(header), len);
	/*
	 * A header has at most one field more than it has commas (",,," has
	 * four); over MaxAllocSize of fields, say so rather than fail to palloc.
	 */
	max = 2;
	for (i = 0; i < len; i++)
		max += copy[i] == ',';
	if (max > MaxAllocSize / sizeof(at_field))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("header has %zu columns, more than the %zu unpivot can split",
						max - 1, (size_t) (MaxAllocSize / sizeof(at_field) - 1))));
	c->fields = palloc(sizeof(at_field) * max);
	st = at_csv_split(copy, len, c->fields, max, &nf, &pos);
	if (st != AT_CSV_OK)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("malformed header: %s at byte %zu", at_csv_status_text(st), pos + 1)));
	if (nf < 2)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("header has %zu column, need a time column and at least one value column", nf),
				 errhint("The header is the file's first line, e.g. Time,10.140.1.10,10.140.1.54")));
	c->key_col = -1;
	c->names = palloc(sizeof(char *) * nf);
	c->series = palloc(sizeof(Datum) * nf);
	for (i = 0; i < (int) nf; i++)
	{
		c->names[i] = pnstrdup(c->fields[i].start, c->fields[i].len);
		if (i > 0 && c->fields[i].len == 0)
			ereport(ERROR,
					(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
					 errmsg("header column %d has no name", i + 1)));
		if (i > 0 && key != NULL && c->key_col < 0 && strcmp(c->names[i], key) == 0)
			c->key_col = i;
		c->series[i] = i == 0 ? (Datum) 0 : CStringGetTextDatum(c->names[i]);
	}
	if (key != NULL && c->key_col < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("key_column \"%s\" is not a value column of the header", key),
				 errhint("Name a header column after the first (time) one, e.g. machineId; the header starts \"%s\".",
						 pnstrdup(VARDATA_ANY(header), pg_mbcliplen(VARDATA_ANY(header), len, 60)))));
	if (nf == 2 && c->key_col == 1)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("header has no value column besides key_column \"%s\"", key)));
	c->fields = repalloc(c->fields, sizeof(at_field) * (nf + 1));
	pfree(copy);
	c->ncols = (int) nf;
	c->header = palloc(len + 1);
	memcpy(c->header, VARDATA_ANY(header), len);
	c->header_len = len;
	c->key = key ? pstrdup(key) : NULL;
	MemoryContextSwitchTo(old);
	return c;
}

/* The releases before 0.4.0 keyed a header whose second column is machineId. */
static bool
legacy_key(const text *header)
{
	const char *s = VARDATA_ANY(header);
	int			n = VARSIZE_ANY_EXHDR(header);
	const char *comma = memchr(s, ',', n);
	int			rest;

	if (comma == NULL)
		return false;
	rest = n - (int) (comma + 1 - s);
	return rest >= 9 && memcmp(comma + 1, "machineId", 9) == 0 && (rest == 9 || comma[10] == ',');
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
	int			len;
	size_t		nf,
				pos;
	at_csv_status st;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	ErrorContextCallback errcb;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	header = PG_GETARG_TEXT_PP(0);
	line = PG_GETARG_TEXT_PP(1);
	len = VARSIZE_ANY_EXHDR(line);
	if (PG_NARGS() > 2)
	{
		if (!PG_ARGISNULL(2))
			key = text_to_cstring(PG_GETARG_TEXT_PP(2));
	}
	else if (legacy_key(header))
		key = "machineId";
	c = get_cache(fcinfo, header, key);

	if (len + 1 > c->line_cap)
	{
		c->line = c->line ? repalloc(c->line, len + 1) : MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len + 1);
		c->line_cap = len + 1;
	}
	memcpy(c->line, VARDATA_ANY(line), len);

	st = at_csv_split(c->line, len, c->fields, c->ncols + 1, &nf, &pos);
	if (st == AT_CSV_TOO_MANY_FIELDS)
		nf = c->ncols + 2;		/* reported as "more than" below */
	else if (st != AT_CSV_OK)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("malformed line at \"%s\": %s at byte %zu", line_label(line), at_csv_status_text(st), pos + 1)));
	/* one trailing comma (Philly) is an empty extra cell, not data */
	if (nf == (size_t) c->ncols + 1 && st == AT_CSV_OK && c->fields[nf - 1].len == 0 && !c->fields[nf - 1].quoted)
		nf--;
	if (nf != (size_t) c->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line at \"%s\" has %s%zu cells, the header has %d",
						line_label(line), nf > (size_t) c->ncols + 1 ? "more than " : "",
						nf > (size_t) c->ncols + 1 ? (size_t) c->ncols + 1 : nf, c->ncols),
				 errhint("Every line needs one cell per header column; leave a cell empty for a missing value.")));

	errcb.callback = unpivot_context;
	errcb.arg = line;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	/* PostgreSQL's own parser: offsets, zone names and abbreviations (PDT) */
	c->line[c->fields[0].len + (c->fields[0].start - c->line)] = '\0';
	values[0] = DirectFunctionCall3(timestamptz_in, CStringGetDatum(c->fields[0].start),
									ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));

	for (i = 1; i < c->ncols; i++)
	{
		double		v;

		if (i == c->key_col)
			continue;
		switch (at_parse_value(c->fields[i].start, c->fields[i].len, &v))
		{
			case AT_VALUE_MISSING:
				continue;		/* blank, NA, NaN: no row */
			case AT_VALUE_INVALID:
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("invalid value \"%s\" in column \"%s\"",
								pnstrdup(c->fields[i].start,
										 pg_mbcliplen(c->fields[i].start, (int) c->fields[i].len, 64)),
								c->names[i]),
						 errhint("Cells are decimal numbers; empty, NA and NaN mean no measurement.")));
				break;
			case AT_VALUE_OK:
				break;
		}
		if (c->key_col >= 0)
		{
			/* Philly: one series per machine and GPU column, "m29/gpu0_util" */
			char	   *name = psprintf("%.*s/%s", (int) c->fields[c->key_col].len,
										c->fields[c->key_col].start, c->names[i]);

			values[1] = CStringGetTextDatum(name);
		}
		else
			values[1] = c->series[i];
		values[2] = Float8GetDatum(v);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	error_context_stack = errcb.previous;
	return (Datum) 0;
}
