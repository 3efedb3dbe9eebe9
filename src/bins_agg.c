/*
 * bins_agg.c: the aggregates bins, bins_at, cdf_at and weighted_cdf_at, and
 * their state type acmetrace.bins_state.
 *
 * The state (src/core/bins.h) is an expanded object in a context of its
 * own under the aggregate's context, updated in place; its parameters come
 * from the first row and must not change within a group.  Its flat form is
 * the core's versioned serialized form, written only when a state leaves
 * the aggregate (a parallel worker's tuple, a Citus partial, a column) and
 * checked by at_bins_decode on every way back in: text input "v1:<hex>",
 * binary receive, and flat states handed to the functions below.
 *
 * The 0.1.0 to 0.3.0 SQL declares these aggregates with STYPE internal and
 * the same C symbols: the state is then the object's read-write pointer,
 * which nodeAgg keeps as it is, so the transition, combine and final
 * functions serve both; serialize and deserialize remain for that SQL only.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "glue.h"
#include "bins.h"
#include "samples_type.h"

PG_FUNCTION_INFO_V1(acmetrace_bins_state_in);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_out);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_recv);
PG_FUNCTION_INFO_V1(acmetrace_bins_state_send);
PG_FUNCTION_INFO_V1(acmetrace_bins_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_at_trans);
PG_FUNCTION_INFO_V1(acmetrace_cdf_trans);
PG_FUNCTION_INFO_V1(acmetrace_wcdf_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_samples_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_at_samples_trans);
PG_FUNCTION_INFO_V1(acmetrace_cdf_samples_trans);
PG_FUNCTION_INFO_V1(acmetrace_bins_combine);
PG_FUNCTION_INFO_V1(acmetrace_bins_final);
PG_FUNCTION_INFO_V1(acmetrace_cdf_final);
/* acmetrace_hist_*: named by the released (internal-state) install scripts */
PG_FUNCTION_INFO_V1(acmetrace_hist_combine);
PG_FUNCTION_INFO_V1(acmetrace_hist_serialize);
PG_FUNCTION_INFO_V1(acmetrace_hist_deserialize);

typedef struct BinsEO
{
	ExpandedObjectHeader hdr;
	at_bins		h;
	bool		stable;			/* the array argument is a constant (or Param) */
	/* blocks of integers / 10^scale: the slot of each integer lo..lo+n-1 */
	int32	   *slot_of;
	int64		slot_lo;
	int32		slot_n;
	int32		slot_scale;
} BinsEO;

#define BINS_HINT_FORMAT \
	"A bins_state is written as acmetrace.bins_state_out prints it: v1: and the state's bytes in hexadecimal."

/* ---- the expanded object ---- */

static Size
bins_get_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARHDRSZ + at_bins_encoded_size(&((BinsEO *) eohptr)->h);
}

static void
bins_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SET_VARSIZE(result, allocated_size);
	at_bins_encode(&((BinsEO *) eohptr)->h, (unsigned char *) VARDATA(result));
}

static const ExpandedObjectMethods bins_methods = {bins_get_flat_size, bins_flatten_into};

/* Bytes into h (memory from cxt); ERROR with code if they are not a state. */
static void
bins_read(at_bins *h, const char *data, Size len, MemoryContext cxt, int code)
{
	const char *msg = at_bins_decode(h, (const unsigned char *) data, len, at_cxt_mem, cxt);

	if (msg != NULL)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid bins_state: %s", msg),
				 errdetail("The value is %zu bytes long.", (size_t) len),
				 errhint("States come from acmetrace.bins, bins_at, cdf_at and weighted_cdf_at; "
						 "the binary form is versioned and checked field by field.")));
}

/*
 * A bins_state datum to read: our expanded object's state as it is, or a
 * flat value (detoasted; another expanded kind is flattened) decoded into
 * tmp in the current context.  Nothing is modified.
 */
static const at_bins *
bins_view(Datum d, at_bins *tmp)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &bins_methods)
			return &((BinsEO *) eoh)->h;
	}
	v = pg_detoast_datum_packed(v);
	bins_read(tmp, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), CurrentMemoryContext, ERRCODE_DATA_CORRUPTED);
	return tmp;
}

static void
bins_view_done(const at_bins *view, at_bins *tmp)
{
	if (view == tmp)
		at_bins_free(tmp, at_cxt_mem, CurrentMemoryContext);
}

