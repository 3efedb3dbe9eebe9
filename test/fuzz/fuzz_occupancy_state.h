/*
 * fuzz_occupancy_state.h: the checks of occupancy_agg's serialized state
 * (the flat form of acmetrace.occupancy_state), shared by the harnesses
 * that reach it from bytes (fuzz_occupancy_binary) and from the type's
 * text form (fuzz_occupancy_state_text).
 *
 * state_form: the bytes through the core's own decoder,
 * at_occ_state_decode, which every entry point calls (src/occupancy_agg.c);
 * it must accept exactly what at_occ_state_open, at_occ_state_read and
 * at_occ_lists_check accept, and leave nothing allocated when it refuses.
 * An accepted state must write back to the very same bytes (through
 * at_occ_state_flatten, as the flat form is written), sweep into canonical
 * steps, the same whether its lists are swept whole (the final function's
 * at_occ_state_runs), as two runs (at_occ_sweep_runs, as after combine) or
 * merged first; combine must take decoded runs, and past AT_OCC_MAX_RUNS
 * turn runs into raw jobs without changing the steps; and the steps must
 * answer every query like brute force (fuzz_occupancy.h).
 */
#ifndef ACMETRACE_FUZZ_OCCUPANCY_STATE_H
#define ACMETRACE_FUZZ_OCCUPANCY_STATE_H

#include "fuzz_occupancy.h"

/* A few instants from the input, for the queries. */
static size_t
input_times(const uint8_t *data, size_t size, int64_t *pts, size_t max)
{
	size_t		n = 0;

	for (size_t off = 1; off + 8 <= size && n < max; off += 1 + size / max)
		pts[n++] = (int64_t) fuzz_be64(data + off);
	return n;
}

static void
list_alloc(at_occ_list *l, size_t n)
{
	l->t = malloc((n ? n : 1) * sizeof(int64_t));
	l->g = malloc((n ? n : 1) * sizeof(int32_t));
	l->n = n;
}

static void
list_free(at_occ_list *l)
{
	free(l->t);
	free(l->g);
}

/* Every other event of l into two runs, each still sorted. */
static void
split_runs(const at_occ_list *l, at_occ_list *run)
{
	list_alloc(&run[0], l->n);
	list_alloc(&run[1], l->n);
	run[0].n = run[1].n = 0;
	for (size_t i = 0; i < l->n; i++)
	{
		at_occ_list *r = &run[i % 2];

		r->t[r->n] = l->t[i];
		r->g[r->n] = l->g[i];
		r->n++;
	}
}

/* The core's sort, as the glue uses it (less its interrupt checks). */
static void
sort_steps(at_occ_step *ev, size_t n)
{
	at_occ_sort_steps(ev, n, NULL);
}

