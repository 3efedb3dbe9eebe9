/*
 * utilization.c: the wide-file loader's open blocks, and the per-hour
 * summaries of a day block.  See utilization.h.
 */
#include <stdio.h>
#include <string.h>

#include "samples.h"
#include "utilization.h"

#define USECS_PER_DAY ((int64_t) 86400 * 1000000)

/* A series named name (len <= AT_SERIES_NAME_MAX bytes); the allocator zeroes it. */
static at_series *
new_series(at_series_set *s, const char *name, size_t len)
{
	at_series  *b = s->mem(s->ctx, NULL, sizeof(at_series));

	if (b == NULL)
		return NULL;
	memcpy(b->name, name, len);
	b->name[len] = '\0';
	b->sorted = 1;
	return b;
}

int
at_series_set_init_named(at_series_set *s, at_mem_fn mem, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->mem = mem;
	s->ctx = ctx;
	s->capall = 64;
	s->all = mem(ctx, NULL, sizeof(at_series *) * s->capall);
	return s->all != NULL && at_intern_init(&s->names, mem, ctx);
}

int
at_series_set_init(at_series_set *s, const at_header *h, at_mem_fn mem, void *ctx)
{
	if (h->key_col >= 0)
		return at_series_set_init_named(s, mem, ctx);
	memset(s, 0, sizeof *s);
	s->mem = mem;
	s->ctx = ctx;
	s->capall = (size_t) h->ncols;
	s->all = mem(ctx, NULL, sizeof(at_series *) * s->capall);
	s->by_col = mem(ctx, NULL, sizeof(at_series *) * (size_t) h->ncols);
	if (s->all == NULL || s->by_col == NULL)
		return 0;
	for (int i = 1; i < h->ncols; i++)
	{
		size_t		len = strlen(h->names[i]);

		/* longer header names are cut, as before (at_header_parse refuses them) */
		if ((s->by_col[i] = new_series(s, h->names[i], len < AT_SERIES_NAME_MAX ? len : AT_SERIES_NAME_MAX)) == NULL)
			return 0;
		s->all[s->nall++] = s->by_col[i];
	}
	return 1;
}

void
at_series_set_free(at_series_set *s)
{
	for (size_t i = 0; i < s->nall; i++)
	{
		if (s->all[i]->ts != NULL)
			s->mem(s->ctx, s->all[i]->ts, 0);
		if (s->all[i]->v != NULL)
			s->mem(s->ctx, s->all[i]->v, 0);
		s->mem(s->ctx, s->all[i], 0);
	}
	if (s->all != NULL)
		s->mem(s->ctx, s->all, 0);
	if (s->by_col != NULL)
		s->mem(s->ctx, s->by_col, 0);
	at_intern_free(&s->names);
	memset(s, 0, sizeof *s);
}

at_series *
at_series_of(at_series_set *s, const at_header *h, int col, int *too_long)
{
	const at_field *key = &h->fields[h->key_col];
	char		name[AT_SERIES_NAME_MAX + 1];
	int			len;

	*too_long = 0;
	if (s->by_col != NULL)
		return s->by_col[col];
	len = snprintf(name, sizeof name, "%.*s/%s", (int) key->len, key->start, h->names[col]);
	if (len < 0 || len > AT_SERIES_NAME_MAX)
	{
		*too_long = 1;
		return NULL;
	}
	/* strlen: a NUL in the key cell ends the name */
	return at_series_named(s, name, strlen(name), too_long);
}

at_series *
at_series_named(at_series_set *s, const char *name, size_t len, int *too_long)
{
	int32_t		id;

	*too_long = len > AT_SERIES_NAME_MAX;
	if (*too_long)
		return NULL;
	id = at_intern_id(&s->names, name, len);
	if (id < 0)
		return NULL;
	if ((size_t) id < s->nall)
		return s->all[id];
	if (s->nall == s->capall)
	{
		at_series **all = at_mem_grow(s->mem, s->ctx, s->all, sizeof(at_series *) * s->capall,
									  sizeof(at_series *) * s->capall * 2);

		if (all == NULL)
			return NULL;
		s->all = all;
		s->capall *= 2;
	}
	if ((s->all[s->nall] = new_series(s, name, len)) == NULL)
		return NULL;
	return s->all[s->nall++];
}

