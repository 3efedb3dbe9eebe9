/*
 * occupancy_type.h: acmetrace.occupancy, the glue side, shared by the type
 * I/O, the aggregate and the accessors.  The stored layout and every check
 * of it are the core's (src/core/occupancy.h); this adds PostgreSQL's
 * allocation limits, errors and the fn_extra cache.
 */
#ifndef ACMETRACE_OCCUPANCY_TYPE_H
#define ACMETRACE_OCCUPANCY_TYPE_H

#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "occupancy.h"

/*
 * The stored layout is the core's at_occ_value (src/core/occupancy.h):
 * the varlena header, then the header fields and the canonical steps.
 */
typedef at_occ_value OccData;

#define OCC_VERSION		AT_OCC_VALUE_VERSION
#define OCC_HEADER		AT_OCC_VALUE_HEADER
#define OCC_SIZE(n)		AT_OCC_VALUE_SIZE(n)
#define OCC_MAX_STEPS	((MaxAllocSize - OCC_HEADER) / sizeof(at_occ_step))

/* The bytes values were written with since 0.1.0 (test/fixtures/golden). */
StaticAssertDecl(offsetof(OccData, vl_len_) == 0 && sizeof(((OccData *) 0)->vl_len_) == VARHDRSZ &&
				 offsetof(OccData, nsteps) == 8 && offsetof(OccData, fingerprint) == 16 &&
				 OCC_HEADER == 24 && sizeof(at_occ_step) == 16,
				 "occupancy's stored layout changed");

/* The occupancy states' sort (at_occ_sort_fn): the core's, interruptible. */
static inline void
occ_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

static inline void
occ_sort_steps(at_occ_step *ev, size_t n)
{
	at_occ_sort_steps(ev, n, occ_interrupts);
}

/* A palloc'd value holding steps[0..n), fingerprinted (copies the steps). */
extern OccData *occ_make(const at_occ_step *steps, Size n);

/* The same in two calls: room for steps, then fill o->steps and finish. */
extern OccData *occ_alloc(Size room);
extern OccData *occ_finish(OccData *o, Size n);

/* Check steps, raising ERROR with errcode on a bad value. */
extern void occ_check_steps(const at_occ_step *steps, Size n, int errcode);

/*
 * The occupancy in argument argno, detoasted, validated and cached in
 * fn_extra: a million calls with the same value detoast it once.
 */
extern const OccData *occ_arg(FunctionCallInfo fcinfo, int argno);

/*
 * The occupancy in d, detoasted (copied only if stored toasted) and
 * validated, without occ_arg's cache: for aggregates, where every row is
 * another value.  Free it if it is not DatumGetPointer(d).
 */
extern const OccData *occ_read(Datum d);

/*
 * Decode a serialized occupancy_state into st, with memory from cxt (the one
 * check of every way in); ERROR with code if the bytes are not a valid state.
 */
extern void occ_state_decode(at_occ_state *st, const uint8 *buf, size_t len, MemoryContext cxt, int code);

/* After occ_arg: the cached lookup hint (see at_occ_at_hint). */
extern size_t *occ_arg_hint(FunctionCallInfo fcinfo);

#endif