static void
state_form(const uint8_t *data, size_t size)
{
	long		live = 0;
	size_t		ns,
				ne,
				bad;
	at_occ_state st,
				st2,
				leader;
	at_occ_list starts,
				ends,
				rs[2],
				re[2],
				ms,
				me;
	at_occ_runs runs;
	at_occ_flat flat;
	const char *msg = at_occ_state_decode(&st, data, size, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP,
										  fuzz_mem, &live, sort_steps);
	const char *opened = at_occ_state_open(data, size, &ns, &ne);
	long long	nsteps,
				nruns,
				nmerged;
	at_occ_step *steps,
			   *steps2;
	size_t		pos[4];
	uint8_t    *back;
	int64_t		pts[8];

	/* the decoder is open + read + check: it accepts what they accept */
	if (opened == NULL)
	{
		FUZZ_CHECK(at_occ_state_size(ns, ne) == size, "opened state of the wrong size");
		list_alloc(&starts, ns);
		list_alloc(&ends, ne);
		at_occ_state_read(data, &starts, &ends);
		FUZZ_CHECK(starts.n == ns && ends.n == ne, "read other counts than open");
		opened = at_occ_lists_check(&starts, &ends, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP);
		list_free(&starts);
		list_free(&ends);
	}
	FUZZ_CHECK((msg == NULL) == (opened == NULL), "decode says %s, open/read/check say %s",
			   msg ? msg : "ok", opened ? opened : "ok");
	if (msg != NULL)
	{
		FUZZ_CHECK(live == 0, "a refused state left %ld blocks", live);
		return;
	}
	FUZZ_CHECK(st.nruns == 1 && st.nraw == 0 && st.decoded, "decoded state is not one run");
	starts = st.starts[0];
	ends = st.ends[0];
	ns = starts.n;
	ne = ends.n;

	/* serialize: the state writes back byte for byte */
	FUZZ_CHECK(at_occ_state_flatten(&st, fuzz_mem, &live, &flat) == AT_OCC_OK, "flatten failed");
	FUZZ_CHECK(at_occ_state_size(flat.starts.n, flat.ends.n) == size, "flattened to another size");
	back = malloc(size);
	at_occ_state_write(back, &flat.starts, &flat.ends);
	FUZZ_CHECK(memcmp(back, data, size) == 0, "state does not write back the same");
	free(back);
	at_occ_flat_free(&flat, fuzz_mem, &live);

	/* the final function: sweep into canonical steps */
	steps = malloc((ns + ne + 1) * sizeof(at_occ_step));
	steps2 = malloc((ns + ne + 1) * sizeof(at_occ_step));
	FUZZ_CHECK(at_occ_state_runs(&st, fuzz_mem, &live, &runs) == AT_OCC_OK && runs.k == 1,
			   "a decoded state is not one run");
	FUZZ_CHECK(at_occ_runs_events(&runs) == ns + ne, "runs lost events");
	nsteps = at_occ_runs_sweep(&runs, steps);
	at_occ_runs_free(&runs, fuzz_mem, &live);
	FUZZ_CHECK(at_occ_sweep_lists(&starts, &ends, NULL) == nsteps, "counting sweep differs");
	FUZZ_CHECK(nsteps >= 0 && (size_t) nsteps <= ns + ne, "checked lists sweep to %lld steps", nsteps);
	msg = at_occ_check(steps, (size_t) nsteps, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, &bad);
	FUZZ_CHECK(msg == NULL, "swept steps not canonical: %s at %zu", msg, bad);

	/* as two runs, and merged back into one list first */
	split_runs(&starts, rs);
	split_runs(&ends, re);
	nruns = at_occ_sweep_runs(rs, re, 2, pos, steps2);
	FUZZ_CHECK(nruns == nsteps && memcmp(steps, steps2, (size_t) nsteps * sizeof(at_occ_step)) == 0,
			   "two runs sweep to other steps");
	list_alloc(&ms, ns);
	list_alloc(&me, ne);
	at_occ_list_merge(&rs[0], &rs[1], &ms);
	at_occ_list_merge(&re[0], &re[1], &me);
	FUZZ_CHECK(ms.n == ns && me.n == ne, "merge lost events");
	FUZZ_CHECK(at_occ_lists_check(&ms, &me, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP) == NULL,
			   "merged runs fail the check");
	nmerged = at_occ_sweep_lists(&ms, &me, steps2);
	FUZZ_CHECK(nmerged == nsteps && memcmp(steps, steps2, (size_t) nsteps * sizeof(at_occ_step)) == 0,
			   "merged runs sweep to other steps");

	/* the leader: combine takes the decoded runs (two workers' worth), then sweeps */
	at_occ_state_init(&leader, fuzz_mem, &live, sort_steps);
	FUZZ_CHECK(at_occ_state_combine(&leader, &st) == AT_OCC_OK && st.nruns == 0 && leader.nruns == 1,
			   "combine did not take the decoded run");
	FUZZ_CHECK(at_occ_state_decode(&st2, data, size, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, fuzz_mem, &live,
								   sort_steps) == NULL, "the same bytes decode once, not twice");
	FUZZ_CHECK(at_occ_state_combine(&leader, &st2) == AT_OCC_OK && st2.nruns == 0 && leader.nruns == 2,
			   "combine did not take the second run");
	FUZZ_CHECK(at_occ_state_runs(&leader, fuzz_mem, &live, &runs) == AT_OCC_OK, "leader runs failed");
	nmerged = at_occ_runs_sweep(&runs, steps2);
	at_occ_runs_free(&runs, fuzz_mem, &live);
	FUZZ_CHECK(nmerged >= 0, "the leader's state is inconsistent");

	/*
	 * Past AT_OCC_MAX_RUNS runs the smallest run becomes raw jobs: ten
	 * copies sweep to the same times at ten times the levels.
	 */
	for (int copy = 2; copy < 10; copy++)
	{
		FUZZ_CHECK(at_occ_state_decode(&st2, data, size, FUZZ_MIN_TIMESTAMP, FUZZ_END_TIMESTAMP, fuzz_mem,
									   &live, sort_steps) == NULL, "the same bytes decode again");
		FUZZ_CHECK(at_occ_state_combine(&leader, &st2) == AT_OCC_OK && st2.nruns == 0 &&
				   leader.nruns <= AT_OCC_MAX_RUNS, "combine past the cap failed");
		at_occ_state_free(&st2);
	}
	FUZZ_CHECK(at_occ_state_runs(&leader, fuzz_mem, &live, &runs) == AT_OCC_OK, "leader runs failed");
	nmerged = at_occ_runs_sweep(&runs, steps2);
	at_occ_runs_free(&runs, fuzz_mem, &live);
	FUZZ_CHECK(nmerged == nsteps, "ten copies sweep to %lld steps, not %lld", nmerged, nsteps);
	for (long long i = 0; i < nsteps; i++)
		FUZZ_CHECK(steps2[i].t == steps[i].t && steps2[i].gpus == 10 * steps[i].gpus,
				   "ten copies: step %lld is not ten times the level", i);

	occ_queries(steps, (size_t) nsteps, pts, input_times(data, size, pts, 8));
	for (int r = 0; r < 2; r++)
	{
		list_free(&rs[r]);
		list_free(&re[r]);
	}
	list_free(&ms);
	list_free(&me);
	free(steps);
	free(steps2);
	at_occ_state_free(&st);
	at_occ_state_free(&st2);
	at_occ_state_free(&leader);
	FUZZ_CHECK(live == 0, "%ld blocks left after a state", live);
}

#endif
