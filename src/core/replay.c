/*
 * replay.c: a recorded trace through the scheduler.  See replay.h.
 */
#include <string.h>

#include "replay.h"

bool
at_replay_policy_by_name(const char *name, at_replay_policy *out)
{
	static const char *const names[] = {"fifo", "priority", "sjf"};

	for (int p = 0; p < 3; p++)
	{
		const char *a = name,
				   *b = names[p];

		/* ASCII case folding only, as the names are ASCII */
		while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b)
			a++, b++;
		if (*a == '\0' && *b == '\0')
		{
			*out = (at_replay_policy) p;
			return true;
		}
	}
	return false;
}

int32_t
at_replay_type_class(const char *type)
{
	if (type == NULL)
		return 0;
	if (strcmp(type, "Pretrain") == 0)
		return 3;
	if (strcmp(type, "SFT") == 0 || strcmp(type, "MLLM") == 0)
		return 2;
	if (strcmp(type, "Debug") == 0)
		return 1;
	return 0;
}

static int64_t
clamp_key(double v)
{
	if (!(v >= 0))
		return 0;
	if (v >= (double) AT_REPLAY_KEY_MAX)
		return AT_REPLAY_KEY_MAX;
	return (int64_t) v;
}

static int64_t
max0(int64_t v)
{
	return v > 0 ? v : 0;
}

void
at_replay_job_of(at_replay_job *j, const at_replay_record *rec, int64_t t0, at_replay_policy pol, bool predictions)
{
	memset(j, 0, sizeof(*j));
	j->submit = rec->submit - t0;
	j->gpus = rec->gpus;
	if (rec->has_start)
		j->run = rec->has_end ? max0(rec->end - rec->start) : 0;
	else
	{
		/* cancelled while queued: leaves after its recorded wait */
		j->run = -1;
		j->wait = rec->has_end ? max0(rec->end - rec->submit) : 0;
	}
	j->priority = pol == AT_REPLAY_PRIORITY ? at_replay_type_class(rec->type) : 0;
	if (pol == AT_REPLAY_SJF)
		j->key = predictions ? (rec->has_pred ? clamp_key(rec->pred) : AT_REPLAY_KEY_MAX) : max0(j->run);
}

bool
at_replay_capacity_ok(int64_t capacity)
{
	return capacity >= AT_REPLAY_GPUS_PER_NODE && capacity % AT_REPLAY_GPUS_PER_NODE == 0 &&
		capacity / AT_REPLAY_GPUS_PER_NODE <= AT_SCHED_MAX_NODES;
}

void
at_replay_config(at_sched_config *cfg, int64_t capacity, bool backfill)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->nodes = (int32_t) (capacity / AT_REPLAY_GPUS_PER_NODE);
	cfg->gpus_per_node = AT_REPLAY_GPUS_PER_NODE;
	cfg->backfill = backfill;
	cfg->backfill_depth = 256;
}

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
