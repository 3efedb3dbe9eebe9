/* tap.h: minimal TAP output for the plain-C core tests. */
#ifndef ACMETRACE_TAP_H
#define ACMETRACE_TAP_H

#include <stdio.h>
#include <stdlib.h>

/* The core's (ctx, ptr, size) allocator over calloc/free, for the tests. */
static inline void *
tap_mem(void *ctx, void *p, size_t n)
{
	(void) ctx;
	if (n == 0)
	{
		free(p);
		return NULL;
	}
	return calloc(1, n);
}

/* An allocator that fails its fail_at-th call (0: never) and counts the blocks live. */
typedef struct tap_counted
{
	long		calls;
	long		fail_at;
	long		live;
} tap_counted;

static inline void *
tap_counted_mem(void *ctx, void *p, size_t n)
{
	tap_counted *c = ctx;

	if (n == 0)
	{
		c->live--;
		free(p);
		return NULL;
	}
	if (++c->calls == c->fail_at)
		return NULL;
	c->live++;
	return calloc(1, n);
}

extern int	tap_count;
extern int	tap_failed;

/* The condition is evaluated once: it may call or change what it tests. */
#define CHECK(cond, ...) \
	do { \
		int			tap_check_ok_ = (cond) ? 1 : 0; \
		tap_count++; \
		if (tap_check_ok_) { printf("ok %d - ", tap_count); } \
		else { tap_failed++; printf("not ok %d - ", tap_count); } \
		printf(__VA_ARGS__); \
		if (!tap_check_ok_) printf("  (%s:%d: %s)", __FILE__, __LINE__, #cond); \
		printf("\n"); \
	} while (0)

void		test_unpivot(void);
void		test_generate_jobs(void);
void		test_scheduler(void);
void		test_placement(void);
void		test_replay(void);
void		test_history(void);
void		test_gbdt(void);
void		test_occupancy(void);
void		test_parse_value(void);
void		test_unpivot_header(void);
void		test_unpivot_time(void);
void		test_utilization(void);
void		test_sketch(void);
void		test_bins(void);
void		test_generate_util(void);
void		test_generate_util_model(void);
void		test_samples(void);
void		test_value_counts(void);
void		test_rng(void);
void		test_summary(void);
void		test_timeseries(void);
void		test_usage(void);
void		test_util_quantiles(void);
void		test_sacct(void);
void		test_prometheus(void);
void		test_prometheus_json(void);

#endif
