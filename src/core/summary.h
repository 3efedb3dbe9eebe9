/*
 * summary.h: the summaries' one pass over a cluster's jobs, as plain C.
 *
 * at_vmap counts (group, value) pairs in an open-addressing hash table, so
 * a pass adds each job's values to its groups in O(1); at_vmap_sorted then
 * lists the pairs by group and value: per group, the exact distribution
 * (value_counts.h) the summaries store.  at_intern numbers strings (job
 * types) in the order they are first seen.
 *
 * at_summary_pass is the pass itself (src/summary_scan.c feeds it the rows
 * of acmetrace.jobs): the distributions of waits, durations and queues, the
 * occupancy, and each GPU job's wait binned by the GPUs allocated when it
 * was submitted.  at_roll is one group of acmetrace.summary_jobs (day of
 * submission and week of end in the cluster's zone, type, final state,
 * gpu_num) with exact decimal sums in 128-bit integers.
 */
#ifndef ACMETRACE_SUMMARY_H
#define ACMETRACE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "occupancy.h"

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

typedef struct at_intern_ref
{
	const char *s;
	size_t		len;
} at_intern_ref;

typedef struct at_intern
{
	size_t		cap;
	size_t		n;
	at_intern_slot *slots;
	at_intern_ref *by_id;		/* the strings by number */
	size_t		by_id_cap;
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

/* The string numbered id (< t->n), and its length. */
extern const char *at_intern_str(const at_intern *t, int32_t id, size_t *len);

/*
 * A decimal as numeric_out writes it ("-12.50"): mant / 10^scale, with at
 * most 18 significant digits and 9 after the point.  at_decimal_parse
 * returns 0 for anything else (NaN, Infinity, more digits).
 */
typedef struct at_decimal
{
	int64_t		mant;
	int32_t		scale;
} at_decimal;

extern int	at_decimal_parse(const char *s, at_decimal *out);

/*
 * Local days and weeks in a time zone, for timestamptz values t
 * (microseconds since 2000-01-01 UTC, INT64_MIN/MAX for -infinity and
 * infinity) and dates as PostgreSQL's DateADT (days since 2000-01-01,
 * INT32_MIN/MAX for -infinity and infinity).
 *
 * A zone is a fixed offset, or a lookup: the offset (seconds east of UTC) at
 * t, whose Unix second is unix_s, and the Unix second of the zone's next
 * transition (*has_next 0: none).  The lookup reports its own errors; each
 * answer is kept until the next transition, so a pass asks rarely.
 */
typedef void (*at_zone_lookup_fn) (void *arg, int64_t t, int64_t unix_s, int64_t *off_s, int64_t *next_unix_s,
								   int *has_next);

typedef struct at_zone
{
	int			fixed;
	int64_t		offset_s;		/* if fixed */
	at_zone_lookup_fn lookup;	/* if not */
	void	   *arg;
	int64_t		from;			/* off holds for [from, to) */
	int64_t		to;
	int64_t		off;
} at_zone;

/* Seconds east of UTC at the finite time t. */
extern int64_t at_zone_offset(at_zone *z, int64_t t);
/* t::date in the zone. */
extern int32_t at_local_day(at_zone *z, int64_t t);
/* date_trunc('week', t)::date in the zone: the Monday of its day. */
extern int32_t at_local_week(at_zone *z, int64_t t);

/* summary_jobs' grouping key (zeroed, so it hashes as bytes) */
typedef struct at_roll_key
{
	int32_t		day;			/* DateADT */
	int32_t		week;
	int32_t		type_code;
	int32_t		state_code;
	int32_t		gpu;
	int32_t		nulls;			/* 1: no day, 2: no week, 4: no gpu_num */
} at_roll_key;

#if defined(__SIZEOF_INT128__)
#define AT_HAVE_INT128 1
/* 8-byte aligned, as PostgreSQL's int128: hash table entries are only MAXALIGNed */
typedef __int128 at_int128 __attribute__((aligned(8)));

/* One sum of summary_jobs: n terms, at scale 9, scale the largest of its terms' (as numeric adds). */
typedef struct at_roll_sum
{
	int64_t		n;
	at_int128	sum;
	int32_t		scale;
} at_roll_sum;

/* One group of summary_jobs: its key first (a hash table's entry). */
typedef struct at_roll
{
	at_roll_key key;
	int64_t		jobs;
	at_roll_sum duration;
	at_roll_sum queue;
	at_roll_sum gpu_time;		/* duration x gpu_num */
	at_roll_sum gpu_time_or;	/* coalesce(gpu_time, duration x gpu_num) */
	int			has_max;		/* max(duration), the later of equal values */
	at_int128	max;
	int32_t		max_scale;
	int			has_submit;		/* min and max submit_time */
	int64_t		first;
	int64_t		last;
} at_roll;

/* Room for at_roll_text: 39 digits, a sign, a point, a leading 0 and the NUL. */
#define AT_ROLL_TEXT 64

/* v (at scale 9) as a decimal text of the given scale (0 to 9), in buf. */
extern char *at_roll_text(char *buf, at_int128 v, int32_t scale);
#endif

/* type codes in group numbers: 0 all types, 1 NULL type, 2 + types' id */
#define AT_SUM_TYPE_ALL		0
#define AT_SUM_TYPE_NULL	1

/* The distributions, in the order the pass returns them. */
enum
{
	AT_SUM_WAIT,				/* group (type_code << 1 | cancelled) */
	AT_SUM_WAIT_BY_OCC,			/* (type_code << 32 | occupancy bin) */
	AT_SUM_DURATION,			/* (type_code << 1 | gpu_num > 0), and TYPE_ALL */
	AT_SUM_QUEUE,				/* (gpu_num > 0) */
	AT_SUM_MEASURES
};

/* A distribution's row: its measure and what its group stands for (-1: NULL). */
typedef struct at_summary_row
{
	const char *measure;
	int			type_code;		/* < 2: NULL */
	int			all_types;
	int			gpu;
	int			bin;
	int			cancelled;
} at_summary_row;

extern void at_summary_row_of(int measure, uint64_t group, at_summary_row *r);

/* The job's numeric columns, read through the caller's callback. */
enum
{
	AT_SUM_COL_DURATION,
	AT_SUM_COL_QUEUE,
	AT_SUM_COL_GPU_TIME
};

/*
 * The numerics' id (at_intern over their bytes) of column col of the job,
 * not NULL, after at_summary_num_set for a new one.  Asked only when
 * needed, once per column: converting a numeric can fail.
 */
typedef int32_t (*at_summary_num_fn) (void *arg, int col);

/* One row of acmetrace.jobs (times are timestamptz). */
typedef struct at_summary_job
{
	uint32_t	type_code;		/* AT_SUM_TYPE_NULL or 2 + at_intern id */
	int32_t		state_code;		/* final_state's id */
	int			cancelled;
	int			has_gpus;
	int32_t		gpus;
	int			has_submit;
	int64_t		submit;
	int			has_start;
	int64_t		start;
	int			has_end;
	int64_t		end;
	int			has_wait;
	double		wait;			/* wait_s */
	int			has_num[3];		/* by AT_SUM_COL_* */
	at_summary_num_fn num;
	void	   *num_arg;
	unsigned	asked;			/* bit col: num_id[col] is known (start at 0) */
	int32_t		num_id[3];
} at_summary_job;

/* A distinct numeric: as float8 (the cast), and as a decimal if ok. */
typedef struct at_summary_num
{
	double		f;
	at_decimal	dec;
	int			ok;
} at_summary_num;

typedef struct at_summary_wait
{
	int64_t		submit;
	double		wait;
	uint32_t	type_code;
} at_summary_wait;

typedef struct at_summary_pass
{
	at_intern	types;			/* job types: type code 2 + id */
	at_intern	states;			/* final_state names */
	at_intern	numerics;		/* distinct numerics, by their bytes */
	at_summary_num *nums;		/* ... what each is, by id */
	size_t		nums_cap;
	at_vmap		maps[AT_SUM_MEASURES];
	at_occ_state occ;			/* every job, as occupancy_agg */
	at_occ_state gpu_occ;		/* GPU jobs not ending before they start */
	at_summary_wait *waits;		/* GPU jobs' waits, for their occupancy bins */
	size_t		nwaits;
	size_t		waits_cap;
	at_zone		zone;			/* summary_jobs' days and weeks; the caller sets it */
	int64_t		jobs;
	int			exact;			/* every value finite */
	int			odd;			/* a job ends before it starts or holds negative GPUs: no occupancy */
	int			roll_ok;		/* every numeric fits: summary_jobs from here */
	int64_t		capacity;		/* after at_summary_finish: the bins' capacity */
	int64_t		peak;			/* ... and the peak of GPU jobs */
	at_mem_fn	mem;
	void	   *mem_ctx;
} at_summary_pass;

/* 0 on out of memory. */
extern int	at_summary_init(at_summary_pass *p, at_mem_fn mem, void *ctx, at_occ_sort_fn sort);
extern void at_summary_free(at_summary_pass *p);

/* What the numerics' new id is: its float8 and its numeric_out text; 0 on out of memory. */
extern int	at_summary_num_set(at_summary_pass *p, int32_t id, double f, const char *text);

/* Adds the job to the distributions and the occupancy; 0 on out of memory. */
extern int	at_summary_add(at_summary_pass *p, at_summary_job *j);

/* The job's group of summary_jobs. */
extern void at_summary_roll_key(at_summary_pass *p, const at_summary_job *j, at_roll_key *key);

#ifdef AT_HAVE_INT128
/* Adds the job to its group r (zeroed but for the key when new); clears p->roll_ok if a value does not fit. */
extern void at_summary_roll_add(at_summary_pass *p, at_roll *r, at_summary_job *j);
#endif

/*
 * The occupancy bin of a wait: width_bucket(gpus, 0, capacity, 10) in the
 * glue (PostgreSQL's own); called in the waits' order.
 */
typedef int32_t (*at_summary_bin_fn) (void *arg, int64_t gpus, int64_t capacity);

/*
 * After the jobs: the occupancy swept, the peak of GPU jobs, the capacity
 * (capacity if has_capacity, else the peak, else 1) and, if the occupancy
 * and every value are sound, each wait counted in AT_SUM_WAIT_BY_OCC.
 */
extern at_occ_err at_summary_finish(at_summary_pass *p, int has_capacity, int64_t capacity,
									at_summary_bin_fn bin, void *arg);

#endif
