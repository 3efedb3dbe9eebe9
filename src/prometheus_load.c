/*
 * prometheus_load.c: the loader of GPU metrics read from Prometheus.
 *
 *   SET acmetrace.metric = 'GPU_UTIL';
 *   \copy acmetrace.prometheus_samples FROM PROGRAM 'acmetrace-prometheus samples ...'
 *
 * The lines are those of src/core/prometheus.h, which the converter
 * (tools/acmetrace-prometheus.c) writes.  As the wide-file loader's
 * (utilization_load.c), acmetrace_internal.prometheus_load() fires
 *   BEFORE STATEMENT  reads acmetrace.metric and acmetrace.cluster and takes
 *                     the loaders' lock of that metric and cluster;
 *   BEFORE ROW        checks the line, appends its samples to the open block
 *                     of its series (one UTC day, written by
 *                     utilization_store.c when a sample of another day
 *                     comes), widens the span of its job label; returns NULL;
 *   AFTER STATEMENT   refuses a stream whose last line is not !end (cut
 *                     short), writes the open blocks and the job spans and
 *                     keeps the counts for prometheus_last_load().
 * An error anywhere loads nothing of the statement.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"

#include "glue.h"
#include "prometheus.h"
#include "utilization.h"
#include "utilization_store.h"

PG_FUNCTION_INFO_V1(acmetrace_prometheus_load);

#define CLIP 64					/* bytes of a value an error quotes */
#define MESSAGE_CLIP 2000		/* bytes of an !error line's message */
#define EPOCH_US ((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* A job label's span on one series: the hash key is the two names, NUL-padded. */
typedef struct span_key
{
	char		series[AT_SERIES_NAME_MAX + 1];
	char		job[AT_PROM_JOB_MAX + 1];
} span_key;

typedef struct span
{
	span_key	key;
	TimestampTz first;
	TimestampTz last;
} span;

typedef struct prom_state
{
	MemoryContext cxt;
	char	   *metric;
	char	   *cluster;
	int64		lineno;			/* lines taken, control lines included */
	bool		ended;			/* the last line was !end */
	int64		window;			/* samples of the data lines since the last !end */
	int64		skipped;		/* the !end lines' skipped values */
	at_series_set set;			/* the open blocks, by series name */
	util_store	store;			/* where they go, what it counted */
	HTAB	   *spans;			/* span_key -> span */
} prom_state;

/* One line's text columns; NULL when the column is. */
typedef struct prom_line
{
	const char *series;
	int			slen;
	const char *job;
	int			jlen;
	const char *samples;
	int			tlen;
} prom_line;

static prom_state *current = NULL;

static void
forget_state(void *arg)
{
	current = NULL;
}

static void
load_context(void *arg)
{
	prom_state *st = arg;

	errcontext("acmetrace Prometheus load of %s samples into cluster %s", st->metric, st->cluster);
}

/* s[0..len) clipped to max bytes on a character boundary, "..." marking a cut. */
static char *
clip(const char *s, int len, int max)
{
	int			n = pg_mbcliplen(s, len, max);

	return psprintf("%.*s%s", n, s, n < len ? "..." : "");
}

static void
begin_load(void)
{
	char	   *metric = at_setting("acmetrace.metric");
	char	   *cluster = at_setting("acmetrace.cluster");
	MemoryContext cxt;
	MemoryContextCallback *cb;
	prom_state *st;
	HASHCTL		ctl;

	if (metric == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("set acmetrace.metric to the metric these samples are stored as (got nothing)"),
				 errhint("For example SET acmetrace.metric = 'GPU_UTIL' for DCGM_FI_DEV_GPU_UTIL (acmetrace-prometheus fields lists them).")));
	if (cluster == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("set acmetrace.cluster to the cluster these samples describe (got nothing)"),
				 errhint("For example SET acmetrace.cluster = 'seren'; names are lower case letters, digits and _.")));
	/* the wide loader's lock: one load of a metric and cluster at a time */
	util_store_lock(metric, cluster);

	cxt = AllocSetContextCreate(CurTransactionContext, "acmetrace Prometheus load", ALLOCSET_DEFAULT_SIZES);
	st = MemoryContextAllocZero(cxt, sizeof(prom_state));
	st->cxt = cxt;
	st->metric = MemoryContextStrdup(cxt, metric);
	st->cluster = MemoryContextStrdup(cxt, cluster);
	st->store.metric = st->metric;
	st->store.cluster = st->cluster;
	st->store.cxt = AllocSetContextCreate(cxt, "acmetrace Prometheus flush", ALLOCSET_DEFAULT_SIZES);
	if (!at_series_set_init_named(&st->set, at_cxt_mem, cxt))
		at_no_memory();
	ctl.keysize = sizeof(span_key);
	ctl.entrysize = sizeof(span);
	ctl.hcxt = cxt;
	st->spans = hash_create("acmetrace job spans", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	cb->func = forget_state;
	cb->arg = NULL;
	MemoryContextRegisterResetCallback(cxt, cb);
	if (current != NULL)
		MemoryContextDelete(current->cxt);
	current = st;
}

