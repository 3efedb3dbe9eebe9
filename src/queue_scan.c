/*
 * queue_scan.c: acmetrace._queue_sketches(cluster, gpu_jobs_only), one pass
 * over acmetrace.jobs sketching wait_s per job type.
 *
 * The same answer as
 *   SELECT type, delay_sketch_agg(wait_s) FROM acmetrace.jobs
 *    WHERE cluster = $1 AND wait_s >= 0 [AND gpu_num > 0] GROUP BY type
 * without the executor's per-row expression and hash-table work: the scan
 * reads the four columns it needs and finds the type among a handful of
 * groups by comparing bytes.  It checks SELECT privilege and refuses to run
 * when row-level security applies (queue_percentiles then runs the SQL).
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "sketch_type.h"

PG_FUNCTION_INFO_V1(acmetrace_queue_sketches);

typedef struct QGroup
{
	bool		isnull;			/* the NULL type */
	int			len;
	char	   *name;
	at_sketch	sk;
} QGroup;

/* Byte equality of short strings, without a libc call per row. */
static inline bool
same_bytes(const char *a, const char *b, int n)
{
	for (int k = 0; k < n; k++)
		if (a[k] != b[k])
			return false;
	return true;
}

static AttrNumber
column(Oid relid, const char *name)
{
	AttrNumber	a = get_attnum(relid, name);

	if (a == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("acmetrace.jobs has no column \"%s\"", name),
				 errhint("Reinstall the extension: DROP EXTENSION acmetrace; CREATE EXTENSION acmetrace;")));
	return a;
}

Datum
acmetrace_queue_sketches(PG_FUNCTION_ARGS)
{
	text	   *want = PG_GETARG_TEXT_PP(0);
	bool		gpu_only = PG_GETARG_BOOL(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = get_relname_relid("jobs", get_namespace_oid("acmetrace", false));
	MemoryContext cxt,
				old;
	Relation	rel;
	TupleTableSlot *slot;
	TableScanDesc scan;
	AttrNumber	a_cluster,
				a_type,
				a_wait,
				a_gpu,
				natts;
	int			want_len = VARSIZE_ANY_EXHDR(want);
	const char *want_data = VARDATA_ANY(want);
	QGroup	   *groups;
	int			ngroups = 0,
				cap = 16;
	uint64		rows = 0;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("acmetrace.jobs does not exist")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, "jobs");
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("acmetrace._queue_sketches does not apply row-level security"),
				 errhint("Call acmetrace.queue_percentiles, which runs the SQL form when row-level security is active.")));

	InitMaterializedSRF(fcinfo, 0);
	a_cluster = column(relid, "cluster");
	a_type = column(relid, "type");
	a_wait = column(relid, "wait_s");
	a_gpu = column(relid, "gpu_num");
	/* deform no further than the last column this call reads */
	natts = Max(Max(a_cluster, a_type), a_wait);
	if (gpu_only)
		natts = Max(natts, a_gpu);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "acmetrace queue sketches", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	groups = palloc(cap * sizeof(QGroup));

	rel = table_open(relid, AccessShareLock);
	slot = table_slot_create(rel, NULL);
	scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		Datum	   *v;
		bool	   *isnull;
		double		w;
		struct varlena *c;
		bool		tnull;
		int			tlen = 0;
		const char *tdata = NULL;
		QGroup	   *g = NULL;
		at_sk_err	e;

		if ((++rows & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		slot_getsomeattrs(slot, natts);
		v = slot->tts_values;
		isnull = slot->tts_isnull;
		if (isnull[a_wait - 1] || isnull[a_cluster - 1])
			continue;
		w = DatumGetFloat8(v[a_wait - 1]);
		if (!(w >= 0))
			continue;
		if (gpu_only && (isnull[a_gpu - 1] || DatumGetInt32(v[a_gpu - 1]) <= 0))
			continue;
		/* names are short, so stored inline; detoast just in case */
		c = (struct varlena *) DatumGetPointer(v[a_cluster - 1]);
		if (unlikely(VARATT_IS_EXTENDED(c) && !VARATT_IS_SHORT(c)))
			c = pg_detoast_datum_packed(c);
		if (VARSIZE_ANY_EXHDR(c) != want_len || !same_bytes(VARDATA_ANY(c), want_data, want_len))
			continue;
		tnull = isnull[a_type - 1];
		if (!tnull)
		{
			struct varlena *t = (struct varlena *) DatumGetPointer(v[a_type - 1]);

			if (unlikely(VARATT_IS_EXTENDED(t) && !VARATT_IS_SHORT(t)))
				t = pg_detoast_datum_packed(t);

			tlen = VARSIZE_ANY_EXHDR(t);
			tdata = VARDATA_ANY(t);
		}
		for (int k = 0; k < ngroups; k++)
			if (groups[k].isnull == tnull && groups[k].len == tlen &&
				(tnull || same_bytes(groups[k].name, tdata, tlen)))
			{
				g = &groups[k];
				break;
			}
		if (g == NULL)
		{
			if (ngroups == cap)
			{
				cap *= 2;
				groups = repalloc(groups, cap * sizeof(QGroup));
			}
			g = &groups[ngroups++];
			g->isnull = tnull;
			g->len = tlen;
			g->name = tnull ? NULL : pnstrdup(tdata, tlen);
			at_sk_init(&g->sk, AT_SK_DEFAULT_ERROR, sk_mem, cxt);
		}
		e = at_sk_add(&g->sk, w);
		if (e != AT_SK_OK)
			sk_raise(e, w);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	table_close(rel, AccessShareLock);

	MemoryContextSwitchTo(old);
	for (int k = 0; k < ngroups; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {groups[k].isnull, false};

		values[0] = groups[k].isnull ? (Datum) 0 : PointerGetDatum(cstring_to_text_with_len(groups[k].name, groups[k].len));
		values[1] = PointerGetDatum(sk_flatten(&groups[k].sk));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextDelete(cxt);
	return (Datum) 0;
}
