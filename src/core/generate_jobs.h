/*
 * generate_jobs.h: a synthetic job trace with the published marginals of an
 * AcmeTrace cluster, scheduled by a capacity-limited FIFO scheduler.
 *
 * Plain C, no PostgreSQL headers, no allocation: the caller provides
 * at_generate_jobs_size() bytes.  Jobs come out one at a time in submit order.
 */
#ifndef ACMETRACE_GENERATE_JOBS_H
#define ACMETRACE_GENERATE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

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

extern const char *const at_type_names[AT_NTYPES];
extern const char *const at_state_names[AT_NSTATES];

/* What a cluster looks like; the numbers and their sources are in generate_jobs.c. */
typedef struct at_profile
{
	const char *name;
	int			gpu_capacity;
	int			cpus_per_gpu;
	double		jobs_per_day;
	int64_t		epoch;			/* first submit, Unix seconds */
	double		p_gpu;			/* share of jobs with gpu_num > 0 */
	double		gpu_state[3];	/* completed, cancelled, failed: by job count */
	double		cpu_state[3];
	double		gpu_size[AT_NGPU_SIZES];	/* weights of 1, 2, 4, ... 1024 GPUs */
	double		small_type[AT_NTYPES];	/* type mix of GPU jobs under 64 GPUs */
	double		large_type[AT_NTYPES];	/* ... and of 64 GPUs and more */
	double		cpu_type[AT_NTYPES];
	double		gpu_run_median;	/* seconds, of a completed 1-GPU job */
	double		run_sigma;		/* log-normal shape */
	double		run_per_doubling;	/* log-duration added per doubling of GPUs */
	double		state_run_factor[3];	/* median multiplier: completed, cancelled, failed */
	double		cpu_run_median;
	double		cpu_run_sigma;
	double		cpu_queue_mean;
	double		max_run;		/* seconds; durations are capped here */
	double		never_start_share;	/* of cancelled GPU jobs: cancelled while queued */
	int			users;
	int64_t		first_job_id;
} at_profile;

/* The built-in profiles: "seren" and "kalos".  NULL for an unknown name. */
extern const at_profile *at_profile_by_name(const char *name);

typedef struct at_job
{
	int64_t		job_id;
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

extern size_t at_generate_jobs_size(const at_profile *p);
extern at_generate_jobs *at_generate_jobs_init(void *mem, const at_profile *p, uint64_t seed);
extern void at_generate_jobs_next(at_generate_jobs *g, at_job *job);

#endif