/* A new, empty object under the aggregate's context. */
static BinsEO *
new_eo(FunctionCallInfo fcinfo, const char *fn)
{
	return at_eo_new(at_agg_context(fcinfo, fn), &bins_methods, sizeof(BinsEO), "acmetrace bins_state");
}

static void
no_memory(void)
{
	ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/* ---- text and binary forms ---- */

static Datum
bins_flat(const at_bins *h)
{
	Size		n = at_bins_encoded_size(h);
	bytea	   *out = palloc(VARHDRSZ + n);

	SET_VARSIZE(out, VARHDRSZ + n);
	at_bins_encode(h, (unsigned char *) VARDATA(out));
	return PointerGetDatum(out);
}

Datum
acmetrace_bins_state_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	at_bins		h;
	size_t		pos;
	const char *msg = at_bins_parse(&h, s, strlen(s), at_cxt_mem, CurrentMemoryContext, &pos);
	Datum		out;

	if (msg != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bins_state: %s", msg),
				 errdetail("At character %zu.", pos + 1),
				 errhint(BINS_HINT_FORMAT)));
	out = bins_flat(&h);		/* stored re-encoded: always canonical */
	at_bins_free(&h, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_DATUM(out);
}

Datum
acmetrace_bins_state_out(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h = bins_view(PG_GETARG_DATUM(0), &tmp);
	char	   *buf = palloc(at_bins_text_size(h));

	at_bins_format(h, buf);
	bins_view_done(h, &tmp);
	PG_RETURN_CSTRING(buf);
}

Datum
acmetrace_bins_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	msg = (StringInfo) PG_GETARG_POINTER(0);
	int			len = msg->len - msg->cursor;
	const char *data = pq_getmsgbytes(msg, len);
	at_bins		h;
	Datum		out;

	bins_read(&h, data, len, CurrentMemoryContext, ERRCODE_INVALID_BINARY_REPRESENTATION);
	out = bins_flat(&h);
	at_bins_free(&h, at_cxt_mem, CurrentMemoryContext);
	PG_RETURN_DATUM(out);
}

Datum
acmetrace_bins_state_send(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h = bins_view(PG_GETARG_DATUM(0), &tmp);
	Size		n = at_bins_encoded_size(h);
	StringInfoData buf;

	pq_begintypsend(&buf);
	enlargeStringInfo(&buf, n);
	at_bins_encode(h, (unsigned char *) buf.data + buf.len);
	buf.len += n;
	bins_view_done(h, &tmp);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- the aggregates ---- */

static void
bad_arg(const char *fn, const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s", fn, msg),
			 errhint("%s", hint)));
}

static void
not_null(FunctionCallInfo fcinfo, int argno, const char *fn, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not be NULL", fn, what)));
}

/* The float8[] argument as a C array (no NULL elements allowed). */
static double *
array_arg(FunctionCallInfo fcinfo, int argno, const char *fn, const char *what, int *n)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;

	not_null(fcinfo, argno, fn, what);
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("%s: %s must be float8[]", fn, what)));
	/* flattening {{0,1},{2,3}} would silently change its meaning */
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %s must be a one-dimensional array, not %d-dimensional", fn, what, ARR_NDIM(a)),
				 errhint("Pass a plain list such as '{0,1,2,4,8}'.")));
	deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, n);
	out = palloc((*n + 1) * sizeof(double));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: %s must not contain NULL", fn, what)));
		out[i] = DatumGetFloat8(elems[i]);
	}
	return out;
}

/* The aggregate a state belongs to, for messages. */
static const char *
bins_fn(at_bins_kind kind)
{
	switch (kind)
	{
		case AT_BINS_EQUAL:
			return "bins";
		case AT_BINS_EDGES:
			return "bins_at";
		case AT_BINS_CDF:
			return "cdf_at";
		case AT_BINS_WCDF:
			return "weighted_cdf_at";
	}
	return "bins";
}

/*
 * dst += src, or the ERROR: states of another aggregate, or of other
 * arguments (the error the transition function gives when it sees every
 * row), or a sum that overflows.
 */
