/*
 * utilization_fns.c: the hour summaries of a day block
 * (acmetrace_internal.samples_hours), which the blocks' trigger stores
 * beside every block written and acmetrace.v_hourly_utilization adds up
 * without decoding a sample.  The counting is src/core/utilization.c's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "glue.h"
#include "samples_type.h"
#include "utilization.h"

PG_FUNCTION_INFO_V1(acmetrace_samples_hours);

/* A 24-element array of type typ (float8 or numeric by reference, int4 by value), NULL where null. */
static Datum
hours_array(Datum *d, bool *nulls, Oid typ)
{
	int			dims[1] = {AT_HOURS},
				lbs[1] = {1};
	int16		len;
	bool		byval;
	char		align;

	get_typlenbyvalalign(typ, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, typ, len, byval, align));
}

/* The hours' exact sums: from the integers, or (raw doubles) value::numeric added as SQL would. */
static void
hour_sums(const at_hours *h, int scale, const int64 *ts, const double *v, int32 n, int64 day_start,
		  Datum *sums)
{
	char		text[64];

	for (int k = 0; k < AT_HOURS; k++)
	{
		if (scale < 0)
			sums[k] = (Datum) 0;
		else if (h->n[k] > 0)
		{
			at_hours_sum_text(h, k, scale, text, sizeof text);
			sums[k] = DirectFunctionCall3(numeric_in, CStringGetDatum(text), ObjectIdGetDatum(InvalidOid),
										  Int32GetDatum(-1));
		}
	}
	for (int32 i = 0; scale < 0 && i < n; i++)
	{
		int			k = (int) ((ts[i] - day_start) / AT_USECS_PER_HOUR);
		Datum		x = DirectFunctionCall1(float8_numeric, Float8GetDatum(v[i]));

		sums[k] = sums[k] == (Datum) 0 ? x : DirectFunctionCall2(numeric_add, sums[k], x);
	}
}

/*
 * samples_hours(samples, day date) -> (n int[], sum numeric[], min float8[],
 * max float8[]): per UTC hour of day, 1..24; sum, min and max NULL for an
 * hour without samples.  A block with a sample outside day is an error.
 */
Datum
acmetrace_samples_hours(PG_FUNCTION_ARGS)
{
	size_t		len;
	const unsigned char *b = samples_bytes(PG_GETARG_DATUM(0), &len);
	DateADT		day = PG_GETARG_DATEADT(1);
	at_samples_info info;
	at_hours	h;
	int64	   *ts,
			   *m = NULL,
				day_start;
	double	   *v = NULL;
	int32		n;
	TupleDesc	td;
	Datum		values[4],
				cnt[AT_HOURS],
				sums[AT_HOURS],
				mins[AT_HOURS],
				maxs[AT_HOURS];
	bool		nulls[4] = {false, false, false, false},
				empty[AT_HOURS];

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "samples_hours must return a record");
	at_samples_info_read(b, &info);
	/* day is then a day of valid timestamps: day_start cannot overflow */
	if (DATE_NOT_FINITE(day) || at_day_of(info.first_ts) != day || at_day_of(info.last_ts) != day)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("samples from %s to %s are not all of the UTC day %s", samples_ts_text(info.first_ts),
						samples_ts_text(info.last_ts), DatumGetCString(DirectFunctionCall1(date_out, DateADTGetDatum(day)))),
				 errhint("A block of acmetrace.utilization_blocks holds the samples of its day, in UTC.")));
	day_start = (int64) day * USECS_PER_DAY;
	ts = palloc(sizeof(int64) * info.n);
	if (info.scale >= 0)
		m = palloc(sizeof(int64) * info.n);
	else
		v = palloc(sizeof(double) * info.n);
	n = at_samples_window(b, len, day_start, day_start + USECS_PER_DAY, ts, v, m);
	if (n != info.n || at_hours_of(&h, day_start, ts, v, m, info.scale, n) != 0)
		elog(ERROR, "acmetrace: a block of day %d decoded %d of its %d samples", (int) day, (int) n, (int) info.n);
	hour_sums(&h, info.scale, ts, v, n, day_start, sums);
	for (int k = 0; k < AT_HOURS; k++)
	{
		empty[k] = h.n[k] == 0;
		cnt[k] = Int32GetDatum(h.n[k]);
		mins[k] = Float8GetDatum(h.min[k]);
		maxs[k] = Float8GetDatum(h.max[k]);
	}
	values[0] = hours_array(cnt, NULL, INT4OID);
	values[1] = hours_array(sums, empty, NUMERICOID);
	values[2] = hours_array(mins, empty, FLOAT8OID);
	values[3] = hours_array(maxs, empty, FLOAT8OID);
	td = BlessTupleDesc(td);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(td, values, nulls)));
}
