/*
 * checks.c: the errors the SQL surface raises on purpose, from C so that
 * they reach the user without context lines naming internal helpers, and
 * the one check behind every "cluster is not loaded".
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "glue.h"

/*
 * An error raised on purpose, at the level of the user's call: the context
 * lines of the SQL and PL/pgSQL functions it passed through name internal
 * helpers and say nothing the message does not, so they are left out.
 */
void
at_raise_plain(int sqlstate, const char *msg, const char *detail, const char *hint)
{
	error_context_stack = NULL;
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg_internal("%s", msg),
			 detail ? errdetail_internal("%s", detail) : 0,
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}

PG_FUNCTION_INFO_V1(acmetrace_raise);

/* acmetrace_internal.raise(sqlstate, message, hint, detail): never returns. */
Datum
acmetrace_raise(PG_FUNCTION_ARGS)
{
	char	   *code = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *msg = PG_ARGISNULL(1) ? "(no message)" : text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *hint = PG_NARGS() > 2 && !PG_ARGISNULL(2) ? text_to_cstring(PG_GETARG_TEXT_PP(2)) : NULL;
	char	   *detail = PG_NARGS() > 3 && !PG_ARGISNULL(3) ? text_to_cstring(PG_GETARG_TEXT_PP(3)) : NULL;

	/* an error class: not success, warning or no-data (00, 01, 02) */
	if (code == NULL || strlen(code) != 5 ||
		strspn(code, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != 5 ||
		(code[0] == '0' && code[1] >= '0' && code[1] <= '2'))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid SQLSTATE \"%s\" for an error", code ? code : "NULL"),
				 errhint("Five digits or upper-case letters, of an error class, e.g. 22023.")));
	at_raise_plain(MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4]), msg, detail, hint);
	PG_RETURN_BOOL(false);
}

/* "a, b, c" from a one-column query, or NULL when it returns no row. */
static char *
name_list(const char *query, int nargs, Oid *types, Datum *values)
{
	StringInfoData buf;

	if (SPI_execute_with_args(query, nargs, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed");
	if (SPI_processed == 0)
		return NULL;
	initStringInfo(&buf);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		if (i >= 20)
		{
			appendStringInfo(&buf, " and %llu more", (unsigned long long) (SPI_processed - i));
			break;
		}
		appendStringInfo(&buf, "%s%s", i ? ", " : "", v ? v : "NULL");
	}
	return buf.data;
}

PG_FUNCTION_INFO_V1(acmetrace_known_cluster);

/*
 * A name with upper case that is not loaded: names compare exactly, and
 * the loaders' names are lower case ('Seren' is not seren).  Prepends that
 * to hint, naming the lower-case cluster when it is loaded (otherwise only
 * for a name of letters, digits, '_', '-' and '.').  Inside SPI.
 */
static char *
case_hint(const char *cluster, char *hint)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	char	   *lower;
	bool		upper = false;
	bool		word = true;

	for (const char *p = cluster; *p; p++)
	{
		upper |= (*p != pg_tolower((unsigned char) *p));
		word &= (isalnum((unsigned char) *p) || *p == '_' || *p == '-' || *p == '.');
	}
	if (!upper)
		return hint;
	lower = pstrdup(cluster);
	for (char *p = lower; *p; p++)
		*p = pg_tolower((unsigned char) *p);
	values[0] = CStringGetTextDatum(lower);
	if (SPI_execute_with_args("SELECT 1 FROM acmetrace.clusters WHERE cluster = $1",
							  1, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed > 0)
		return psprintf("Cluster names are case-sensitive: did you mean \"%s\"? %s", lower, hint);
	return word ? psprintf("Cluster names are case-sensitive (the loaders' are lower case). %s", hint) : hint;
}

/*
 * acmetrace_internal.known_cluster(cluster, metric): true, or the uniform
 * error for a cluster that is not loaded (42704, hint listing the loaded
 * ones).  NULL cluster means every cluster: true.  With a metric, loaded
 * means holding samples of that metric.
 */
Datum
acmetrace_known_cluster(PG_FUNCTION_ARGS)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	char	   *cluster;
	char	   *metric = NULL;
	char	   *loaded;
	char	   *msg;
	char	   *hint;
	bool		found;
	MemoryContext caller;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(true);
	values[0] = PG_GETARG_DATUM(0);
	cluster = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
	{
		metric = text_to_cstring(PG_GETARG_TEXT_PP(1));
		for (char *p = metric; *p; p++)
			*p = pg_toupper((unsigned char) *p);
		values[1] = CStringGetTextDatum(metric);
	}

	caller = CurrentMemoryContext;
	SPI_connect();
	if (metric == NULL)
		found = SPI_execute_with_args("SELECT 1 FROM acmetrace.clusters WHERE cluster = $1",
									  1, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed > 0;
	else
		found = SPI_execute_with_args("SELECT 1 FROM acmetrace.utilization_blocks WHERE metric = $2 AND cluster = $1 LIMIT 1",
									  2, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed > 0;
	if (found)
	{
		SPI_finish();
		PG_RETURN_BOOL(true);
	}

	if (metric == NULL)
	{
		loaded = name_list("SELECT cluster FROM acmetrace.clusters ORDER BY cluster COLLATE \"C\"", 0, NULL, NULL);
		msg = psprintf("cluster \"%s\" is not loaded", cluster);
		hint = loaded ? psprintf("Loaded clusters: %s.", loaded)
			: pstrdup("No cluster is loaded yet: load a trace (see the README), or SELECT acmetrace.load_generated('synth', 'seren', 10000).");
	}
	else
	{
		char	   *metrics = name_list("SELECT DISTINCT metric FROM acmetrace.utilization_blocks WHERE cluster = $1 ORDER BY 1",
										1, types, values);

		loaded = name_list("SELECT DISTINCT cluster FROM acmetrace.utilization_blocks WHERE metric = $2 ORDER BY 1",
						   2, types, values);
		/* a cluster with jobs but no such samples is loaded, just not with them */
		if (metrics != NULL ||
			(SPI_execute_with_args("SELECT 1 FROM acmetrace.clusters WHERE cluster = $1",
								   1, types, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed > 0))
			msg = psprintf("cluster \"%s\" has no %s samples", cluster, metric);
		else
			msg = psprintf("cluster \"%s\" is not loaded", cluster);
		if (metrics != NULL)
			hint = psprintf("Its metrics: %s.%s%s%s", metrics, loaded ? " Clusters with " : "",
							loaded ? metric : "", loaded ? psprintf(" samples: %s.", loaded) : "");
		else if (loaded)
			hint = psprintf("Clusters with %s samples: %s.", metric, loaded);
		else
			hint = psprintf("No cluster holds %s samples: load a utilization file (see the README).", metric);
	}
	hint = case_hint(cluster, hint);
	/* SPI_finish frees what was built in its context: keep copies */
	msg = MemoryContextStrdup(caller, msg);
	hint = MemoryContextStrdup(caller, hint);
	SPI_finish();
	at_raise_plain(ERRCODE_UNDEFINED_OBJECT, msg, NULL, hint);
	PG_RETURN_BOOL(false);
}
