/*
 * occupancy.h: the GPU occupancy sweep, as plain C.
 *
 * A job holds `gpus` GPUs over [start, end).  The occupancy of a set of jobs
 * is a step function: a sorted array of steps (t, gpus), each giving the
 * number of GPUs allocated from t until the next step; before the first step
 * it is 0.  Times are PostgreSQL timestamptz values (microseconds since
 * 2000-01-01 UTC), with INT64_MIN and INT64_MAX for -infinity and infinity.
 *
 * Canonical form (the only form the type accepts): times strictly
 * increasing and never +infinity, levels >= 0, each level different from
 * the one before it (starting from 0).
 */
#ifndef ACMETRACE_OCCUPANCY_H
#define ACMETRACE_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

#define AT_OCC_NOBEGIN	INT64_MIN	/* timestamptz '-infinity' */
#define AT_OCC_NOEND	INT64_MAX	/* timestamptz 'infinity' */

/* One job in the aggregate's state: 24 bytes. */
typedef struct at_occ_job
{
	int64_t		start;
	int64_t		end;			/* AT_OCC_NOEND: still running */
	int32_t		gpus;			/* > 0 */
	int32_t		flags;			/* 0, or AT_OCC_JOB_END_ONLY */
} at_occ_job;

/*
 * A release alone (start unused): a partial state's sorted run turned back
 * into raw jobs (at_occ_state_combine) keeps its events exactly, each start
 * as a job that never ends and each end as one of these.
 */
#define AT_OCC_JOB_END_ONLY 1

/* A step (t, gpus); the sweep also uses it for events (t, delta). */
typedef struct at_occ_step
{
	int64_t		t;
	int64_t		gpus;
} at_occ_step;

/* Time spent at one level of the step function. */
typedef struct at_occ_level
{
	int64_t		gpus;
	uint64_t	usec;			/* unsigned: a window can outlast INT64_MAX us */
} at_occ_level;

typedef enum at_occ_row
{
	AT_OCC_ROW_ADD,				/* *out holds the job */
	AT_OCC_ROW_SKIP,			/* holds nothing: 0 GPUs or zero length */
	AT_OCC_ROW_END_BEFORE_START,
	AT_OCC_ROW_NEGATIVE_GPUS
} at_occ_row;

/*
 * The stored value of acmetrace.occupancy, in the server's byte order (the
 * varlena holds this struct as is; the type's binary send/recv form is
 * big-endian): PostgreSQL's 4-byte length word, which the glue sets, then a
 * 20-byte header and the canonical steps.  The fingerprint is computed
 * whenever a value is made or read in, so two values with the same size
 * and fingerprint are taken as equal (the accessors' cache keys on it).
 * Values written by 0.1.0 have this layout; changing it needs a new
 * version and an in-memory upgrade of the old one.
 */
#define AT_OCC_VALUE_VERSION	1

typedef struct at_occ_value
{
	int32_t		vl_len_;		/* PostgreSQL's varlena length word */
	uint8_t		version;		/* AT_OCC_VALUE_VERSION */
	uint8_t		flags;			/* 0 */
	uint16_t	unused16;		/* 0 */
	uint32_t	nsteps;
	uint32_t	unused32;		/* 0 */
	uint64_t	fingerprint;	/* at_occ_fingerprint of the steps */
	at_occ_step steps[];
} at_occ_value;

#define AT_OCC_VALUE_HEADER		offsetof(at_occ_value, steps)	/* 24 */
#define AT_OCC_VALUE_SIZE(n)	(AT_OCC_VALUE_HEADER + (size_t) (n) * sizeof(at_occ_step))

/* Zero the header (all but vl_len_) and set the version. */
extern void at_occ_value_init(at_occ_value *o);

/* After writing o->steps[0..n): the step count and the fingerprint. */
extern void at_occ_value_finish(at_occ_value *o, size_t n);

/*
 * 1 if a value of size bytes has a well-formed header: known version, zero
 * flags and reserved fields, and a size that matches the step count.  The
 * steps still need at_occ_check.
 */
extern int	at_occ_value_header_ok(const at_occ_value *o, size_t size);

/* Classify one input row; has_end = 0 means the job is still running. */
extern at_occ_row at_occ_classify(int64_t start, int has_end, int64_t end,
								  int32_t gpus, at_occ_job *out);

/*
 * qsort comparators: steps and events by t, then gpus (so sorted event
 * lists of the same events are the same bytes); levels by gpus.
 */
extern int	at_occ_step_cmp(const void *a, const void *b);
extern int	at_occ_level_cmp(const void *a, const void *b);

