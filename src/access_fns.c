/*
 * access_fns.c: row-level security by cluster (src/install/trace/access.sql).
 * The policy of every table keyed by cluster calls cluster_visible per row;
 * it reads the clusters granted to the current role once per query, into
 * fn_extra, so a policy costs a few comparisons per row rather than a query.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

typedef struct access_cache
{
	bool		every;			/* '*' is granted: every cluster */
	int			n;
	text	  **clusters;		/* the granted clusters, in fn_mcxt */
} access_cache;

static access_cache *
access_load(FunctionCallInfo fcinfo)
{
	MemoryContext fmcxt = fcinfo->flinfo->fn_mcxt;
	access_cache *c;
	int			rc;

	int			nest = -1;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "acmetrace: SPI_connect failed");
	/*
	 * On a Citus worker this runs inside a shard's query, and the grants are
	 * a reference table with a placement on every node: Citus refuses such
	 * a nested query unless told it is allowed, for this read only.
	 */
	if (GetConfigOption("citus.allow_nested_distributed_execution", true, false) != NULL)
	{
		nest = NewGUCNestLevel();
		(void) set_config_option("citus.allow_nested_distributed_execution", "on", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	/* the grants' own policy keeps the rows that apply to this role */
	rc = SPI_execute("SELECT DISTINCT a.cluster FROM acmetrace.cluster_access a", true, 0);
	if (nest >= 0)
		AtEOXact_GUC(true, nest);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "acmetrace: reading acmetrace.cluster_access failed: %s", SPI_result_code_string(rc));
	c = MemoryContextAllocZero(fmcxt, sizeof(access_cache));
	c->clusters = MemoryContextAllocZero(fmcxt, sizeof(text *) * (SPI_processed + 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext old;
		text	   *t;

		if (isnull)
			continue;
		t = DatumGetTextPP(d);
		if (VARSIZE_ANY_EXHDR(t) == 1 && *VARDATA_ANY(t) == '*')
			c->every = true;
		old = MemoryContextSwitchTo(fmcxt);
		c->clusters[c->n++] = DatumGetTextPCopy(d);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return c;
}

PG_FUNCTION_INFO_V1(acmetrace_cluster_visible);

/* acmetrace_internal.cluster_visible(cluster): strict */
Datum
acmetrace_cluster_visible(PG_FUNCTION_ARGS)
{
	text	   *cl = PG_GETARG_TEXT_PP(0);
	access_cache *c = fcinfo->flinfo->fn_extra;
	size_t		len = VARSIZE_ANY_EXHDR(cl);

	if (c == NULL)
		fcinfo->flinfo->fn_extra = c = access_load(fcinfo);
	if (c->every)
		PG_RETURN_BOOL(true);
	/* exact bytes: cluster names are compared as the key compares them */
	for (int i = 0; i < c->n; i++)
	{
		text	   *g = c->clusters[i];

		if (VARSIZE_ANY_EXHDR(g) == len && memcmp(VARDATA_ANY(g), VARDATA_ANY(cl), len) == 0)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}