/* "<series> <samples> <skipped>": three decimal counts, one space apart. */
static bool
parse_counts(const char *s, int len, int64 *n)
{
	int			i = 0;

	for (int k = 0; k < 3; k++)
	{
		int			start = i;

		if (k > 0 && (i >= len || s[i++] != ' '))
			return false;
		start = i;
		for (n[k] = 0; i < len && s[i] >= '0' && s[i] <= '9' && i - start < 18; i++)
			n[k] = n[k] * 10 + (s[i] - '0');
		if (i == start || (i - start > 1 && s[start] == '0'))
			return false;
	}
	return i == len;
}

static void
take_end(prom_state *st, const prom_line *l)
{
	int64		n[3];

	if (l->job != NULL || l->samples == NULL || !parse_counts(l->samples, l->tlen, n))
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld: malformed !end line (job %s, counts %s)", (long long) st->lineno,
						l->job ? quote_literal_cstr(clip(l->job, l->jlen, CLIP)) : "NULL",
						l->samples ? quote_literal_cstr(clip(l->samples, l->tlen, CLIP)) : "NULL"),
				 errhint("An !end line has job \\N and the counts \"<series> <samples> <skipped>\" of its window.")));
	if (n[1] != st->window)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld: the !end line counts %lld samples, the lines since the last !end hold %lld",
						(long long) st->lineno, (long long) n[1], (long long) st->window),
				 errhint("Lines of the converter's output were lost or added: load its output unchanged.")));
	st->window = 0;
	st->skipped += n[2];
	st->ended = true;
}

static void
take_control(prom_state *st, const prom_line *l)
{
	if (l->slen == 6 && memcmp(l->series, "!error", 6) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("%s", l->samples ? clip(l->samples, l->tlen, MESSAGE_CLIP)
						: "the converter failed without a message"),
				 errdetail("Line %lld is the converter's !error line; nothing was loaded.", (long long) st->lineno),
				 errhint("acmetrace-prometheus wrote it for Prometheus's answer or its own input: fix the cause and load again.")));
	if (l->slen == 4 && memcmp(l->series, "!end", 4) == 0)
		take_end(st, l);
	else
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("line %lld: unknown control line \"%s\"", (long long) st->lineno,
						clip(l->series, l->slen, CLIP)),
				 errhint("Control lines are !end and !error; a series name never starts with !.")));
}

/* The pair at p (up to the next space after its first byte), quoted for an error. */
static char *
pair_text(const char *p, const char *end)
{
	const char *q = p < end ? memchr(p + 1, ' ', end - p - 1) : NULL;

	return clip(p, (int) ((q ? q : end) - p), CLIP);
}

/*
 * Appends the samples of line l to the open block of b; *first and *last
 * get their first and last time.
 */
