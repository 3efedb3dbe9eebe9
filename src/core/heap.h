/*
 * heap.h: a binary min-heap template, instantiated once per element type
 * (in the manner of PostgreSQL's lib/sort_template.h):
 *
 *   #define HEAP_PREFIX ref             // names ref_heap, ref_heap_push, ...
 *   #define HEAP_ELEM ref
 *   #define HEAP_LESS(a, b) ((a)->t < (b)->t)
 *   #include "heap.h"
 *
 * It defines the type PREFIX_heap {h, n, cap} (zeroed is empty) and
 *   bool PREFIX_heap_push(at_mem_fn, void *ctx, PREFIX_heap *, ELEM): false when out of memory;
 *   ELEM PREFIX_heap_pop(PREFIX_heap *): the least (n > 0);
 *   void PREFIX_heap_free(at_mem_fn, void *ctx, PREFIX_heap *).
 * Equal elements come out in an order fixed by the pushes and pops alone,
 * so a generator built on it stays deterministic.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

#define HEAP_CAT_(a, b) a##b
#define HEAP_CAT(a, b) HEAP_CAT_(a, b)
#define HEAP_TYPE HEAP_CAT(HEAP_PREFIX, _heap)
#define HEAP_PUSH HEAP_CAT(HEAP_PREFIX, _heap_push)
#define HEAP_POP HEAP_CAT(HEAP_PREFIX, _heap_pop)
#define HEAP_FREE HEAP_CAT(HEAP_PREFIX, _heap_free)

typedef struct HEAP_TYPE
{
	HEAP_ELEM  *h;
	int64_t		n;
	int64_t		cap;
} HEAP_TYPE;

static inline bool
HEAP_PUSH(at_mem_fn mem, void *ctx, HEAP_TYPE *q, HEAP_ELEM x)
{
	int64_t		i;

	if (q->n == q->cap)
	{
		int64_t		cap = q->cap ? q->cap * 2 : 64;
		HEAP_ELEM  *p = at_mem_grow(mem, ctx, q->h, sizeof(HEAP_ELEM) * (size_t) q->n,
								   sizeof(HEAP_ELEM) * (size_t) cap);

		if (p == NULL)
			return false;
		q->h = p;
		q->cap = cap;
	}
	i = q->n++;
	while (i > 0 && HEAP_LESS(&x, &q->h[(i - 1) / 2]))
	{
		q->h[i] = q->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->h[i] = x;
	return true;
}

static inline HEAP_ELEM
HEAP_POP(HEAP_TYPE *q)
{
	HEAP_ELEM	top = q->h[0];
	HEAP_ELEM	last = q->h[--q->n];
	int64_t		i = 0;

	for (;;)
	{
		int64_t		c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && HEAP_LESS(&q->h[c + 1], &q->h[c]))
			c++;
		if (!HEAP_LESS(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n > 0)
		q->h[i] = last;
	return top;
}

static inline void
HEAP_FREE(at_mem_fn mem, void *ctx, HEAP_TYPE *q)
{
	if (q->h != NULL)
		mem(ctx, q->h, 0);
	q->h = NULL;
	q->n = q->cap = 0;
}

#undef HEAP_CAT_
#undef HEAP_CAT
#undef HEAP_TYPE
#undef HEAP_PUSH
#undef HEAP_POP
#undef HEAP_FREE
#undef HEAP_PREFIX
#undef HEAP_ELEM
#undef HEAP_LESS