/*
 * Sorts events as at_occ_step_cmp orders them, in place (introsort: O(n)
 * when already sorted, O(n log n) at worst).  poll, if not NULL, is called
 * now and then: the glue checks for interrupts there.
 */
extern void at_occ_sort_steps(at_occ_step *ev, size_t n, void (*poll) (void));

/*
 * NULL if s[0..n) is canonical with finite times in [tmin, tmax) (or
 * -infinity), else a message; *bad is the offending index.
 */
extern const char *at_occ_check(const at_occ_step *s, size_t n,
								int64_t tmin, int64_t tmax, size_t *bad);

/* GPUs allocated at instant t. */
extern int64_t at_occ_at(const at_occ_step *s, size_t n, int64_t t);

/*
 * The same, searching from *hint (the index the previous call found, 0 at
 * first) and updating it: O(1) when calls come in time order, O(log n)
 * at worst.
 */
extern int64_t at_occ_at_hint(const at_occ_step *s, size_t n, int64_t t, size_t *hint);

/* Highest level (0 for an empty function). */
extern int64_t at_occ_peak(const at_occ_step *s, size_t n);

/* A 64-bit fingerprint of the steps (the type stores it; caches key on it). */
extern uint64_t at_occ_fingerprint(const at_occ_step *s, size_t n);

/*
 * Time spent at each level over [from, to) (from < to, both finite): writes
 * segments to out (room for at_occ_segments_max()), returns their count.
 * Sort them with at_occ_level_cmp and merge with at_occ_merge_levels.
 */
extern size_t at_occ_segments_max(const at_occ_step *s, size_t n, int64_t from, int64_t to);
extern size_t at_occ_segments(const at_occ_step *s, size_t n, int64_t from, int64_t to,
							  at_occ_level *out);
extern size_t at_occ_merge_levels(at_occ_level *lv, size_t n);

/* Integral of the step function over [from, to), in GPU-microseconds. */
extern double at_occ_integral(const at_occ_step *s, size_t n, int64_t from, int64_t to);

/*
 * Sorted event lists, struct of arrays (12 bytes an entry): starts holds
 * (start, gpus) of every job, ends (end, gpus) of every job that ends.
 * Partial aggregates sort their own lists, so combining is a merge.
 */
typedef struct at_occ_list
{
	int64_t    *t;				/* non-decreasing */
	int32_t    *g;				/* > 0 */
	size_t		n;
} at_occ_list;

/*
 * A set of jobs whose occupancy is the canonical s[0..n): each rise of the
 * level starts a job, each fall ends the latest started jobs first (splitting
 * one if needed), so rollup(occupancy) can reuse occupancy_agg's state.
 * Writes at most n jobs to out, using stack (room for n); jobs still
 * holding GPUs at the end never end.  Returns the job count, or -1 if a rise
 * is above INT32_MAX GPUs (a job holds an int32).
 */
extern long long at_occ_to_jobs(const at_occ_step *s, size_t n, at_occ_job *out, at_occ_job *stack);

/*
 * Jobs' start events / end events (gpus widened), to be sorted by t; both
 * return the count (end-only jobs have no start, running jobs no end).
 */
extern size_t at_occ_start_events(const at_occ_job *jobs, size_t n, at_occ_step *ev);
extern size_t at_occ_end_events(const at_occ_job *jobs, size_t n, at_occ_step *ev);

/* Copy sorted events into a list with room for n. */
extern void at_occ_list_fill(at_occ_list *dst, const at_occ_step *ev, size_t n);

/* Merge lists a and b, sorted by t (then g), into out (room for a->n + b->n). */
extern void at_occ_list_merge(const at_occ_list *a, const at_occ_list *b, at_occ_list *out);

/*
 * Sweep sorted starts and ends into canonical steps (room for starts->n +
 * ends->n; out may be NULL to only check).  At each instant the releases
 * count before the allocations.  Returns the step count, or -1 if the level
 * would go negative, which only malformed lists can make it do.
 */
extern long long at_occ_sweep_lists(const at_occ_list *starts, const at_occ_list *ends,
									at_occ_step *out);

/*
 * The same over k runs at once (starts[r], ends[r] sorted per run), as if
 * they were merged first; pos is scratch room for 2 * k positions.  Costs
 * O(k) per instant, so keep k small.
 */
extern long long at_occ_sweep_runs(const at_occ_list *starts, const at_occ_list *ends, int k,
								   size_t *pos, at_occ_step *out);

/*
 * Serialized aggregate state: a version byte, three zero bytes, the start
 * and end counts (uint64 each), then starts and ends as (int64 time, int32
 * gpus), all big-endian (bytes.h), each list sorted by time.  The
 * reader checks everything, including that the level never goes negative.
 */
