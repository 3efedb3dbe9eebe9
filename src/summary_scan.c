/*
 * summary_scan.c: acmetrace_internal.summary_scan(cluster, capacity), the
 * exact distributions of acmetrace.summary_values in one pass over a
 * cluster's jobs.
 *
 * The jobs come from a plain SQL query whose rows are handed to a
 * DestReceiver, uncopied; each adds its values to hash counts
 * (src/core/summary.h) and its interval to an occupancy state, as
 * occupancy_agg does.  After the pass the occupancy is swept once and each
 * GPU job's wait is counted in the bin of GPUs allocated when it was
 * submitted: width_bucket(gpus_at(occupancy, submit_time), 0, capacity, 10),
 * PostgreSQL's own width_bucket, so the bins are those the scan computes.
 *
 * The same pass groups the jobs by day of submission, week of end (in the
 * cluster's zone), type, final state and gpu_num into acmetrace.summary_jobs,
 * with exact sums: each distinct numeric is read once as a decimal (at most
 * 18 digits, 9 after the point) and summed as a 128-bit integer, and each
 * sum keeps the largest scale of its terms, as numeric addition does.  A
 * value outside that (or no 128-bit integers) leaves the grouping to SQL.
 *
 * Rows out: (measure, type, all_types, gpu, occupancy_bin, cancelled, vals,
 * counts), and last one 'facts' row: vals = {capacity, peak}, counts =
 * {jobs, exact, odd, grouped} (exact: every value finite; odd: a job ends
 * before it starts or holds a negative GPU count, so there is no occupancy;
 * grouped: summary_jobs was filled here).
 */
#include "postgres.h"

#include <math.h>

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
#include "occupancy.h"
#include "summary.h"

#define ST_SORT summary_sort_events
#define ST_ELEMENT_TYPE at_occ_step
#define ST_COMPARE(a, b) ((a)->t != (b)->t ? ((a)->t > (b)->t) - ((a)->t < (b)->t) : \
						  ((a)->gpus > (b)->gpus) - ((a)->gpus < (b)->gpus))
#define ST_SCOPE static
#define ST_CHECK_FOR_INTERRUPTS
#define ST_DEFINE
#include "lib/sort_template.h"

PG_FUNCTION_INFO_V1(acmetrace_summary_scan);

/* type codes in group numbers: 0 all types, 1 NULL type, 2 + intern id */
#define TYPE_ALL	0
#define TYPE_NULL	1

typedef struct PendingWait
{
	int64		submit;
	double		wait;
	uint32		type_code;
} PendingWait;

/* A distinct numeric: as float8 (the cast) and as mant / 10^scale, if ok. */
typedef struct NumInfo
{
	double		f;
	int64		mant;
	int32		scale;
	bool		ok;
} NumInfo;

/* summary_jobs' grouping key: day and week are DateADT (NOBEGIN/NOEND for infinite times) */
typedef struct RollKey
{
	int32		day;
	int32		week;
	int32		type_code;
	int32		state_code;
	int32		gpu;
	int32		nulls;			/* 1: no day, 2: no week, 4: no gpu_num */
} RollKey;

#ifdef PG_INT128_TYPE
typedef struct RollEntry
{
	RollKey		key;
	int64		jobs;
	int64		dn;
	int64		qn;
	int64		tn;				/* rows with duration x gpu_num */
	int64		pn;				/* rows with coalesce(gpu_time, duration x gpu_num) */
	int128		dsum;			/* all sums at scale 9 */
	int128		qsum;
	int128		tsum;
	int128		psum;
	int32		dscale;
	int32		qscale;
	int32		tscale;
	int32		pscale;
	int32		dmax;			/* numeric intern id of max(duration) */
	int128		dmax_val;
	bool		has_submit;
	TimestampTz first;
	TimestampTz last;
} RollEntry;
#endif