static void
merge_into(at_bins *dst, const at_bins *src)
{
	if (dst->kind != src->kind)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine a bins_state of %s with one of %s", bins_fn(dst->kind), bins_fn(src->kind)),
				 errhint("Combine states of one aggregate called with the same arguments.")));
	if (!at_bins_same_shape(dst, src))
	{
		if (src->kind == AT_BINS_EQUAL)
			bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
		else
			bad_arg(bins_fn(src->kind),
					psprintf("%s changed within one aggregate", src->kind == AT_BINS_EDGES ? "edges" : "thresholds"),
					"Pass the same array to every row of a group (a constant, or the same column value).");
	}
	switch (at_bins_merge(dst, src))
	{
		case -1:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: count overflows bigint", bins_fn(dst->kind))));
			break;
		case -2:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("weighted_cdf_at: the total weight overflows float8")));
			break;
	}
}

/*
 * The first row of a group (arguments checked by the caller): a new object
 * under the aggregate's context.  Arg 0 is then NULL, or a flat state to go
 * on from (an INITCOND, or a caller's own aggregate): it must have the shape
 * the arguments give.
 */
static BinsEO *
new_state(FunctionCallInfo fcinfo, const char *fn, at_bins_kind kind, double lo, double hi,
		  int32 nbins, const double *vals, int nvals)
{
	BinsEO	   *eo = new_eo(fcinfo, fn);

	if (at_bins_init(&eo->h, kind, lo, hi, nbins, vals, nvals, at_cxt_mem, eo->hdr.eoh_context) != 0)
		no_memory();
	if (!PG_ARGISNULL(0))
	{
		at_bins		tmp;
		const at_bins *from = bins_view(PG_GETARG_DATUM(0), &tmp);

		merge_into(&eo->h, from);
		bins_view_done(from, &tmp);
	}
	return eo;
}

/*
 * The array argument of a later row must equal the first row's.  A
 * constant is checked once; anything else is compared row by row, element
 * bytes against element bytes.
 */
static void
same_array(FunctionCallInfo fcinfo, BinsEO *eo, at_bins_kind kind, int argno, const char *fn, const char *what,
		   const double *want, int nwant)
{
	ArrayType  *a;

	/* only our own transition function hands us its object, but a wrong kind would not be caught below */
	if (eo->h.kind != kind)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the state belongs to %s", fn, bins_fn(eo->h.kind))));
	if (eo->stable)
		return;
	not_null(fcinfo, argno, fn, what);
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) > 1 ||
		ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != nwant ||
		memcmp(ARR_DATA_PTR(a), want, nwant * sizeof(double)) != 0)
		bad_arg(fn, psprintf("%s changed within one aggregate", what),
				"Pass the same array to every row of a group (a constant, or the same column value).");
}

#define RETURN_EO(eo) PG_RETURN_DATUM(EOHPGetRWDatum(&(eo)->hdr))

/* The state of bins(value, lo, hi, nbins): new, or checked against the arguments. */
static BinsEO *
equal_state(FunctionCallInfo fcinfo)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);
	double		lo,
				hi;
	int32		nbins;

	not_null(fcinfo, 2, "bins", "lo");
	not_null(fcinfo, 3, "bins", "hi");
	not_null(fcinfo, 4, "bins", "nbins");
	lo = PG_GETARG_FLOAT8(2);
	hi = PG_GETARG_FLOAT8(3);
	nbins = PG_GETARG_INT32(4);
	if (eo == NULL)
	{
		const char *msg = at_bins_check_equal(lo, hi, nbins);

		if (msg)
			bad_arg("bins", msg, "bins(value, lo, hi, nbins) counts lo <= value <= hi in nbins equal bins, e.g. bins(util, 0, 100, 10).");
		eo = new_state(fcinfo, "bins", AT_BINS_EQUAL, lo, hi, nbins, NULL, 0);
	}
	/* (a state of another kind has lo = hi = 0, which no arguments pass) */
	else if (lo != eo->h.lo || hi != eo->h.hi || nbins != eo->h.nbins)
		bad_arg("bins", "lo, hi and nbins changed within one aggregate", "Pass constants.");
	return eo;
}

/* The state of bins_at(value, edges). */
static BinsEO *
edges_state(FunctionCallInfo fcinfo)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);

	if (eo == NULL)
	{
		int			n;
		double	   *e = array_arg(fcinfo, 2, "bins_at", "edges", &n);
		const char *msg = at_bins_check_edges(e, n);

		if (msg)
			bad_arg("bins_at", msg, "Edges are at least two finite numbers in increasing order, e.g. '{0,1,2,4,8}'.");
		eo = new_state(fcinfo, "bins_at", AT_BINS_EDGES, 0, 0, 0, e, n);
		eo->stable = get_fn_expr_arg_stable(fcinfo->flinfo, 2);
	}
	else
		same_array(fcinfo, eo, AT_BINS_EDGES, 2, "bins_at", "edges", eo->h.params, eo->h.nparams);
	return eo;
}

