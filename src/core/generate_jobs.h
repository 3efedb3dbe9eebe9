/*
 * generate_jobs.h: a synthetic job trace calibrated to an AcmeTrace
 * cluster: each job type with its own sizes, durations and final states,
 * GPU jobs placed by the cluster scheduler of scheduler.h (priorities, gang
 * allocation on 8-GPU nodes, EASY backfill).
 *
 * Plain C, no PostgreSQL headers; memory through at_mem_fn, bounded by the
 * jobs pending and running, not by n.  Jobs come out in the order they are
 * decided (CPU jobs on arrival, GPU jobs when they start or give up
 * waiting), so not in job_id order; every one of the n jobs comes out once.
 */
#ifndef ACMETRACE_GENERATE_JOBS_H
#define ACMETRACE_GENERATE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "rng.h"
#include "scheduler.h"

enum
{
	AT_TYPE_PRETRAIN, AT_TYPE_EVAL, AT_TYPE_SFT, AT_TYPE_MLLM, AT_TYPE_DEBUG, AT_TYPE_OTHER,
	AT_NTYPES
};
enum
{
	AT_STATE_COMPLETED, AT_STATE_CANCELLED, AT_STATE_FAILED, AT_STATE_TIMEOUT, AT_STATE_NODE_FAIL,
	AT_NSTATES
};
#define AT_NGPU_SIZES 11		/* 1, 2, 4, ... 1024 GPUs */
#define AT_MAX_TEAMS 32

extern const char *const at_type_names[AT_NTYPES];
extern const char *const at_state_names[AT_NSTATES];

/* How the GPU jobs of one type behave; the numbers are in generate_jobs.c. */
typedef struct at_type_profile
{
	double		share;			/* of GPU jobs, by count */
	double		habit;			/* share of the log-run variance between a user's campaigns (0 .. 1) */
	double		size[AT_NGPU_SIZES];	/* weights of 1, 2, 4, ... 1024 GPUs */
	double		state[3];		/* completed, cancelled, failed: by count */
	double		run_median[3];	/* seconds on 1 GPU: completed, cancelled, failed */
	double		run_sigma;		/* log-normal shape */
	double		run_per_doubling[3];	/* log-run added per doubling of GPUs (< 0: large jobs end early) */
	double		patience;		/* mean wait before a cancelled job gives up unstarted */
	double		timeout;		/* share of jobs running until the time limit (max_run), TIMEOUT */
	double		batch;			/* mean jobs submitted together (a sweep of evaluations) */
	double		restarts;		/* mean attempts of a run, each submitted when the last ends */
	int			priority;		/* scheduler class, higher first */
} at_type_profile;

/* What a cluster looks like. */
typedef struct at_profile
{
	const char *name;
	int			nodes;			/* of 8 GPUs */
	int			cpus_per_gpu;
	double		jobs_per_day;
	double		diurnal;		/* amplitude of the daily submission cycle, 0 .. 1 */
	int64_t		epoch;			/* first submit, Unix seconds */
	double		p_gpu;			/* share of jobs with gpu_num > 0 */
	double		cpu_state[3];
	double		cpu_type[AT_NTYPES];
	double		cpu_run_median;
	double		cpu_run_sigma;
	double		cpu_queue_median;
	double		cpu_queue_sigma;
	double		latency_median;	/* seconds from a GPU job's placement to its start */
	double		latency_sigma;
	double		max_run;		/* seconds; runs are capped here */
	bool		backfill;
	int			reserved_nodes; /* for jobs of reserved_priority and above */
	int			reserved_priority;
	int64_t		class_limit[AT_SCHED_PRIORITIES];	/* GPUs a priority class may hold; 0: no limit */
	int			sweep_limit;	/* running jobs of one user's batch (sweep) at once; 0: no limit */
	int			team_gpus[AT_MAX_TEAMS];	/* training teams: each runs Pretrain runs of this size, one after another */
	int			nteams;
	double		team_idle;		/* mean seconds a team's nodes are free between two runs */
	int			users;			/* individual users; each team submits as one more */
	double		campaign_jobs;	/* mean jobs of a user's campaign of one type */
	double		size_habit;		/* share of a campaign's jobs at its usual GPU count */
	int64_t		first_job_id;
	at_type_profile types[AT_NTYPES];
} at_profile;

/* The built-in profiles: "seren" and "kalos".  NULL for an unknown name. */
extern const at_profile *at_profile_by_name(const char *name);

typedef struct at_job
{
	int64_t		job_id;
	int64_t		run;			/* the job_id of its run's first job (itself, unless a restart) */
	int			user;
	int			node_num;
	int			gpu_num;
	int			cpu_num;
	int			type;
	int			state;
	int64_t		submit;			/* Unix seconds */
	int64_t		start;			/* -1: never started */
	int64_t		end;
} at_job;

typedef struct at_generate_jobs at_generate_jobs;

/* n jobs of profile p.  AT_SCHED_NOMEM or AT_SCHED_OK. */
extern at_sched_status at_generate_jobs_create(at_mem_fn mem, void *ctx, const at_profile *p,
											   int64_t n, uint64_t seed, at_generate_jobs **out);

/* The next job; false when all n have come out (or on an error, see status). */
extern bool at_generate_jobs_next(at_generate_jobs *g, at_job *job, at_sched_status *status);
extern void at_generate_jobs_destroy(at_generate_jobs *g);

/*
 * The GPUs a run holds, from its scheduler start to its end: its attempts
 * and the gaps between them (image pulls, restarts) on the same nodes.
 */
typedef struct at_job_hold
{
	int64_t		start;
	int64_t		end;
	int32_t		gpus;
	int32_t		nodes;
	const int32_t *node;		/* node indices, whole nodes first; valid until the next call */
} at_job_hold;

/* Whether the job last returned began a run that got GPUs; if so, what it holds. */
extern bool at_generate_jobs_hold(const at_generate_jobs *g, at_job_hold *h);

/*
 * A time before which no job still to come starts and no run still to come
 * takes GPUs (INT64_MAX when all n are out): everything earlier is known.
 */
extern int64_t at_generate_jobs_horizon(const at_generate_jobs *g);

#endif
