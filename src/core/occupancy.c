/*
 * occupancy.c: the GPU occupancy sweep (see occupancy.h).
 */
#include "occupancy.h"

#include <string.h>

#include "bytes.h"
#include "hash.h"
#include "hex.h"

at_occ_row
at_occ_classify(int64_t start, int has_end, int64_t end, int32_t gpus, at_occ_job *out)
{
	if (!has_end)
		end = AT_OCC_NOEND;
	if (gpus < 0)
		return AT_OCC_ROW_NEGATIVE_GPUS;
	if (end < start)
		return AT_OCC_ROW_END_BEFORE_START;
	/* [start, start) is empty; a start at infinity is always empty */
	if (gpus == 0 || end == start)
		return AT_OCC_ROW_SKIP;
	out->start = start;
	out->end = end;
	out->gpus = gpus;
	out->flags = 0;
	return AT_OCC_ROW_ADD;
}

long long
at_occ_to_jobs(const at_occ_step *s, size_t n, at_occ_job *out, at_occ_job *stack)
{
	int64_t		level = 0;
	size_t		top = 0,
				k = 0;

	for (size_t i = 0; i < n; i++)
	{
		int64_t		fall;

		if (s[i].gpus > level)
		{
			if (s[i].gpus - level > INT32_MAX)
				return -1;
			stack[top].start = s[i].t;
			stack[top].end = AT_OCC_NOEND;
			stack[top].gpus = (int32_t) (s[i].gpus - level);
			stack[top].flags = 0;
			top++;
			level = s[i].gpus;
			continue;
		}
		/* canonical: every step changes the level, so this is a fall */
		fall = level - s[i].gpus;
		level = s[i].gpus;
		while (fall > 0 && top > 0)	/* top > 0 unless s is not canonical */
		{
			at_occ_job *j = &stack[top - 1];

			out[k] = *j;
			out[k].end = s[i].t;
			if (j->gpus <= fall)
			{
				fall -= j->gpus;
				top--;
			}
			else
			{
				/* the rest of the latest job goes on: split it */
				out[k].gpus = (int32_t) fall;
				j->gpus -= (int32_t) fall;
				fall = 0;
			}
			k++;
		}
	}
	while (top > 0)
		out[k++] = stack[--top];
	return (long long) k;
}

size_t
at_occ_start_events(const at_occ_job *jobs, size_t n, at_occ_step *ev)
{
	size_t		k = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (jobs[i].flags & AT_OCC_JOB_END_ONLY)
			continue;
		ev[k].t = jobs[i].start;
		ev[k].gpus = jobs[i].gpus;
		k++;
	}
	return k;
}

size_t
at_occ_end_events(const at_occ_job *jobs, size_t n, at_occ_step *ev)
{
	size_t		k = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		/* a release at infinity never happens */
		if (jobs[i].end != AT_OCC_NOEND)
		{
			ev[k].t = jobs[i].end;
			ev[k].gpus = jobs[i].gpus;
			k++;
		}
	}
	return k;
}

void
at_occ_list_fill(at_occ_list *dst, const at_occ_step *ev, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		dst->t[i] = ev[i].t;
		dst->g[i] = (int32_t) ev[i].gpus;
	}
	dst->n = n;
}

void
at_occ_list_merge(const at_occ_list *a, const at_occ_list *b, at_occ_list *out)
{
	size_t		i = 0,
				j = 0,
				k = 0;

	while (i < a->n && j < b->n)
	{
		if (b->t[j] < a->t[i] || (b->t[j] == a->t[i] && b->g[j] < a->g[i]))
		{
			out->t[k] = b->t[j];
			out->g[k++] = b->g[j++];
		}
		else
		{
			out->t[k] = a->t[i];
			out->g[k++] = a->g[i++];
		}
	}
	for (; i < a->n; i++, k++)
	{
		out->t[k] = a->t[i];
		out->g[k] = a->g[i];
	}
	for (; j < b->n; j++, k++)
	{
		out->t[k] = b->t[j];
		out->g[k] = b->g[j];
	}
	out->n = k;
}

long long
at_occ_sweep_runs(const at_occ_list *starts, const at_occ_list *ends, int k, size_t *pos,
				   at_occ_step *out)
{
	size_t	   *si = pos,
			   *ei = pos + k;
	long long	m = 0;
	int64_t		level = 0;
	int			r;

	for (r = 0; r < k; r++)
		si[r] = ei[r] = 0;
	for (;;)
	{
		int64_t		t = 0,
					delta = 0;
		int			any = 0;

		/* the next instant: the earliest head of any run */
		for (r = 0; r < k; r++)
		{
			if (si[r] < starts[r].n && (!any || starts[r].t[si[r]] < t))
			{
				t = starts[r].t[si[r]];
				any = 1;
			}
			if (ei[r] < ends[r].n && (!any || ends[r].t[ei[r]] < t))
			{
				t = ends[r].t[ei[r]];
				any = 1;
			}
		}
		if (!any)
			break;
		/* releases first, then allocations */
		for (r = 0; r < k; r++)
			while (ei[r] < ends[r].n && ends[r].t[ei[r]] == t)
				delta -= ends[r].g[ei[r]++];
		if (level + delta < 0)
			return -1;
		for (r = 0; r < k; r++)
			while (si[r] < starts[r].n && starts[r].t[si[r]] == t)
				delta += starts[r].g[si[r]++];
		if (delta != 0)
		{
			level += delta;
			if (out)
			{
				out[m].t = t;
				out[m].gpus = level;
			}
			m++;
		}
	}
	return m;
}

