/*
 * summary_scan.c: acmetrace_internal.summary_scan(cluster, capacity, zone,
 * offset), the exact distributions of acmetrace.summary_values and the
 * groups of acmetrace.summary_jobs in one pass over a cluster's jobs: a
 * plain SQL query hands its rows, uncopied, to a DestReceiver that converts
 * them for the core's pass (src/core/summary.h).  The occupancy bins are
 * PostgreSQL's own width_bucket, so they are those the scan computes.
 * summary_jobs is filled in one statement, unless a value does not fit the
 * core's exact sums: SQL then does the grouping.
 *
 * Rows out: (measure, type, all_types, gpu, occupancy_bin, cancelled, vals,
 * counts), and last one 'facts' row: vals = {capacity, peak}, counts =
 * {jobs, exact, odd, grouped} (exact: every value finite; odd: a job ends
 * before it starts or holds a negative GPU count, so there is no occupancy;
 * grouped: summary_jobs was filled here).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "pgtime.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "occupancy_type.h"
#include "summary.h"

PG_FUNCTION_INFO_V1(acmetrace_summary_scan);

typedef struct SummaryPass
{
	DestReceiver pub;
	at_summary_pass core;
	HTAB	   *roll;			/* summary_jobs' groups (at_roll) by their key */
	Datum	   *row;			/* the row at hand, for num_id */
	int64		nbins;			/* bins asked, for interrupts */
} SummaryPass;

/* A text's or numeric's number in t, by its bytes. */
static int32
var_id(at_intern *t, Datum d)
{
	struct varlena *s = PG_DETOAST_DATUM_PACKED(d);
	int32		id = at_intern_id(t, VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s));

	if (id < 0)
		at_no_memory();
	return id;
}

/* The text numbered id in t. */
static Datum
text_of(const at_intern *t, int32 id)
{
	size_t		len;
	const char *s = at_intern_str(t, id, &len);

	return PointerGetDatum(cstring_to_text_with_len(s, (int) len));
}

/*
 * A numeric column's id (at_summary_num_fn).  A trace has few distinct
 * durations and queues, and the float8 cast goes through text, so each is
 * converted once.
 */
static int32_t
num_id(void *arg, int col)
{
	static const int attr[3] = {7, 8, 10};	/* duration, queue, gpu_time */
	SummaryPass *st = (SummaryPass *) arg;
	Datum		d = st->row[attr[col]];
	size_t		before = st->core.numerics.n;
	int32		id = var_id(&st->core.numerics, d);

	if (st->core.numerics.n > before &&
		!at_summary_num_set(&st->core, id, DatumGetFloat8(DirectFunctionCall1(numeric_float8, d)),
							DatumGetCString(DirectFunctionCall1(numeric_out, d))))
		at_no_memory();
	return id;
}

/* The zone's offset at t (at_zone_lookup_fn; glue.h: timeseries_scan.c shares it). */
void
at_pg_zone_lookup(void *arg, int64_t t, int64_t unix_s, int64_t *off_s, int64_t *next_unix_s, int *has_next)
{
	pg_time_t	tt = (pg_time_t) unix_s,
				boundary;
	long int	before_off,
				after_off;
	int			before_dst,
				after_dst,
				r;

	r = pg_next_dst_boundary(&tt, &before_off, &before_dst, &boundary, &after_off, &after_dst, (pg_tz *) arg);
	if (r < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time %s is out of the time zone's range", timestamptz_to_str(t))));
	*off_s = before_off;
	*next_unix_s = boundary;
	*has_next = r != 0;
}

/* Columns: type, cancelled, gpu_num, submit, start, end, wait_s, duration, queue, final_state, gpu_time. */
static bool
scan_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SummaryPass *st = (SummaryPass *) self;
	bool	   *nul;
	Datum	   *v;
	at_summary_job job = {0};

	slot_getallattrs(slot);
	st->row = v = slot->tts_values;
	nul = slot->tts_isnull;
	job.type_code = nul[0] ? AT_SUM_TYPE_NULL : (uint32) var_id(&st->core.types, v[0]) + 2;
	job.cancelled = !nul[1] && DatumGetBool(v[1]);
	job.has_gpus = !nul[2];
	job.gpus = nul[2] ? 0 : DatumGetInt32(v[2]);
	job.has_submit = !nul[3];
	job.submit = DatumGetTimestampTz(v[3]);
	job.has_start = !nul[4];
	job.start = DatumGetTimestampTz(v[4]);
	job.has_end = !nul[5];
	job.end = DatumGetTimestampTz(v[5]);
	job.has_wait = !nul[6];
	job.wait = nul[6] ? 0 : DatumGetFloat8(v[6]);
	job.has_num[AT_SUM_COL_DURATION] = !nul[7];
	job.has_num[AT_SUM_COL_QUEUE] = !nul[8];
	job.has_num[AT_SUM_COL_GPU_TIME] = !nul[10];
	job.num = num_id;
	job.num_arg = st;
#ifdef AT_HAVE_INT128
	if (st->core.roll_ok)
	{
		at_roll_key key;
		at_roll    *r;
		bool		found;

		job.state_code = var_id(&st->core.states, v[9]);
		at_summary_roll_key(&st->core, &job, &key);
		r = hash_search(st->roll, &key, HASH_ENTER, &found);
		if (!found)
			memset((char *) r + sizeof(at_roll_key), 0, sizeof(at_roll) - sizeof(at_roll_key));
		at_summary_roll_add(&st->core, r, &job);
	}
#endif
	if (!at_summary_add(&st->core, &job))
		at_no_memory();
	return true;
}

