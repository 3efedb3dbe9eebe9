/*
 * sacct_fns.c: acmetrace_internal.sacct_parse(line bigint, fields text[])
 *              -> acmetrace_internal.sacct_row
 *
 * One line of `sacct --parsable2` output, its 20 fields in the documented
 * --format order (a NULL element is an empty field), parsed and checked by
 * src/core/sacct.c.  Errors name the line and field:
 *   sacct line 7, field Submit: invalid time "2023-13-01T00:00:00"
 * with SQLSTATE 22007 for a time, 0A000 for a job step (sacct ran without
 * --allocations: valid output, but not what is loaded) and 22P02 for any
 * other malformed field; a hint says what the field takes.  Times are
 * returned as timestamp without time zone, made by PostgreSQL's
 * tm2timestamp; the caller puts them in the cluster's zone.
 *
 * acmetrace_internal.hostlist_expand(text) -> text[]: a NodeList
 * (node[01-04,07]) as its hosts, by at_sacct_hostlist; malformed 22P02,
 * more than HOSTLIST_MAX hosts 54000, both naming the list.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "sacct.h"

PG_FUNCTION_INFO_V1(acmetrace_sacct_parse);
PG_FUNCTION_INFO_V1(acmetrace_hostlist_expand);

/* The most hosts one host list may name (a cluster's NodeList). */
#define HOSTLIST_MAX 100000

/* the columns of acmetrace_internal.sacct_row */
enum
{
	COL_JOB_ID, COL_SLURM_JOB_ID, COL_SLURM_CLUSTER, COL_PARTITION, COL_QOS, COL_ACCOUNT, COL_USER_NAME,
	COL_JOB_NAME, COL_SUBMIT, COL_ELIGIBLE, COL_START, COL_END, COL_STATE, COL_CANCELLED_BY, COL_EXIT_CODE,
	COL_EXIT_SIGNAL, COL_NODE_NUM, COL_CPU_NUM, COL_GPU_NUM, COL_REQ_GPUS, COL_ALLOC_GPUS, COL_GPU_TYPE,
	COL_MEM_MB, COL_TIMELIMIT_S, COL_NODELIST, NCOLS
};

static const char fields_hint[] =
	"Pass the 20 fields of a line in the order of the documented sacct --format: JobIDRaw, JobID, Cluster, Partition, "
	"QOS, Account, User, JobName, Submit, Eligible, Start, End, State, ExitCode, NNodes, NCPUS, ReqTRES, AllocTRES, "
	"Timelimit, NodeList.";

/* The error of a field the core refused: never returns. */
static void
pg_attribute_noreturn()
field_error(int64 line, const at_sacct_error *e)
{
	const char *v = e->value.len ? e->value.s : "";
	size_t		max = (size_t) pg_mbcliplen(v, (int) Min(e->value.len, (size_t) 1024), 64);
	size_t		n = at_sacct_message(e, max, NULL, 0) + 1;
	char	   *buf = palloc(n);
	int			code = e->status == AT_SACCT_INVALID_TIME ? ERRCODE_INVALID_DATETIME_FORMAT :
		e->status == AT_SACCT_STEP ? ERRCODE_FEATURE_NOT_SUPPORTED : ERRCODE_INVALID_TEXT_REPRESENTATION;

	at_sacct_message(e, max, buf, n);
	at_raise_plain(code, psprintf("sacct line " INT64_FORMAT ", field %s: %s", line, at_sacct_field_name(e->field), buf),
				   NULL, e->hint);
}

/* The fields argument as 20 (pointer, length) pairs; an ERROR unless it is one dimension of 20. */
static void
get_fields(int64 line, ArrayType *a, at_sacct_str f[AT_SACCT_NFIELDS])
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != AT_SACCT_NFIELDS)
		at_raise_plain(ERRCODE_INVALID_PARAMETER_VALUE,
					   psprintf("sacct line " INT64_FORMAT ": fields must be a one-dimensional array of %d texts, got %s",
								line, AT_SACCT_NFIELDS,
								ARR_NDIM(a) == 0 ? "an empty array" :
								ARR_NDIM(a) > 1 ? psprintf("%d dimensions", ARR_NDIM(a)) :
								psprintf("%d elements", ARR_DIMS(a)[0])),
					   NULL, fields_hint);
	deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
	{
		f[k].s = nulls[k] ? NULL : VARDATA_ANY(DatumGetPointer(elems[k]));
		f[k].len = nulls[k] ? 0 : VARSIZE_ANY_EXHDR(DatumGetPointer(elems[k]));
	}
}

