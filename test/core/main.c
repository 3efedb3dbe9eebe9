/* main.c: runs every plain-C core test suite (TAP output). */
#include "tap.h"

int			tap_count = 0;
int			tap_failed = 0;

int
main(void)
{
	test_unpivot();
	test_parse_value();
	test_unpivot_header();
	test_unpivot_time();
	test_utilization();
	test_generate_jobs();
	test_scheduler();
	test_placement();
	test_replay();
	test_history();
	test_gbdt();
	test_generate_util();
	test_generate_util_model();
	test_occupancy();
	test_sketch();
	test_bins();
	test_samples();
	test_value_counts();
	test_rng();
	test_summary();
	test_timeseries();
	test_usage();
	test_util_quantiles();
	test_sacct();
	test_prometheus();
	test_prometheus_json();
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}