static void
take_samples(prom_state *st, const prom_line *l, at_series *b, TimestampTz *first, TimestampTz *last)
{
	const char *p = l->samples,
			   *end = l->samples + l->tlen;
	int64		ms,
				prev = 0;
	double		v;
	int			n = 0,
				r;

	/* ms is 0 .. the end of year 9999 (at_prom_sample_next): a valid time */
	while ((r = at_prom_sample_next(&p, end, &ms, &v)) > 0)
	{
		if (++n > AT_PROM_LINE_SAMPLES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("line %lld: series \"%s\" has more than %d samples in one line", (long long) st->lineno,
							b->name, AT_PROM_LINE_SAMPLES),
					 errhint("The converter splits a series' samples into lines of at most %d.", AT_PROM_LINE_SAMPLES)));
		if (n > 1 && ms <= prev)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
					 errmsg("line %lld: series \"%s\": time %lld ms (sample %d) is not after %lld ms",
							(long long) st->lineno, b->name, (long long) ms, n, (long long) prev),
					 errhint("Within a line the times increase strictly.")));
		*last = ms * 1000 - EPOCH_US;
		if (n == 1)
			*first = *last;
		prev = ms;
		util_store_add(&st->store, &st->set, b, *last, v);
	}
	if (r < 0 || n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 r < 0 ? errmsg("line %lld: series \"%s\": malformed sample \"%s\" at byte %d", (long long) st->lineno,
								b->name, pair_text(p, end), (int) (p - l->samples) + 1)
				 : errmsg("line %lld: series \"%s\" has no samples", (long long) st->lineno, b->name),
				 errhint("Samples are <Unix ms>:<value> pairs one space apart, such as \"1688169600000:45 1688169615000:0.5\": times from 1970 to year 9999, values finite decimals.")));
	st->window += n;
}

/* The span of job label l->job on series b begins at first or before, ends at last or after. */
static void
widen_span(prom_state *st, const prom_line *l, const at_series *b, TimestampTz first, TimestampTz last)
{
	span_key	key;
	span	   *s;
	bool		found;

	memset(&key, 0, sizeof key);
	strlcpy(key.series, b->name, sizeof key.series);
	memcpy(key.job, l->job, l->jlen);
	s = hash_search(st->spans, &key, HASH_ENTER, &found);
	if (!found || first < s->first)
		s->first = first;
	if (!found || last > s->last)
		s->last = last;
}

static void
take_data(prom_state *st, const prom_line *l)
{
	at_series  *b;
	int			too_long;
	TimestampTz first = 0,
				last = 0;

	if (!at_prom_series_valid(l->series, l->slen))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("line %lld: invalid series name \"%s\"", (long long) st->lineno, clip(l->series, l->slen, CLIP)),
				 errhint("A series is named <host>-gpu<index>: a host of up to %d letters, digits and ._:- and a GPU index from 0 to %d without leading zeros, such as node01-gpu3.",
						 AT_PROM_HOST_MAX, AT_PROM_GPU_MAX)));
	if (l->job != NULL && !at_prom_job_valid(l->job, l->jlen))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("line %lld: series \"%.*s\": invalid job label \"%s\"", (long long) st->lineno, l->slen,
						l->series, clip(l->job, l->jlen, CLIP)),
				 errhint("A job label is 1 to %d printable ASCII characters other than blanks, backslashes and quotes; \\N when the samples have none.",
						 AT_PROM_JOB_MAX)));
	if (l->samples == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("line %lld: series \"%.*s\": the samples are NULL", (long long) st->lineno, l->slen, l->series),
				 errhint("A line holds <Unix ms>:<value> pairs one space apart.")));
	b = at_series_named(&st->set, l->series, l->slen, &too_long);
	if (b == NULL)
		at_no_memory();			/* a valid name is never too long */
	take_samples(st, l, b, &first, &last);
	if (l->job != NULL)
		widen_span(st, l, b, first, last);
}

/* Column col of row as text (NULL when it is), its length in *len. */
static const char *
column_text(HeapTuple row, TupleDesc td, int col, int *len)
{
	bool		isnull;
	Datum		d = heap_getattr(row, col, td, &isnull);
	text	   *t;

	*len = 0;
	if (isnull)
		return NULL;
	t = DatumGetTextPP(d);
	*len = VARSIZE_ANY_EXHDR(t);
	return VARDATA_ANY(t);
}