long long
at_occ_sweep_lists(const at_occ_list *starts, const at_occ_list *ends, at_occ_step *out)
{
	size_t		pos[2];

	return at_occ_sweep_runs(starts, ends, 1, pos, out);
}

int
at_occ_step_cmp(const void *a, const void *b)
{
	const at_occ_step *x = a;
	const at_occ_step *y = b;

	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->gpus > y->gpus) - (x->gpus < y->gpus);
}

int
at_occ_level_cmp(const void *a, const void *b)
{
	int64_t		x = ((const at_occ_level *) a)->gpus;
	int64_t		y = ((const at_occ_level *) b)->gpus;

	return (x > y) - (x < y);
}

static inline int
step_less(const at_occ_step *a, const at_occ_step *b)
{
	return a->t < b->t || (a->t == b->t && a->gpus < b->gpus);
}

static inline void
step_swap(at_occ_step *a, at_occ_step *b)
{
	at_occ_step x = *a;

	*a = *b;
	*b = x;
}

static void
insertion_sort(at_occ_step *ev, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		at_occ_step x = ev[i];
		size_t		j = i;

		for (; j > 0 && step_less(&x, &ev[j - 1]); j--)
			ev[j] = ev[j - 1];
		ev[j] = x;
	}
}

static void
sift_down(at_occ_step *ev, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c)
	{
		if (c + 1 < n && step_less(&ev[c], &ev[c + 1]))
			c++;
		if (!step_less(&ev[i], &ev[c]))
			break;
		step_swap(&ev[i], &ev[c]);
	}
}

/* The fallback when partitions keep coming out lopsided: O(n log n) always. */
static void
heap_sort(at_occ_step *ev, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(ev, i, n);
	for (size_t k = n; k-- > 1;)
	{
		step_swap(&ev[0], &ev[k]);
		sift_down(ev, 0, k);
	}
}

/*
 * Hoare's partition around the median of the first, middle and last
 * events, moved to ev[0]: [0, j] <= pivot <= (j, n), both parts non-empty.
 */
static size_t
partition(at_occ_step *ev, size_t n)
{
	at_occ_step *m = &ev[n / 2],
			   *l = &ev[n - 1],
				p;
	size_t		i = 0,
				j = n;

	if (step_less(m, ev))
		step_swap(m, ev);
	if (step_less(l, m))
	{
		step_swap(l, m);
		if (step_less(m, ev))
			step_swap(m, ev);
	}
	step_swap(ev, m);
	p = ev[0];
	for (;;)
	{
		while (step_less(&ev[i], &p))
			i++;
		do
			j--;
		while (step_less(&p, &ev[j]));
		if (i >= j)
			return j;
		step_swap(&ev[i], &ev[j]);
		i++;
	}
}

static void
intro_sort(at_occ_step *ev, size_t n, int depth, void (*poll) (void))
{
	while (n > 16)
	{
		size_t		j;

		if (poll)
			poll();
		if (depth-- == 0)
		{
			heap_sort(ev, n);
			return;
		}
		j = partition(ev, n) + 1;
		/* recurse into the smaller part: the stack stays O(log n) */
		if (j < n - j)
		{
			intro_sort(ev, j, depth, poll);
			ev += j;
			n -= j;
		}
		else
		{
			intro_sort(ev + j, n - j, depth, poll);
			n = j;
		}
	}
	insertion_sort(ev, n);
}

void
at_occ_sort_steps(at_occ_step *ev, size_t n, void (*poll) (void))
{
	int			depth = 0;
	size_t		i = 1;

	/* events often come in time order already (a table loaded by time) */
	while (i < n && !step_less(&ev[i], &ev[i - 1]))
		i++;
	if (i >= n)
		return;
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	intro_sort(ev, n, depth, poll);
}

const char *
at_occ_check(const at_occ_step *s, size_t n, int64_t tmin, int64_t tmax, size_t *bad)
{
	int64_t		prev = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		*bad = i;
		if (s[i].t == AT_OCC_NOEND)
			return "a step at infinity never happens";
		if (s[i].t != AT_OCC_NOBEGIN && (s[i].t < tmin || s[i].t >= tmax))
			return "time out of range";
		if (i > 0 && s[i].t <= s[i - 1].t)
			return "times must be strictly increasing";
		if (s[i].gpus < 0)
			return "GPU count must not be negative";
		if (s[i].gpus == prev)
			return "level equals the previous level (not canonical)";
		prev = s[i].gpus;
	}
	return NULL;
}