/* bins(value, lo, hi, nbins) */
Datum
acmetrace_bins_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = equal_state(fcinfo);

	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&eo->h, PG_GETARG_FLOAT8(1), 0);
	RETURN_EO(eo);
}

/* bins_at(value, edges) */
Datum
acmetrace_bins_at_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = edges_state(fcinfo);

	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&eo->h, PG_GETARG_FLOAT8(1), 0);
	RETURN_EO(eo);
}

static BinsEO *
cdf_state(FunctionCallInfo fcinfo, int argno, const char *fn, at_bins_kind kind)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);

	if (eo == NULL)
	{
		int			n;
		double	   *t = array_arg(fcinfo, argno, fn, "thresholds", &n);
		const char *msg = at_bins_check_thresholds(t, n);

		if (msg)
			bad_arg(fn, msg, "Thresholds are numbers, e.g. ARRAY[1, 2, 4, 8].");
		eo = new_state(fcinfo, fn, kind, 0, 0, 0, t, n);
		eo->stable = get_fn_expr_arg_stable(fcinfo->flinfo, argno);
	}
	else
		same_array(fcinfo, eo, kind, argno, fn, "thresholds", eo->h.in, eo->h.nin);
	return eo;
}

/* cdf_at(value, thresholds) */
Datum
acmetrace_cdf_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = cdf_state(fcinfo, 2, "cdf_at", AT_BINS_CDF);

	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
		at_bins_add(&eo->h, PG_GETARG_FLOAT8(1), 0);
	RETURN_EO(eo);
}

/* weighted_cdf_at(value, weight, thresholds) */
Datum
acmetrace_wcdf_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = cdf_state(fcinfo, 3, "weighted_cdf_at", AT_BINS_WCDF);
	double		v,
				w;

	/* rows missing either value are dropped, as the notebook's dropna */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		RETURN_EO(eo);
	v = PG_GETARG_FLOAT8(1);
	w = PG_GETARG_FLOAT8(2);
	if (isnan(v) || isnan(w))
		RETURN_EO(eo);
	if (!(w >= 0) || isinf(w))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weighted_cdf_at: weight must be finite and not negative, got %g", w),
				 errhint("Weights are amounts such as GPU seconds; leave other rows out.")));
	if (isinf(eo->h.wtotal + w))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("weighted_cdf_at: the total weight overflows float8")));
	at_bins_add(&eo->h, v, w);
	RETURN_EO(eo);
}

static inline int32
slot_of_value(const at_bins *h, double v)
{
	switch (h->kind)
	{
		case AT_BINS_EQUAL:
			return at_bins_equal_slot(v, h->lo, h->hi, h->nbins);
		case AT_BINS_EDGES:
			return at_bins_edges_slot(v, h->params, h->nparams);
		default:
			return at_bins_cdf_slot(v, h->params, h->nparams);
	}
}

#define SLOT_TABLE_MAX (1 << 20)

/*
 * The slot table covering the integers of a block (scale, [mlo, mhi]), or
 * NULL when it would be too big.  Each entry is the slot of (double) m /
 * 10^scale, the value the block decodes to, so counts are the same as
 * value by value.  Kept in the state's context, rebuilt when a block falls
 * outside it.
 */
static const int32 *
slot_table(BinsEO *eo, int32 scale, int64 mlo, int64 mhi)
{
	int64		lo,
				hi;

	if (eo->slot_of != NULL && eo->slot_scale == scale && mlo >= eo->slot_lo &&
		mhi < eo->slot_lo + eo->slot_n)
		return eo->slot_of;
	lo = mlo;
	hi = mhi;
	/* widen to the old table's range when the union stays small */
	if (eo->slot_of != NULL && eo->slot_scale == scale &&
		Max(hi, eo->slot_lo + eo->slot_n - 1) - Min(lo, eo->slot_lo) < SLOT_TABLE_MAX)
	{
		lo = Min(lo, eo->slot_lo);
		hi = Max(hi, eo->slot_lo + eo->slot_n - 1);
	}
	if (hi - lo >= SLOT_TABLE_MAX)
		return NULL;
	if (eo->slot_of != NULL)
		pfree(eo->slot_of);
	eo->slot_of = MemoryContextAlloc(eo->hdr.eoh_context, sizeof(int32) * (hi - lo + 1));
	for (int64 m = lo; m <= hi; m++)
		eo->slot_of[m - lo] = slot_of_value(&eo->h, (double) m / at_samples_p10[scale]);
	eo->slot_lo = lo;
	eo->slot_n = (int32) (hi - lo + 1);
	eo->slot_scale = scale;
	return eo->slot_of;
}