/* Text, NULL when empty (unset). */
static Datum
text_of(at_sacct_str s, bool *isnull)
{
	*isnull = s.len == 0;
	return *isnull ? (Datum) 0 : PointerGetDatum(cstring_to_text_with_len(s.s, (int) s.len));
}

/* A wall-clock time as timestamp without time zone, NULL when unset. */
static Datum
time_of(const at_sacct_time *t, bool *isnull)
{
	struct pg_tm tm = {0};
	Timestamp	ts;

	*isnull = !t->set;
	if (!t->set)
		return (Datum) 0;
	tm.tm_year = t->year;
	tm.tm_mon = t->mon;
	tm.tm_mday = t->mday;
	tm.tm_hour = t->hour;
	tm.tm_min = t->min;
	tm.tm_sec = t->sec;
	/* years 1 .. 9999 are all in range: a failure here is a bug */
	if (tm2timestamp(&tm, 0, NULL, &ts) != 0)
		elog(ERROR, "timestamp out of range: %04d-%02d-%02d", t->year, t->mon, t->mday);
	return TimestampGetDatum(ts);
}

static Datum
int_of(int has, int32 v, bool *isnull)
{
	*isnull = !has;
	return Int32GetDatum(v);
}

/* The result row's descriptor, cached for the calls of this query. */
static TupleDesc
row_desc(FunctionCallInfo fcinfo)
{
	TupleDesc	td = (TupleDesc) fcinfo->flinfo->fn_extra;

	if (td == NULL)
	{
		TupleDesc	t;
		MemoryContext old;

		if (get_call_result_type(fcinfo, NULL, &t) != TYPEFUNC_COMPOSITE || t->natts != NCOLS)
			elog(ERROR, "sacct_parse must return acmetrace_internal.sacct_row");
		old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		td = BlessTupleDesc(CreateTupleDescCopy(t));
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = td;
	}
	return td;
}

