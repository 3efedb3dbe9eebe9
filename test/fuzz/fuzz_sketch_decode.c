/*
 * fuzz_sketch_decode.c: the delay_sketch binary form, at_sk_decode (what
 * recv, the accessors, rollup and the aggregate's deserialize read).
 *
 * The input is the serialized sketch.  A refused one leaves nothing
 * allocated; an accepted one must pass at_sk_check, encode to bytes that
 * decode to an equal sketch (and encode the same again), format and parse
 * back, merge with itself and into an empty sketch, take values, and answer
 * quantiles and ranks in range (fuzz_sketch.h).
 */
#include "fuzz_sketch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	at_sketch	sk;
	const char *msg = at_sk_decode(&sk, data, size, fuzz_mem, &fuzz_live);

	if (msg != NULL)
		FUZZ_CHECK(sk.counts == NULL && sk.cum == NULL, "a refused state left buckets behind");
	else
	{
		/* values to add and rank: the header's doubles, and a few of their neighbours */
		double		vals[12];
		int			nvals = 0;

		for (size_t off = 28; off + 8 <= AT_SK_HEADER - 4; off += 8)
		{
			double		v = fuzz_double(data + off);

			vals[nvals++] = v;
			vals[nvals++] = v * 1.5;
			vals[nvals++] = nextafter(v, 0);
			vals[nvals++] = floor(v / 3);
		}
		sk_exercise(&sk, vals, nvals);
		at_sk_free(&sk);
	}
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations leaked", fuzz_live);
	return 0;
}
