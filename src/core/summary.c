/*
 * summary.c: counting (group, value) pairs, numbering strings, and the
 * summaries' pass over a cluster's jobs (see summary.h).
 */
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"


static uint64_t
vkey(uint64_t group, double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof bits);
	return at_hash_mix(bits ^ at_hash_mix(group + 0x9e3779b97f4a7c15ULL));
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

/* *a (n used of *cap) with room for twice as many (16 at first); 0 on out of memory. */
static int
grow(void **a, size_t *cap, size_t size, size_t n, at_mem_fn mem, void *ctx)
{
	size_t		ncap = *cap > 0 ? 2 * *cap : 16;
	void	   *na = mem(ctx, NULL, ncap * size);

	if (na == NULL)
		return 0;
	if (n > 0)
		memcpy(na, *a, n * size);
	if (*a != NULL)
		mem(ctx, *a, 0);
	*a = na;
	*cap = ncap;
	return 1;
}

static uint64_t
shash(const char *s, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char) s[i]) * 0x100000001b3ULL;
	return at_hash_mix(h);
}

int
at_intern_init(at_intern *t, at_mem_fn mem, void *mem_ctx)
{
	t->cap = 64;
	t->n = 0;
	t->mem = mem;
	t->mem_ctx = mem_ctx;
	t->slots = mem(mem_ctx, NULL, t->cap * sizeof(at_intern_slot));
	t->by_id = NULL;
	t->by_id_cap = 0;
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
	if (t->by_id)
		t->mem(t->mem_ctx, t->by_id, 0);
	t->slots = NULL;
	t->by_id = NULL;
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
	if (t->n == t->by_id_cap && !grow((void **) &t->by_id, &t->by_id_cap, sizeof(at_intern_ref), t->n,
									  t->mem, t->mem_ctx))
	{
		t->mem(t->mem_ctx, copy, 0);
		return -1;
	}
	memcpy(copy, s, len);
	t->by_id[t->n].s = copy;
	t->by_id[t->n].len = len;
	e->hash = h;
	e->s = copy;
	e->len = len;
	e->id = (int32_t) t->n++;
	return e->id;
}

const char *
at_intern_str(const at_intern *t, int32_t id, size_t *len)
{
	*len = t->by_id[id].len;
	return t->by_id[id].s;
}

/* ---- decimals, local days ---- */

int
at_decimal_parse(const char *t, at_decimal *out)
{
	int			neg = 0;
	int			digits = 0;
	int			frac = -1;
	int64_t		m = 0;

	if (*t == '-')
	{
		neg = 1;
		t++;
	}
	for (; *t; t++)
	{
		if (*t == '.' && frac < 0)
			frac = 0;
		else if (*t >= '0' && *t <= '9')
		{
			if (m != 0 || *t != '0')
				digits++;
			if (digits > 18)
				return 0;
			m = m * 10 + (*t - '0');
			if (frac >= 0)
				frac++;
		}
		else
			return 0;			/* NaN, Infinity */
	}
	if (frac > 9)
		return 0;
	out->mant = neg ? -m : m;
	out->scale = frac < 0 ? 0 : frac;
	return 1;
}

#define USECS_PER_SEC	INT64_C(1000000)
#define USECS_PER_DAY	INT64_C(86400000000)
/* seconds from 1970-01-01 to 2000-01-01, the timestamptz epoch */
#define EPOCH_SHIFT_S	INT64_C(946684800)

static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t
at_zone_offset(at_zone *z, int64_t t)
{
	int64_t		s,
				next;
	int			has_next;

	if (z->fixed)
		return z->offset_s;
	if (t >= z->from && t < z->to)
		return z->off;
	s = floor_div(t, USECS_PER_SEC);
	z->lookup(z->arg, t, s + EPOCH_SHIFT_S, &z->off, &next, &has_next);
	/* the offset holds from this second until the next transition */
	z->from = s * USECS_PER_SEC;
	z->to = has_next ? (next - EPOCH_SHIFT_S) * USECS_PER_SEC : INT64_MAX;
	return z->off;
}