static void
scan_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
scan_noop(DestReceiver *self)
{
}

/* width_bucket(gpus, 0, capacity, 10), PostgreSQL's own (at_summary_bin_fn). */
static int32_t
occupancy_bin(void *arg, int64_t gpus, int64_t capacity)
{
	SummaryPass *st = (SummaryPass *) arg;

	if ((st->nbins++ & 0xffff) == 0)
		CHECK_FOR_INTERRUPTS();
	return DatumGetInt32(DirectFunctionCall4(width_bucket_float8, Float8GetDatum((double) gpus),
											 Float8GetDatum(0), Float8GetDatum((double) capacity),
											 Int32GetDatum(10)));
}

/* One row out: (measure, type, all_types, gpu, occupancy_bin, cancelled, vals, counts). */
static void
put_row(ReturnSetInfo *rsinfo, SummaryPass *st, const at_summary_row *r, Datum *vd, int nv, Datum *cd, int nc)
{
	Datum		vals[8];
	bool		nulls[8] = {0};

	vals[0] = CStringGetTextDatum(r->measure);
	if (r->type_code >= 2)
		vals[1] = text_of(&st->core.types, r->type_code - 2);
	else
		nulls[1] = true;
	vals[2] = BoolGetDatum(r->all_types);
	nulls[3] = r->gpu < 0;
	vals[3] = BoolGetDatum(r->gpu > 0);
	nulls[4] = r->bin < 0;
	vals[4] = Int32GetDatum(r->bin);
	nulls[5] = r->cancelled < 0;
	vals[5] = BoolGetDatum(r->cancelled > 0);
	vals[6] = PointerGetDatum(construct_array(vd, nv, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[7] = PointerGetDatum(construct_array(cd, nc, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
}

/* A distribution's rows, one per group. */
static void
put_map(ReturnSetInfo *rsinfo, SummaryPass *st, int measure)
{
	const at_vmap *m = &st->core.maps[measure];
	at_vmap_entry *e = palloc_extended(sizeof(at_vmap_entry) * Max(m->n, 1), MCXT_ALLOC_HUGE);
	Datum	   *vd = palloc_extended(sizeof(Datum) * Max(m->n, 1), MCXT_ALLOC_HUGE);
	Datum	   *cd = palloc_extended(sizeof(Datum) * Max(m->n, 1), MCXT_ALLOC_HUGE);
	size_t		i = 0;

	at_vmap_sorted(m, e);
	for (size_t k = 0; k < m->n; k++)
	{
		vd[k] = Float8GetDatum(e[k].value);
		cd[k] = Int64GetDatum(e[k].count);
	}
	while (i < m->n)
	{
		size_t		j = i;
		at_summary_row r;

		while (j < m->n && e[j].group == e[i].group)
			j++;
		at_summary_row_of(measure, e[i].group, &r);
		put_row(rsinfo, st, &r, vd + i, (int) (j - i), cd + i, (int) (j - i));
		i = j;
	}
	pfree(e);
	pfree(vd);
	pfree(cd);
}

#ifdef AT_HAVE_INT128
/* v (at scale 9) as a numeric of the given scale. */
static Datum
roll_numeric(at_int128 v, int32 scale)
{
	char		buf[AT_ROLL_TEXT];

	return DirectFunctionCall3(numeric_in, CStringGetDatum(at_roll_text(buf, v, scale)),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* A sum of the grouping (NULL when it has no terms). */
static Datum
roll_sum(const at_roll_sum *s, bool *isnull)
{
	*isnull = s->n == 0;
	return *isnull ? (Datum) 0 : roll_numeric(s->sum, s->scale);
}

/* One summary_jobs row into the columns' arrays at i. */
static void
roll_row(SummaryPass *st, const at_roll *r, Datum **col, bool **cnul, long i)
{
	const at_roll_key *k = &r->key;

	col[0][i] = DateADTGetDatum(k->day);
	cnul[0][i] = (k->nulls & 1) != 0;
	col[1][i] = DateADTGetDatum(k->week);
	cnul[1][i] = (k->nulls & 2) != 0;
	cnul[2][i] = k->type_code < 2;
	col[2][i] = k->type_code >= 2 ? text_of(&st->core.types, k->type_code - 2) : (Datum) 0;
	col[3][i] = text_of(&st->core.states, k->state_code);
	col[4][i] = Int32GetDatum(k->gpu);
	cnul[4][i] = (k->nulls & 4) != 0;
	col[5][i] = Int64GetDatum(r->jobs);
	col[6][i] = Int64GetDatum(r->duration.n);
	col[7][i] = roll_sum(&r->duration, &cnul[7][i]);
	cnul[8][i] = cnul[7][i];
	col[8][i] = r->duration.n > 0 ? roll_numeric(r->max, r->max_scale) : (Datum) 0;
	col[9][i] = Int64GetDatum(r->queue.n);
	col[10][i] = roll_sum(&r->queue, &cnul[10][i]);
	col[11][i] = roll_sum(&r->gpu_time, &cnul[11][i]);
	col[12][i] = roll_sum(&r->gpu_time_or, &cnul[12][i]);
	cnul[13][i] = cnul[14][i] = !r->has_submit;
	col[13][i] = TimestampTzGetDatum(r->first);
	col[14][i] = TimestampTzGetDatum(r->last);
}

/* summary_jobs rows from the grouping, in one INSERT ... unnest. */
static void
roll_insert(SummaryPass *st, const char *cluster)
{
	long		n = hash_get_num_entries(st->roll);
	Datum	   *col[15];
	bool	   *cnul[15];
	static const Oid elem[15] = {DATEOID, DATEOID, TEXTOID, TEXTOID, INT4OID, INT8OID, INT8OID, NUMERICOID,
	NUMERICOID, INT8OID, NUMERICOID, NUMERICOID, NUMERICOID, TIMESTAMPTZOID, TIMESTAMPTZOID};
	Oid			argtypes[16] = {TEXTOID};
	Datum		args[16];
	HASH_SEQ_STATUS it;
	at_roll    *e;
	long		i = 0;
	int			rc;

	for (int c = 0; c < 15; c++)
	{
		col[c] = palloc_extended(sizeof(Datum) * Max(n, 1), MCXT_ALLOC_HUGE);
		cnul[c] = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
	hash_seq_init(&it, st->roll);
	while ((e = hash_seq_search(&it)) != NULL)
		roll_row(st, e, col, cnul, i++);
	args[0] = CStringGetTextDatum(cluster);
	for (int c = 0; c < 15; c++)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;
		int			dims[1] = {(int) n};
		int			lbs[1] = {1};

		get_typlenbyvalalign(elem[c], &typlen, &typbyval, &typalign);
		argtypes[c + 1] = get_array_type(elem[c]);
		args[c + 1] = PointerGetDatum(construct_md_array(col[c], cnul[c], 1, dims, lbs, elem[c], typlen, typbyval, typalign));
	}
	rc = SPI_execute_with_args("INSERT INTO acmetrace.summary_jobs SELECT $1, u.* "
							   "FROM unnest($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) u",
							   16, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "summary_scan: insert failed: %s", SPI_result_code_string(rc));
}
#endif

/* The pass's state; zone (NULL: a fixed offset) and offset are summary_scan's arguments 2 and 3. */
static SummaryPass *
pass_new(text *zone, bool has_offset, int32 offset)
{
	SummaryPass *st = palloc0(sizeof(SummaryPass));

	st->pub.receiveSlot = scan_receive;
	st->pub.rStartup = scan_startup;
	st->pub.rShutdown = scan_noop;
	st->pub.rDestroy = scan_noop;
	st->pub.mydest = DestNone;
	if (!at_summary_init(&st->core, at_cxt_mem, CurrentMemoryContext, occ_sort_steps))
		at_no_memory();
	if (zone == NULL)
	{
		st->core.zone.fixed = 1;
		st->core.zone.offset_s = has_offset ? offset : 0;
		/* real offsets are within 15 hours; a day keeps the date arithmetic in range */
		if (st->core.zone.offset_s < -SECS_PER_DAY || st->core.zone.offset_s > SECS_PER_DAY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("UTC offset %d s is out of range", (int) st->core.zone.offset_s),
					 errhint("Pass an offset within a day, as pg_timezone_abbrevs lists them.")));
	}
	else
	{
		char	   *zname = text_to_cstring(zone);

		st->core.zone.lookup = at_pg_zone_lookup;
		st->core.zone.arg = pg_tzset(zname);
		if (st->core.zone.arg == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown time zone \"%s\"", zname)));
	}
#ifdef AT_HAVE_INT128
	{
		HASHCTL		hc;

		hc.keysize = sizeof(at_roll_key);
		hc.entrysize = sizeof(at_roll);
		hc.hcxt = CurrentMemoryContext;
		st->roll = hash_create("acmetrace summary_jobs", 1024, &hc, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
#endif
	return st;
}

/* The cluster's jobs through the pass; summary_jobs filled if every value fit. */
static void
pass_run(SummaryPass *st, const char *cluster)
{
	SPIExecuteOptions opts = {0};
	int			rc;

	if ((rc = SPI_connect()) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed: %s", SPI_result_code_string(rc));
	opts.read_only = false;	/* a new snapshot: the rows the statement just wrote */
	opts.dest = &st->pub;
	rc = SPI_execute_extended(psprintf("SELECT j.type, j.state = 'CANCELLED', j.gpu_num, j.submit_time, j.start_time, "
									   "j.end_time, j.wait_s, j.duration, j.queue, j.final_state, j.gpu_time "
									   "FROM acmetrace.jobs j WHERE j.cluster = %s",
									   quote_literal_cstr(cluster)), &opts);
	/* SPI calls a SELECT whose rows go to a DestNone receiver a utility */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "summary_scan: query failed: %s", SPI_result_code_string(rc));
#ifdef AT_HAVE_INT128
	if (st->core.roll_ok)
		roll_insert(st, cluster);
#endif
	SPI_finish();
}

Datum
acmetrace_summary_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SummaryPass *st;
	at_summary_pass *p;
	at_occ_err	e;
	Datum		fv[2];
	Datum		fc[4];
	at_summary_row facts = {"facts", -1, 1, -1, -1, -1};

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	InitMaterializedSRF(fcinfo, 0);
	st = pass_new(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2), !PG_ARGISNULL(3),
				  PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3));
	p = &st->core;
	pass_run(st, text_to_cstring(PG_GETARG_TEXT_PP(0)));

	/* occupancy, the capacity its bins divide, and the peak of GPU jobs */
	e = at_summary_finish(p, !PG_ARGISNULL(1), PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1), occupancy_bin, st);
	if (e == AT_OCC_ENEGATIVE)
		elog(ERROR, "summary_scan: occupancy sweep went negative");
	else if (e != AT_OCC_OK)
		at_no_memory();
	for (int m = 0; p->exact && m < AT_SUM_MEASURES; m++)
		put_map(rsinfo, st, m);
	/* last, the facts: vals = {capacity, peak}, counts = {jobs, exact, odd, grouped} */
	fv[0] = Float8GetDatum((double) p->capacity);
	fv[1] = Float8GetDatum((double) p->peak);
	fc[0] = Int64GetDatum(p->jobs);
	fc[1] = Int64GetDatum(p->exact);
	fc[2] = Int64GetDatum(p->odd);
	fc[3] = Int64GetDatum(p->roll_ok);
	put_row(rsinfo, st, &facts, fv, 2, fc, 4);
	return (Datum) 0;
}