/*
 * Every value of a samples block into h, as the value aggregates would
 * count them one by one: a chunk of one repeated value costs one slot
 * lookup; blocks of integers / 10^k over a range under a million (GPU_UTIL's
 * 0..100, 3-decimal percents) look each slot up in a table.
 */
static void
add_samples(BinsEO *eo, Datum d)
{
	at_bins    *h = &eo->h;
	size_t		len;
	const unsigned char *b;
	at_samples_info info;
	at_samples_iter it;
	const int32 *table = NULL;
	int			k,
				constant;
	int32		wn,
				wscale;
	const double *wv;
	const int64 *wm;
	int64		wlo,
				whi;

	/* a window from samples_between: its decoded arrays, inside its block's bounds */
	if (samples_window_arrays(d, &wn, &wv, &wm, &wscale, &wlo, &whi))
	{
		if (wm != NULL && wn > 0)
		{
			table = slot_table(eo, wscale, wlo, whi);
			if (table != NULL)
			{
				int64		tlo = eo->slot_lo;

				at_bins_count_slots(h->counts, h->nslots, table, tlo, wm, wn);
				h->n += wn;
				return;
			}
		}
		if (wv != NULL)
		{
			for (int32 i = 0; i < wn; i++)
				at_bins_add(h, wv[i], 0);
			return;
		}
		/* else: integers over too wide a range, read as a block below */
	}
	b = samples_bytes(d, &len);
	at_samples_info_read(b, &info);
	if (info.scale >= 0)
	{
		/* a block of few distinct values stores their counts: no decoding */
		int64		cm[AT_SAMPLES_COUNTS_MAX],
					cc[AT_SAMPLES_COUNTS_MAX];
		int			nc = at_samples_counts(b, cm, cc);

		if (nc > 0)
		{
			for (int i = 0; i < nc; i++)
				h->counts[slot_of_value(h, (double) cm[i] / at_samples_p10[info.scale])] += cc[i];
			h->n += info.n;
			return;
		}
	}
	at_samples_iter_init(&it, b, len);
	if (info.scale >= 0)
	{
		/* (one more each side: min * 10^k may round to the next integer) */
		int64		mlo = llround(info.min * at_samples_p10[info.scale]) - 1;
		int64		mhi = llround(info.max * at_samples_p10[info.scale]) + 1;

		table = slot_table(eo, info.scale, mlo, mhi);
	}
	if (table != NULL)
	{
		int64		m[AT_SAMPLES_CHUNK];
		int64		lo = eo->slot_lo;

		while ((k = at_samples_iter_next_scaled(&it, m, &constant)) > 0)
		{
			if (constant)
				h->counts[table[m[0] - lo]] += k;
			else
				at_bins_count_slots(h->counts, h->nslots, table, lo, m, k);
			h->n += k;
		}
		return;
	}
	{
		double		v[AT_SAMPLES_CHUNK];

		while ((k = at_samples_iter_next(&it, v, &constant)) > 0)
		{
			if (constant)
			{
				h->counts[slot_of_value(h, v[0])] += k;
				h->n += k;
			}
			else
				for (int i = 0; i < k; i++)
					at_bins_add(h, v[i], 0);
		}
	}
}

/* bins(samples, lo, hi, nbins) */
Datum
acmetrace_bins_samples_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = equal_state(fcinfo);

	if (!PG_ARGISNULL(1))
		add_samples(eo, PG_GETARG_DATUM(1));
	RETURN_EO(eo);
}

/* bins_at(samples, edges) */
Datum
acmetrace_bins_at_samples_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = edges_state(fcinfo);

	if (!PG_ARGISNULL(1))
		add_samples(eo, PG_GETARG_DATUM(1));
	RETURN_EO(eo);
}

/* cdf_at(samples, thresholds) */
Datum
acmetrace_cdf_samples_trans(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = cdf_state(fcinfo, 2, "cdf_at", AT_BINS_CDF);

	if (!PG_ARGISNULL(1))
		add_samples(eo, PG_GETARG_DATUM(1));
	RETURN_EO(eo);
}

