/*
 * timeseries.h: the jobs' time series (acmetrace.summary_hours,
 * summary_days, summary_extents) from one pass over a cluster's jobs, as
 * plain C.  src/timeseries_scan.c feeds each job and keeps the hours and
 * days in hash tables; the rules are those of the SQL they replace
 * (src/install/analyses/timeseries_jobs.sql): a job holds GPUs when
 * gpu_num > 0, it started (finite) and it did not end at or before its
 * start; hours are UTC hours from 2000-01-01; days are local days in a
 * zone (summary.h); non-finite times count as missing.  Sums of numerics
 * are exact (128-bit, scale 9) and keep the largest scale of their terms,
 * as numeric addition does; a numeric that is not such a decimal makes
 * the pass fail, and SQL does the work instead.
 */
#ifndef ACMETRACE_TIMESERIES_H
#define ACMETRACE_TIMESERIES_H

#include <stdint.h>

#include "summary.h"

#ifdef AT_HAVE_INT128

#define AT_TS_HOUR_US	INT64_C(3600000000)

/* final_state as the days count it */
enum
{
	AT_TS_OTHER,
	AT_TS_COMPLETED,
	AT_TS_FAILED,
	AT_TS_CANCELLED
};

/* a numeric column: NULL, a decimal (at_decimal), or another numeric (NaN, infinite, too long) */
enum
{
	AT_TS_NUM_NULL,
	AT_TS_NUM_DEC,
	AT_TS_NUM_OTHER
};

/* One row of acmetrace.jobs; times are timestamptz (INT64_MIN/MAX: -infinity, infinity). */
typedef struct at_ts_job
{
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
	int			state;			/* AT_TS_* */
	int			gpu_time_kind;	/* AT_TS_NUM_*, read only when at_ts_needs_num */
	at_decimal	gpu_time;
	int			duration_kind;
	at_decimal	duration;
} at_ts_job;

/* summary_extents' row: finite submit, start and end times, first start of a job holding GPUs */
typedef struct at_ts_extent
{
	int			has_first;
	int64_t		first;
	int			has_last;
	int64_t		last;
	int			has_first_start;
	int64_t		first_start;
} at_ts_extent;

/* summary_hours' row (its hour first: a hash table's key); corr in GPU-microseconds */
typedef struct at_ts_hour
{
	int64_t		hour;
	int64_t		start_gpus;
	int64_t		end_gpus;
	at_int128	corr_us;
} at_ts_hour;

/* summary_days' row but for the waits (its day first: a hash table's key) */
typedef struct at_ts_day
{
	int32_t		day;
	int64_t		submitted;
	int64_t		completed;
	int64_t		failed;
	int64_t		cancelled;
	at_roll_sum gpu_s;
	at_roll_sum failed_gpu_s;
	at_roll_sum cancelled_gpu_s;
} at_ts_day;

/* t is a finite time */
extern int	at_ts_finite(int has, int64_t t);

/* The job's times into the extent. */
extern void at_ts_extent_add(at_ts_extent *e, const at_ts_job *j);

/*
 * The job's hour events (0, 1 or 2) into ev: its start, and its end if it
 * ended after it started.
 */
extern int	at_ts_hour_events(const at_ts_job *j, at_ts_hour ev[2]);

/* acc += ev; 0 on overflow. */
extern int	at_ts_hour_add(at_ts_hour *acc, const at_ts_hour *ev);

/* The job ended (a finite end) with GPUs: its GPU time is summed, so its numerics are read. */
extern int	at_ts_needs_num(const at_ts_job *j);

/* Adds the job's end to its end day d (zeroed but for the key when new); 0 if a numeric does not fit. */
extern int	at_ts_day_end(at_ts_day *d, const at_ts_job *j);

/* The job's wait counts in its start day's waits: 1, 0, or -1 if it counts but is not finite. */
extern int	at_ts_counts_wait(const at_ts_job *j);

/* corr_us as the decimal text of seconds at scale 6, in buf (AT_ROLL_TEXT bytes). */
extern char *at_ts_corr_text(char *buf, at_int128 corr_us);

#endif
#endif
