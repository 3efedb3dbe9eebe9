/*
 * scheduler.h: a capacity-limited GPU cluster scheduler, event by event.
 *
 * Nodes of gpus_per_node GPUs; a job of fewer GPUs than a node takes them
 * on one node (best fit), a larger one takes whole nodes (gang: all or
 * nothing, at one instant).  Pending jobs wait in priority classes, each
 * in order of the jobs' keys, then first come first served (all keys 0:
 * FCFS; a predicted run time as the key: shortest first); the highest
 * class's first job is the head.
 * With backfill (EASY), a job behind a blocked head may start now if it
 * fits and either ends before the head's reserved start or uses only GPUs
 * the head will not need then.  A job with a patience leaves the queue
 * unstarted once it has waited that long (a user cancelling it).  The
 * first reserved_nodes nodes are a pool only jobs of reserved_priority or
 * above may use (a quota for training, as GPU clusters keep one); those
 * jobs take reserved nodes first and may spill into the shared ones.  A
 * class may be limited to a number of GPUs held at once (its quota).
 *
 * The caller submits jobs in submit order and takes decisions (started or
 * left unstarted) as they are made; memory is bounded by the jobs pending
 * and running, not by the jobs seen.  Plain C; memory through at_mem_fn.
 */
#ifndef ACMETRACE_SCHEDULER_H
#define ACMETRACE_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

#define AT_SCHED_PRIORITIES 4
#define AT_SCHED_MAX_NODES 100000

typedef struct at_sched_config
{
	int32_t		nodes;
	int32_t		gpus_per_node;
	bool		backfill;
	int32_t		backfill_depth;	/* pending jobs looked at behind a blocked head */
	int32_t		reserved_nodes; /* 0 .. nodes */
	int32_t		reserved_priority;
	int64_t		class_limit[AT_SCHED_PRIORITIES];	/* GPUs a class may hold at once; 0: no limit */
	int32_t		group_limit;	/* running jobs per group (user); 0: no limit */
	/* called every AT_SCHED_TICK events when set (may leave by longjmp: the glue checks for interrupts) */
	void		(*tick) (void *arg);
	void	   *tick_arg;
} at_sched_config;

#define AT_SCHED_TICK 65536

typedef struct at_sched_job
{
	int64_t		id;				/* the caller's, carried through */
	uint64_t	tag;			/* the caller's, carried through */
	int64_t		submit;			/* seconds, >= 0 (Unix time, or from the trace's start) */
	int64_t		hold;			/* seconds it holds its GPUs once started, >= 0 */
	int64_t		patience;		/* leaves the queue unstarted after this wait; < 0: never */
	int32_t		gpus;			/* 1 .. nodes x gpus_per_node */
	int32_t		priority;		/* 0 .. AT_SCHED_PRIORITIES - 1, higher first */
	int32_t		group;			/* 0 .. 65535 (a user); -1: none */
	int64_t		key;			/* order within the class, lower first; 0 .. 2^50 */
	/* decided by the scheduler */
	int64_t		start;			/* -1: left the queue unstarted, at end */
	int64_t		end;
	int32_t		nodes;			/* nodes it ran on (0 if it never started) */
	int32_t		node;			/* the first of them (lowest index), -1 if none */
} at_sched_job;

typedef enum at_sched_status
{
	AT_SCHED_OK = 0,
	AT_SCHED_NOMEM,
	AT_SCHED_BAD_JOB,			/* gpus or priority out of range, negative hold */
	AT_SCHED_BAD_TIME,			/* negative, before an earlier job's, or after finish */
	AT_SCHED_BAD_CONFIG,
	AT_SCHED_INCONSISTENT		/* a placement out of step with the scheduler (a bug) */
} at_sched_status;

typedef struct at_sched at_sched;

extern at_sched_status at_sched_create(at_mem_fn mem, void *ctx, const at_sched_config *cfg, at_sched **out);
extern void at_sched_destroy(at_sched *s);

/* Submits a job at job->submit (>= every earlier submit); decisions up to then are made first. */
extern at_sched_status at_sched_submit(at_sched *s, const at_sched_job *job);

/* Makes every decision up to time t (jobs ending, patience running out, starts). */
extern at_sched_status at_sched_advance(at_sched *s, int64_t t);

/* No more submissions: runs until every pending job has started or left. */
extern at_sched_status at_sched_finish(at_sched *s);

/* The next decided job in decision order; false when none is waiting. */
extern bool at_sched_take(at_sched *s, at_sched_job *out);

/*
 * The nodes the job last taken runs on (*count of them, in the order its
 * GPUs were taken: whole nodes, the last one maybe partly), valid until the
 * next take; NULL and 0 if it never started.
 */
extern const int32_t *at_sched_taken_nodes(const at_sched *s, int32_t *count);

/*
 * A time no job still to be taken starts before: the oldest decision not
 * yet taken, or the scheduler's clock (pending and later jobs start at or
 * after it).
 */
extern int64_t at_sched_horizon(const at_sched *s);

/* GPUs held now, and jobs pending. */
extern int64_t at_sched_allocated(const at_sched *s);
extern int64_t at_sched_pending(const at_sched *s);

extern const char *at_sched_status_text(at_sched_status st);

#endif
