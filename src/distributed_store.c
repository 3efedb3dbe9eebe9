/*
 * distributed_store.c: what the loaders' writes (utilization_store.c) do
 * differently when acmetrace.distribute has put the warehouse on Citus:
 * whether the blocks are distributed, and the hour rollup the blocks'
 * statement triggers keep on one server.
 */
#include "postgres.h"

#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"

#include "utilization_store.h"

bool
util_blocks_distributed(util_store *st)
{
	int			rc;

	if (st->distributed == 0)
	{
		st->distributed = 1;
		if (OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		{
			rc = SPI_execute("SELECT 1 FROM pg_catalog.pg_dist_partition "
							 "WHERE logicalrelid = 'acmetrace.utilization_blocks'::pg_catalog.regclass", true, 1);
			if (rc != SPI_OK_SELECT)
				elog(ERROR, "acmetrace: reading Citus's tables failed: %s", SPI_result_code_string(rc));
			if (SPI_processed > 0)
				st->distributed = 2;
		}
	}
	return st->distributed == 2;
}

void
util_store_hours(util_store *st)
{
	Datum		args[4];
	Oid			types[4] = {TEXTOID, TEXTOID, DATEOID, DATEOID};
	int			rc;
	bool		isnull;
	bool		kept;

	if (!st->any_day)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "acmetrace: SPI_connect failed");
	/* on one server the blocks' statement triggers keep the hours */
	rc = SPI_execute("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t "
					 "WHERE t.tgrelid = 'acmetrace.utilization_blocks'::pg_catalog.regclass "
					 "AND t.tgname = 'hours_insert')", true, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "acmetrace: reading the triggers of the blocks failed: %s", SPI_result_code_string(rc));
	kept = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (!kept)
	{
		args[0] = CStringGetTextDatum(st->metric);
		args[1] = CStringGetTextDatum(st->cluster);
		args[2] = DateADTGetDatum(st->day_lo);
		args[3] = DateADTGetDatum(st->day_hi);
		rc = SPI_execute_with_args("SELECT acmetrace_internal.utilization_hours_rebuild($1, $2, $3, $4)",
								   4, types, args, NULL, false, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "acmetrace: rebuilding the hours failed: %s", SPI_result_code_string(rc));
	}
	SPI_finish();
}
