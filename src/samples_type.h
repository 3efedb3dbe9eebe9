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

#include "samples.h"

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
