/*
 * fuzz_occupancy_binary.c: the binary forms of occupancy data.
 *
 * Every input is tried as both:
 *  - the type's binary form, as acmetrace_occupancy_recv reads it
 *    (src/occupancy_type.c): version byte 1, int64 step count, then (int64
 *    time, int64 gpus) per step, big-endian; the count is checked against
 *    the bytes present, trailing bytes are refused, and the steps must pass
 *    at_occ_check over PostgreSQL's timestamp range; accepted steps must
 *    write back to the same bytes and answer queries like brute force;
 *  - occupancy_agg's serialized state: acmetrace.occupancy_state's binary
 *    and flat form, and the 0.x internal state's serialize/deserialize
 *    bytes, through state_form (fuzz_occupancy_state.h).
 */
#include "fuzz_occupancy_state.h"

static void
type_form(const uint8_t *data, size_t size)
{
	uint64_t	n;
	at_occ_step *steps;
	size_t		bad;
	const char *msg;
	int64_t		pts[8];
	size_t		npts;
	uint8_t    *back;

	if (size < 9 || data[0] != 1)
		return;
	n = fuzz_be64(data + 1);
	if (n > (size - 9) / 16 || size != 9 + 16 * n)
		return;					/* recv: too few bytes, or trailing ones */
	steps = malloc((n ? n : 1) * sizeof(at_occ_step));
	for (size_t i = 0; i < n; i++)
	{
		steps[i].t = (int64_t) fuzz_be64(data + 9 + 16 * i);
		steps[i].gpus = (int64_t) fuzz_be64(data + 9 + 16 * i + 8);
	}
	msg = at_occ_check(steps, n, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, &bad);
	if (msg == NULL)
	{
		npts = input_times(data, size, pts, 8);
		occ_queries(steps, n, pts, npts);
		/* send writes what recv read */
		back = malloc(size);
		back[0] = 1;
		for (int k = 0; k < 8; k++)
			back[1 + k] = (uint8_t) (n >> (56 - 8 * k));
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 8; k++)
			{
				back[9 + 16 * i + k] = (uint8_t) ((uint64_t) steps[i].t >> (56 - 8 * k));
				back[9 + 16 * i + 8 + k] = (uint8_t) ((uint64_t) steps[i].gpus >> (56 - 8 * k));
			}
		FUZZ_CHECK(memcmp(back, data, size) == 0, "send does not give back what recv read");
		free(back);
	}
	else
		FUZZ_CHECK(bad < n, "bad step %zu of %llu", bad, (unsigned long long) n);
	free(steps);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	type_form(data, size);
	state_form(data, size);
	return 0;
}
