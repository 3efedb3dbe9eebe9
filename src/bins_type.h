/*
 * bins_type.h: acmetrace.bins_state, the glue side (src/bins_type.c).
 *
 * The type's bytes (after the varlena header) are the serialized form of
 * src/core/bins.h, checked by at_bins_decode on every way in: text input
 * "v1:<hex>", binary receive, and flat states handed to the aggregates'
 * functions (src/bins_agg.c).
 *
 * While an aggregate runs, its state is an expanded object (BinsEO) in a
 * context of its own under the aggregate's context, updated in place and
 * flattened only when it leaves the aggregate (a parallel worker's tuple, a
 * Citus partial, a column).
 */
#ifndef ACMETRACE_BINS_TYPE_H
#define ACMETRACE_BINS_TYPE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "bins.h"

typedef struct BinsEO
{
	ExpandedObjectHeader hdr;
	at_bins		h;
	bool		stable;			/* the array argument is a constant (or Param) */
	at_bins_slots slots;		/* blocks of integers / 10^scale: their slots */
} BinsEO;

extern const ExpandedObjectMethods bins_methods;

#define BINS_RETURN_EO(eo) PG_RETURN_DATUM(EOHPGetRWDatum(&(eo)->hdr))

/* Bytes into h (memory from cxt); ERROR with code if they are not a state. */
extern void bins_read(at_bins *h, const char *data, Size len, MemoryContext cxt, int code);

/*
 * A new object under parent holding a copy of the non-NULL bins_state d
 * (ours expanded, or flat: a bad one is an ERROR with code).
 */
extern BinsEO *bins_eo_copy(MemoryContext parent, Datum d, int code);

/*
 * A bins_state datum to read: our expanded object's state as it is, or a
 * flat value (detoasted; another expanded kind is flattened) decoded into
 * tmp in the current context.  Nothing is modified; bins_view_done frees
 * what it decoded.
 */
extern const at_bins *bins_view(Datum d, at_bins *tmp);
extern void bins_view_done(const at_bins *view, at_bins *tmp);

/* The aggregate a state belongs to, for messages. */
extern const char *bins_fn(at_bins_kind kind);

/* ERROR "fn: msg" with hint: an argument the aggregates refuse. */
extern void bins_bad_arg(const char *fn, const char *msg, const char *hint) pg_attribute_noreturn();

/*
 * dst += src, or the ERROR: states of another aggregate, or of other
 * arguments, or a sum that overflows.
 */
extern void bins_merge(at_bins *dst, const at_bins *src);

#endif
