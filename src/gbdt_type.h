/*
 * gbdt_type.h: acmetrace.gbdt (a model) and acmetrace.gbdt_state (the
 * training rows), the glue side, shared by gbdt_type.c (both types' I/O),
 * gbdt_agg.c (gbdt_train) and gbdt_fns.c (gbdt_predict, gbdt_info).
 *
 * Both types' bytes (after the varlena header) are the core's versioned
 * encodings (src/core/gbdt.h), checked field by field on every way in.
 * While gbdt_train runs, its state is an expanded object (GbdtEO) updated
 * in place and flattened only when it leaves the aggregate.
 */
#ifndef ACMETRACE_GBDT_TYPE_H
#define ACMETRACE_GBDT_TYPE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/expandeddatum.h"

#include "gbdt.h"

/* An expanded gbdt_state: r's memory is hdr.eoh_context. */
typedef struct GbdtEO
{
	ExpandedObjectHeader hdr;
	at_gbdt_rows r;
} GbdtEO;

extern const ExpandedObjectMethods gbdt_state_methods;

/* Bytes into m (memory from cxt); ERROR with code if they are not a model. */
extern void gbdt_model_read(at_gbdt *m, const unsigned char *b, Size len, MemoryContext cxt, int code);

/* The model as a gbdt value, or the ERROR when it is too large for one. */
extern bytea *gbdt_model_flat(const at_gbdt *m);

/*
 * A gbdt_state datum to read: our expanded object's rows as they are, or a
 * flat value decoded into tmp in the current context.
 */
extern const at_gbdt_rows *gbdt_rows_view(Datum d, at_gbdt_rows *tmp);

/*
 * The float8[] of features: one-dimensional, NULL elements missing (NaN),
 * no infinity (ERROR naming fn).  Without NULLs the array's own data is
 * returned, not a copy (read only).
 */
extern const double *gbdt_features_arg(ArrayType *a, const char *fn, int *n);

#endif
