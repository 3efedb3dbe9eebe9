/*
 * replay.h: a recorded trace run again through the scheduler of
 * scheduler.h, under another policy or capacity (what-if analysis).
 *
 * Each job is submitted at its recorded submit time and, once started,
 * holds its GPUs for its recorded run time.  A job that never ran (it was
 * cancelled while queued) waits at most its recorded wait, then leaves; if
 * the replay starts it sooner, it holds its GPUs for no time.  The
 * replay's summary (at_replay_summarize) is computed here too.  Plain C;
 * memory through at_mem_fn, the scheduler's own (the jobs pending and
 * running) beside the caller's array.
 */
#ifndef ACMETRACE_REPLAY_H
#define ACMETRACE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler.h"

#define AT_REPLAY_GPUS_PER_NODE 8
#define AT_REPLAY_KEY_MAX ((int64_t) 1 << 40)	/* sjf: jobs without a prediction go last */

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

/* The replay policies: FCFS; by job type's class; shortest (predicted) first. */
typedef enum at_replay_policy
{
	AT_REPLAY_FIFO, AT_REPLAY_PRIORITY, AT_REPLAY_SJF
} at_replay_policy;

/* A policy by its name (fifo, priority, sjf; ASCII case ignored).  False: unknown. */
extern bool at_replay_policy_by_name(const char *name, at_replay_policy *out);

/* The scheduler class of a job type (NULL: none) under the priority policy, as the generator's profiles. */
extern int32_t at_replay_type_class(const char *type);

/* A job as recorded: times in seconds of any one epoch. */
typedef struct at_replay_record
{
	int64_t		submit;
	int64_t		start;			/* when has_start */
	int64_t		end;			/* when has_end */
	bool		has_start;
	bool		has_end;
	const char *type;			/* NULL: none */
	int32_t		gpus;
	bool		has_pred;		/* sjf with predictions: pred is this job's predicted run */
	double		pred;
} at_replay_record;

/*
 * The job to replay for rec under pol, its submit time counted from t0.
 * Under sjf the key is the prediction when predictions are given (none:
 * AT_REPLAY_KEY_MAX), else the recorded run.
 */
extern void at_replay_job_of(at_replay_job *j, const at_replay_record *rec, int64_t t0,
							 at_replay_policy pol, bool predictions);

/* Whether capacity GPUs make a replay cluster: whole nodes, 1 .. AT_SCHED_MAX_NODES. */
extern bool at_replay_capacity_ok(int64_t capacity);

/* The scheduler of a replay: capacity (at_replay_capacity_ok) GPUs in nodes of 8, backfill or not. */
extern void at_replay_config(at_sched_config *cfg, int64_t capacity, bool backfill);

/*
 * Replays jobs[0 .. n) on a cluster of cfg; fills start and end.  A job the
 * cluster cannot hold, or out of order, is AT_SCHED_BAD_JOB or
 * AT_SCHED_BAD_TIME with *bad its index.
 */
extern at_sched_status at_replay(at_mem_fn mem, void *ctx, const at_sched_config *cfg,
								 at_replay_job *jobs, int64_t n, int64_t *bad);

/*
 * replay_summary's figures of one group of jobs (all, or one job type),
 * recorded and replayed, as its SQL formulas had them: queue times are
 * whole seconds (recorded: of the jobs with a recorded start; replayed: of
 * the jobs the replay started), job completion time is a queue time plus
 * the replayed run (jobs started in the replay, and recorded: with a
 * recorded start), peak GPUs over the jobs started in both (intervals
 * [start, start + run), releases before allocations at one instant, empty
 * ones skipped), mean GPUs the GPU-seconds of those jobs over the time from
 * the group's first submit to their last end.
 */
typedef struct at_replay_side
{
	int64_t		queued;			/* queue times counted */
	int64_t		queue_sum;		/* their sum, seconds */
	double		median;			/* percentile_cont(0.5) and (0.9), when queued > 0 */
	double		p90;
	int64_t		jct_n;
	int64_t		jct_sum;		/* seconds */
	int64_t		peak;			/* when the group's both > 0 */
	bool		has_mean_gpus;	/* false: no such job, or no time between first submit and last end */
	double		mean_gpus;
} at_replay_side;

typedef struct at_replay_group
{
	const char *type;			/* the type's text (the input's pointer); NULL: no type, or the all row */
	bool		all;
	int64_t		jobs;
	int64_t		started;		/* by the replay */
	int64_t		both;			/* started in the replay and recorded */
	at_replay_side rec;
	at_replay_side rep;
} at_replay_group;

/* What a replay leaves to summarize: the replayed jobs beside their recorded starts. */
typedef struct at_replay_input
{
	const at_replay_job *jobs;	/* after at_replay */
	int64_t		n;
	const char *const *types;	/* each job's type, NULL: none */
	const int64_t *rec_start;	/* recorded starts, microseconds of any epoch */
	const bool *has_rec;		/* whether a job has a recorded start */
	int64_t		origin;			/* the replay's time 0 in rec_start's microseconds, a whole second */
} at_replay_input;

/*
 * The summary of a replay: (*groups)[0] the all row, then one group per
 * distinct type (NULL included) in order of first appearance; *ngroups
 * counts them all.  *groups is allocated with mem.  False: out of memory.
 */
extern bool at_replay_summarize(at_mem_fn mem, void *ctx, const at_replay_input *in,
								at_replay_group **groups, int32_t *ngroups);

#endif
