/*
 * replay.h: a recorded trace run again through the scheduler of
 * scheduler.h, under another policy or capacity (what-if analysis).
 *
 * Each job is submitted at its recorded submit time and, once started,
 * holds its GPUs for its recorded run time.  A job that never ran (it was
 * cancelled while queued) waits at most its recorded wait, then leaves; if
 * the replay starts it sooner, it holds its GPUs for no time.  Plain C;
 * memory through at_mem_fn, the scheduler's own (the jobs pending and
 * running) beside the caller's array.
 */
#ifndef ACMETRACE_REPLAY_H
#define ACMETRACE_REPLAY_H

#include <stdint.h>

#include "scheduler.h"

typedef struct at_replay_job
{
	int64_t		submit;			/* seconds, >= 0, non-decreasing in array order */
	int64_t		run;			/* recorded run time, >= 0; -1: never ran */
	int64_t		wait;			/* a job that never ran: how long it waited, >= 0 */
	int64_t		key;			/* order within a class (0: FCFS; a predicted run: shortest first) */
	int32_t		gpus;
	int32_t		priority;		/* 0 .. AT_SCHED_PRIORITIES - 1 */
	/* the replay's */
	int64_t		start;			/* -1: left unstarted */
	int64_t		end;			/* end, or the time it left */
} at_replay_job;

/*
 * Replays jobs[0 .. n) on a cluster of cfg; fills start and end.  A job the
 * cluster cannot hold, or out of order, is AT_SCHED_BAD_JOB or
 * AT_SCHED_BAD_TIME with *bad its index.
 */
extern at_sched_status at_replay(at_mem_fn mem, void *ctx, const at_sched_config *cfg,
								 at_replay_job *jobs, int64_t n, int64_t *bad);

#endif