/* Index of the first step later than t within [lo, hi), given it is there. */
static size_t
first_after_in(const at_occ_step *s, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
first_after(const at_occ_step *s, size_t n, int64_t t)
{
	return first_after_in(s, 0, n, t);
}

int64_t
at_occ_at(const at_occ_step *s, size_t n, int64_t t)
{
	/* the step before the first one later than t holds at t */
	size_t		f = first_after(s, n, t);

	return f == 0 ? 0 : s[f - 1].gpus;
}

int64_t
at_occ_at_hint(const at_occ_step *s, size_t n, int64_t t, size_t *hint)
{
	size_t		h = *hint < n ? *hint : n;
	size_t		lo,
				hi,
				d = 1;

	/* f, the first step later than t, is in [lo, hi]: gallop from the hint */
	if (h < n && s[h].t <= t)
	{
		lo = h + 1;
		while (lo + d - 1 < n && s[lo + d - 1].t <= t)
		{
			lo += d;
			d *= 2;
		}
		hi = lo + d - 1 < n ? lo + d - 1 : n;
	}
	else if (h > 0 && s[h - 1].t > t)
	{
		hi = h - 1;
		while (hi >= d && s[hi - d].t > t)
		{
			hi -= d;
			d *= 2;
		}
		lo = hi >= d ? hi - d + 1 : 0;
	}
	else
		lo = hi = h;
	lo = first_after_in(s, lo, hi, t);
	*hint = lo;
	return lo == 0 ? 0 : s[lo - 1].gpus;
}

int64_t
at_occ_peak(const at_occ_step *s, size_t n)
{
	int64_t		peak = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		if (s[i].gpus > peak)
			peak = s[i].gpus;
	return peak;
}

uint64_t
at_occ_fingerprint(const at_occ_step *s, size_t n)
{
	uint64_t	h = at_hash_mix((uint64_t) n + UINT64_C(0x9e3779b97f4a7c15));
	size_t		i;

	for (i = 0; i < n; i++)
	{
		h = at_hash_mix(h ^ (uint64_t) s[i].t);
		h = at_hash_mix(h + (uint64_t) s[i].gpus);
	}
	return h;
}

size_t
at_occ_segments_max(const at_occ_step *s, size_t n, int64_t from, int64_t to)
{
	return first_after(s, n, to) - first_after(s, n, from) + 1;
}

size_t
at_occ_segments(const at_occ_step *s, size_t n, int64_t from, int64_t to, at_occ_level *out)
{
	size_t		i = first_after(s, n, from);
	int64_t		level = i == 0 ? 0 : s[i - 1].gpus;
	int64_t		cur = from;
	size_t		k = 0;

	/*
	 * from <= cur < t <= to for every segment, but timestamptz spans more
	 * than INT64_MAX us: subtract as unsigned, which is exact here
	 */
	for (; i < n && s[i].t < to; i++)
	{
		out[k].gpus = level;
		out[k].usec = (uint64_t) s[i].t - (uint64_t) cur;
		k++;
		cur = s[i].t;
		level = s[i].gpus;
	}
	out[k].gpus = level;
	out[k].usec = (uint64_t) to - (uint64_t) cur;
	return k + 1;
}

size_t
at_occ_merge_levels(at_occ_level *lv, size_t n)
{
	size_t		out = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (out > 0 && lv[out - 1].gpus == lv[i].gpus)
			lv[out - 1].usec += lv[i].usec;
		else
			lv[out++] = lv[i];
	}
	return out;
}

double
at_occ_integral(const at_occ_step *s, size_t n, int64_t from, int64_t to)
{
	size_t		i = first_after(s, n, from);
	int64_t		level = i == 0 ? 0 : s[i - 1].gpus;
	int64_t		cur = from;
	double		sum = 0;

	/* unsigned differences, as in at_occ_segments */
	for (; i < n && s[i].t < to; i++)
	{
		sum += (double) level * (double) ((uint64_t) s[i].t - (uint64_t) cur);
		cur = s[i].t;
		level = s[i].gpus;
	}
	return sum + (double) level * (double) ((uint64_t) to - (uint64_t) cur);
}

/* ---- the stored value ---- */

void
at_occ_value_init(at_occ_value *o)
{
	memset((char *) o + sizeof(o->vl_len_), 0, AT_OCC_VALUE_HEADER - sizeof(o->vl_len_));
	o->version = AT_OCC_VALUE_VERSION;
}

void
at_occ_value_finish(at_occ_value *o, size_t n)
{
	o->nsteps = (uint32_t) n;
	o->fingerprint = at_occ_fingerprint(o->steps, n);
}

int
at_occ_value_header_ok(const at_occ_value *o, size_t size)
{
	return size >= AT_OCC_VALUE_HEADER && o->version == AT_OCC_VALUE_VERSION && o->flags == 0 &&
		o->unused16 == 0 && o->unused32 == 0 && size == AT_OCC_VALUE_SIZE(o->nsteps);
}

/* ---- serialized aggregate state ---- */

size_t
at_occ_state_size(size_t nstarts, size_t nends)
{
	return AT_OCC_STATE_HEADER + (nstarts + nends) * AT_OCC_STATE_ENTRY;
}