int32_t
at_local_day(at_zone *z, int64_t t)
{
	if (t == INT64_MIN)
		return INT32_MIN;
	if (t == INT64_MAX)
		return INT32_MAX;
	return (int32_t) floor_div(t + at_zone_offset(z, t) * USECS_PER_SEC, USECS_PER_DAY);
}

int32_t
at_local_week(at_zone *z, int64_t t)
{
	int32_t		d = at_local_day(z, t);

	if (d == INT32_MIN || d == INT32_MAX)
		return d;
	/* 2000-01-01, day 0, was a Saturday: Monday is 0 in (d + 5) mod 7 */
	return d - (int32_t) ((((int64_t) d + 5) % 7 + 7) % 7);
}

/* ---- summary_jobs' sums ---- */

#ifdef AT_HAVE_INT128
static const int64_t pow10_to9[10] = {
	INT64_C(1000000000), 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1
};

char *
at_roll_text(char *buf, at_int128 v, int32_t scale)
{
	char	   *p = buf + AT_ROLL_TEXT;
	int			neg = v < 0;
	unsigned __int128 u;
	int			digits = 0;

	v /= pow10_to9[scale];
	u = neg ? -(unsigned __int128) v : (unsigned __int128) v;
	*--p = '\0';
	do
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
		if (++digits == scale)
			*--p = '.';
	} while (u != 0 || digits <= scale);
	if (neg)
		*--p = '-';
	return p;
}

/*
 * s += x * k, or 0 on overflow.  |x| < 10^27 (18 digits at scale 9) and
 * |k| < 2^31, so the product fits; only the sum can overflow.
 */
static int
sum_add(at_roll_sum *s, at_int128 x, int64_t k, int32_t scale)
{
	s->n++;
	if (__builtin_add_overflow(s->sum, x * (at_int128) k, &s->sum))
		return 0;
	if (scale > s->scale)
		s->scale = scale;
	return 1;
}
#endif

/* ---- the pass ---- */

int
at_summary_init(at_summary_pass *p, at_mem_fn mem, void *ctx, at_occ_sort_fn sort)
{
	memset(p, 0, sizeof *p);
	p->mem = mem;
	p->mem_ctx = ctx;
	p->exact = 1;
#ifdef AT_HAVE_INT128
	p->roll_ok = 1;
#endif
	at_occ_state_init(&p->occ, mem, ctx, sort);
	at_occ_state_init(&p->gpu_occ, mem, ctx, sort);
	for (int m = 0; m < AT_SUM_MEASURES; m++)
		if (!at_vmap_init(&p->maps[m], mem, ctx))
			return 0;
	return at_intern_init(&p->types, mem, ctx) && at_intern_init(&p->states, mem, ctx) &&
		at_intern_init(&p->numerics, mem, ctx);
}

void
at_summary_free(at_summary_pass *p)
{
	for (int m = 0; m < AT_SUM_MEASURES; m++)
		at_vmap_free(&p->maps[m]);
	at_intern_free(&p->types);
	at_intern_free(&p->states);
	at_intern_free(&p->numerics);
	at_occ_state_free(&p->occ);
	at_occ_state_free(&p->gpu_occ);
	if (p->nums)
		p->mem(p->mem_ctx, p->nums, 0);
	if (p->waits)
		p->mem(p->mem_ctx, p->waits, 0);
	p->nums = NULL;
	p->waits = NULL;
}

int
at_summary_num_set(at_summary_pass *p, int32_t id, double f, const char *text)
{
	at_summary_num *n;

	while ((size_t) id >= p->nums_cap)
		if (!grow((void **) &p->nums, &p->nums_cap, sizeof(at_summary_num), (size_t) id, p->mem, p->mem_ctx))
			return 0;
	n = &p->nums[id];
	n->f = f;
	n->ok = at_decimal_parse(text, &n->dec);
	return 1;
}

/* The job's numeric in col (not NULL), asking the caller the first time. */
static const at_summary_num *
job_num(at_summary_pass *p, at_summary_job *j, int col)
{
	if (!(j->asked & (1u << col)))
	{
		j->num_id[col] = j->num(j->num_arg, col);
		j->asked |= 1u << col;
	}
	return &p->nums[j->num_id[col]];
}

