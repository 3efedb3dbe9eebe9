/*
 * fuzz_common.h: what every libFuzzer harness of the core shares.
 *
 * The core takes a (ctx, ptr, size) allocator; fuzz_mem hands it calloc and
 * free, so AddressSanitizer sees each allocation, and counts the live ones,
 * so a harness can insist that every input leaves nothing behind.  It also
 * refuses what the PostgreSQL glue's allocator (src/glue.h, at_cxt_mem)
 * cannot do: free NULL (pfree(NULL) crashes) or allocate 0 bytes (size 0
 * means free there).
 */
#ifndef ACMETRACE_FUZZ_COMMON_H
#define ACMETRACE_FUZZ_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A broken invariant: say which, then abort so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "\nFUZZ CHECK FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

static long fuzz_live;			/* allocations the core has not freed */

static inline void *
fuzz_mem(void *ctx, void *p, size_t n)
{
	long	   *live = ctx;

	if (n == 0)
	{
		FUZZ_CHECK(p != NULL, "the core freed NULL (pfree(NULL) crashes the backend)");
		free(p);
		(*live)--;
		return NULL;
	}
	if (p != NULL)				/* not used by the core today; realloc-like */
		return realloc(p, n);
	p = calloc(1, n);
	FUZZ_CHECK(p != NULL, "calloc(%zu) failed", n);
	(*live)++;
	return p;
}

/* Big-endian reads of the input, the byte order of every serialized state. */
static inline uint64_t
fuzz_be64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int k = 0; k < 8; k++)
		v = (v << 8) | p[k];
	return v;
}

static inline double
fuzz_double(const uint8_t *p)
{
	uint64_t	v = fuzz_be64(p);
	double		d;

	memcpy(&d, &v, 8);
	return d;
}

/* Same bits (so -0 differs from 0, and a NaN equals itself). */
static inline int
fuzz_same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

#endif