/* (line, fields): not strict, a NULL of either is an error. */
Datum
acmetrace_sacct_parse(PG_FUNCTION_ARGS)
{
	int64		line;
	at_sacct_str f[AT_SACCT_NFIELDS];
	at_sacct_record r;
	at_sacct_error e;
	Datum		v[NCOLS];
	bool		n[NCOLS];

	if (PG_ARGISNULL(0))
		at_raise_plain(ERRCODE_NULL_VALUE_NOT_ALLOWED, "sacct line number must not be NULL", NULL,
					   "Pass the line's number in the file (1 is the header), to name it in errors.");
	line = PG_GETARG_INT64(0);
	if (PG_ARGISNULL(1))
		at_raise_plain(ERRCODE_NULL_VALUE_NOT_ALLOWED,
					   psprintf("sacct line " INT64_FORMAT ": fields must not be NULL", line), NULL, fields_hint);
	get_fields(line, PG_GETARG_ARRAYTYPE_P(1), f);
	if (at_sacct_parse(f, &r, &e) != AT_SACCT_OK)
		field_error(line, &e);

	v[COL_JOB_ID] = text_of(r.job_id, &n[COL_JOB_ID]);
	v[COL_SLURM_JOB_ID] = text_of(r.slurm_job_id, &n[COL_SLURM_JOB_ID]);
	v[COL_SLURM_CLUSTER] = text_of(r.cluster, &n[COL_SLURM_CLUSTER]);
	v[COL_PARTITION] = text_of(r.partition, &n[COL_PARTITION]);
	v[COL_QOS] = text_of(r.qos, &n[COL_QOS]);
	v[COL_ACCOUNT] = text_of(r.account, &n[COL_ACCOUNT]);
	v[COL_USER_NAME] = text_of(r.user, &n[COL_USER_NAME]);
	v[COL_JOB_NAME] = text_of(r.job_name, &n[COL_JOB_NAME]);
	v[COL_SUBMIT] = time_of(&r.submit, &n[COL_SUBMIT]);
	v[COL_ELIGIBLE] = time_of(&r.eligible, &n[COL_ELIGIBLE]);
	v[COL_START] = time_of(&r.start, &n[COL_START]);
	v[COL_END] = time_of(&r.end, &n[COL_END]);
	v[COL_STATE] = CStringGetTextDatum(at_sacct_state_name(r.state));
	n[COL_STATE] = false;
	v[COL_CANCELLED_BY] = text_of(r.cancelled_by, &n[COL_CANCELLED_BY]);
	v[COL_EXIT_CODE] = int_of(r.has_exit, r.exit_code, &n[COL_EXIT_CODE]);
	v[COL_EXIT_SIGNAL] = int_of(r.has_exit, r.exit_signal, &n[COL_EXIT_SIGNAL]);
	v[COL_NODE_NUM] = int_of(r.has_node_num, r.node_num, &n[COL_NODE_NUM]);
	v[COL_CPU_NUM] = int_of(r.has_cpu_num, r.cpu_num, &n[COL_CPU_NUM]);
	v[COL_GPU_NUM] = int_of(1, r.gpu_num, &n[COL_GPU_NUM]);
	v[COL_REQ_GPUS] = int_of(r.has_req_gpus, r.req_gpus, &n[COL_REQ_GPUS]);
	v[COL_ALLOC_GPUS] = int_of(r.has_alloc_gpus, r.alloc_gpus, &n[COL_ALLOC_GPUS]);
	v[COL_GPU_TYPE] = text_of(r.gpu_type, &n[COL_GPU_TYPE]);
	v[COL_MEM_MB] = Int64GetDatum(r.mem_mb);
	n[COL_MEM_MB] = !r.has_mem;
	v[COL_TIMELIMIT_S] = Int64GetDatum(r.timelimit_s);
	n[COL_TIMELIMIT_S] = !r.has_timelimit;
	v[COL_NODELIST] = text_of(r.nodelist, &n[COL_NODELIST]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(row_desc(fcinfo), v, n)));
}

static int
add_host(void *arg, const char *host, size_t len)
{
	ArrayBuildState *st = (ArrayBuildState *) arg;

	accumArrayResult(st, PointerGetDatum(cstring_to_text_with_len(host, (int) len)), false, TEXTOID,
					 CurrentMemoryContext);
	return 0;
}

/* (nodelist text) strict: the hosts, in order, duplicates kept. */
Datum
acmetrace_hostlist_expand(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	const char *s = VARDATA_ANY(t);
	size_t		len = VARSIZE_ANY_EXHDR(t);
	ArrayBuildState *st = initArrayResult(TEXTOID, CurrentMemoryContext, false);
	uint64		count;
	const char *what;
	size_t		at;
	int			rc = at_sacct_hostlist(s, len, HOSTLIST_MAX, add_host, st, &count, &what, &at);

	if (rc != AT_SACCT_HOSTLIST_OK)
	{
		int			shown = pg_mbcliplen(s, (int) Min(len, (size_t) 1024), 64);
		char	   *list = psprintf("\"%.*s%s\"", shown, s, (size_t) shown < len ? "..." : "");

		if (rc == AT_SACCT_HOSTLIST_TOO_MANY)
			at_raise_plain(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						   psprintf("Slurm host list %s names " UINT64_FORMAT " hosts, more than %d", list, count,
									HOSTLIST_MAX),
						   NULL, "A NodeList names the nodes of one job; check the slurm_jobs row.");
		at_raise_plain(ERRCODE_INVALID_TEXT_REPRESENTATION,
					   psprintf("invalid Slurm host list %s: %s at byte %zu", list, what, at + 1), NULL,
					   "A host list is names separated by commas, each with bracket groups of numbers and ranges: node[01-04,07],gpu-a.");
	}
	if (count == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(TEXTOID));
	PG_RETURN_DATUM(makeArrayResult(st, CurrentMemoryContext));
}
