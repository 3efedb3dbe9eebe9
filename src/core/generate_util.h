/*
 * generate_util.h: synthetic wide utilization files in the AcmeTrace layout
 * (Time, then one column per server or GPU, one line per 15 s sample).
 * Plain C, no PostgreSQL headers; the caller owns every buffer.
 */
#ifndef ACMETRACE_GENERATE_UTIL_H
#define ACMETRACE_GENERATE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "placement.h"
#include "rng.h"

/* Formats Unix seconds as "YYYY-MM-DD HH:MM:SS+00:00" (26 bytes with NUL). */
extern void at_format_utc(int64_t unix_s, char out[26]);

/* Bytes a header or a line of `series` columns may need, NUL included. */
extern size_t at_util_line_size(int series);

/* "Time,10.140.0.0,10.140.0.1,..." ; returns the length written. */
extern size_t at_util_header(char *buf, int series);

/*
 * One sample line at unix_s.  Values are polarized like real GPU
 * utilization: each series is idle, busy or in between for an hour at a
 * time (decided from seed, series and hour), with noise inside.  A share
 * blank_share of cells is left empty.  Returns the length written.
 */
extern size_t at_util_line(char *buf, int series, int64_t unix_s, uint64_t seed,
						   double blank_share, at_rng *rng);

/* ---- the realistic model (per-GPU or per-server files) ---- */

/*
 * Per-series state of the model.  Each series alternates between idle and
 * busy runs (log-uniform lengths, 10 minutes to 12 hours busy; idle runs
 * scaled so the stationary idle share is the table's share of values <= 1).
 * A value is the table's quantile at a latent probability drawn inside the
 * state's part of the distribution ([0, p_idle) or [p_idle, 1)) from an
 * AR(1) Gaussian mapped through the normal CDF: consecutive samples are
 * close, and the marginal is the published one.  A run is offline (empty
 * cells) with probability offline_share.
 */
typedef struct at_util_series
{
	int32_t		left;			/* samples left in the run */
	int8_t		busy;
	int8_t		offline;
	double		z;				/* the latent AR(1) value */
} at_util_series;

typedef struct at_util_gen
{
	const double *q;			/* 1,000 quantiles */
	double		p_idle;
	double		scale;			/* value = quantile * scale (FB_USED: MiB) */
	int			decimals;		/* 0 or 3 */
	int			series;
	double		offline_share;
	int			iid;			/* at_util_gen_iid: values independent of each other */
	at_rng		rng;
	at_util_series *s;			/* caller-allocated, series entries */
} at_util_gen;

/*
 * Metrics the model writes: GPU_UTIL (integers), SM_ACTIVE, SM_OCCUPANCY,
 * NODE_CPU_UTILIZATION, NODE_MEMORY_UTILIZATION (3 decimals), FB_USED
 * (integer MiB of 80 GiB, from GPU_MEM_PCT).  0, or -1 when the cluster
 * has no table for the metric.  s must hold `series` entries.
 */
extern int	at_util_gen_init(at_util_gen *g, const char *cluster, const char *metric, int series,
							 uint64_t seed, double offline_share, at_util_series *s);

/*
 * The next sample of every series as cells ",v" (",", empty when offline)
 * into buf (at_util_line_size(series) bytes); returns the length written
 * and sets *empty when every cell is empty.
 */
extern size_t at_util_gen_cells(at_util_gen *g, char *buf, int *empty);

/*
 * Switches an initialized model to independent values: every value is the
 * table's quantile at a fresh uniform probability, with no idle/busy runs
 * or AR(1) texture (the compression codec's worst case).  Offline runs
 * (empty cells) stay as they are, so the file layout is the same.
 */
extern void at_util_gen_iid(at_util_gen *g);

/* The value the quantile table gives at probability p (linear interpolation). */
extern double at_util_quantile_at(const double *q, double p);

/* The table's CDF at x: the share of its distribution <= x (for tests). */
extern double at_util_table_cdf(const double *q, double x);

/* ---- the model over a generated trace's placement ---- */

/*
 * Per-GPU samples of one metric of a cluster running the jobs of
 * generate_jobs(p, n, seed): samples at t0, t0 + step, ... (`samples` of
 * them), a column per GPU of the cluster (at_placement_series_name).  A GPU
 * is busy only while one of the jobs runs on it: a job's GPUs compute and
 * stall together in a cycle of 10 to 60 minutes (its own length and
 * phase), busy for the share of the cycle that makes the window's busy
 * samples the table's busy share (all of it when the jobs run on fewer
 * GPU-samples than that).  Values come from the table's busy or idle
 * part, per GPU through the AR(1) latent of the model above.  Memory is
 * bounded by the cluster's GPUs and the jobs in flight, not by n.
 */
typedef struct at_util_trace at_util_trace;

/*
 * 0; -1 no table for the cluster and metric, or not a per-GPU metric
 * (GPU_UTIL, SM_ACTIVE, SM_OCCUPANCY, FB_USED); -2 out of memory; -3 the
 * placement failed (*st says why).
 */
extern int	at_util_trace_create(at_mem_fn mem, void *ctx, const at_profile *p, int64_t n, uint64_t seed,
								 const char *metric, int64_t t0, int32_t step, int64_t samples,
								 double offline_share, at_util_trace **out, at_sched_status *st);
extern void at_util_trace_destroy(at_util_trace *u);
extern int32_t at_util_trace_series(const at_util_trace *u);

/* The share of the window's GPU-samples a job runs on, and the share of those that are busy. */
extern double at_util_trace_running(const at_util_trace *u);
extern double at_util_trace_busy(const at_util_trace *u);

/*
 * The next sample's cells (",v" per GPU, "," when offline) into buf
 * (at_util_line_size(series) bytes) and its time in *t; the length
 * written, or -1 when every sample is out or on an error (*st).
 */
extern int64_t at_util_trace_cells(at_util_trace *u, char *buf, int64_t *t, int *empty, at_sched_status *st);

#endif