#define AT_OCC_STATE_VERSION	1
#define AT_OCC_STATE_HEADER		20
#define AT_OCC_STATE_ENTRY		12

extern size_t at_occ_state_size(size_t nstarts, size_t nends);
extern void at_occ_state_write(uint8_t *buf, const at_occ_list *starts, const at_occ_list *ends);
/* Check a serialized state's header and length; read its counts. */
extern const char *at_occ_state_open(const uint8_t *buf, size_t len, size_t *nstarts, size_t *nends);
/* Read an opened state into lists with room for the counts. */
extern void at_occ_state_read(const uint8_t *buf, at_occ_list *starts, at_occ_list *ends);

/*
 * NULL if starts and ends are lists of jobs: sorted, gpus > 0, finite times
 * in [tmin, tmax) (starts may be -infinity), no more ends than starts, and
 * the level never negative.  Else a message.
 */
extern const char *at_occ_lists_check(const at_occ_list *starts, const at_occ_list *ends,
									  int64_t tmin, int64_t tmax);

/* ---- occupancy_agg's state ---- */

/*
 * Sorts events by time, in place: at_occ_sort_steps, with the glue's
 * interrupt check (occ_sort_steps in src/occupancy_type.h).
 */
typedef void (*at_occ_sort_fn) (at_occ_step *ev, size_t n);

typedef enum at_occ_err
{
	AT_OCC_OK = 0,
	AT_OCC_ENOMEM,				/* the allocator returned NULL */
	AT_OCC_ETOOMANY,			/* more jobs than one allocation can sort */
	AT_OCC_ERISE,				/* rollup: a step rises by more than INT32_MAX */
	AT_OCC_ENEGATIVE,			/* sweep: GPUs released before allocated */
	AT_OCC_ESELF				/* combine: a state with itself */
} at_occ_err;

/* Jobs wait unsorted in chunks that grow to AT_OCC_CHUNK_MAX jobs. */
#define AT_OCC_CHUNK_MIN	64
#define AT_OCC_CHUNK_MAX	65536

typedef struct at_occ_chunk
{
	struct at_occ_chunk *next;
	uint32_t	n;
	uint32_t	cap;
	at_occ_job	jobs[];
} at_occ_chunk;

/*
 * The aggregate's state.  Jobs added by the transition function wait
 * unsorted in chunks, so the state never copies itself to grow.  A partial
 * state's flat form (acmetrace.occupancy_state, and the old serialize)
 * holds one sorted start and one end list; the leader keeps each worker's
 * lists as a run and sweeps the runs together (at_occ_sweep_runs), so it
 * neither sorts nor merges.  Past AT_OCC_MAX_RUNS runs, the smallest run
 * turns into raw jobs (at_occ_state_combine).
 *
 * Everything the state holds comes from mem/mem_ctx; the sorted snapshot
 * of at_occ_state_runs and the flattened lists of at_occ_state_flatten
 * come from the allocator passed to them (scratch memory in the glue).
 */
#define AT_OCC_MAX_RUNS 8

typedef struct at_occ_state
{
	uint64_t	nraw;			/* jobs in the chunks */
	at_occ_chunk *head;
	at_occ_chunk *tail;
	int			nruns;			/* sorted runs (from partial states) */
	at_occ_list starts[AT_OCC_MAX_RUNS];
	at_occ_list ends[AT_OCC_MAX_RUNS];
	int			decoded;		/* made by at_occ_state_decode: combine may take its runs */
	at_mem_fn	mem;
	void	   *mem_ctx;
	at_occ_sort_fn sort;
} at_occ_state;

/* An empty state. */
extern void at_occ_state_init(at_occ_state *st, at_mem_fn mem, void *mem_ctx, at_occ_sort_fn sort);

/* Frees what the state holds (the glue leaves that to its memory context). */
extern void at_occ_state_free(at_occ_state *st);

/* Room for one more job: a new chunk at the tail. */
extern at_occ_err at_occ_state_grow(at_occ_state *st);

/* Add a job (from at_occ_classify): one store, unless a chunk is full. */
static inline at_occ_err
at_occ_state_add(at_occ_state *st, const at_occ_job *job)
{
	if (st->tail == NULL || st->tail->n == st->tail->cap)
	{
		at_occ_err	e = at_occ_state_grow(st);

		if (e != AT_OCC_OK)
			return e;
	}
	st->tail->jobs[st->tail->n++] = *job;
	st->nraw++;
	return AT_OCC_OK;
}

