/*
 * usage.h: acmetrace.summary_usage from one pass over a cluster's ended
 * jobs, as plain C: each job's group (its end day in the cluster's zone,
 * user_id and vc, numbered by the caller) gains its count, its GPU time
 * (published gpu_time, else duration x gpu_num, of GPU jobs; failed and
 * cancelled apart) in exact sums, and its wait (start - submit >= 0 of GPU
 * jobs): count, the interval sum as PostgreSQL adds intervals (days and
 * microseconds apart), and the value itself for the group's value counts.
 * The rules are those of acmetrace_internal.usage_rows
 * (src/install/analyses/usage.sql); a value that does not fit makes the
 * pass fail, and SQL does the work instead.
 */
#ifndef ACMETRACE_USAGE_H
#define ACMETRACE_USAGE_H

#include <stdint.h>

#include "summary.h"

#ifdef AT_HAVE_INT128

#include "timeseries.h"			/* AT_TS_* states and numeric kinds */

/* An ended job (end_time not NULL); times are timestamptz. */
typedef struct at_usage_job
{
	int			has_gpus;
	int32_t		gpus;
	int			state;			/* AT_TS_* */
	int			has_submit;
	int64_t		submit;
	int			has_start;
	int64_t		start;
	int64_t		end;
	int			has_wait;
	double		wait;			/* wait_s */
	int			gpu_time_kind;	/* AT_TS_NUM_*, read only when at_usage_needs_num */
	at_decimal	gpu_time;
	int			duration_kind;
	at_decimal	duration;
} at_usage_job;

/* summary_usage's key (zeroed, so it hashes as bytes): user and vc are the caller's numbers, -1 NULL */
typedef struct at_usage_key
{
	int32_t		day;
	int32_t		user;
	int32_t		vc;
} at_usage_key;

/* One row of summary_usage but for its waits' value counts; its key first (a hash table's entry). */
typedef struct at_usage_group
{
	at_usage_key key;
	int64_t		idx;			/* the caller's number of the group */
	int64_t		jobs;
	int64_t		gpu_jobs;
	at_roll_sum gpu_time;
	at_roll_sum failed;
	at_roll_sum cancelled;
	int64_t		wait_n;
	int64_t		wait_days;		/* the waits' interval sum: days ... */
	int64_t		wait_us;		/* ... and microseconds */
	int			has_first;
	int64_t		first_submit;
	int64_t		last_end;
} at_usage_group;

/* The job's GPU time is summed, so its numerics are read. */
extern int	at_usage_needs_num(const at_usage_job *j);

/*
 * Adds the job to its group g (zeroed but for key and idx when new): 0 if a
 * value does not fit.  *wait is set to 1 when the job's wait goes into the
 * group's value counts.
 */
extern int	at_usage_add(at_usage_group *g, const at_usage_job *j, int *wait);

/*
 * A wait of a group: groups are fine (a user's day), so their waits are
 * nearly all distinct and a list sorted once beats counting them in a hash.
 */
typedef struct at_usage_wait
{
	uint64_t	group;
	double		value;			/* finite */
} at_usage_wait;

/*
 * The n waits (groups 0 .. ngroups - 1) by group, then value (-0 as 0):
 * each distinct (group, value) with its count into out (room for n), and
 * how many there are.  A counting sort by group, then each group's few
 * values sorted; scratch holds n waits, start ngroups + 1 sizes.
 */
extern size_t at_usage_waits_counted(const at_usage_wait *w, size_t n, size_t ngroups, at_usage_wait *scratch,
									  size_t *start, at_vmap_entry *out);

#endif
#endif