static void
take_row(prom_state *st, HeapTuple row, TupleDesc td)
{
	prom_line	l;

	st->lineno++;
	st->ended = false;
	l.series = column_text(row, td, 1, &l.slen);
	l.job = column_text(row, td, 2, &l.jlen);
	l.samples = column_text(row, td, 3, &l.tlen);
	if (l.series == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("line %lld: the series is NULL", (long long) st->lineno),
				 errhint("A line names its series, <host>-gpu<index>, or is a control line, !end or !error.")));
	if (l.slen > 0 && l.series[0] == '!')
		take_control(st, &l);
	else
		take_data(st, &l);
}

static void
write_spans(prom_state *st)
{
	Oid			types[6] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID, TIMESTAMPTZOID};
	HASH_SEQ_STATUS it;
	SPIPlanPtr	plan;
	span	   *s;

	if (hash_get_num_entries(st->spans) == 0)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "acmetrace: SPI_connect failed");
	plan = SPI_prepare("INSERT INTO acmetrace.utilization_jobs AS j (metric, cluster, series, job_id, first_ts, last_ts) "
					   "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (metric, cluster, series, job_id) DO UPDATE "
					   "SET first_ts = least(j.first_ts, excluded.first_ts), last_ts = greatest(j.last_ts, excluded.last_ts) "
					   "WHERE excluded.first_ts < j.first_ts OR excluded.last_ts > j.last_ts", 6, types);
	if (plan == NULL)
		elog(ERROR, "acmetrace: preparing the span upsert failed: %s", SPI_result_code_string(SPI_result));
	hash_seq_init(&it, st->spans);
	while ((s = hash_seq_search(&it)) != NULL)
	{
		Datum		args[6] = {CStringGetTextDatum(st->metric), CStringGetTextDatum(st->cluster),
			CStringGetTextDatum(s->key.series), CStringGetTextDatum(s->key.job),
		TimestampTzGetDatum(s->first), TimestampTzGetDatum(s->last)};
		int			rc = SPI_execute_plan(plan, args, NULL, false, 0);

		if (rc != SPI_OK_INSERT)
			elog(ERROR, "acmetrace: span upsert failed: %s", SPI_result_code_string(rc));
	}
	SPI_finish();
}

static void
end_load(prom_state *st)
{
	char	   *counts;

	if (st->lineno > 0 && !st->ended)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("the samples end at line %lld without an !end line: the stream was cut short",
						(long long) st->lineno),
				 errhint("The converter ends every window with !end; a stream without one is incomplete. Nothing was loaded.")));
	for (size_t i = 0; i < st->set.nall; i++)
		util_store_block(&st->store, st->set.all[i]);
	util_store_finish(&st->store);
	write_spans(st);
	util_store_report(&st->store, &st->set);
	counts = psprintf("%lld,%zu,%lld,%lld,%lld,%lld", (long long) st->lineno, st->set.nall,
					  (long long) st->set.samples, (long long) (st->set.samples - st->store.dups),
					  (long long) st->store.dups, (long long) st->skipped);
	/* not local: the counts outlive the transaction, but not its rollback */
	DirectFunctionCall3(set_config_by_name, CStringGetTextDatum("acmetrace_internal.prometheus_last_load"),
						CStringGetTextDatum(counts), BoolGetDatum(false));
	MemoryContextDelete(st->cxt);	/* clears current */
}

/*
 * The trigger function of acmetrace.prometheus_samples: BEFORE and AFTER
 * INSERT FOR EACH STATEMENT, BEFORE INSERT FOR EACH ROW (returns NULL).
 */
Datum
acmetrace_prometheus_load(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	ErrorContextCallback errcb;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_INSERT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("acmetrace_internal.prometheus_load must be an INSERT trigger")));
	if (TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) && TRIGGER_FIRED_BEFORE(td->tg_event))
	{
		begin_load();
		return PointerGetDatum(NULL);
	}
	if (current == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("acmetrace_internal.prometheus_load: a line arrived outside a load"),
				 errhint("The extension's triggers on acmetrace.prometheus_samples are missing or disabled.")));
	errcb.callback = load_context;
	errcb.arg = current;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	if (TRIGGER_FIRED_FOR_STATEMENT(td->tg_event))
		end_load(current);
	else if (TRIGGER_FIRED_BEFORE(td->tg_event))
		take_row(current, td->tg_trigtuple, td->tg_relation->rd_att);
	error_context_stack = errcb.previous;
	return PointerGetDatum(NULL);
}
