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
 * Texture of the per-GPU compute metrics (GPU_UTIL, SM_ACTIVE,
 * SM_OCCUPANCY), at 15 s a sample (doc/generator.md, "Texture").  A DCGM
 * value scraped every 15 s is a near-instant reading, so a stall of a few
 * seconds reads as idle.  A busy sample starts a dip with probability
 * 1/EVERY of each kind; the dip's samples take idle values.
 */
#define AT_UTIL_STALL_EVERY 32		/* data loading: a stall every 8 min of compute, */
#define AT_UTIL_STALL_MIN 1			/* caught by one sample */
#define AT_UTIL_STALL_MAX 1
#define AT_UTIL_CKPT_EVERY 240		/* checkpoints: every hour (30 to 60 min in practice), */
#define AT_UTIL_CKPT_MIN 2			/* 30 s to 2 min of writing */
#define AT_UTIL_CKPT_MAX 8
#define AT_UTIL_EVAL_EVERY 1920		/* evaluation pauses: every 8 hours, */
#define AT_UTIL_EVAL_MIN 12			/* 3 to 10 min */
#define AT_UTIL_EVAL_MAX 40
/*
 * Together about 6.4% of busy time.  Kept that low because the trace
 * model pays for the dips with its cycles' stalls: a window whose jobs run
 * on less than (1 - p_idle) / (1 - 0.064) of its GPU-samples has no stall
 * left to give up, and its idle share rises by up to 6.4% of that.
 */
/*
 * The share of the latent's variance that is fresh every sample: busy
 * values flicker by a few points instead of holding a plateau, while the
 * AR(1) part keeps slow swings.
 */
#define AT_UTIL_NOISE 0.25
/*
 * The share of idle samples (not dips) that read a small non-zero value: a
 * monitoring probe or a leftover context touching an idle GPU.  The value
 * is one of the idle part's own above 0, at least the metric's smallest
 * unit (GPU_UTIL: 1), so it stays at or below 1 % and still counts as
 * idle.  Not more: the published Seren and Kalos GPU_UTIL have almost
 * nothing between 0 and 3 %, so every such reading moves their CDF at 0.
 * FB_USED gets these too (a leftover context holds memory) but no dips or
 * noise: memory stays allocated through a stall.
 */
#define AT_UTIL_TOUCH 0.04

/* A dip process: busy samples to the next dip, and samples left in the current one. */
typedef struct at_util_dip
{
	int32_t		next;
	int32_t		left;
} at_util_dip;

/*
 * Per-series state of the model.  Each series alternates between idle and
 * busy runs (log-uniform lengths, 10 minutes to 12 hours busy; idle runs
 * scaled so the stationary idle share, dips included, is the table's share
 * of values <= 1).  A value is the table's quantile at a latent probability
 * drawn inside the state's part of the distribution ([0, p_idle) or
 * [p_idle, 1)) from an AR(1) Gaussian plus per-sample noise, mapped
 * through the normal CDF: consecutive samples are close, and the marginal
 * is the published one.  A run is offline (empty cells) with probability
 * offline_share.
 */
typedef struct at_util_series
{
	int32_t		left;			/* samples left in the run */
	int8_t		busy;
	int8_t		offline;
	int32_t		touch;			/* idle samples to the next small reading */
	at_util_dip dip;
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
	uint64_t	seed;
	/* texture: all 0 for the per-server metrics and --iid */
	double		noise;			/* AT_UTIL_NOISE, or 0 */
	double		mix_z,
				mix_w;			/* latent = mix_z * AR(1) + mix_w * noise */
	double		dip_log;		/* log(1 - P(a busy sample starts a dip)), 0: no dips */
	double		dip_share;		/* expected share of busy-state samples in dips */
	double		touch_log;		/* log(1 - AT_UTIL_TOUCH), 0: no small idle readings */
	double		p_zero;			/* the table's share at 0: small readings come from above it */
	double		idle_runs;		/* the idle runs' share of time: p_idle less the dips */
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
 * table's quantile at a fresh uniform probability, with no idle/busy runs,
 * AR(1) or texture (the compression codec's worst case).  The model starts
 * again from its seed; offline runs (empty cells) are those of a model
 * without texture, so the file layout is the same.
 */
extern void at_util_gen_iid(at_util_gen *g);

/* The value the quantile table gives at probability p (linear interpolation). */
extern double at_util_quantile_at(const double *q, double p);

/* The table's CDF at x: the share of its distribution <= x (for tests). */
extern double at_util_table_cdf(const double *q, double x);

/* The expected share of busy-state samples in dips (0: the metric has none). */
extern double at_util_gen_dip_share(const at_util_gen *g);

/* ---- the model over a generated trace's placement ---- */

/*
 * Per-GPU samples of one metric of a cluster running the jobs of
 * generate_jobs(p, n, seed): samples at t0, t0 + step, ... (`samples` of
 * them), a column per GPU of the cluster (at_placement_series_name).  A GPU
 * is busy only while one of the jobs runs on it: a job's GPUs compute and
 * stall together in a cycle of 10 to 60 minutes (its own length and
 * phase), and dip together (the texture above: a synchronous job waits
 * for its slowest GPU), computing for the share of the cycle that makes
 * the window's busy samples the table's busy share (all of it when the
 * jobs run on fewer GPU-samples than that).  Values come from the table's
 * busy or idle part, per GPU through the latent of the model above.
 * Memory is bounded by the cluster's GPUs and the jobs in flight, not by n.
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

/*
 * The share of the window's GPU-samples a job runs on, and the share of a
 * running job's cycle that computes (the dips, at_util_gen_dip_share of
 * the model, take their share of that).
 */
extern double at_util_trace_running(const at_util_trace *u);
extern double at_util_trace_busy(const at_util_trace *u);
extern double at_util_trace_dip_share(const at_util_trace *u);

/*
 * The next sample's cells (",v" per GPU, "," when offline) into buf
 * (at_util_line_size(series) bytes) and its time in *t; the length
 * written, or -1 when every sample is out or on an error (*st).
 */
extern int64_t at_util_trace_cells(at_util_trace *u, char *buf, int64_t *t, int *empty, at_sched_status *st);

#endif