void
at_summary_row_of(int measure, uint64_t g, at_summary_row *r)
{
	int			tc = (int) (g >> 1);

	switch (measure)
	{
		case AT_SUM_WAIT:
			*r = (at_summary_row) {"wait", tc, 0, -1, -1, (int) (g & 1)};
			break;
		case AT_SUM_WAIT_BY_OCC:
			*r = (at_summary_row) {"wait_by_occupancy", (int) (g >> 32), 0, -1, (int) (g & 0xffffffff), -1};
			break;
		case AT_SUM_DURATION:
			*r = (at_summary_row) {"duration", tc, tc == AT_SUM_TYPE_ALL, (int) (g & 1), -1, -1};
			break;
		default:
			*r = (at_summary_row) {"queue", AT_SUM_TYPE_ALL, 1, (int) (g & 1), -1, -1};
			break;
	}
}

/* Occupancy: NULL start or GPUs hold nothing (occupancy_agg's rule). */
static int
add_occupancy(at_summary_pass *p, const at_summary_job *j)
{
	at_occ_job	job;
	at_occ_row	row;

	if (!j->has_start || !j->has_gpus)
		return 1;
	row = at_occ_classify(j->start, j->has_end, j->has_end ? j->end : 0, j->gpus, &job);
	if (row == AT_OCC_ROW_ADD)
	{
		if (!p->odd && at_occ_state_add(&p->occ, &job) != AT_OCC_OK)
			return 0;
		if (j->gpus > 0 && at_occ_state_add(&p->gpu_occ, &job) != AT_OCC_OK)
			return 0;
	}
	else if (row != AT_OCC_ROW_SKIP)
		p->odd = 1;
	return 1;
}

/* Waits of GPU jobs that started at or after submission (NaN >= 0 in SQL). */
static int
add_wait(at_summary_pass *p, const at_summary_job *j)
{
	double		w = j->wait;
	at_summary_wait *pw;

	if (!(j->has_gpus && j->gpus > 0 && j->has_wait && (w >= 0 || isnan(w))))
		return 1;
	if (!isfinite(w))
	{
		p->exact = 0;
		return 1;
	}
	if (!at_vmap_add(&p->maps[AT_SUM_WAIT], ((uint64_t) j->type_code << 1) | (j->cancelled != 0), w))
		return 0;
	if (p->nwaits == p->waits_cap &&
		!grow((void **) &p->waits, &p->waits_cap, sizeof(at_summary_wait), p->nwaits, p->mem, p->mem_ctx))
		return 0;
	pw = &p->waits[p->nwaits++];
	pw->submit = j->submit;		/* not NULL: wait is */
	pw->wait = w;
	pw->type_code = j->type_code;
	return 1;
}

int
at_summary_add(at_summary_pass *p, at_summary_job *j)
{
	uint64_t	g = j->gpus > 0;

	p->jobs++;
	if (!add_occupancy(p, j) || !add_wait(p, j))
		return 0;
	if (!j->has_gpus || j->gpus < 0)
		return 1;
	if (j->has_num[AT_SUM_COL_DURATION])
	{
		double		d = job_num(p, j, AT_SUM_COL_DURATION)->f;

		if (!isfinite(d))
			p->exact = 0;
		else if (!at_vmap_add(&p->maps[AT_SUM_DURATION], ((uint64_t) j->type_code << 1) | g, d) ||
				 !at_vmap_add(&p->maps[AT_SUM_DURATION], ((uint64_t) AT_SUM_TYPE_ALL << 1) | g, d))
			return 0;
	}
	if (j->has_num[AT_SUM_COL_QUEUE])
	{
		double		q = job_num(p, j, AT_SUM_COL_QUEUE)->f;

		if (!isfinite(q))
			p->exact = 0;
		else if (!at_vmap_add(&p->maps[AT_SUM_QUEUE], g, q))
			return 0;
	}
	return 1;
}

