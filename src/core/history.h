/*
 * history.h: a job-duration predictor from users' histories, in the style
 * of Helios's QSSF scheduler.  At a job's submit time the prediction is the
 * geometric mean run time of the last `window` jobs of the same user, type
 * and GPU count that had ended by then; with none, of the same user and
 * type, then the same user, then the same type, then every job.  Only what
 * is known at submit time is used: a job counts from its end on.
 *
 * Plain C; memory through at_mem_fn: the groups seen and the jobs not yet
 * ended, not the jobs seen.
 */
#ifndef ACMETRACE_HISTORY_H
#define ACMETRACE_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

#define AT_HISTORY_LEVELS 5		/* user+type+GPUs, user+type, user, type, all */
#define AT_HISTORY_MAX_WINDOW 1000

typedef struct at_history_key
{
	uint64_t	user;			/* hashes of the user and type names (0: none) */
	uint64_t	type;
	int32_t		gpus;
} at_history_key;

typedef struct at_history at_history;

/* 0, or -1 for a window outside 1 .. AT_HISTORY_MAX_WINDOW, -2 out of memory. */
extern int	at_history_create(at_mem_fn mem, void *ctx, int window, at_history **out);
extern void at_history_destroy(at_history *h);

/* A job that ran `run` seconds (>= 0) and ended at `end`: known from `end` on.  False: out of memory. */
extern bool at_history_ended(at_history *h, const at_history_key *k, int64_t end, double run);

/*
 * The prediction for a job submitted at t (t non-decreasing across calls;
 * every job ended by t is folded in first): the level it came from (0 the
 * most specific .. 4 every job), or -1 when no job has ended yet; -2 out
 * of memory.
 */
extern int	at_history_predict(at_history *h, const at_history_key *k, int64_t t, double *pred);

/*
 * Every level at once, for a job submitted at t (as at_history_predict):
 * mean_log[l] the mean log run time of level l's window (NaN: no job yet),
 * n[l] the jobs in that window.  0, or -2 out of memory.
 */
extern int	at_history_levels(at_history *h, const at_history_key *k, int64_t t,
							  double mean_log[AT_HISTORY_LEVELS], int32_t n[AT_HISTORY_LEVELS]);

/*
 * The features of acmetrace.job_features for a job of k submitted at t (as
 * at_history_levels): its GPUs, then the four values of other (node_num,
 * cpu_num, hour, weekday; NaN missing) as they are, then mean_log of every
 * level, then n of every level but the last.  0, or -2 out of memory.
 */
#define AT_HISTORY_FEATURES (5 + 2 * AT_HISTORY_LEVELS - 1)
extern int	at_history_features(at_history *h, const at_history_key *k, int64_t t, const double other[4],
								double f[AT_HISTORY_FEATURES]);

/* 64-bit FNV-1a of a name, never 0 (0 is "none"). */
extern uint64_t at_history_hash(const char *s, size_t len);

#endif