static uint8_t *
put_list(uint8_t *p, const at_occ_list *l)
{
	size_t		i;

	for (i = 0; i < l->n; i++, p += AT_OCC_STATE_ENTRY)
	{
		at_put_u64(p, (uint64_t) l->t[i]);
		at_put_u32(p + 8, (uint32_t) l->g[i]);
	}
	return p;
}

void
at_occ_state_write(uint8_t *buf, const at_occ_list *starts, const at_occ_list *ends)
{
	buf[0] = AT_OCC_STATE_VERSION;
	buf[1] = buf[2] = buf[3] = 0;
	at_put_u64(buf + 4, starts->n);
	at_put_u64(buf + 12, ends->n);
	put_list(put_list(buf + AT_OCC_STATE_HEADER, starts), ends);
}

const char *
at_occ_state_open(const uint8_t *buf, size_t len, size_t *nstarts, size_t *nends)
{
	uint64_t	ns,
				ne,
				room;

	if (len < AT_OCC_STATE_HEADER)
		return "shorter than its header";
	if (buf[0] != AT_OCC_STATE_VERSION)
		return "unknown version";
	if (buf[1] | buf[2] | buf[3])
		return "reserved bytes are not zero";
	ns = at_get_u64(buf + 4);
	ne = at_get_u64(buf + 12);
	room = (len - AT_OCC_STATE_HEADER) / AT_OCC_STATE_ENTRY;
	if (ns > room || ne > room - ns ||
		len != AT_OCC_STATE_HEADER + (ns + ne) * AT_OCC_STATE_ENTRY)
		return "length does not match the event counts";
	*nstarts = (size_t) ns;
	*nends = (size_t) ne;
	return NULL;
}

static const uint8_t *
get_list(const uint8_t *p, at_occ_list *l, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++, p += AT_OCC_STATE_ENTRY)
	{
		l->t[i] = (int64_t) at_get_u64(p);
		l->g[i] = (int32_t) at_get_u32(p + 8);
	}
	l->n = n;
	return p;
}

void
at_occ_state_read(const uint8_t *buf, at_occ_list *starts, at_occ_list *ends)
{
	size_t		ns = (size_t) at_get_u64(buf + 4);
	size_t		ne = (size_t) at_get_u64(buf + 12);

	get_list(get_list(buf + AT_OCC_STATE_HEADER, starts, ns), ends, ne);
}

static const char *
check_list(const at_occ_list *l, int64_t tmin, int64_t tmax, int is_start)
{
	size_t		i;

	for (i = 0; i < l->n; i++)
	{
		int64_t		t = l->t[i];

		if (l->g[i] <= 0)
			return "job with no GPUs";
		if (i > 0 && t < l->t[i - 1])
			return "events out of order";
		if (t == AT_OCC_NOEND || (t == AT_OCC_NOBEGIN && !is_start))
			return "infinite event time";
		if (t != AT_OCC_NOBEGIN && (t < tmin || t >= tmax))
			return "event time out of range";
	}
	return NULL;
}

const char *
at_occ_lists_check(const at_occ_list *starts, const at_occ_list *ends, int64_t tmin, int64_t tmax)
{
	const char *msg;

	if (ends->n > starts->n)
		return "more ends than starts";
	if ((msg = check_list(starts, tmin, tmax, 1)) != NULL ||
		(msg = check_list(ends, tmin, tmax, 0)) != NULL)
		return msg;
	if (at_occ_sweep_lists(starts, ends, NULL) < 0)
		return "GPUs released before they were allocated";
	return NULL;
}

/* ---- occupancy_agg's state ---- */

void
at_occ_state_init(at_occ_state *st, at_mem_fn mem, void *mem_ctx, at_occ_sort_fn sort)
{
	memset(st, 0, sizeof(*st));
	st->mem = mem;
	st->mem_ctx = mem_ctx;
	st->sort = sort;
}

/* A list with room for n events (at least one, so never a 0-byte request). */
static at_occ_err
list_alloc(at_mem_fn mem, void *ctx, at_occ_list *l, size_t n)
{
	size_t		room = n > 0 ? n : 1;

	l->n = 0;
	l->g = NULL;
	l->t = mem(ctx, NULL, room * sizeof(int64_t));
	if (l->t == NULL)
		return AT_OCC_ENOMEM;
	l->g = mem(ctx, NULL, room * sizeof(int32_t));
	if (l->g == NULL)
	{
		mem(ctx, l->t, 0);
		l->t = NULL;
		return AT_OCC_ENOMEM;
	}
	return AT_OCC_OK;
}

static void
list_free(at_mem_fn mem, void *ctx, at_occ_list *l)
{
	if (l->t)
		mem(ctx, l->t, 0);
	if (l->g)
		mem(ctx, l->g, 0);
	l->t = NULL;
	l->g = NULL;
	l->n = 0;
}

