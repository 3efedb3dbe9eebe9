/*
 * sketch_type.h: acmetrace.delay_sketch, the glue side.
 *
 * The type's bytes (after the varlena header) are the serialized form of
 * src/core/sketch.h, the same bytes the aggregates' serial functions write;
 * every way in (text, binary, deserialize, stored values) checks them.
 */
#ifndef ACMETRACE_SKETCH_TYPE_H
#define ACMETRACE_SKETCH_TYPE_H

#include "postgres.h"

#include "fmgr.h"

#include "sketch.h"

/* A new varlena holding the sketch's serialized form. */
extern bytea *sk_flatten(const at_sketch *sk);

/* Reads serialized bytes into sk (memory from cxt); ERROR with code if bad. */
extern void sk_read(at_sketch *sk, const char *data, Size len, MemoryContext cxt, int code);

/* Raises the ERROR for an at_sk_err from adding value, or merging (value NaN). */
extern void sk_raise(at_sk_err e, double value);

/*
 * Argument argno as a read-only, prepared sketch, cached in fn_extra across
 * calls with the same value.
 */
extern const at_sketch *sk_arg(FunctionCallInfo fcinfo, int argno);

#endif
