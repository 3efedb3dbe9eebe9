/*
 * summary.h: the summaries' one pass over a cluster's jobs, as plain C.
 *
 * at_vmap counts (group, value) pairs in an open-addressing hash table, so
 * a pass adds each job's values to its groups in O(1); at_vmap_sorted then
 * lists the pairs by group and value: per group, the exact distribution
 * (value_counts.h) the summaries store.  at_intern numbers strings (job
 * types) in the order they are first seen.
 */
#ifndef ACMETRACE_SUMMARY_H
#define ACMETRACE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

typedef struct at_vmap_entry
{
	uint64_t	group;			/* caller's group number */
	double		value;			/* finite; -0 is stored as 0 */
	int64_t		count;			/* 0: empty slot */
} at_vmap_entry;

typedef struct at_vmap
{
	size_t		cap;			/* a power of two */
	size_t		n;
	at_vmap_entry *slots;
	at_mem_fn	mem;
	void	   *mem_ctx;
} at_vmap;

extern int	at_vmap_init(at_vmap *m, at_mem_fn mem, void *mem_ctx);
extern void at_vmap_free(at_vmap *m);
/* Counts value once more in group; 0 on out of memory. */
extern int	at_vmap_add(at_vmap *m, uint64_t group, double value);
/* The n entries by group, then value, into out (room for m->n). */
extern void at_vmap_sorted(const at_vmap *m, at_vmap_entry *out);

typedef struct at_intern_slot
{
	uint64_t	hash;
	const char *s;				/* NULL: empty slot */
	size_t		len;
	int32_t		id;
} at_intern_slot;

typedef struct at_intern
{
	size_t		cap;
	size_t		n;
	at_intern_slot *slots;
	at_mem_fn	mem;
	void	   *mem_ctx;
} at_intern;

extern int	at_intern_init(at_intern *t, at_mem_fn mem, void *mem_ctx);
extern void at_intern_free(at_intern *t);
/*
 * The number of s[0..len): its first sight gets the next one (0, 1, ...),
 * keeping a copy.  -1 on out of memory.
 */
extern int32_t at_intern_id(at_intern *t, const char *s, size_t len);

#endif