/* A new empty chunk of cap jobs at the tail. */
static at_occ_chunk *
new_chunk(at_occ_state *st, uint32_t cap)
{
	at_occ_chunk *c = st->mem(st->mem_ctx, NULL, offsetof(at_occ_chunk, jobs) + (size_t) cap * sizeof(at_occ_job));

	if (c == NULL)
		return NULL;
	c->next = NULL;
	c->n = 0;
	c->cap = cap;
	if (st->tail)
		st->tail->next = c;
	else
		st->head = c;
	st->tail = c;
	return c;
}

at_occ_err
at_occ_state_grow(at_occ_state *st)
{
	uint32_t	cap = AT_OCC_CHUNK_MIN;

	/* each chunk twice the last, up to AT_OCC_CHUNK_MAX */
	if (st->tail != NULL)
	{
		cap = st->tail->cap < AT_OCC_CHUNK_MIN / 2 ? AT_OCC_CHUNK_MIN / 2 : st->tail->cap;
		cap = cap < AT_OCC_CHUNK_MAX / 2 ? cap * 2 : AT_OCC_CHUNK_MAX;
	}
	return new_chunk(st, cap) ? AT_OCC_OK : AT_OCC_ENOMEM;
}

void
at_occ_state_free(at_occ_state *st)
{
	at_occ_chunk *c = st->head;

	while (c != NULL)
	{
		at_occ_chunk *next = c->next;

		st->mem(st->mem_ctx, c, 0);
		c = next;
	}
	for (int r = 0; r < st->nruns; r++)
	{
		list_free(st->mem, st->mem_ctx, &st->starts[r]);
		list_free(st->mem, st->mem_ctx, &st->ends[r]);
	}
	st->head = st->tail = NULL;
	st->nraw = 0;
	st->nruns = 0;
}

at_occ_err
at_occ_state_add_steps(at_occ_state *st, const at_occ_step *s, size_t n)
{
	at_occ_job *jobs;
	long long	k;
	at_occ_err	e = AT_OCC_OK;

	if (n == 0)
		return AT_OCC_OK;
	if (n > SIZE_MAX / 2 / (2 * sizeof(at_occ_job)))
		return AT_OCC_ETOOMANY;
	jobs = st->mem(st->mem_ctx, NULL, 2 * n * sizeof(at_occ_job));
	if (jobs == NULL)
		return AT_OCC_ENOMEM;
	k = at_occ_to_jobs(s, n, jobs, jobs + n);
	if (k < 0)
		e = AT_OCC_ERISE;
	for (long long i = 0; i < k && e == AT_OCC_OK; i++)
		e = at_occ_state_add(st, &jobs[i]);
	st->mem(st->mem_ctx, jobs, 0);
	return e;
}

/* Merge runs[0..k) into one new list (from mem/ctx). */
static at_occ_err
merge_runs(at_mem_fn mem, void *ctx, const at_occ_list *runs, int k, at_occ_list *out)
{
	size_t		total = 0;
	at_occ_err	e;

	for (int r = 0; r < k; r++)
		total += runs[r].n;
	if ((e = list_alloc(mem, ctx, out, total)) != AT_OCC_OK)
		return e;
	for (int r = 0; r < k; r++)
	{
		at_occ_list merged;

		if (r == 0)
		{
			if (runs[0].n > 0)
			{
				memcpy(out->t, runs[0].t, runs[0].n * sizeof(int64_t));
				memcpy(out->g, runs[0].g, runs[0].n * sizeof(int32_t));
			}
			out->n = runs[0].n;
			continue;
		}
		if ((e = list_alloc(mem, ctx, &merged, out->n + runs[r].n)) != AT_OCC_OK)
		{
			list_free(mem, ctx, out);
			return e;
		}
		at_occ_list_merge(out, &runs[r], &merged);
		list_free(mem, ctx, out);
		*out = merged;
	}
	return AT_OCC_OK;
}

/*
 * Add a run's events as raw jobs, exactly: each start a job that never
 * ends, each end an end-only job.  On an error dst may hold some of them.
 */
static at_occ_err
add_run_jobs(at_occ_state *dst, const at_occ_list *s, const at_occ_list *e)
{
	at_occ_job	job;
	at_occ_err	err;

	job.end = AT_OCC_NOEND;
	job.flags = 0;
	for (size_t i = 0; i < s->n; i++)
	{
		job.start = s->t[i];
		job.gpus = s->g[i];
		if ((err = at_occ_state_add(dst, &job)) != AT_OCC_OK)
			return err;
	}
	job.start = 0;
	job.flags = AT_OCC_JOB_END_ONLY;
	for (size_t i = 0; i < e->n; i++)
	{
		job.end = e->t[i];
		job.gpus = e->g[i];
		if ((err = at_occ_state_add(dst, &job)) != AT_OCC_OK)
			return err;
	}
	return AT_OCC_OK;
}

static size_t
run_events(const at_occ_state *st, int r)
{
	return st->starts[r].n + st->ends[r].n;
}

