/*
 * replay.c: a recorded trace through the scheduler.  See replay.h.
 */
#include <string.h>

#include "replay.h"

static void
take_all(at_sched *s, at_replay_job *jobs)
{
	at_sched_job d;

	while (at_sched_take(s, &d))
	{
		jobs[d.id].start = d.start;
		jobs[d.id].end = d.end;
	}
}

at_sched_status
at_replay(at_mem_fn mem, void *ctx, const at_sched_config *cfg, at_replay_job *jobs, int64_t n, int64_t *bad)
{
	at_sched   *s;
	at_sched_status st;

	*bad = -1;
	if ((st = at_sched_create(mem, ctx, cfg, &s)) != AT_SCHED_OK)
		return st;
	for (int64_t i = 0; i < n; i++)
	{
		at_replay_job *r = &jobs[i];
		at_sched_job j;

		memset(&j, 0, sizeof j);
		j.id = i;
		j.submit = r->submit;
		j.hold = r->run >= 0 ? r->run : 0;
		j.patience = r->run >= 0 ? -1 : r->wait;
		j.gpus = r->gpus;
		j.priority = r->priority;
		j.key = r->key;
		j.group = -1;
		r->start = r->end = -1;
		if (r->run < 0 && r->wait < 0)
			st = AT_SCHED_BAD_JOB;
		else
			st = at_sched_submit(s, &j);
		if (st != AT_SCHED_OK)
		{
			if (st != AT_SCHED_NOMEM)
				*bad = i;
			at_sched_destroy(s);
			return st;
		}
		take_all(s, jobs);
	}
	st = at_sched_finish(s);
	take_all(s, jobs);
	at_sched_destroy(s);
	return st;
}
