/*
 * samples_type.h: acmetrace.samples, the glue side (src/samples_type.c).
 *
 * The type's bytes (after the varlena header) are a block of
 * src/core/samples.h.  Text input and binary receive check them in full;
 * values stored in tables came through those or through this extension's
 * own encoder, so readers below trust them, as PostgreSQL's own types trust
 * their stored form.
 */
#ifndef ACMETRACE_SAMPLES_TYPE_H
#define ACMETRACE_SAMPLES_TYPE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "samples.h"

/*
 * A samples value kept expanded: samples_agg's state (the samples as two
 * growing arrays, appended in place; sorted, checked for repeated times and
 * encoded only when it leaves the aggregate, so a partial state is an
 * ordinary samples value, and combining two is a merge), or a
 * samples_between window (its decoded arrays).
 */
typedef struct SamplesEO
{
	ExpandedObjectHeader hdr;
	int64	   *ts;
	double	   *v;				/* NULL while only m is filled (a window) */
	int64	   *m;				/* a window of a scaled block: value = m / 10^scale */
	int32		scale;
	int64		mlo;			/* m's bounds (the block's min and max, widened by one) */
	int64		mhi;
	int32		n;
	int32		cap;
	bool		sorted;			/* strictly increasing times so far */
	unsigned char *flat;		/* the encoded block, while clean */
	size_t		flat_len;
} SamplesEO;

extern const ExpandedObjectMethods samples_methods;

/* A new, empty object (sorted) in a context of its own under parent; name a string constant. */
extern SamplesEO *samples_eo_new(MemoryContext parent, const char *name);

/* Our expanded object in d, or NULL. */
extern SamplesEO *samples_eo_of(Datum d);

/* eo->v filled (from a window's integers m when only those are). */
extern void samples_eo_values(SamplesEO *eo);

/* ts as timestamptz_out prints it, for messages. */
extern char *samples_ts_text(int64 ts);

/*
 * The encoded bytes of the non-NULL samples d (detoasted with a 4-byte
 * header, or an expanded samples_agg state flattened), in the current
 * context.
 */
extern const unsigned char *samples_bytes(Datum d, size_t *len);

/*
 * The arrays of an expanded samples value (a samples_between window, or a
 * samples_agg state): n values as doubles (v) or, for a window of a scaled
 * block, as integers m (value = m / 10^scale, v NULL).  false for any other
 * datum.
 */
extern bool samples_window_arrays(Datum d, int32 *n, const double **v, const int64 **m, int32 *scale,
								  int64 *mlo, int64 *mhi);

/* A new samples varlena of the n samples (ts strictly increasing, finite v). */
extern Datum samples_make(const int64 *ts, const double *v, int32 n);

/* A new samples varlena holding a copy of len encoded bytes. */
extern Datum samples_from_bytes(const unsigned char *buf, size_t len);

/* The exact sum of a block's values, as numeric. */
extern Datum samples_sum(const unsigned char *b, size_t len, const at_samples_info *info);

/* ERROR for two different values at one time (loads and merges). */
extern void samples_conflict_error(const char *series, const at_samples_conflict *c) pg_attribute_noreturn();

#endif