/*
 * Add the jobs whose occupancy is the canonical s[0..n) (at_occ_to_jobs),
 * as rollup(occupancy) does; AT_OCC_ERISE if a rise is above INT32_MAX.
 */
extern at_occ_err at_occ_state_add_steps(at_occ_state *st, const at_occ_step *s, size_t n);

/*
 * dst += src (src != dst: AT_OCC_ESELF).  src's raw jobs are copied (src
 * may live in shorter-lived memory); its runs are taken if src was decoded
 * with dst's allocator, else copied.  src stays usable, less any runs
 * taken.  Past AT_OCC_MAX_RUNS runs, the smallest run's jobs join the raw
 * jobs, so combining any number of states costs linear time.  On an error
 * dst may hold part of src.
 */
extern at_occ_err at_occ_state_combine(at_occ_state *dst, at_occ_state *src);

/* Events the state serializes to: starts, and ends (jobs that end). */
extern void at_occ_state_counts(const at_occ_state *st, size_t *nstarts, size_t *nends);

/*
 * All of a state's jobs as sorted runs, without changing the state (a final
 * function may run more than once on one state): its own runs, plus one
 * sorted from its raw jobs with memory from mem/ctx.
 */
typedef struct at_occ_runs
{
	int			k;
	at_occ_list starts[AT_OCC_MAX_RUNS + 1];
	at_occ_list ends[AT_OCC_MAX_RUNS + 1];
	int			owned;			/* runs [owned, k) were made here */
} at_occ_runs;

extern at_occ_err at_occ_state_runs(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_runs *out);
extern void at_occ_runs_free(at_occ_runs *r, at_mem_fn mem, void *ctx);
/* Events in all runs: room enough for the sweep's steps. */
extern size_t at_occ_runs_events(const at_occ_runs *r);
/* Sweep the runs into canonical steps (-1: level negative, a broken state). */
extern long long at_occ_runs_sweep(const at_occ_runs *r, at_occ_step *out);

/*
 * The state's occupancy: canonical steps into *out (from mem/ctx, room for
 * at least one; the caller frees it), their count in *n.  On an error
 * nothing is left allocated.
 */
extern at_occ_err at_occ_state_steps(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_step **out,
									 size_t *n);

/*
 * A state as one start and one end list, what it serializes to:
 * at_occ_state_size(f.starts.n, f.ends.n) bytes, written by
 * at_occ_state_write.  Lists made here come from mem/ctx.
 */
typedef struct at_occ_flat
{
	at_occ_list starts;
	at_occ_list ends;
	at_occ_runs runs;
	int			merged;			/* starts and ends were made by merging runs */
} at_occ_flat;

extern at_occ_err at_occ_state_flatten(const at_occ_state *st, at_mem_fn mem, void *ctx, at_occ_flat *f);
extern void at_occ_flat_free(at_occ_flat *f, at_mem_fn mem, void *ctx);

/*
 * Read a serialized state into st (initialized here with mem, ctx and sort):
 * at_occ_state_open, at_occ_state_read and at_occ_lists_check over
 * [tmin, tmax).  NULL on success, else a message, with nothing left
 * allocated in st.
 */
extern const char *at_occ_state_decode(at_occ_state *st, const uint8_t *buf, size_t len,
									   int64_t tmin, int64_t tmax,
									   at_mem_fn mem, void *ctx, at_occ_sort_fn sort);

/*
 * acmetrace.occupancy_state's text form: "v1:" and the serialized state in
 * lower-case hexadecimal (what Citus ships between nodes).  The text is
 * only a wrapper: at_occ_state_decode checks the bytes it holds.
 * at_occ_state_text_len(n): characters for n bytes, without the NUL.
 * at_occ_state_text_read: the bytes into out (room for len / 2), or a
 * message with *errpos the byte offset of the problem.
 */
#define AT_OCC_STATE_TEXT_PREFIX "v1:"

extern size_t at_occ_state_text_len(size_t nbytes);
extern void at_occ_state_text_write(char *out, const uint8_t *buf, size_t len);
extern const char *at_occ_state_text_read(const char *s, size_t len, uint8_t *out, size_t *outlen,
										  size_t *errpos);

/*
 * The text form: [["<timestamp>",<gpus>],...] (JSON).  Calls pair() for each
 * pair with the timestamp's text (between the quotes, no escapes); returns
 * NULL or a message, with *errpos the byte offset of the problem.
 */
typedef void (*at_occ_pair_fn) (void *arg, const char *ts, size_t ts_len, int64_t gpus);
extern const char *at_occ_parse_text(const char *s, size_t len, at_occ_pair_fn pair,
									 void *arg, size_t *errpos);

#endif
