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

#endif