typedef struct SummaryPass
{
	DestReceiver pub;
	at_intern	types;
	text	  **type_names;		/* by intern id */
	int			ntype_names;
	int			type_room;
	at_vmap		wait;			/* (type_code << 1 | cancelled, wait) */
	at_vmap		duration;		/* (type_code << 1 | gpu, duration) */
	at_vmap		queue;			/* (gpu, queue) */
	at_occ_state occ;			/* every job, as occupancy_agg */
	at_occ_state gpu_occ;		/* GPU jobs not ending before they start */
	PendingWait *pending;
	int64		npending;
	int64		pending_room;
	at_intern	numerics;		/* distinct numeric values seen, by their bytes */
	struct NumInfo *numeric_vals;	/* ... and what each is, by intern id */
	int64		numeric_room;
	text	  **numeric_text;	/* each distinct numeric's bytes, by intern id */
	at_intern	states;			/* final_state names */
	text	  **state_names;
	int			nstate_names;
	HTAB	   *roll;			/* RollKey -> RollEntry */
	bool		roll_ok;		/* every numeric fits: summary_jobs from here */
	bool		fixed_zone;		/* offset_s applies everywhere */
	int64		offset_s;
	pg_tz	   *zone;
	TimestampTz zone_from;		/* zone_off holds for [zone_from, zone_to) */
	TimestampTz zone_to;
	int64		zone_off;
	MemoryContext cxt;			/* outlives SPI's: what the pass keeps */
	int64		jobs;
	bool		exact;
	bool		odd;
} SummaryPass;

static void
oom(void)
{
	ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory building the summaries")));
}

