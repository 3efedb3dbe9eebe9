/*
 * occupancy_type.h: the acmetrace.occupancy type's on-disk layout, shared by the
 * type I/O, the aggregate and the accessors.
 */
#ifndef ACMETRACE_OCCUPANCY_TYPE_H
#define ACMETRACE_OCCUPANCY_TYPE_H

#include "postgres.h"

#include "fmgr.h"

#include "occupancy.h"

#define OCC_VERSION 1

/*
 * A varlena: header, then the canonical steps (see src/core/occupancy.h).
 * The fingerprint is computed whenever a value is made or read in, so two
 * values with the same size and fingerprint are taken as equal.
 */
typedef struct OccData
{
	int32		vl_len_;
	uint8		version;
	uint8		flags;			/* 0 */
	uint16		unused16;		/* 0 */
	uint32		nsteps;
	uint32		unused32;		/* 0 */
	uint64		fingerprint;
	at_occ_step steps[FLEXIBLE_ARRAY_MEMBER];
} OccData;

#define OCC_HEADER		offsetof(OccData, steps)
#define OCC_SIZE(n)		(OCC_HEADER + (Size) (n) * sizeof(at_occ_step))
#define OCC_MAX_STEPS	((MaxAllocSize - OCC_HEADER) / sizeof(at_occ_step))

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

/* After occ_arg: the cached lookup hint (see at_occ_at_hint). */
extern size_t *occ_arg_hint(FunctionCallInfo fcinfo);

#endif
