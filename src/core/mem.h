/*
 * mem.h: the one allocator interface of the core's states.
 *
 * realloc-like: mem(ctx, NULL, n) allocates n zeroed bytes (n > 0),
 * mem(ctx, p, 0) frees p (never NULL).  The PostgreSQL glue passes
 * at_cxt_mem (src/glue.h) with a MemoryContext, which raises an ERROR
 * rather than return NULL; the tests pass calloc and free, and the core
 * handles a NULL return as out of memory.
 */
#ifndef ACMETRACE_MEM_H
#define ACMETRACE_MEM_H

#include <stddef.h>

typedef void *(*at_mem_fn) (void *ctx, void *ptr, size_t size);

/*
 * A block of new_size bytes holding old's first old_size bytes (the rest
 * zeroed); old is freed.  NULL, with old untouched, when out of memory.
 */
static inline void *
at_mem_grow(at_mem_fn mem, void *ctx, void *old, size_t old_size, size_t new_size)
{
	unsigned char *p = mem(ctx, NULL, new_size);

	if (p == NULL)
		return NULL;
	if (old != NULL)
	{
		for (size_t i = 0; i < old_size; i++)
			p[i] = ((const unsigned char *) old)[i];
		mem(ctx, old, 0);
	}
	return p;
}

#endif