/* Run r is gone: the last run takes its slot. */
static void
remove_run(at_occ_state *st, int r)
{
	list_free(st->mem, st->mem_ctx, &st->starts[r]);
	list_free(st->mem, st->mem_ctx, &st->ends[r]);
	st->nruns--;
	st->starts[r] = st->starts[st->nruns];
	st->ends[r] = st->ends[st->nruns];
	st->starts[st->nruns].t = st->ends[st->nruns].t = NULL;
	st->starts[st->nruns].g = st->ends[st->nruns].g = NULL;
}

/*
 * Add the run (s, e) to dst: taken (the lists now belong to dst, which
 * frees them if it does not keep them) or copied.  With AT_OCC_MAX_RUNS
 * runs already, the smaller of the new run and dst's smallest becomes raw
 * jobs (sorted with the others when the state is finalized or flattened),
 * so no event is merged or converted twice: combining P states costs
 * O(N), not O(P * N) as merging every run at each fold would.  On an
 * error nothing was taken (dst may hold some of the run's jobs).
 */
static at_occ_err
push_run(at_occ_state *dst, const at_occ_list *s, const at_occ_list *e, int take)
{
	size_t		size = s->n + e->n;
	at_occ_err	err;
	int			d;

	if (dst->nruns == AT_OCC_MAX_RUNS)
	{
		int			j = 0;

		for (int r = 1; r < dst->nruns; r++)
			if (run_events(dst, r) < run_events(dst, j))
				j = r;
		if (size <= run_events(dst, j))
		{
			if ((err = add_run_jobs(dst, s, e)) != AT_OCC_OK)
				return err;
			if (take)
			{
				at_occ_list ts = *s,
							te = *e;

				list_free(dst->mem, dst->mem_ctx, &ts);
				list_free(dst->mem, dst->mem_ctx, &te);
			}
			return AT_OCC_OK;
		}
		if ((err = add_run_jobs(dst, &dst->starts[j], &dst->ends[j])) != AT_OCC_OK)
			return err;
		remove_run(dst, j);
	}
	d = dst->nruns;
	if (take)
	{
		dst->starts[d] = *s;
		dst->ends[d] = *e;
	}
	else
	{
		if ((err = merge_runs(dst->mem, dst->mem_ctx, s, 1, &dst->starts[d])) != AT_OCC_OK)
			return err;
		if ((err = merge_runs(dst->mem, dst->mem_ctx, e, 1, &dst->ends[d])) != AT_OCC_OK)
		{
			list_free(dst->mem, dst->mem_ctx, &dst->starts[d]);
			return err;
		}
	}
	dst->nruns++;
	return AT_OCC_OK;
}

/* src's runs [0, r) went to dst: src keeps the rest. */
static void
drop_runs(at_occ_state *src, int r)
{
	memmove(&src->starts[0], &src->starts[r], (size_t) (src->nruns - r) * sizeof(at_occ_list));
	memmove(&src->ends[0], &src->ends[r], (size_t) (src->nruns - r) * sizeof(at_occ_list));
	src->nruns -= r;
}

at_occ_err
at_occ_state_combine(at_occ_state *dst, at_occ_state *src)
{
	int			take = src->decoded && src->mem == dst->mem && src->mem_ctx == dst->mem_ctx;
	at_occ_err	e = AT_OCC_OK;
	int			r;

	if (src == dst)
		return AT_OCC_ESELF;
	/* raw jobs: src may live in shorter-lived memory, so copy them */
	for (at_occ_chunk *c = src->head; c != NULL; c = c->next)
	{
		at_occ_chunk *copy;

		if (c->n == 0)
			continue;
		if ((copy = new_chunk(dst, c->n)) == NULL)
			return AT_OCC_ENOMEM;
		memcpy(copy->jobs, c->jobs, (size_t) c->n * sizeof(at_occ_job));
		copy->n = c->n;
		dst->nraw += c->n;
	}
	/* runs: a decoded src made them with our allocator, so take them; else copy */
	for (r = 0; r < src->nruns; r++)
		if ((e = push_run(dst, &src->starts[r], &src->ends[r], take)) != AT_OCC_OK)
			break;
	if (take)
		drop_runs(src, r);
	return e;
}

void
at_occ_state_counts(const at_occ_state *st, size_t *nstarts, size_t *nends)
{
	size_t		ns = 0,
				ne = 0;

	for (const at_occ_chunk *c = st->head; c != NULL; c = c->next)
		for (uint32_t i = 0; i < c->n; i++)
		{
			ns += !(c->jobs[i].flags & AT_OCC_JOB_END_ONLY);
			ne += c->jobs[i].end != AT_OCC_NOEND;
		}
	for (int r = 0; r < st->nruns; r++)
	{
		ns += st->starts[r].n;
		ne += st->ends[r].n;
	}
	*nstarts = ns;
	*nends = ne;
}

/* Sort events of one kind from the raw jobs into a new list. */
static at_occ_err
sort_raw_events(const at_occ_state *st, int ends, at_occ_step *ev, at_mem_fn mem, void *ctx,
				at_occ_list *out)
{
	size_t		k = 0;
	at_occ_err	e;

	for (const at_occ_chunk *c = st->head; c != NULL; c = c->next)
		k += ends ? at_occ_end_events(c->jobs, c->n, ev + k) : at_occ_start_events(c->jobs, c->n, ev + k);
	st->sort(ev, k);
	if ((e = list_alloc(mem, ctx, out, k)) != AT_OCC_OK)
		return e;
	at_occ_list_fill(out, ev, k);
	return AT_OCC_OK;
}

