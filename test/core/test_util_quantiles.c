/*
 * test_util_quantiles.c: the published per-sample distributions compiled
 * in (src/core/util_quantiles.c, regenerated from test/fixtures/published/
 * by tools/gen_util_quantiles.sh): every table there, and usable.
 */
#include <math.h>

#include "util_quantiles.h"
#include "tap.h"

void
test_util_quantiles(void)
{
	static const char *const metrics[] = {"GPU_UTIL", "SM_ACTIVE_PCT", "SM_OCCUPANCY_PCT", "GPU_MEM_PCT",
	"NODE_CPU_UTILIZATION", "NODE_MEMORY_UTILIZATION"};
	static const char *const clusters[] = {"seren", "kalos"};
	int			tables = 0,
				usable = 0;
	const double *q;

	for (int c = 0; c < 2; c++)
		for (int m = 0; m < 6; m++)
		{
			int			ok = 1;

			if ((q = at_util_quantiles(clusters[c], metrics[m])) == NULL)
				continue;
			tables++;
			/*
			 * 1,000 quantiles, finite, not negative, nondecreasing (not
			 * all at most 100: Kalos's published node CPU reaches 238.9)
			 */
			for (int i = 0; i < 1000; i++)
				ok &= isfinite(q[i]) && q[i] >= 0 && (i == 0 || q[i] >= q[i - 1]);
			usable += ok && q[999] > q[0];
		}
	q = at_util_quantiles("philly", "GPU_UTIL");
	CHECK(tables == 12 && usable == 12 && q != NULL && q[999] > q[0],
		  "12 Acme tables and Philly's GPU_UTIL: 1,000 nondecreasing figures each (%d of %d)", usable, tables);
	CHECK(at_util_quantiles("seren", "NO_SUCH_METRIC") == NULL && at_util_quantiles("venus", "GPU_UTIL") == NULL &&
		  at_util_quantiles("philly", "SM_ACTIVE_PCT") == NULL, "an unknown cluster or metric: NULL");
	/* the published Seren GPU_UTIL: a third of the samples idle, the top at 100 */
	q = at_util_quantiles("seren", "GPU_UTIL");
	CHECK(q != NULL && q[0] == 0 && q[999] == 100 && q[250] == 0 && q[600] > 50,
		  "seren GPU_UTIL: from 0 to 100, idle at the first quartile, busy past 0.6");
}
