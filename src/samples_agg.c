/*
 * samples_agg.c: the aggregate samples_agg(ts, value), building an
 * acmetrace.samples value (src/samples_type.h): its state is the expanded
 * form, samples appended in place and encoded when the value leaves the
 * aggregate.
 */
#include "postgres.h"

#include <math.h>

#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "glue.h"
#include "samples_type.h"

PG_FUNCTION_INFO_V1(acmetrace_samples_trans);
PG_FUNCTION_INFO_V1(acmetrace_samples_combine);

/* Room for k more samples. */
static void
eo_reserve(SamplesEO *eo, int64 k)
{
	int64		want = (int64) eo->n + k;

	if (want > AT_SAMPLES_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("samples_agg: more than %d samples in one samples value", AT_SAMPLES_MAX),
				 errhint("Group by a time span as well, e.g. GROUP BY series, ts::date: a block per series and day.")));
	if (want > eo->cap)
	{
		int32		cap = Max(eo->cap * 2, 256);

		while (cap < want)
			cap *= 2;
		cap = Min(cap, AT_SAMPLES_MAX);
		if (eo->ts == NULL)
		{
			eo->ts = MemoryContextAllocHuge(eo->hdr.eoh_context, sizeof(int64) * cap);
			eo->v = MemoryContextAllocHuge(eo->hdr.eoh_context, sizeof(double) * cap);
		}
		else
		{
			eo->ts = repalloc_huge(eo->ts, sizeof(int64) * cap);
			eo->v = repalloc_huge(eo->v, sizeof(double) * cap);
		}
		eo->cap = cap;
	}
}

static void
eo_append(SamplesEO *eo, const int64 *ts, const double *v, int32 k)
{
	if (k == 0)
		return;
	eo_reserve(eo, k);
	if (eo->n > 0 && ts[0] <= eo->ts[eo->n - 1])
		eo->sorted = false;
	memcpy(eo->ts + eo->n, ts, sizeof(int64) * k);
	memcpy(eo->v + eo->n, v, sizeof(double) * k);
	eo->n += k;
	if (eo->flat != NULL)
	{
		pfree(eo->flat);
		eo->flat = NULL;
	}
}

/* A new object under the aggregate's context. */
static SamplesEO *
eo_new(FunctionCallInfo fcinfo, const char *fn)
{
	return samples_eo_new(at_agg_context(fcinfo, fn), "acmetrace samples");
}

/* Append the samples of d (any form) to eo. */
static void
eo_append_datum(SamplesEO *eo, Datum d)
{
	SamplesEO  *src = samples_eo_of(d);

	if (src != NULL)
	{
		/* copy first: src may be eo itself */
		int32		n;
		int64	   *t2;
		double	   *v2;
		bool		sorted = src->sorted;

		samples_eo_values(src); /* a window holds its integers only */
		n = src->n;
		t2 = palloc(sizeof(int64) * Max(n, 1));
		v2 = palloc(sizeof(double) * Max(n, 1));
		memcpy(t2, src->ts, sizeof(int64) * n);
		memcpy(v2, src->v, sizeof(double) * n);
		eo_append(eo, t2, v2, n);
		if (!sorted)
			eo->sorted = false;
	}
	else
	{
		size_t		len;
		const unsigned char *b = samples_bytes(d, &len);
		at_samples_info info;
		int64	   *t2;
		double	   *v2;

		at_samples_info_read(b, &info);
		t2 = palloc(sizeof(int64) * info.n);
		v2 = palloc(sizeof(double) * info.n);
		at_samples_decode(b, len, t2, v2);
		eo_append(eo, t2, v2, info.n);
	}
}

/*
 * (state samples, ts timestamptz, value float8): NULL times or values and
 * NaN values are skipped (no measurement); infinities are refused.
 */
Datum
acmetrace_samples_trans(PG_FUNCTION_ARGS)
{
	SamplesEO  *eo = at_eo_rw(fcinfo, 0, &samples_methods);
	int64		ts;
	double		v;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || isnan(PG_GETARG_FLOAT8(2)))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	ts = PG_GETARG_TIMESTAMPTZ(1);
	v = PG_GETARG_FLOAT8(2);
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("samples_agg: time must be finite, got %s", samples_ts_text(ts))));
	if (isinf(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("samples_agg: value must be finite, got %s", v > 0 ? "Infinity" : "-Infinity"),
				 errhint("Leave samples without a measurement out, or pass NULL.")));
	if (eo == NULL)
	{
		eo = eo_new(fcinfo, "samples_agg");
		if (!PG_ARGISNULL(0))
			eo_append_datum(eo, PG_GETARG_DATUM(0));
	}
	eo_append(eo, &ts, &v, 1);
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}

/* (samples, samples) -> samples: the union; a time in both must have one value. */
Datum
acmetrace_samples_combine(PG_FUNCTION_ARGS)
{
	SamplesEO  *eo = at_eo_rw(fcinfo, 0, &samples_methods);

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (eo == NULL)
	{
		eo = eo_new(fcinfo, "samples_agg combine");
		if (!PG_ARGISNULL(0))
			eo_append_datum(eo, PG_GETARG_DATUM(0));
	}
	eo_append_datum(eo, PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&eo->hdr));
}
