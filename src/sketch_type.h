/*
 * sketch_type.h: acmetrace.delay_sketch, the glue side.
 *
 * The type's bytes (after the varlena header) are the serialized form of
 * src/core/sketch.h; every way in (text, binary, stored values read by the
 * aggregates, the 0.1.0 SQL's deserialize) checks them.
 *
 * While an aggregate runs, its state is a delay_sketch kept as an expanded
 * object (SkEO): the sketch with its bucket array, updated in place and
 * flattened to the bytes above only when the value leaves the aggregate.
 */
#ifndef ACMETRACE_SKETCH_TYPE_H
#define ACMETRACE_SKETCH_TYPE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "sketch.h"

/* An expanded delay_sketch: sk's memory is hdr.eoh_context. */
typedef struct SkEO
{
	ExpandedObjectHeader hdr;
	at_sketch	sk;
} SkEO;

extern const ExpandedObjectMethods sk_eo_methods;

/* A new empty expanded sketch in a context of its own under parent. */
extern SkEO *sk_eo_new(MemoryContext parent, double alpha);

/*
 * A new expanded sketch under parent holding a copy of the non-NULL
 * delay_sketch d (flat, TOASTed or expanded); a bad flat value is an ERROR
 * with code.
 */
extern SkEO *sk_eo_copy(MemoryContext parent, Datum d, int code);

/*
 * The sketch in the non-NULL delay_sketch d: an expanded one's own (not to
 * be modified), else decoded into *tmp (memory from the current context;
 * *decoded set, so the caller at_sk_free()s it).  ERROR with code if bad.
 */
extern const at_sketch *sk_view(Datum d, at_sketch *tmp, bool *decoded, int code);

/* A new varlena holding the sketch's serialized form. */
extern bytea *sk_flatten(const at_sketch *sk);

/* Reads serialized bytes into sk (memory from cxt); ERROR with code if bad. */
extern void sk_read(at_sketch *sk, const char *data, Size len, MemoryContext cxt, int code);

/* Raises the ERROR for an at_sk_err from adding value, or merging (value NaN). */
extern void sk_raise(at_sk_err e, double value);

/*
 * Argument argno as a read-only sketch: an expanded value's own, else the
 * flat value decoded and prepared, cached in fn_extra across calls with the
 * same value.
 */
extern const at_sketch *sk_arg(FunctionCallInfo fcinfo, int argno);

#endif