void
at_summary_roll_key(at_summary_pass *p, const at_summary_job *j, at_roll_key *key)
{
	memset(key, 0, sizeof *key);
	key->type_code = (int32_t) j->type_code;
	key->state_code = j->state_code;
	if (j->has_gpus)
		key->gpu = j->gpus;
	else
		key->nulls |= 4;
	if (!j->has_submit)
		key->nulls |= 1;
	else
		key->day = at_local_day(&p->zone, j->submit);
	if (!j->has_end)
		key->nulls |= 2;
	else
		key->week = at_local_week(&p->zone, j->end);
}

#ifdef AT_HAVE_INT128
/* Column col at scale 9 and its scale, or 0 if it is not such a decimal. */
static int
scaled(at_summary_pass *p, at_summary_job *j, int col, at_int128 *x, int32_t *scale)
{
	const at_summary_num *n = job_num(p, j, col);

	if (!n->ok)
		return 0;
	*x = (at_int128) n->dec.mant * pow10_to9[n->dec.scale];
	*scale = n->dec.scale;
	return 1;
}

/* The sums of duration (and max, and duration x gpu_num); 0 if they do not fit. */
static int
roll_duration(at_summary_pass *p, at_roll *r, at_summary_job *j, at_int128 *dv, int32_t *dscale)
{
	if (!scaled(p, j, AT_SUM_COL_DURATION, dv, dscale) || !sum_add(&r->duration, *dv, 1, *dscale))
		return 0;
	if (!r->has_max || *dv >= r->max)
	{
		r->has_max = 1;
		r->max = *dv;
		r->max_scale = *dscale;
	}
	return !j->has_gpus || sum_add(&r->gpu_time, *dv, j->gpus, *dscale);
}

static int
roll_sums(at_summary_pass *p, at_roll *r, at_summary_job *j)
{
	at_int128	dv = 0,
				x;
	int32_t		dscale = 0,
				sc;

	if (j->has_num[AT_SUM_COL_DURATION] && !roll_duration(p, r, j, &dv, &dscale))
		return 0;
	if (j->has_num[AT_SUM_COL_QUEUE] &&
		!(scaled(p, j, AT_SUM_COL_QUEUE, &x, &sc) && sum_add(&r->queue, x, 1, sc)))
		return 0;
	if (j->has_num[AT_SUM_COL_GPU_TIME])
		return scaled(p, j, AT_SUM_COL_GPU_TIME, &x, &sc) && sum_add(&r->gpu_time_or, x, 1, sc);
	if (j->has_num[AT_SUM_COL_DURATION] && j->has_gpus)
		return sum_add(&r->gpu_time_or, dv, j->gpus, dscale);
	return 1;
}

void
at_summary_roll_add(at_summary_pass *p, at_roll *r, at_summary_job *j)
{
	r->jobs++;
	if (j->has_submit)
	{
		if (!r->has_submit || j->submit < r->first)
			r->first = j->submit;
		if (!r->has_submit || j->submit > r->last)
			r->last = j->submit;
		r->has_submit = 1;
	}
	if (!roll_sums(p, r, j))
		p->roll_ok = 0;
}
#endif

at_occ_err
at_summary_finish(at_summary_pass *p, int has_capacity, int64_t capacity, at_summary_bin_fn bin, void *arg)
{
	at_occ_step *steps;
	size_t		n,
				hint = 0;
	at_occ_err	e;

	/* the peak of GPU jobs: of every job unless some were odd */
	e = at_occ_state_steps(p->odd ? &p->gpu_occ : &p->occ, p->mem, p->mem_ctx, &steps, &n);
	if (e != AT_OCC_OK)
		return e;
	p->peak = at_occ_peak(steps, n);
	p->capacity = has_capacity ? capacity : p->peak > 0 ? p->peak : 1;
	for (size_t i = 0; !p->odd && p->exact && i < p->nwaits; i++)
	{
		const at_summary_wait *w = &p->waits[i];
		int32_t		b = bin(arg, at_occ_at_hint(steps, n, w->submit, &hint), p->capacity);

		if (!at_vmap_add(&p->maps[AT_SUM_WAIT_BY_OCC], ((uint64_t) w->type_code << 32) | (uint32_t) b, w->wait))
		{
			e = AT_OCC_ENOMEM;
			break;
		}
	}
	p->mem(p->mem_ctx, steps, 0);
	return e;
}