static uint32
type_code(SummaryPass *st, bool isnull, Datum d)
{
	text	   *t;
	size_t		before = st->types.n;
	int32		id;

	if (isnull)
		return TYPE_NULL;
	t = DatumGetTextPP(d);
	id = at_intern_id(&st->types, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if (id < 0)
		oom();
	if (st->types.n > before)
	{
		MemoryContext old;

		if (st->ntype_names == st->type_room)
		{
			st->type_room *= 2;
			st->type_names = repalloc_huge(st->type_names, sizeof(text *) * st->type_room);
		}
		old = MemoryContextSwitchTo(st->cxt);
		st->type_names[st->ntype_names++] = (text *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
	}
	return (uint32) id + 2;
}

/* A decimal of at most 18 digits and 9 after the point, as numeric_out writes it. */
static bool
parse_decimal(const char *t, int64 *mant, int32 *scale)
{
	bool		neg = false;
	int			digits = 0;
	int			frac = -1;
	int64		m = 0;

	if (*t == '-')
	{
		neg = true;
		t++;
	}
	for (; *t; t++)
	{
		if (*t == '.' && frac < 0)
			frac = 0;
		else if (*t >= '0' && *t <= '9')
		{
			if (m != 0 || *t != '0')
				digits++;
			if (digits > 18)
				return false;
			m = m * 10 + (*t - '0');
			if (frac >= 0)
				frac++;
		}
		else
			return false;			/* NaN, Infinity */
	}
	if (frac > 9)
		return false;
	*mant = neg ? -m : m;
	*scale = frac < 0 ? 0 : frac;
	return true;
}

/*
 * A numeric's intern id.  A trace has few distinct durations and queues,
 * and the float8 cast goes through text, so each is converted once.
 */
static int32
numeric_id(SummaryPass *st, Datum d)
{
	struct varlena *n = PG_DETOAST_DATUM_PACKED(d);
	size_t		before = st->numerics.n;
	int32		id = at_intern_id(&st->numerics, VARDATA_ANY(n), VARSIZE_ANY_EXHDR(n));

	if (id < 0)
		oom();
	if (st->numerics.n > before)
	{
		NumInfo    *ni;
		char	   *txt;
		MemoryContext old;

		if (id == st->numeric_room)
		{
			st->numeric_room *= 2;
			st->numeric_vals = repalloc_huge(st->numeric_vals, sizeof(NumInfo) * st->numeric_room);
			st->numeric_text = repalloc_huge(st->numeric_text, sizeof(text *) * st->numeric_room);
		}
		ni = &st->numeric_vals[id];
		ni->f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
		txt = DatumGetCString(DirectFunctionCall1(numeric_out, d));
		ni->ok = parse_decimal(txt, &ni->mant, &ni->scale);
		old = MemoryContextSwitchTo(st->cxt);
		st->numeric_text[id] = (text *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
	}
	return id;
}

static double
numeric_value(SummaryPass *st, Datum d)
{
	/* numeric_id may move numeric_vals: read the array after it returns */
	int32		id = numeric_id(st, d);

	return st->numeric_vals[id].f;
}

static void
vadd(at_vmap *m, uint64 group, double v)
{
	if (!at_vmap_add(m, group, v))
		oom();
}

static int64
floor_div(int64 a, int64 b)
{
	int64		q = a / b;

	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Seconds east of UTC in the cluster's zone at the finite time t. */
static int64
zone_offset(SummaryPass *st, TimestampTz t)
{
	pg_time_t	tt,
				boundary;
	long int	before_off,
				after_off;
	int			before_dst,
				after_dst,
				r;

	if (st->fixed_zone)
		return st->offset_s;
	if (t >= st->zone_from && t < st->zone_to)
		return st->zone_off;
	tt = (pg_time_t) (floor_div(t, USECS_PER_SEC) + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY);
	r = pg_next_dst_boundary(&tt, &before_off, &before_dst, &boundary, &after_off, &after_dst, st->zone);
	if (r < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time %s is out of the time zone's range", timestamptz_to_str(t))));
	/* the offset holds from this second until the next transition */
	st->zone_from = (TimestampTz) (floor_div(t, USECS_PER_SEC) * USECS_PER_SEC);
	st->zone_to = r == 0 ? DT_NOEND :
		(TimestampTz) ((boundary - (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY) * USECS_PER_SEC);
	st->zone_off = before_off;
	return before_off;
}

/* t::date in the cluster's zone (DATEVAL_NOBEGIN/NOEND for infinite times). */
static int32
local_day(SummaryPass *st, TimestampTz t)
{
	if (TIMESTAMP_IS_NOBEGIN(t))
		return DATEVAL_NOBEGIN;
	if (TIMESTAMP_IS_NOEND(t))
		return DATEVAL_NOEND;
	return (int32) floor_div(t + zone_offset(st, t) * USECS_PER_SEC, USECS_PER_DAY);
}

/* date_trunc('week', t)::date in the zone: the Monday of its day. */
static int32
local_week(SummaryPass *st, TimestampTz t)
{
	int32		d = local_day(st, t);

	if (DATE_NOT_FINITE(d))
		return d;
	/* 2000-01-01, day 0, was a Saturday: Monday is 0 in (d + 5) mod 7 */
	return d - (int32) (((int64) d + 5) % 7 + 7) % 7;
}

static int32
state_code(SummaryPass *st, Datum d)
{
	text	   *t = DatumGetTextPP(d);
	size_t		before = st->states.n;
	int32		id = at_intern_id(&st->states, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

	if (id < 0)
		oom();
	if (st->states.n > before)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		st->state_names = repalloc(st->state_names, sizeof(text *) * (st->nstate_names + 1));
		st->state_names[st->nstate_names++] = (text *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
	}
	return id;
}

#ifdef PG_INT128_TYPE
static const int64 pow10_to9[10] = {
	INT64CONST(1000000000), 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1
};

/* A numeric column's value at scale 9, or false if it does not fit (the SQL grouping then runs). */
static bool
scaled(SummaryPass *st, Datum d, int128 *out, int32 *scale, int32 *id)
{
	NumInfo    *ni;

	*id = numeric_id(st, d);
	ni = &st->numeric_vals[*id];
	if (!ni->ok)
		return false;
	*out = (int128) ni->mant * pow10_to9[ni->scale];
	*scale = ni->scale;
	return true;
}

/* *acc += x * k, or false on overflow (the grouping then goes to SQL's numeric). */
static bool
acc_add(int128 *acc, int128 x, int64 k)
{
	int128		p;

	return !__builtin_mul_overflow(x, (int128) k, &p) && !__builtin_add_overflow(*acc, p, acc);
}

/* Columns 3 submit, 5 end, 7 duration, 8 queue, 9 final_state, 10 gpu_time. */
static void
roll_add(SummaryPass *st, Datum *v, bool *nul, uint32 tc, bool has_gpus, int32 gpus)
{
	RollKey		key;
	RollEntry  *e;
	bool		found;
	int128		dv = 0,
				x;
	int32		dscale = 0,
				sc,
				id,
				did = -1;

	memset(&key, 0, sizeof key);
	key.type_code = (int32) tc;
	key.state_code = state_code(st, v[9]);
	if (has_gpus)
		key.gpu = gpus;
	else
		key.nulls |= 4;
	if (nul[3])
		key.nulls |= 1;
	else
		key.day = local_day(st, DatumGetTimestampTz(v[3]));
	if (nul[5])
		key.nulls |= 2;
	else
		key.week = local_week(st, DatumGetTimestampTz(v[5]));

	e = hash_search(st->roll, &key, HASH_ENTER, &found);
	if (!found)
	{
		memset((char *) e + sizeof(RollKey), 0, sizeof(RollEntry) - sizeof(RollKey));
		e->dmax = -1;
	}
	e->jobs++;
	if (!nul[3])
	{
		TimestampTz t = DatumGetTimestampTz(v[3]);

		if (!e->has_submit || t < e->first)
			e->first = t;
		if (!e->has_submit || t > e->last)
			e->last = t;
		e->has_submit = true;
	}
	if (!nul[7])
	{
		if (!scaled(st, v[7], &dv, &dscale, &did))
		{
			st->roll_ok = false;
			return;
		}
		e->dn++;
		if (!acc_add(&e->dsum, dv, 1))
		{
			st->roll_ok = false;
			return;
		}
		e->dscale = Max(e->dscale, dscale);
		/* max(numeric) keeps the later of equal values */
		if (e->dmax < 0 || dv >= e->dmax_val)
		{
			e->dmax = did;
			e->dmax_val = dv;
		}
		if (has_gpus)
		{
			e->tn++;
			if (!acc_add(&e->tsum, dv, gpus))
			{
				st->roll_ok = false;
				return;
			}
			e->tscale = Max(e->tscale, dscale);
		}
	}
	if (!nul[8])
	{
		if (!scaled(st, v[8], &x, &sc, &id))
		{
			st->roll_ok = false;
			return;
		}
		e->qn++;
		if (!acc_add(&e->qsum, x, 1))
		{
			st->roll_ok = false;
			return;
		}
		e->qscale = Max(e->qscale, sc);
	}
	if (!nul[10])
	{
		if (!scaled(st, v[10], &x, &sc, &id))
		{
			st->roll_ok = false;
			return;
		}
		e->pn++;
		if (!acc_add(&e->psum, x, 1))
		{
			st->roll_ok = false;
			return;
		}
		e->pscale = Max(e->pscale, sc);
	}
	else if (!nul[7] && has_gpus)
	{
		e->pn++;
		if (!acc_add(&e->psum, dv, gpus))
		{
			st->roll_ok = false;
			return;
		}
		e->pscale = Max(e->pscale, dscale);
	}
}

/* The sum at scale 9 as a numeric of the given scale (exact: every term had at most that scale). */
static Datum
sum_numeric(int128 v, int32 scale)
{
	char		buf[64];
	char	   *p = buf + sizeof buf;
	bool		neg = v < 0;
	uint128		u;
	int			digits = 0;

	v /= pow10_to9[scale];
	u = neg ? -(uint128) v : (uint128) v;
	*--p = '\0';
	do
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
		if (++digits == scale)
			*--p = '.';
	} while (u != 0 || digits <= scale);
	if (neg)
		*--p = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(p), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}
#endif

/* Columns: type, cancelled, gpu_num, submit, start, end, wait_s, duration, queue, final_state, gpu_time. */
static bool
scan_receive(TupleTableSlot *slot, DestReceiver *self)
{
	SummaryPass  *st = (SummaryPass *) self;
	bool	   *nul;
	Datum	   *v;
	uint32		tc;
	bool		cancelled;
	bool		has_gpus;
	int32		gpus = 0;

	slot_getallattrs(slot);
	v = slot->tts_values;
	nul = slot->tts_isnull;
	st->jobs++;
	tc = type_code(st, nul[0], v[0]);
	cancelled = !nul[1] && DatumGetBool(v[1]);
	has_gpus = !nul[2];
	if (has_gpus)
		gpus = DatumGetInt32(v[2]);
#ifdef PG_INT128_TYPE
	if (st->roll_ok)
		roll_add(st, v, nul, tc, has_gpus, gpus);
#endif

	/* occupancy: NULL start or GPUs hold nothing (occupancy_agg's rule) */
	if (!nul[4] && has_gpus)
	{
		at_occ_job	job;
		at_occ_row	row = at_occ_classify(DatumGetTimestampTz(v[4]), !nul[5],
										  nul[5] ? 0 : DatumGetTimestampTz(v[5]), gpus, &job);

		if (row == AT_OCC_ROW_ADD)
		{
			if (!st->odd && at_occ_state_add(&st->occ, &job) != AT_OCC_OK)
				oom();
			if (gpus > 0 && at_occ_state_add(&st->gpu_occ, &job) != AT_OCC_OK)
				oom();
		}
		else if (row != AT_OCC_ROW_SKIP)
			st->odd = true;
	}

	/* waits of GPU jobs that started at or after submission (NaN >= 0 in SQL) */
	if (has_gpus && gpus > 0 && !nul[6] && (DatumGetFloat8(v[6]) >= 0 || isnan(DatumGetFloat8(v[6]))))
	{
		double		w = DatumGetFloat8(v[6]);

		if (!isfinite(w))
			st->exact = false;
		else
		{
			vadd(&st->wait, ((uint64) tc << 1) | cancelled, w);
			if (st->npending == st->pending_room)
			{
				st->pending_room *= 2;
				st->pending = repalloc_huge(st->pending, sizeof(PendingWait) * st->pending_room);
			}
			st->pending[st->npending].submit = DatumGetTimestampTz(v[3]);	/* not NULL: wait is */
			st->pending[st->npending].wait = w;
			st->pending[st->npending].type_code = tc;
			st->npending++;
		}
	}
	if (has_gpus && gpus >= 0)
	{
		uint64		g = gpus > 0;

		if (!nul[7])
		{
			double		d = numeric_value(st, v[7]);

			if (!isfinite(d))
				st->exact = false;
			else
			{
				vadd(&st->duration, ((uint64) tc << 1) | g, d);
				vadd(&st->duration, ((uint64) TYPE_ALL << 1) | g, d);
			}
		}
		if (!nul[8])
		{
			double		q = numeric_value(st, v[8]);

			if (!isfinite(q))
				st->exact = false;
			else
				vadd(&st->queue, g, q);
		}
	}
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

/* Steps of a state (empty: none). */
static at_occ_step *
sweep(const at_occ_state *st, size_t *n)
{
	at_occ_runs runs;
	at_occ_step *out;
	long long	k;

	runs.k = runs.owned = 0;
	if (at_occ_state_runs(st, at_cxt_mem, CurrentMemoryContext, &runs) != AT_OCC_OK)
		oom();
	out = palloc_extended(sizeof(at_occ_step) * Max(at_occ_runs_events(&runs), 1), MCXT_ALLOC_HUGE);
	k = at_occ_runs_sweep(&runs, out);
	if (k < 0)
		elog(ERROR, "summary_scan: occupancy sweep went negative");
	*n = (size_t) k;
	return out;
}

typedef struct OutRow
{
	const char *measure;
	int			type_code;		/* -1: NULL column */
	bool		all_types;
	int			gpu;			/* -1: NULL */
	int			bin;			/* -1: NULL */
	int			cancelled;		/* -1: NULL */
} OutRow;

static void
put_row(Tuplestorestate *ts, TupleDesc td, SummaryPass *st, const OutRow *r,
		const at_vmap_entry *e, size_t n)
{
	Datum		vals[8];
	bool		nulls[8] = {0};
	Datum	   *vd = palloc(sizeof(Datum) * n);
	Datum	   *cd = palloc(sizeof(Datum) * n);

	for (size_t i = 0; i < n; i++)
	{
		vd[i] = Float8GetDatum(e[i].value);
		cd[i] = Int64GetDatum(e[i].count);
	}
	vals[0] = CStringGetTextDatum(r->measure);
	if (r->type_code >= 2)
		vals[1] = PointerGetDatum(st->type_names[r->type_code - 2]);
	else
		nulls[1] = true;
	vals[2] = BoolGetDatum(r->all_types);
	nulls[3] = r->gpu < 0;
	vals[3] = BoolGetDatum(r->gpu > 0);
	nulls[4] = r->bin < 0;
	vals[4] = Int32GetDatum(r->bin);
	nulls[5] = r->cancelled < 0;
	vals[5] = BoolGetDatum(r->cancelled > 0);
	vals[6] = PointerGetDatum(construct_array(vd, (int) n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	vals[7] = PointerGetDatum(construct_array(cd, (int) n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	tuplestore_putvalues(ts, td, vals, nulls);
	pfree(vd);
	pfree(cd);
}

typedef void (*row_of_group) (uint64 group, OutRow *r);

static void
wait_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"wait", (int) (g >> 1), false, -1, -1, (int) (g & 1)};
}

static void
occ_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"wait_by_occupancy", (int) (g >> 32), false, -1, (int) (g & 0xffffffff), -1};
}

static void
duration_row(uint64 g, OutRow *r)
{
	int			tc = (int) (g >> 1);

	*r = (OutRow) {"duration", tc, tc == TYPE_ALL, (int) (g & 1), -1, -1};
}

static void
queue_row(uint64 g, OutRow *r)
{
	*r = (OutRow) {"queue", TYPE_ALL, true, (int) (g & 1), -1, -1};
}

static void
put_map(Tuplestorestate *ts, TupleDesc td, SummaryPass *st, const at_vmap *m, row_of_group rowf)
{
	at_vmap_entry *e = palloc_extended(sizeof(at_vmap_entry) * Max(m->n, 1), MCXT_ALLOC_HUGE);
	size_t		i = 0;

	at_vmap_sorted(m, e);
	while (i < m->n)
	{
		size_t		j = i;
		OutRow		r;

		while (j < m->n && e[j].group == e[i].group)
			j++;
		rowf(e[i].group, &r);
		put_row(ts, td, st, &r, e + i, j - i);
		i = j;
	}
	pfree(e);
}

static void
occ_sort(at_occ_step *ev, size_t n)
{
	summary_sort_events(ev, n);
}

#ifdef PG_INT128_TYPE
/* summary_jobs rows from the grouping, in one INSERT ... unnest. */
static void
roll_insert(SummaryPass *st, const char *cluster)
{
	long		n = hash_get_num_entries(st->roll);
	Datum	   *col[15];
	bool	   *cnul[15];
	static const Oid elem[15] = {DATEOID, DATEOID, TEXTOID, TEXTOID, INT4OID, INT8OID, INT8OID, NUMERICOID,
	NUMERICOID, INT8OID, NUMERICOID, NUMERICOID, NUMERICOID, TIMESTAMPTZOID, TIMESTAMPTZOID};
	Oid			argtypes[16];
	Datum		args[16];
	char		argnulls[16];
	HASH_SEQ_STATUS it;
	RollEntry  *e;
	long		i = 0;
	int			rc;

	for (int c = 0; c < 15; c++)
	{
		col[c] = palloc_extended(sizeof(Datum) * Max(n, 1), MCXT_ALLOC_HUGE);
		cnul[c] = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
	hash_seq_init(&it, st->roll);
	while ((e = hash_seq_search(&it)) != NULL)
	{
		RollKey    *k = &e->key;

		col[0][i] = DateADTGetDatum(k->day);
		cnul[0][i] = (k->nulls & 1) != 0;
		col[1][i] = DateADTGetDatum(k->week);
		cnul[1][i] = (k->nulls & 2) != 0;
		cnul[2][i] = k->type_code < 2;
		col[2][i] = k->type_code >= 2 ? PointerGetDatum(st->type_names[k->type_code - 2]) : (Datum) 0;
		col[3][i] = PointerGetDatum(st->state_names[k->state_code]);
		col[4][i] = Int32GetDatum(k->gpu);
		cnul[4][i] = (k->nulls & 4) != 0;
		col[5][i] = Int64GetDatum(e->jobs);
		col[6][i] = Int64GetDatum(e->dn);
		cnul[7][i] = cnul[8][i] = e->dn == 0;
		if (e->dn > 0)
		{
			col[7][i] = sum_numeric(e->dsum, e->dscale);
			col[8][i] = PointerGetDatum(st->numeric_text[e->dmax]);
		}
		col[9][i] = Int64GetDatum(e->qn);
		cnul[10][i] = e->qn == 0;
		if (e->qn > 0)
			col[10][i] = sum_numeric(e->qsum, e->qscale);
		cnul[11][i] = e->tn == 0;
		if (e->tn > 0)
			col[11][i] = sum_numeric(e->tsum, e->tscale);
		cnul[12][i] = e->pn == 0;
		if (e->pn > 0)
			col[12][i] = sum_numeric(e->psum, e->pscale);
		cnul[13][i] = cnul[14][i] = !e->has_submit;
		col[13][i] = TimestampTzGetDatum(e->first);
		col[14][i] = TimestampTzGetDatum(e->last);
		i++;
	}
	argtypes[0] = TEXTOID;
	args[0] = CStringGetTextDatum(cluster);
	argnulls[0] = ' ';
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
		argnulls[c + 1] = ' ';
	}
	rc = SPI_execute_with_args("INSERT INTO acmetrace.summary_jobs SELECT $1, u.* "
							   "FROM unnest($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) u",
							   16, argtypes, args, argnulls, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "summary_scan: insert failed: %s", SPI_result_code_string(rc));
}
#endif

Datum
acmetrace_summary_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *cluster;
	SummaryPass  *st;
	SPIExecuteOptions opts = {0};
	int			rc;
	at_occ_step *steps = NULL;
	size_t		nsteps = 0;
	int64		capacity = 1;
	int64		peak;
	at_vmap		occmap;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cluster = text_to_cstring(PG_GETARG_TEXT_PP(0));
	InitMaterializedSRF(fcinfo, 0);

	st = palloc0(sizeof(SummaryPass));
	st->pub.receiveSlot = scan_receive;
	st->pub.rStartup = scan_startup;
	st->pub.rShutdown = scan_noop;
	st->pub.rDestroy = scan_noop;
	st->pub.mydest = DestNone;
	st->exact = true;
	st->cxt = CurrentMemoryContext;
	st->type_room = 16;
	st->type_names = palloc(sizeof(text *) * st->type_room);
	st->numeric_room = 1024;
	st->numeric_vals = palloc(sizeof(NumInfo) * st->numeric_room);
	st->numeric_text = palloc(sizeof(text *) * st->numeric_room);
	st->state_names = palloc(sizeof(text *));
	st->zone_from = st->zone_to = 0;
	if (PG_ARGISNULL(2))
	{
		st->fixed_zone = true;
		st->offset_s = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3);
		/* real offsets are within 15 hours; a day keeps the date arithmetic in range */
		if (st->offset_s < -SECS_PER_DAY || st->offset_s > SECS_PER_DAY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("UTC offset %d s is out of range", (int) st->offset_s),
					 errhint("Pass an offset within a day, as pg_timezone_abbrevs lists them.")));
	}
	else
	{
		char	   *zname = text_to_cstring(PG_GETARG_TEXT_PP(2));

		st->zone = pg_tzset(zname);
		if (st->zone == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown time zone \"%s\"", zname)));
	}
#ifdef PG_INT128_TYPE
	{
		HASHCTL		hc;

		hc.keysize = sizeof(RollKey);
		hc.entrysize = sizeof(RollEntry);
		hc.hcxt = CurrentMemoryContext;
		st->roll = hash_create("acmetrace summary_jobs", 1024, &hc, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		st->roll_ok = true;
	}
#endif
	st->pending_room = 1024;
	st->pending = palloc(sizeof(PendingWait) * st->pending_room);
	if (!at_intern_init(&st->types, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->wait, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->duration, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&st->queue, at_cxt_mem, CurrentMemoryContext) ||
		!at_vmap_init(&occmap, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->numerics, at_cxt_mem, CurrentMemoryContext) ||
		!at_intern_init(&st->states, at_cxt_mem, CurrentMemoryContext))
		oom();
	at_occ_state_init(&st->occ, at_cxt_mem, CurrentMemoryContext, occ_sort);
	at_occ_state_init(&st->gpu_occ, at_cxt_mem, CurrentMemoryContext, occ_sort);

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
#ifdef PG_INT128_TYPE
	if (st->roll_ok)
		roll_insert(st, cluster);
#endif
	SPI_finish();

	/* occupancy, the capacity its bins divide, and the peak of GPU jobs */
	if (!st->odd)
	{
		steps = sweep(&st->occ, &nsteps);
		peak = at_occ_peak(steps, nsteps);
	}
	else
	{
		size_t		n;
		at_occ_step *s = sweep(&st->gpu_occ, &n);

		peak = at_occ_peak(s, n);
		pfree(s);
	}
	if (!PG_ARGISNULL(1))
		capacity = PG_GETARG_INT32(1);
	else if (peak > 0)
		capacity = peak;
	if (!st->odd && st->exact)
	{
		size_t		hint = 0;

		for (int64 i = 0; i < st->npending; i++)
		{
			PendingWait *p = &st->pending[i];
			int64		gpus_at = at_occ_at_hint(steps, nsteps, p->submit, &hint);
			int32		bin = DatumGetInt32(DirectFunctionCall4(width_bucket_float8,
																Float8GetDatum((double) gpus_at),
																Float8GetDatum(0),
																Float8GetDatum((double) capacity),
																Int32GetDatum(10)));

			vadd(&occmap, ((uint64) p->type_code << 32) | (uint32) bin, p->wait);
			if ((i & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}

	if (st->exact)
	{
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->wait, wait_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &occmap, occ_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->duration, duration_row);
		put_map(rsinfo->setResult, rsinfo->setDesc, st, &st->queue, queue_row);
	}
	{
		Datum		vals[8];
		bool		nulls[8] = {0};
		Datum		fv[2] = {Float8GetDatum((double) capacity), Float8GetDatum((double) peak)};
		Datum		fc[4] = {Int64GetDatum(st->jobs), Int64GetDatum(st->exact), Int64GetDatum(st->odd),
		Int64GetDatum(st->roll_ok)};

		vals[0] = CStringGetTextDatum("facts");
		nulls[1] = nulls[3] = nulls[4] = nulls[5] = true;
		vals[2] = BoolGetDatum(true);
		vals[6] = PointerGetDatum(construct_array(fv, 2, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		vals[7] = PointerGetDatum(construct_array(fc, 4, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, vals, nulls);
	}
	return (Datum) 0;
}