at_occ_err
at_occ_state_runs(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_runs *out)
{
	int			k = st->nruns;
	at_occ_step *ev;
	at_occ_err	e;

	out->k = out->owned = k;
	if (k > 0)
	{
		memcpy(out->starts, st->starts, (size_t) k * sizeof(at_occ_list));
		memcpy(out->ends, st->ends, (size_t) k * sizeof(at_occ_list));
	}
	if (st->nraw == 0)
		return AT_OCC_OK;
	/* PostgreSQL's huge allocations stop at SIZE_MAX / 2 */
	if (st->nraw > SIZE_MAX / 2 / sizeof(at_occ_step))
		return AT_OCC_ETOOMANY;
	ev = mem(ctx, NULL, (size_t) st->nraw * sizeof(at_occ_step));
	if (ev == NULL)
		return AT_OCC_ENOMEM;
	e = sort_raw_events(st, 0, ev, mem, ctx, &out->starts[k]);
	if (e == AT_OCC_OK)
	{
		e = sort_raw_events(st, 1, ev, mem, ctx, &out->ends[k]);
		if (e != AT_OCC_OK)
			list_free(mem, ctx, &out->starts[k]);
	}
	mem(ctx, ev, 0);
	if (e == AT_OCC_OK)
		out->k = k + 1;
	return e;
}

void
at_occ_runs_free(at_occ_runs *r, at_mem_fn mem, void *ctx)
{
	for (int i = r->owned; i < r->k; i++)
	{
		list_free(mem, ctx, &r->starts[i]);
		list_free(mem, ctx, &r->ends[i]);
	}
	r->k = r->owned;
}

size_t
at_occ_runs_events(const at_occ_runs *r)
{
	size_t		n = 0;

	for (int i = 0; i < r->k; i++)
		n += r->starts[i].n + r->ends[i].n;
	return n;
}

long long
at_occ_runs_sweep(const at_occ_runs *r, at_occ_step *out)
{
	size_t		pos[2 * (AT_OCC_MAX_RUNS + 1)];

	return at_occ_sweep_runs(r->starts, r->ends, r->k, pos, out);
}

at_occ_err
at_occ_state_steps(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_step **out, size_t *n)
{
	at_occ_runs runs;
	size_t		room;
	long long	k;
	at_occ_err	e;

	*out = NULL;
	*n = 0;
	runs.k = runs.owned = 0;
	if ((e = at_occ_state_runs(st, mem, ctx, &runs)) != AT_OCC_OK)
		return e;
	room = at_occ_runs_events(&runs);
	*out = mem(ctx, NULL, (room > 0 ? room : 1) * sizeof(at_occ_step));
	if (*out == NULL)
		e = AT_OCC_ENOMEM;
	else if ((k = at_occ_runs_sweep(&runs, *out)) < 0)
		e = AT_OCC_ENEGATIVE;
	else
		*n = (size_t) k;
	at_occ_runs_free(&runs, mem, ctx);
	if (e != AT_OCC_OK && *out != NULL)
	{
		mem(ctx, *out, 0);
		*out = NULL;
	}
	return e;
}

at_occ_err
at_occ_state_flatten(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_flat *f)
{
	at_occ_err	e;

	memset(f, 0, sizeof(*f));
	if ((e = at_occ_state_runs(st, mem, ctx, &f->runs)) != AT_OCC_OK)
		return e;
	if (f->runs.k == 1)
	{
		/* one run already: serialize it as it is */
		f->starts = f->runs.starts[0];
		f->ends = f->runs.ends[0];
		return AT_OCC_OK;
	}
	if ((e = merge_runs(mem, ctx, f->runs.starts, f->runs.k, &f->starts)) != AT_OCC_OK)
	{
		at_occ_runs_free(&f->runs, mem, ctx);
		return e;
	}
	if ((e = merge_runs(mem, ctx, f->runs.ends, f->runs.k, &f->ends)) != AT_OCC_OK)
	{
		list_free(mem, ctx, &f->starts);
		at_occ_runs_free(&f->runs, mem, ctx);
		return e;
	}
	f->merged = 1;
	return AT_OCC_OK;
}

void
at_occ_flat_free(at_occ_flat *f, at_mem_fn mem, void *ctx)
{
	if (f->merged)
	{
		list_free(mem, ctx, &f->starts);
		list_free(mem, ctx, &f->ends);
		f->merged = 0;
	}
	at_occ_runs_free(&f->runs, mem, ctx);
}