/* Room for twice the samples (64 at first). */
static at_add_status
grow(at_series_set *s, at_series *b)
{
	int32_t		cap = b->cap == 0 ? 64 : b->cap * 2;
	int64_t    *ts;
	double	   *v;

	if (b->cap >= AT_SAMPLES_MAX)
		return AT_ADD_FULL;
	/* the times first: grown alone, they are only roomier than cap says */
	if ((ts = at_mem_grow(s->mem, s->ctx, b->ts, sizeof(int64_t) * (size_t) b->n,
						  sizeof(int64_t) * (size_t) cap)) != NULL)
		b->ts = ts;
	if (ts == NULL ||
		(v = at_mem_grow(s->mem, s->ctx, b->v, sizeof(double) * (size_t) b->n, sizeof(double) * (size_t) cap)) == NULL)
		return AT_ADD_NO_MEMORY;
	b->v = v;
	b->cap = cap;
	return AT_ADD_OK;
}

at_add_status
at_series_add(at_series_set *s, at_series *b, int32_t day, int64_t ts, double v)
{
	if (b->n > 0 && b->day != day)
		return AT_ADD_FLUSH;
	if (b->n == 0)
		b->day = day;
	else if (ts <= b->ts[b->n - 1])
		b->sorted = 0;
	if (b->n == b->cap)
	{
		at_add_status st = grow(s, b);

		if (st != AT_ADD_OK)
			return st;
	}
	b->ts[b->n] = ts;
	b->v[b->n] = v;
	b->n++;
	s->samples++;
	return AT_ADD_OK;
}

void
at_series_empty(at_series *b)
{
	b->n = 0;
	b->sorted = 1;
}

int32_t
at_day_of(int64_t us)
{
	return (int32_t) (us >= 0 ? us / USECS_PER_DAY : -((-us + USECS_PER_DAY - 1) / USECS_PER_DAY));
}

/* ---- per-hour summaries ---- */

int
at_hours_of(at_hours *h, int64_t day_start, const int64_t *ts, const double *v,
			const int64_t *m, int scale, int32_t n)
{
	memset(h, 0, sizeof *h);
	for (int32_t i = 0; i < n; i++)
	{
		int64_t		off = ts[i] - day_start;	/* no overflow: both are in PostgreSQL's range */
		double		x;
		int			k;

		if (off < 0 || off >= USECS_PER_DAY)
			return -1;
		k = (int) (off / AT_USECS_PER_HOUR);
		x = m != NULL ? (double) m[i] / at_p10[scale] : v[i];
		if (h->n[k] == 0 || x < h->min[k])
			h->min[k] = x;
		if (h->n[k] == 0 || x > h->max[k])
			h->max[k] = x;
		h->n[k]++;
		if (m != NULL)
		{
			uint64_t	lo = h->sum_lo[k] + (uint64_t) m[i];

			/* 128-bit add of a sign-extended m: carry out of the low limb */
			h->sum_hi[k] += (m[i] < 0 ? ~(uint64_t) 0 : 0) + (lo < h->sum_lo[k]);
			h->sum_lo[k] = lo;
		}
	}
	return 0;
}

void
at_hours_sum_text(const at_hours *h, int hour, int scale, char *out, size_t outlen)
{
	uint64_t	lo = h->sum_lo[hour],
				hi = h->sum_hi[hour];
	uint32_t	limb[4];
	char		digits[48],
				text[64],
			   *q = text;
	int			nd = 0,
				neg = (int) (hi >> 63),
				nonzero;

	if (neg)
	{
		lo = ~lo + 1;
		hi = ~hi + (lo == 0);
	}
	limb[0] = (uint32_t) (hi >> 32);
	limb[1] = (uint32_t) hi;
	limb[2] = (uint32_t) (lo >> 32);
	limb[3] = (uint32_t) lo;
	/* decimal digits, least significant first, by long division by 10 */
	do
	{
		uint64_t	r = 0;

		nonzero = 0;
		for (int k = 0; k < 4; k++)
		{
			uint64_t	cur = r << 32 | limb[k];

			limb[k] = (uint32_t) (cur / 10);
			r = cur % 10;
			nonzero |= limb[k] != 0;
		}
		digits[nd++] = (char) ('0' + r);
	} while (nonzero);
	while (nd <= scale)
		digits[nd++] = '0';
	if (neg)
		*q++ = '-';
	while (nd > 0)
	{
		*q++ = digits[--nd];
		if (nd == scale && nd > 0)
			*q++ = '.';
	}
	*q = '\0';
	snprintf(out, outlen, "%s", text);
}