/*
 * (bins_state, bins_state) -> bins_state, not strict: arg 0 is updated in
 * place when it is our read-write object, else copied into a new one under
 * the aggregate's context; arg 1 is only read.
 */
Datum
acmetrace_bins_combine(PG_FUNCTION_ARGS)
{
	BinsEO	   *eo = at_eo_rw(fcinfo, 0, &bins_methods);
	at_bins		tmp;
	const at_bins *src;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (eo == NULL)
	{
		Datum		from = PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0);
		struct varlena *v = (struct varlena *) DatumGetPointer(from);

		eo = new_eo(fcinfo, "bins combine");
		if (VARATT_IS_EXTERNAL_EXPANDED(v) && DatumGetEOHP(from)->eoh_methods == &bins_methods)
		{
			if (at_bins_copy(&eo->h, &((BinsEO *) DatumGetEOHP(from))->h, at_cxt_mem, eo->hdr.eoh_context) != 0)
				no_memory();
		}
		else
		{
			v = pg_detoast_datum_packed(v);
			bins_read(&eo->h, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), eo->hdr.eoh_context, ERRCODE_DATA_CORRUPTED);
		}
		if (PG_ARGISNULL(0))
			RETURN_EO(eo);
	}
	src = bins_view(PG_GETARG_DATUM(1), &tmp);
	merge_into(&eo->h, src);
	bins_view_done(src, &tmp);
	RETURN_EO(eo);
}

/* The 0.1.0 name of the combine function (internal, internal). */
Datum
acmetrace_hist_combine(PG_FUNCTION_ARGS)
{
	return acmetrace_bins_combine(fcinfo);
}

/* 0.1.0's serial function: the same bytes as the flat bins_state. */
Datum
acmetrace_hist_serialize(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	Datum		out;

	at_agg_context(fcinfo, "bins serialize");
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	out = bins_flat(h);
	bins_view_done(h, &tmp);
	PG_RETURN_DATUM(out);
}

/*
 * 0.1.0's deserialize: an object that combine only reads, so it lives in
 * the current (per-input-tuple) context, as the old state did, rather than
 * one per partial state in the aggregate's.
 */
Datum
acmetrace_hist_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	BinsEO	   *eo;

	at_agg_context(fcinfo, "bins deserialize");
	eo = at_eo_new(CurrentMemoryContext, &bins_methods, sizeof(BinsEO), "acmetrace bins_state");
	bins_read(&eo->h, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), eo->hdr.eoh_context,
			  ERRCODE_INVALID_BINARY_REPRESENTATION);
	RETURN_EO(eo);
}

/* bigint[] indexed 0..nslots-1: 0 below, then the bins, then above. */
Datum
acmetrace_bins_final(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	Datum	   *elems;
	int			dims[1],
				lbs[1] = {0};
	ArrayType  *out;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	dims[0] = h->nslots;
	elems = palloc(h->nslots * sizeof(Datum));
	for (int s = 0; s < h->nslots; s++)
		elems[s] = Int64GetDatum(h->counts[s]);
	out = construct_md_array(elems, NULL, 1, dims, lbs, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	bins_view_done(h, &tmp);
	PG_RETURN_ARRAYTYPE_P(out);
}

/* float8[] of percents, one per threshold as given; NULL with no values (weight). */
Datum
acmetrace_cdf_final(PG_FUNCTION_ARGS)
{
	at_bins		tmp;
	const at_bins *h;
	double	   *out,
			   *scratch;
	Datum	   *elems;
	ArrayType  *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	h = bins_view(PG_GETARG_DATUM(0), &tmp);
	if (h->kind != AT_BINS_CDF && h->kind != AT_BINS_WCDF)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_bins_cdf_final: the state belongs to %s, not cdf_at or weighted_cdf_at", bins_fn(h->kind))));
	if (h->n == 0 || (h->kind == AT_BINS_WCDF && h->wtotal == 0))
	{
		bins_view_done(h, &tmp);
		PG_RETURN_NULL();
	}
	out = palloc(h->nin * sizeof(double));
	scratch = palloc(h->nparams * sizeof(double));
	at_bins_cdf(h, out, scratch);
	elems = palloc(h->nin * sizeof(Datum));
	for (int i = 0; i < h->nin; i++)
		elems[i] = Float8GetDatum(out[i]);
	result = construct_array(elems, h->nin, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	bins_view_done(h, &tmp);
	PG_RETURN_ARRAYTYPE_P(result);
}
