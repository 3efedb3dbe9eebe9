/*
 * summary.c: counting (group, value) pairs and numbering strings.
 */
#include "summary.h"

#include <stdlib.h>
#include <string.h>

static uint64_t
mix(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t
vkey(uint64_t group, double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof bits);
	return mix(bits ^ mix(group + 0x9e3779b97f4a7c15ULL));
}

int
at_vmap_init(at_vmap *m, at_mem_fn mem, void *mem_ctx)
{
	m->cap = 1024;
	m->n = 0;
	m->mem = mem;
	m->mem_ctx = mem_ctx;
	m->slots = mem(mem_ctx, NULL, m->cap * sizeof(at_vmap_entry));
	return m->slots != NULL;
}

void
at_vmap_free(at_vmap *m)
{
	if (m->slots)
		m->mem(m->mem_ctx, m->slots, 0);
	m->slots = NULL;
}

static at_vmap_entry *
vfind(at_vmap_entry *slots, size_t cap, uint64_t group, double value)
{
	size_t		i = (size_t) vkey(group, value) & (cap - 1);

	while (slots[i].count != 0 && !(slots[i].group == group && slots[i].value == value))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

int
at_vmap_add(at_vmap *m, uint64_t group, double value)
{
	at_vmap_entry *e;

	if (value == 0)
		value = 0.0;			/* -0 and 0 are one value */
	if (2 * (m->n + 1) > m->cap)
	{
		size_t		ncap = m->cap * 2;
		at_vmap_entry *ns = m->mem(m->mem_ctx, NULL, ncap * sizeof(at_vmap_entry));

		if (ns == NULL)
			return 0;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].count != 0)
				*vfind(ns, ncap, m->slots[i].group, m->slots[i].value) = m->slots[i];
		m->mem(m->mem_ctx, m->slots, 0);
		m->slots = ns;
		m->cap = ncap;
	}
	e = vfind(m->slots, m->cap, group, value);
	if (e->count == 0)
	{
		e->group = group;
		e->value = value;
		m->n++;
	}
	e->count++;
	return 1;
}

static int
entry_cmp(const void *a, const void *b)
{
	const at_vmap_entry *x = a,
			   *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

void
at_vmap_sorted(const at_vmap *m, at_vmap_entry *out)
{
	size_t		k = 0;

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].count != 0)
			out[k++] = m->slots[i];
	qsort(out, k, sizeof(at_vmap_entry), entry_cmp);
}

static uint64_t
shash(const char *s, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char) s[i]) * 0x100000001b3ULL;
	return mix(h);
}

int
at_intern_init(at_intern *t, at_mem_fn mem, void *mem_ctx)
{
	t->cap = 64;
	t->n = 0;
	t->mem = mem;
	t->mem_ctx = mem_ctx;
	t->slots = mem(mem_ctx, NULL, t->cap * sizeof(at_intern_slot));
	return t->slots != NULL;
}

void
at_intern_free(at_intern *t)
{
	if (t->slots == NULL)
		return;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].s)
			t->mem(t->mem_ctx, (void *) t->slots[i].s, 0);
	t->mem(t->mem_ctx, t->slots, 0);
	t->slots = NULL;
}

static at_intern_slot *
sfind(at_intern_slot *slots, size_t cap, uint64_t h, const char *s, size_t len)
{
	size_t		i = (size_t) h & (cap - 1);

	while (slots[i].s != NULL &&
		   !(slots[i].hash == h && slots[i].len == len && memcmp(slots[i].s, s, len) == 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

int32_t
at_intern_id(at_intern *t, const char *s, size_t len)
{
	uint64_t	h = shash(s, len);
	at_intern_slot *e;
	char	   *copy;

	e = sfind(t->slots, t->cap, h, s, len);
	if (e->s != NULL)
		return e->id;
	if (t->n >= INT32_MAX)
		return -1;
	if (2 * (t->n + 1) > t->cap)
	{
		size_t		ncap = t->cap * 2;
		at_intern_slot *ns = t->mem(t->mem_ctx, NULL, ncap * sizeof(at_intern_slot));

		if (ns == NULL)
			return -1;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].s)
				*sfind(ns, ncap, t->slots[i].hash, t->slots[i].s, t->slots[i].len) = t->slots[i];
		t->mem(t->mem_ctx, t->slots, 0);
		t->slots = ns;
		t->cap = ncap;
		e = sfind(t->slots, t->cap, h, s, len);
	}
	copy = t->mem(t->mem_ctx, NULL, len + 1);
	if (copy == NULL)
		return -1;
	memcpy(copy, s, len);
	e->hash = h;
	e->s = copy;
	e->len = len;
	e->id = (int32_t) t->n++;
	return e->id;
}
