/*
 * placement.h: which GPUs each job of a generated trace (generate_jobs.h)
 * runs on, as a time-ordered stream of job starts and ends.
 *
 * The scheduler places a run (a job and its restarts) on nodes; this layer
 * gives it GPUs inside them (the lowest free indices of each node) for as
 * long as the run holds them, and reports every job of the run with those
 * GPUs while it runs.  No GPU is ever given to two runs at once.  GPU i is
 * GPU i % 8 of node i / 8.  Plain C; memory through at_mem_fn, bounded by
 * the runs in flight (at most one per GPU), not by the job count.
 */
#ifndef ACMETRACE_PLACEMENT_H
#define ACMETRACE_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "generate_jobs.h"

#define AT_GPUS_PER_NODE 8

typedef enum at_placement_kind
{
	AT_PLACEMENT_END = 0,		/* at equal times, ends come first */
	AT_PLACEMENT_START = 1
} at_placement_kind;

typedef struct at_placement_event
{
	at_placement_kind kind;
	int64_t		t;				/* the job's start or end, Unix seconds */
	int64_t		job_id;
	int64_t		start;			/* the job's start and end */
	int64_t		end;
	int			type;
	int32_t		gpus;
	const int32_t *gpu;			/* its GPUs, ascending; valid until the next call */
} at_placement_event;

typedef struct at_placement at_placement;

/* The trace of generate_jobs(p, n, seed), placed.  AT_SCHED_OK or AT_SCHED_NOMEM. */
extern at_sched_status at_placement_create(at_mem_fn mem, void *ctx, const at_profile *p,
										   int64_t n, uint64_t seed, at_placement **out);
extern void at_placement_destroy(at_placement *pl);

/* GPUs of the cluster (nodes x 8). */
extern int32_t at_placement_gpus(const at_placement *pl);

/*
 * The next job start or end at or before `until`, in time order (ends
 * before starts at equal times; a job that runs for no time is not
 * reported); false when none is due by then, or on an error (*status).
 */
extern bool at_placement_next(at_placement *pl, int64_t until, at_placement_event *ev,
							  at_sched_status *status);

/* "10.140.0.3-gpu5": the series name of GPU i (at most 32 bytes with NUL). */
extern int	at_placement_series_name(int32_t gpu, char *out);

#endif
