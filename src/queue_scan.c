/*
 * queue_scan.c: acmetrace._queue_sketches(cluster, gpu_jobs_only), one pass
 * over acmetrace.jobs sketching wait_s per job type.
 *
 * The same answer as
 *   SELECT type, delay_sketch_agg(wait_s) FROM acmetrace.jobs
 *    WHERE cluster = $1 AND wait_s >= 0 [AND gpu_num > 0] GROUP BY type
 * without the executor's per-row expression and hash-table work: the scan
 * takes heap tuples as they lie in the page, reads only the columns it
 * needs, and finds the type among a handful of groups by comparing bytes.
 * It locks the table, checks its kind, columns and SELECT privilege, and
 * refuses to run when row-level security applies (queue_percentiles then
 * runs the SQL).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "glue.h"
#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_queue_sketches);

typedef struct QGroup
{
	bool		isnull;			/* the NULL type */
	int			len;
	char	   *name;
	at_sketch	sk;
} QGroup;

typedef struct QScan
{
	AttrNumber	a_cluster,
				a_type,
				a_wait,
				a_gpu;
	bool		gpu_only;
	int			want_len;
	const char *want_data;
	MemoryContext cxt;			/* groups, names, sketches */
	MemoryContext rowcxt;		/* detoasted names, reset as the scan goes */
	QGroup	   *groups;
	int			ngroups;
	int			cap;
	uint8		recent[64];		/* group + 1 last seen per name hash, 0 = none */
} QScan;

/* Byte equality of short strings, without a libc call per row. */
static inline bool
same_bytes(const char *a, const char *b, int n)
{
	for (int k = 0; k < n; k++)
		if (a[k] != b[k])
			return false;
	return true;
}

/* The column's number, checking its type on the locked relation. */
static AttrNumber
column(TupleDesc desc, const char *name, Oid type)
{
	for (int a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
		{
			if (att->atttypid != type)
				break;
			return (AttrNumber) (a + 1);
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("acmetrace.jobs has no column \"%s\" of type %s", name, format_type_be(type)),
			 errhint("Reinstall the extension: DROP EXTENSION acmetrace; CREATE EXTENSION acmetrace;")));
	return InvalidAttrNumber;	/* keep the compiler quiet */
}

/*
 * A text value in plain (not compressed, not out-of-line) form; a detoasted
 * copy goes to rowcxt, which the scan resets every 1,024 rows.
 */
static inline struct varlena *
plain_text(Datum d, MemoryContext rowcxt)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (unlikely(VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)))
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		v = pg_detoast_datum_packed(v);
		MemoryContextSwitchTo(old);
	}
	return v;
}

/* One row's first columns: add its wait to its type's sketch. */
static inline void
add_row(QScan *q, Datum *v, bool *isnull)
{
	double		w;
	struct varlena *c;
	bool		tnull;
	int			tlen = 0;
	const char *tdata = NULL;
	QGroup	   *g = NULL;
	int			h;
	at_sk_err	e;

	if (isnull[q->a_wait - 1] || isnull[q->a_cluster - 1])
		return;
	w = DatumGetFloat8(v[q->a_wait - 1]);
	if (!(w >= 0))
		return;
	if (q->gpu_only && (isnull[q->a_gpu - 1] || DatumGetInt32(v[q->a_gpu - 1]) <= 0))
		return;
	/* names are short and stored inline; long ones are detoasted */
	c = plain_text(v[q->a_cluster - 1], q->rowcxt);
	if (VARSIZE_ANY_EXHDR(c) != q->want_len || !same_bytes(VARDATA_ANY(c), q->want_data, q->want_len))
		return;
	tnull = isnull[q->a_type - 1];
	if (!tnull)
	{
		struct varlena *t = plain_text(v[q->a_type - 1], q->rowcxt);

		tlen = VARSIZE_ANY_EXHDR(t);
		tdata = VARDATA_ANY(t);
	}
	/* a handful of types: try the group last seen with this length and
	 * first and last byte, then search them all (unsigned: a type of 300 MB
	 * would overflow int and index recent[] below 0) */
	h = tnull ? 63 : (int) (((uint32) tlen * 7 + (tlen ? (uint8) tdata[0] + 3 * (uint8) tdata[tlen - 1] : 0)) % 63);
	if (q->recent[h] != 0)
	{
		g = &q->groups[q->recent[h] - 1];
		if (!(g->isnull == tnull && g->len == tlen && (tnull || same_bytes(g->name, tdata, tlen))))
			g = NULL;
	}
	for (int k = 0; g == NULL && k < q->ngroups; k++)
		if (q->groups[k].isnull == tnull && q->groups[k].len == tlen &&
			(tnull || same_bytes(q->groups[k].name, tdata, tlen)))
			g = &q->groups[k];
	if (g == NULL)
	{
		if (q->ngroups == q->cap)
		{
			q->cap *= 2;
			q->groups = repalloc(q->groups, q->cap * sizeof(QGroup));	/* in q->cxt */
		}
		g = &q->groups[q->ngroups++];
		g->isnull = tnull;
		g->len = tlen;
		g->name = NULL;
		if (!tnull)
		{
			g->name = MemoryContextAlloc(q->cxt, tlen + 1);
			memcpy(g->name, tdata, tlen);
			g->name[tlen] = '\0';
		}
		at_sk_init(&g->sk, AT_SK_DEFAULT_ERROR, at_cxt_mem, q->cxt);
	}
	if (g - q->groups < 255)
		q->recent[h] = (uint8) (g - q->groups + 1);
	e = at_sk_add_fast(&g->sk, w);
	if (unlikely(e != AT_SK_OK))
		sk_raise(e, w);
}