const char *
at_occ_state_decode(at_occ_state *st, const uint8_t *buf, size_t len, int64_t tmin, int64_t tmax,
					at_mem_fn mem, void *ctx, at_occ_sort_fn sort)
{
	size_t		ns,
				ne;
	const char *msg;

	at_occ_state_init(st, mem, ctx, sort);
	if ((msg = at_occ_state_open(buf, len, &ns, &ne)) != NULL)
		return msg;
	if (list_alloc(mem, ctx, &st->starts[0], ns) != AT_OCC_OK)
		return "out of memory";
	if (list_alloc(mem, ctx, &st->ends[0], ne) != AT_OCC_OK)
	{
		list_free(mem, ctx, &st->starts[0]);
		return "out of memory";
	}
	st->nruns = 1;
	st->decoded = 1;
	at_occ_state_read(buf, &st->starts[0], &st->ends[0]);
	if ((msg = at_occ_lists_check(&st->starts[0], &st->ends[0], tmin, tmax)) != NULL)
		at_occ_state_free(st);
	return msg;
}

/* ---- text form ---- */

static size_t
skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

const char *
at_occ_parse_text(const char *s, size_t len, at_occ_pair_fn pair, void *arg, size_t *errpos)
{
	size_t		i = skip_ws(s, len, 0);
	int			first = 1;

#define FAIL(msg) do { *errpos = i; return (msg); } while (0)
	if (i >= len || s[i] != '[')
		FAIL("expected \"[\"");
	i = skip_ws(s, len, i + 1);
	for (;;)
	{
		size_t		ts,
					ts_len;
		uint64_t	v = 0;
		int			neg = 0,
					digits = 0;

		if (i < len && s[i] == ']' && first)
			break;
		if (!first)
		{
			if (i < len && s[i] == ']')
				break;
			if (i >= len || s[i] != ',')
				FAIL("expected \",\" or \"]\"");
			i = skip_ws(s, len, i + 1);
		}
		first = 0;
		if (i >= len || s[i] != '[')
			FAIL("expected \"[\" opening a [time, gpus] pair");
		i = skip_ws(s, len, i + 1);
		if (i >= len || s[i] != '"')
			FAIL("expected a quoted timestamp");
		ts = ++i;
		while (i < len && s[i] != '"')
		{
			if (s[i] == '\\' || (unsigned char) s[i] < 0x20)
				FAIL("escapes and control characters are not allowed in a timestamp");
			i++;
		}
		if (i >= len)
			FAIL("unterminated timestamp");
		ts_len = i - ts;
		i = skip_ws(s, len, i + 1);
		if (i >= len || s[i] != ',')
			FAIL("expected \",\" after the timestamp");
		i = skip_ws(s, len, i + 1);
		if (i < len && s[i] == '-')
		{
			neg = 1;
			i++;
		}
		while (i < len && s[i] >= '0' && s[i] <= '9')
		{
			if (v > (UINT64_C(9223372036854775807) - (uint64_t) (s[i] - '0')) / 10)
				FAIL("GPU count out of range");
			v = v * 10 + (uint64_t) (s[i] - '0');
			i++;
			digits++;
		}
		if (digits == 0)
			FAIL("expected an integer GPU count");
		i = skip_ws(s, len, i);
		if (i >= len || s[i] != ']')
			FAIL("expected \"]\" closing the pair");
		/* negative counts are parsed so the check can name them */
		pair(arg, s + ts, ts_len, neg ? -(int64_t) v : (int64_t) v);
		i = skip_ws(s, len, i + 1);
	}
	i = skip_ws(s, len, i + 1);
	if (i != len)
		FAIL("unexpected text after \"]\"");
#undef FAIL
	return NULL;
}

/* ---- occupancy_state's text form ---- */

size_t
at_occ_state_text_len(size_t nbytes)
{
	return sizeof(AT_OCC_STATE_TEXT_PREFIX) - 1 + 2 * nbytes;
}

void
at_occ_state_text_write(char *out, const uint8_t *buf, size_t len)
{
	size_t		k = sizeof(AT_OCC_STATE_TEXT_PREFIX) - 1;

	memcpy(out, AT_OCC_STATE_TEXT_PREFIX, k);
	at_hex_write(out + k, buf, len);
	out[k + 2 * len] = '\0';
}

const char *
at_occ_state_text_read(const char *s, size_t len, uint8_t *out, size_t *outlen, size_t *errpos)
{
	size_t		p = sizeof(AT_OCC_STATE_TEXT_PREFIX) - 1;
	size_t		n = 0;

	*errpos = 0;
	if (len < p || memcmp(s, AT_OCC_STATE_TEXT_PREFIX, p) != 0)
		return "expected \"" AT_OCC_STATE_TEXT_PREFIX "\"";
	for (; p < len; p += 2)
	{
		int			hi = at_hex_value(s[p], 0),
					lo = p + 1 < len ? at_hex_value(s[p + 1], 0) : -2;

		*errpos = hi < 0 || lo == -2 ? p : p + 1;
		if (hi < 0 || lo == -1)
			return "expected a lower-case hexadecimal digit";
		if (lo == -2)
			return "odd number of hexadecimal digits";
		out[n++] = (uint8_t) (hi << 4 | lo);
	}
	*outlen = n;
	return NULL;
}