/*
 * The first natts columns of a heap tuple, as slot_deform_heap_tuple reads
 * them, without storing the tuple in a slot (which pins its buffer).
 */
static inline void
deform_prefix(HeapTuple tup, TupleDesc desc, int natts, Datum *v, bool *isnull)
{
	HeapTupleHeader th = tup->t_data;
	bool		hasnulls = HeapTupleHasNulls(tup);
	bits8	   *bp = th->t_bits;
	char	   *tp = (char *) th + th->t_hoff;
	int			tupnatts = HeapTupleHeaderGetNatts(th);
	uint32		off = 0;

	for (int a = 0; a < natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);

		if (a >= tupnatts)
		{
			v[a] = getmissingattr(desc, a + 1, &isnull[a]);
			continue;
		}
		if (hasnulls && att_isnull(a, bp))
		{
			v[a] = (Datum) 0;
			isnull[a] = true;
			continue;
		}
		isnull[a] = false;
		if (att->attlen == -1)
			off = att_align_pointer(off, att->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, att->attalign);
		v[a] = fetchatt(att, tp + off);
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
}

Datum
acmetrace_queue_sketches(PG_FUNCTION_ARGS)
{
	text	   *want = PG_GETARG_TEXT_PP(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	TupleDesc	desc;
	TableScanDesc scan;
	AttrNumber	natts;
	QScan		q;
	uint64		rows = 0;

	/* lock first, then look at what was locked */
	rel = table_openrv(makeRangeVar("acmetrace", "jobs", -1), AccessShareLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("acmetrace.jobs is not a plain table")));
	if (pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, "jobs");
	if (check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("acmetrace._queue_sketches does not apply row-level security"),
				 errhint("Call acmetrace.queue_percentiles, which runs the SQL form when row-level security is active.")));
	desc = RelationGetDescr(rel);

	InitMaterializedSRF(fcinfo, 0);
	memset(&q, 0, sizeof(q));
	q.a_cluster = column(desc, "cluster", TEXTOID);
	q.a_type = column(desc, "type", TEXTOID);
	q.a_wait = column(desc, "wait_s", FLOAT8OID);
	q.a_gpu = column(desc, "gpu_num", INT4OID);
	q.gpu_only = PG_GETARG_BOOL(1);
	q.want_len = VARSIZE_ANY_EXHDR(want);
	q.want_data = VARDATA_ANY(want);
	/* deform no further than the last column this call reads */
	natts = Max(Max(q.a_cluster, q.a_type), q.a_wait);
	if (q.gpu_only)
		natts = Max(natts, q.a_gpu);

	q.cxt = AllocSetContextCreate(CurrentMemoryContext, "acmetrace queue sketches", ALLOCSET_DEFAULT_SIZES);
	q.rowcxt = AllocSetContextCreate(q.cxt, "acmetrace queue rows", ALLOCSET_DEFAULT_SIZES);
	q.cap = 16;
	q.groups = MemoryContextAlloc(q.cxt, q.cap * sizeof(QGroup));

	scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
	if (rel->rd_tableam == GetHeapamTableAmRoutine())
	{
		Datum	   *v = MemoryContextAlloc(q.cxt, natts * sizeof(Datum));
		bool	   *isnull = MemoryContextAlloc(q.cxt, natts * sizeof(bool));
		HeapTuple	tup;

		while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		{
			if ((++rows & 0x3ff) == 0)
			{
				CHECK_FOR_INTERRUPTS();
				MemoryContextReset(q.rowcxt);
			}
			deform_prefix(tup, desc, natts, v, isnull);
			add_row(&q, v, isnull);
		}
	}
	else
	{
		/* another table access method: go through a slot */
		TupleTableSlot *slot = table_slot_create(rel, NULL);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			if ((++rows & 0x3ff) == 0)
			{
				CHECK_FOR_INTERRUPTS();
				MemoryContextReset(q.rowcxt);
			}
			slot_getsomeattrs(slot, natts);
			add_row(&q, slot->tts_values, slot->tts_isnull);
		}
		ExecDropSingleTupleTableSlot(slot);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);

	for (int k = 0; k < q.ngroups; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {q.groups[k].isnull, false};

		values[0] = q.groups[k].isnull ? (Datum) 0 :
			PointerGetDatum(cstring_to_text_with_len(q.groups[k].name, q.groups[k].len));
		values[1] = PointerGetDatum(sk_flatten(&q.groups[k].sk));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextDelete(q.cxt);
	return (Datum) 0;
}
