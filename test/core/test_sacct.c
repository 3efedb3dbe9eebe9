/* test_sacct.c: unit tests of the sacct record parser (sacct.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sacct.h"
#include "tap.h"

/* A real line: 8 GPUs for 2 hours. */
static const char base[] =
	"4242|4242|acme|gpu|normal|proj|alice|train_llm|2023-07-01T08:00:00|2023-07-01T08:00:00|"
	"2023-07-01T08:05:00|2023-07-01T10:05:00|COMPLETED|0:0|1|16|"
	"billing=16,cpu=16,gres/gpu=8,mem=500G,node=1|billing=16,cpu=16,gres/gpu=8,mem=500G,node=1|1-00:00:00|node01";

static at_sacct_str f[AT_SACCT_NFIELDS];
static char *copies[AT_SACCT_NFIELDS];
static at_sacct_record r;
static at_sacct_error e;
static char msg[512];

/*
 * Splits line at sep into the 20 fields, each copied into a buffer of
 * exactly its length (an empty field is NULL, 0), so reading past a field
 * is an ASan error.  Returns the number of fields, or -1 when not 20.
 */
static int
split(const char *line, char sep)
{
	const char *p = line;
	int			n = 0;

	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
	{
		free(copies[k]);
		copies[k] = NULL;
		f[k].s = NULL;
		f[k].len = 0;
	}
	for (;;)
	{
		const char *q = strchr(p, sep);
		size_t		len = q ? (size_t) (q - p) : strlen(p);

		if (n == AT_SACCT_NFIELDS)
			return -1;
		if (len > 0)
		{
			copies[n] = malloc(len);
			memcpy(copies[n], p, len);
			f[n].s = copies[n];
			f[n].len = len;
		}
		n++;
		if (q == NULL)
			break;
		p = q + 1;
	}
	return n == AT_SACCT_NFIELDS ? n : -1;
}

/* Parses line ('|'-separated); the message of an error is in msg. */
static at_sacct_status
parse(const char *line)
{
	at_sacct_status st;

	if (split(line, '|') != AT_SACCT_NFIELDS)
	{
		snprintf(msg, sizeof(msg), "(not 20 fields)");
		return (at_sacct_status) - 1;
	}
	st = at_sacct_parse(f, &r, &e);
	msg[0] = '\0';
	if (st != AT_SACCT_OK)
		at_sacct_message(&e, 64, msg, sizeof(msg));
	return st;
}

/* base with field k replaced by v */
static at_sacct_status
with(int k, const char *v)
{
	char		line[2048];
	const char *p = base;
	size_t		n = 0;

	for (int i = 0; i < AT_SACCT_NFIELDS; i++)
	{
		const char *q = strchr(p, '|');
		size_t		len = q ? (size_t) (q - p) : strlen(p);

		if (i > 0)
			line[n++] = '|';
		if (i == k)
		{
			memcpy(line + n, v, strlen(v));
			n += strlen(v);
		}
		else
		{
			memcpy(line + n, p, len);
			n += len;
		}
		p = q ? q + 1 : p + len;
	}
	line[n] = '\0';
	return parse(line);
}

static int
str_is(at_sacct_str s, const char *want)
{
	return want == NULL ? s.len == 0 : s.len == strlen(want) && memcmp(s.s, want, s.len) == 0;
}

static int
time_is(const at_sacct_time *t, const char *want)
{
	char		buf[20];

	if (want == NULL)
		return !t->set;
	at_sacct_format_time(t, buf);
	return t->set && strcmp(buf, want) == 0;
}

/* field k set to v is refused with status st, in field k, with message m */
#define REFUSED(k, v, st, m) \
	CHECK(with((k), (v)) == (st) && e.field == (k) && strcmp(msg, (m)) == 0 && e.hint != NULL && e.hint[0] != '\0', \
		  "%s \"%s\" refused: %s (got: %s)", at_sacct_field_name(k), (v), (m), msg)
#define ACCEPTED(k, v) \
	CHECK(with((k), (v)) == AT_SACCT_OK, "%s \"%s\" accepted (got: %s)", at_sacct_field_name(k), (v), msg)

static void
test_good_lines(void)
{
	CHECK(parse(base) == AT_SACCT_OK, "the base line parses");
	CHECK(str_is(r.job_id, "4242") && r.job_id_num == 4242 && str_is(r.slurm_job_id, "4242"), "ids");
	CHECK(str_is(r.cluster, "acme") && str_is(r.partition, "gpu") && str_is(r.qos, "normal") &&
		  str_is(r.account, "proj") && str_is(r.user, "alice") && str_is(r.job_name, "train_llm"), "text fields");
	CHECK(time_is(&r.submit, "2023-07-01T08:00:00") && time_is(&r.eligible, "2023-07-01T08:00:00") &&
		  time_is(&r.start, "2023-07-01T08:05:00") && time_is(&r.end, "2023-07-01T10:05:00"), "times");
	CHECK(r.state == AT_SACCT_COMPLETED && r.cancelled_by.len == 0, "state");
	CHECK(r.has_exit && r.exit_code == 0 && r.exit_signal == 0, "exit code");
	CHECK(r.has_node_num && r.node_num == 1 && r.has_cpu_num && r.cpu_num == 16, "counts");
	CHECK(r.gpu_num == 8 && r.has_req_gpus && r.req_gpus == 8 && r.has_alloc_gpus && r.alloc_gpus == 8 &&
		  r.gpu_type.len == 0, "GPUs");
	CHECK(r.has_mem && r.mem_mb == 512000, "500G is 512000 MiB");
	CHECK(r.has_timelimit && r.timelimit_s == 86400, "1-00:00:00 is a day");
	CHECK(str_is(r.nodelist, "node01"), "nodelist");
	CHECK(e.status == AT_SACCT_OK && e.what == NULL && e.hint == NULL && e.value.len == 0, "no error on success");

	/* a pending job: nothing allocated yet */
	CHECK(parse("5001|5001|acme|gpu|normal|proj|bob|sft|2023-07-02T00:00:00|2023-07-02T00:00:00|Unknown|Unknown|PENDING|0:0|1|8|"
				"billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=200G,node=1||UNLIMITED|None assigned") == AT_SACCT_OK &&
		  !r.start.set && !r.end.set && r.state == AT_SACCT_PENDING && r.gpu_num == 4 && r.has_req_gpus &&
		  r.req_gpus == 4 && !r.has_alloc_gpus && r.alloc_gpus == 0 && str_is(r.gpu_type, "a100") && r.mem_mb == 204800 &&
		  !r.has_timelimit && r.nodelist.len == 0, "pending job: GPUs, type and memory from ReqTRES, unset times, None assigned");
	/* cancelled while running, by uid 1000 */
	CHECK(parse("5002|5002|acme|gpu|normal|proj|bob|eval|2023-07-02T00:00:00|2023-07-02T00:00:00|2023-07-02T00:01:00|"
				"2023-07-02T00:30:00|CANCELLED by 1000|0:15|2|64|billing=64,cpu=64,gres/gpu=16,mem=1000G,node=2|"
				"billing=64,cpu=64,gres/gpu=16,mem=1000G,node=2|02:00:00|node[01-02]") == AT_SACCT_OK &&
		  r.state == AT_SACCT_CANCELLED && str_is(r.cancelled_by, "1000") && r.exit_signal == 15 && r.gpu_num == 16 &&
		  r.node_num == 2 && r.timelimit_s == 7200 && str_is(r.nodelist, "node[01-02]"), "cancelled by 1000");
	/* cancelled while pending: no start, no AllocTRES */
	CHECK(parse("5003|5003|acme|gpu|normal|proj|bob|debug|2023-07-02T00:00:00|2023-07-02T00:00:00|None|2023-07-02T00:10:00|"
				"CANCELLED by 0|0:0|1|1|billing=1,cpu=1,mem=4000M,node=1||00:10:00|None assigned") == AT_SACCT_OK &&
		  str_is(r.cancelled_by, "0") && !r.start.set && r.end.set && r.gpu_num == 0 && r.has_req_gpus && r.req_gpus == 0 &&
		  !r.has_alloc_gpus && r.mem_mb == 4000 && r.timelimit_s == 600, "cancelled while pending, None start, no GPUs");
	/* failed, exit 3; killed by signal 9 */
	CHECK(parse("6000|6000|acme|cpu|low|proj|carol|x|2023-07-03T00:00:00|2023-07-03T00:00:00|2023-07-03T00:00:01|"
				"2023-07-03T00:00:02|FAILED|3:0|1|2|cpu=2,mem=1G,node=1|cpu=2,mem=1G,node=1|01:00|n1") == AT_SACCT_OK &&
		  r.state == AT_SACCT_FAILED && r.exit_code == 3 && r.exit_signal == 0 && r.timelimit_s == 60 && r.mem_mb == 1024,
		  "FAILED 3:0, MM:SS time limit");
	CHECK(with(AT_SACCT_EXITCODE, "0:9") == AT_SACCT_OK && r.exit_code == 0 && r.exit_signal == 9, "kill -9 is 0:9");
	CHECK(with(AT_SACCT_EXITCODE, "255:255") == AT_SACCT_OK && r.exit_code == 255 && r.exit_signal == 255, "255:255");
	CHECK(with(AT_SACCT_EXITCODE, "") == AT_SACCT_OK && !r.has_exit, "empty ExitCode is unset");
	/* array task, pending array, heterogeneous component */
	CHECK(parse("7005|7000_4|acme|gpu|normal|proj|dan|arr|2023-07-04T00:00:00|2023-07-04T00:00:00|2023-07-04T00:00:00|"
				"2023-07-04T00:00:09|TIMEOUT|0:0|1|1|cpu=1,node=1|cpu=1,node=1|00:01:00|n2") == AT_SACCT_OK &&
		  str_is(r.job_id, "7005") && str_is(r.slurm_job_id, "7000_4") && r.state == AT_SACCT_TIMEOUT &&
		  !r.has_mem && r.gpu_num == 0, "array task: JobIDRaw its own, no mem entry in either list");
	ACCEPTED(AT_SACCT_JOBID, "10_[0-2]");
	CHECK(str_is(r.slurm_job_id, "10_[0-2]"), "pending array range kept as printed");
	ACCEPTED(AT_SACCT_JOBID, "10_[5-9%2]");
	ACCEPTED(AT_SACCT_JOBID, "10_[1,3-4]");
	ACCEPTED(AT_SACCT_JOBID, "10_[1-7:2]");
	ACCEPTED(AT_SACCT_JOBID, "10_[3]");
	ACCEPTED(AT_SACCT_JOBID, "10_[0-0,2-2%1]");
	ACCEPTED(AT_SACCT_JOBID, "123+0");
	ACCEPTED(AT_SACCT_JOBID, "123+1");
	ACCEPTED(AT_SACCT_JOBID, "9223372036854775807");
	/* every state */
	for (int k = 0; k < AT_SACCT_NSTATES; k++)
		CHECK(with(AT_SACCT_STATE, at_sacct_state_name(k)) == AT_SACCT_OK && (int) r.state == k &&
			  r.cancelled_by.len == 0, "state %s", at_sacct_state_name(k));
	CHECK(at_sacct_state_name(-1) == NULL && at_sacct_state_name(AT_SACCT_NSTATES) == NULL, "state names: bounds");
	CHECK(at_sacct_field_name(0) != NULL && strcmp(at_sacct_field_name(AT_SACCT_NODELIST), "NodeList") == 0 &&
		  at_sacct_field_name(-1) == NULL && at_sacct_field_name(AT_SACCT_NFIELDS) == NULL, "field names");
	CHECK(with(AT_SACCT_STATE, "CANCELLED by 4294967295") == AT_SACCT_OK && str_is(r.cancelled_by, "4294967295"),
		  "the largest uid");
	/* empty text fields are unset */
	CHECK(parse("1|1|||||||||||RUNNING|||||||") == AT_SACCT_OK && r.cluster.len == 0 && r.job_name.len == 0 &&
		  !r.submit.set && !r.has_exit && !r.has_node_num && !r.has_cpu_num && !r.has_req_gpus && !r.has_alloc_gpus &&
		  r.gpu_num == 0 && !r.has_mem && !r.has_timelimit && r.nodelist.len == 0, "a line of empty optional fields");
	/* a job name holding the old delimiter and odd bytes stays whole */
	{
		const char *l = "8\x1f" "8\x1f" "c\x1fp\x1fq\x1f" "a\x1fu\x1f" "a|b \xc3\xa9`x\x1f" "2023-07-01T00:00:00\x1f\x1f\x1f\x1f"
			"COMPLETED\x1f" "0:0\x1f" "1\x1f" "1\x1f\x1f\x1f\x1fn";

		CHECK(split(l, '\x1f') == AT_SACCT_NFIELDS && at_sacct_parse(f, &r, &e) == AT_SACCT_OK &&
			  str_is(r.job_name, "a|b \xc3\xa9`x"), "job name with | and UTF-8 kept whole");
	}
}

static void
test_times(void)
{
	at_sacct_time t;
	char		buf[20];

	ACCEPTED(AT_SACCT_SUBMIT, "2024-02-29T00:00:00");
	ACCEPTED(AT_SACCT_SUBMIT, "2000-02-29T23:59:59");
	ACCEPTED(AT_SACCT_SUBMIT, "0001-01-01T00:00:00");
	ACCEPTED(AT_SACCT_SUBMIT, "9999-12-31T23:59:59");
	ACCEPTED(AT_SACCT_SUBMIT, "2023-12-31T00:00:00");
	ACCEPTED(AT_SACCT_END, "Unknown");
	CHECK(!r.end.set, "Unknown End is unset");
	ACCEPTED(AT_SACCT_START, "None");
	ACCEPTED(AT_SACCT_ELIGIBLE, "");
	REFUSED(AT_SACCT_SUBMIT, "2023-13-01T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-13-01T00:00:00\"");
	REFUSED(AT_SACCT_SUBMIT, "2023-02-29T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-02-29T00:00:00\"");
	REFUSED(AT_SACCT_SUBMIT, "1900-02-29T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"1900-02-29T00:00:00\"");
	REFUSED(AT_SACCT_ELIGIBLE, "2023-04-31T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-04-31T00:00:00\"");
	REFUSED(AT_SACCT_START, "2023-01-00T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-00T00:00:00\"");
	REFUSED(AT_SACCT_START, "2023-00-10T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-00-10T00:00:00\"");
	REFUSED(AT_SACCT_END, "2023-01-01T24:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-01T24:00:00\"");
	REFUSED(AT_SACCT_END, "2023-01-01T00:60:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-01T00:60:00\"");
	REFUSED(AT_SACCT_END, "2023-01-01T00:00:60", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-01T00:00:60\"");
	REFUSED(AT_SACCT_END, "0000-01-01T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"0000-01-01T00:00:00\"");
	REFUSED(AT_SACCT_END, "2023-01-01 00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-01 00:00:00\"");
	REFUSED(AT_SACCT_END, "2023-01-01T00:00:00Z", AT_SACCT_INVALID_TIME, "invalid time \"2023-01-01T00:00:00Z\"");
	REFUSED(AT_SACCT_END, "2023-1-01T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"2023-1-01T00:00:00\"");
	REFUSED(AT_SACCT_END, "1688198400", AT_SACCT_INVALID_TIME, "invalid time \"1688198400\"");
	REFUSED(AT_SACCT_END, "unknown", AT_SACCT_INVALID_TIME, "invalid time \"unknown\"");
	REFUSED(AT_SACCT_END, "+023-01-01T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \"+023-01-01T00:00:00\"");
	REFUSED(AT_SACCT_END, " 2023-01-01T00:00:00", AT_SACCT_INVALID_TIME, "invalid time \" 2023-01-01T00:00:00\"");
	CHECK(at_sacct_parse_time("2023-07-01T08:00:00", 19, &t) && t.set && t.year == 2023 && t.mon == 7 && t.mday == 1 &&
		  t.hour == 8 && t.min == 0 && t.sec == 0, "time fields");
	at_sacct_format_time(&t, buf);
	CHECK(strcmp(buf, "2023-07-01T08:00:00") == 0, "formatted back");
	CHECK(at_sacct_parse_time("2023-07-01T08:00:00", 18, &t) == 0, "a length one short is refused (no NUL needed)");
	/* every day of 1896..2404 (leap rules of 4, 100, 400) against a day count */
	{
		int			ok = 1,
					days = 0;

		for (int y = 1896; y <= 2404 && ok; y++)
		{
			int			n = 0;

			for (int m = 1; m <= 12; m++)
				for (int d = 1; d <= 32; d++)
				{
					char		s[48];

					snprintf(s, sizeof(s), "%04d-%02d-%02dT12:00:00", y, m, d);
					n += at_sacct_parse_time(s, 19, &t) && t.set;
				}
			ok = n == ((y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365);
			days += n;
		}
		CHECK(ok && days == 509 * 365 + 124, "every calendar day of 1896-2404 and no other (%d)", days);
	}
}

static void
test_timelimit(void)
{
	int			set;
	int64_t		s;
	char		buf[24];

	CHECK(with(AT_SACCT_TIMELIMIT, "365-00:00:00") == AT_SACCT_OK && r.timelimit_s == 365 * 86400, "365 days");
	CHECK(with(AT_SACCT_TIMELIMIT, "00:00:00") == AT_SACCT_OK && r.has_timelimit && r.timelimit_s == 0, "zero");
	CHECK(with(AT_SACCT_TIMELIMIT, "23:59:59") == AT_SACCT_OK && r.timelimit_s == 86399, "23:59:59");
	CHECK(with(AT_SACCT_TIMELIMIT, "2-03:04:05") == AT_SACCT_OK && r.timelimit_s == 2 * 86400 + 3 * 3600 + 4 * 60 + 5,
		  "2-03:04:05");
	CHECK(with(AT_SACCT_TIMELIMIT, "59:59") == AT_SACCT_OK && r.timelimit_s == 3599, "MM:SS");
	CHECK(with(AT_SACCT_TIMELIMIT, "999999999-23:59:59") == AT_SACCT_OK && r.timelimit_s == 999999999LL * 86400 + 86399,
		  "9 digits of days");
	CHECK(with(AT_SACCT_TIMELIMIT, "UNLIMITED") == AT_SACCT_OK && !r.has_timelimit, "UNLIMITED is unset");
	CHECK(with(AT_SACCT_TIMELIMIT, "Partition_Limit") == AT_SACCT_OK && !r.has_timelimit, "Partition_Limit is unset");
	CHECK(with(AT_SACCT_TIMELIMIT, "") == AT_SACCT_OK && !r.has_timelimit, "empty is unset");
	REFUSED(AT_SACCT_TIMELIMIT, "1000000000-00:00:00", AT_SACCT_INVALID, "invalid time limit \"1000000000-00:00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "24:00:00", AT_SACCT_INVALID, "invalid time limit \"24:00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "00:60:00", AT_SACCT_INVALID, "invalid time limit \"00:60:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "00:00:60", AT_SACCT_INVALID, "invalid time limit \"00:00:60\"");
	REFUSED(AT_SACCT_TIMELIMIT, "1-00:00", AT_SACCT_INVALID, "invalid time limit \"1-00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "-00:00:00", AT_SACCT_INVALID, "invalid time limit \"-00:00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "1:00:00", AT_SACCT_INVALID, "invalid time limit \"1:00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "60", AT_SACCT_INVALID, "invalid time limit \"60\"");
	REFUSED(AT_SACCT_TIMELIMIT, "INFINITE", AT_SACCT_INVALID, "invalid time limit \"INFINITE\"");
	REFUSED(AT_SACCT_TIMELIMIT, "1-1-00:00:00", AT_SACCT_INVALID, "invalid time limit \"1-1-00:00:00\"");
	REFUSED(AT_SACCT_TIMELIMIT, "00:00:0a", AT_SACCT_INVALID, "invalid time limit \"00:00:0a\"");
	REFUSED(AT_SACCT_TIMELIMIT, "00-00-00", AT_SACCT_INVALID, "invalid time limit \"00-00-00\"");
	at_sacct_format_elapsed(2 * 86400 + 3 * 3600 + 4 * 60 + 5, buf);
	CHECK(strcmp(buf, "2-03:04:05") == 0 && at_sacct_parse_timelimit(buf, strlen(buf), &set, &s) && set &&
		  s == 2 * 86400 + 3 * 3600 + 4 * 60 + 5, "elapsed formatted and parsed back");
	at_sacct_format_elapsed(59, buf);
	CHECK(strcmp(buf, "00:00:59") == 0, "under a day: HH:MM:SS");
	at_sacct_format_elapsed(-1, buf);
	CHECK(strcmp(buf, "INVALID") == 0, "negative: INVALID");
}

static void
test_ids(void)
{
	static const char *const steps[] = {"123.batch", "123.extern", "123.0", "123+0.batch", "123_4.batch", "10_[0-2].batch",
	"123.4294967294"};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
	{
		char		want[64];

		snprintf(want, sizeof(want), "\"%s\" is a job step", steps[i]);
		REFUSED(AT_SACCT_JOBID, steps[i], AT_SACCT_STEP, want);
		CHECK(strstr(e.hint, "--allocations (-X)") != NULL, "the step hint names --allocations (-X)");
	}
	REFUSED(AT_SACCT_JOBIDRAW, "4242.batch", AT_SACCT_STEP, "\"4242.batch\" is a job step");
	/* a step line as sacct prints it: both fields, reported in JobID */
	CHECK(parse("4242.0|4242.0|acme|gpu|normal|proj|alice|python|2023-07-01T08:05:00|2023-07-01T08:05:00|2023-07-01T08:05:00|"
				"2023-07-01T10:05:00|COMPLETED|0:0|1|16||cpu=16,gres/gpu=8,mem=500G,node=1|UNLIMITED|node01") == AT_SACCT_STEP &&
		  e.field == AT_SACCT_JOBID && strcmp(msg, "\"4242.0\" is a job step") == 0, "a step line: field JobID");
	/* a step comes before any other error of the line */
	CHECK(parse("x|4242.batch|||||||bad||||BAD|||||||") == AT_SACCT_STEP && e.field == AT_SACCT_JOBID, "step first");

	REFUSED(AT_SACCT_JOBIDRAW, "", AT_SACCT_INVALID, "invalid job id \"\"");
	REFUSED(AT_SACCT_JOBIDRAW, "abc", AT_SACCT_INVALID, "invalid job id \"abc\"");
	REFUSED(AT_SACCT_JOBIDRAW, "0", AT_SACCT_INVALID, "invalid job id \"0\"");
	REFUSED(AT_SACCT_JOBIDRAW, "0123", AT_SACCT_INVALID, "invalid job id \"0123\"");
	REFUSED(AT_SACCT_JOBIDRAW, "-5", AT_SACCT_INVALID, "invalid job id \"-5\"");
	REFUSED(AT_SACCT_JOBIDRAW, "12 ", AT_SACCT_INVALID, "invalid job id \"12 \"");
	REFUSED(AT_SACCT_JOBIDRAW, "10_4", AT_SACCT_INVALID, "invalid job id \"10_4\"");
	REFUSED(AT_SACCT_JOBIDRAW, "123.", AT_SACCT_INVALID, "invalid job id \"123.\"");
	REFUSED(AT_SACCT_JOBIDRAW, "9223372036854775808", AT_SACCT_INVALID, "job id out of range \"9223372036854775808\"");
	REFUSED(AT_SACCT_JOBIDRAW, "99999999999999999999999", AT_SACCT_INVALID,
			"job id out of range \"99999999999999999999999\"");
	CHECK(with(AT_SACCT_JOBIDRAW, "9223372036854775807") == AT_SACCT_OK && r.job_id_num == INT64_MAX, "INT64_MAX");

	REFUSED(AT_SACCT_JOBID, "", AT_SACCT_INVALID, "invalid job id \"\"");
	REFUSED(AT_SACCT_JOBID, "abc", AT_SACCT_INVALID, "invalid job id \"abc\"");
	REFUSED(AT_SACCT_JOBID, "10_", AT_SACCT_INVALID, "invalid job id \"10_\"");
	REFUSED(AT_SACCT_JOBID, "10_[]", AT_SACCT_INVALID, "invalid job id \"10_[]\"");
	REFUSED(AT_SACCT_JOBID, "10_[", AT_SACCT_INVALID, "invalid job id \"10_[\"");
	REFUSED(AT_SACCT_JOBID, "10_[1-2", AT_SACCT_INVALID, "invalid job id \"10_[1-2\"");
	REFUSED(AT_SACCT_JOBID, "10_[2-1]", AT_SACCT_INVALID, "invalid job id \"10_[2-1]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1,]", AT_SACCT_INVALID, "invalid job id \"10_[1,]\"");
	REFUSED(AT_SACCT_JOBID, "10_[,1]", AT_SACCT_INVALID, "invalid job id \"10_[,1]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1-]", AT_SACCT_INVALID, "invalid job id \"10_[1-]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1%]", AT_SACCT_INVALID, "invalid job id \"10_[1%]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1%0]", AT_SACCT_INVALID, "invalid job id \"10_[1%0]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1%2,3]", AT_SACCT_INVALID, "invalid job id \"10_[1%2,3]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1-7:0]", AT_SACCT_INVALID, "invalid job id \"10_[1-7:0]\"");
	REFUSED(AT_SACCT_JOBID, "10_[1]x", AT_SACCT_INVALID, "invalid job id \"10_[1]x\"");
	REFUSED(AT_SACCT_JOBID, "10_4_5", AT_SACCT_INVALID, "invalid job id \"10_4_5\"");
	REFUSED(AT_SACCT_JOBID, "10+", AT_SACCT_INVALID, "invalid job id \"10+\"");
	REFUSED(AT_SACCT_JOBID, "10+1+2", AT_SACCT_INVALID, "invalid job id \"10+1+2\"");
	REFUSED(AT_SACCT_JOBID, "_4", AT_SACCT_INVALID, "invalid job id \"_4\"");
	REFUSED(AT_SACCT_JOBID, "123.", AT_SACCT_INVALID, "invalid job id \"123.\"");
	REFUSED(AT_SACCT_JOBID, ".batch", AT_SACCT_INVALID, "invalid job id \".batch\"");
	REFUSED(AT_SACCT_JOBID, "9223372036854775808", AT_SACCT_INVALID, "invalid job id \"9223372036854775808\"");
	REFUSED(AT_SACCT_JOBID, "10_[99999999999999999999]", AT_SACCT_INVALID, "invalid job id \"10_[99999999999999999999]\"");
}

static void
test_fields(void)
{
	REFUSED(AT_SACCT_STATE, "", AT_SACCT_INVALID, "missing state \"\"");
	REFUSED(AT_SACCT_STATE, "DONE", AT_SACCT_INVALID, "unknown state \"DONE\"");
	REFUSED(AT_SACCT_STATE, "completed", AT_SACCT_INVALID, "unknown state \"completed\"");
	REFUSED(AT_SACCT_STATE, "CANCELLED+", AT_SACCT_INVALID, "unknown state \"CANCELLED+\"");
	REFUSED(AT_SACCT_STATE, "COMPLETED ", AT_SACCT_INVALID, "unknown state \"COMPLETED \"");
	REFUSED(AT_SACCT_STATE, "CANCELLED by", AT_SACCT_INVALID, "unknown state \"CANCELLED by\"");
	REFUSED(AT_SACCT_STATE, "CANCELLED by ", AT_SACCT_INVALID, "unknown state \"CANCELLED by \"");
	REFUSED(AT_SACCT_STATE, "CANCELLED by root", AT_SACCT_INVALID, "invalid state \"CANCELLED by root\"");
	REFUSED(AT_SACCT_STATE, "CANCELLED by 4294967296", AT_SACCT_INVALID, "invalid state \"CANCELLED by 4294967296\"");
	REFUSED(AT_SACCT_STATE, "FAILED by 1000", AT_SACCT_INVALID, "unknown state \"FAILED by 1000\"");

	REFUSED(AT_SACCT_EXITCODE, "0", AT_SACCT_INVALID, "invalid exit code \"0\"");
	REFUSED(AT_SACCT_EXITCODE, "256:0", AT_SACCT_INVALID, "invalid exit code \"256:0\"");
	REFUSED(AT_SACCT_EXITCODE, "0:256", AT_SACCT_INVALID, "invalid exit code \"0:256\"");
	REFUSED(AT_SACCT_EXITCODE, "-1:0", AT_SACCT_INVALID, "invalid exit code \"-1:0\"");
	REFUSED(AT_SACCT_EXITCODE, ":0", AT_SACCT_INVALID, "invalid exit code \":0\"");
	REFUSED(AT_SACCT_EXITCODE, "0:", AT_SACCT_INVALID, "invalid exit code \"0:\"");
	REFUSED(AT_SACCT_EXITCODE, "0:0:0", AT_SACCT_INVALID, "invalid exit code \"0:0:0\"");

	REFUSED(AT_SACCT_NNODES, "x", AT_SACCT_INVALID, "invalid count \"x\"");
	REFUSED(AT_SACCT_NNODES, "-1", AT_SACCT_INVALID, "invalid count \"-1\"");
	REFUSED(AT_SACCT_NCPUS, "2147483648", AT_SACCT_INVALID, "invalid count \"2147483648\"");
	REFUSED(AT_SACCT_NCPUS, "1.5", AT_SACCT_INVALID, "invalid count \"1.5\"");
	CHECK(with(AT_SACCT_NCPUS, "2147483647") == AT_SACCT_OK && r.cpu_num == INT32_MAX, "NCPUS INT32_MAX");
	CHECK(with(AT_SACCT_NNODES, "0") == AT_SACCT_OK && r.has_node_num && r.node_num == 0, "NNodes 0");

	ACCEPTED(AT_SACCT_NODELIST, "None");
	CHECK(str_is(r.nodelist, "None"), "NodeList None is a name (only None assigned is unset)");
	ACCEPTED(AT_SACCT_NODELIST, "");
	CHECK(r.nodelist.len == 0, "empty NodeList is unset");
}

static void
test_tres(void)
{
	CHECK(with(AT_SACCT_ALLOCTRES, "billing=16,cpu=16,gres/gpu:a100=8,gres/gpu=8,mem=500G,node=1") == AT_SACCT_OK &&
		  r.gpu_num == 8 && r.alloc_gpus == 8 && str_is(r.gpu_type, "a100"), "typed and untyped: the untyped count");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=16,gres/gpu:a100=4,gres/gpu:v100=2,node=1") == AT_SACCT_OK && r.gpu_num == 6 &&
		  str_is(r.gpu_type, "a100") && r.has_mem && r.mem_mb == 512000,
		  "only typed: their sum, the first type; no mem in AllocTRES: ReqTRES's");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=16,gres/gpu=0,node=1") == AT_SACCT_OK && r.gpu_num == 0 && r.has_alloc_gpus &&
		  r.alloc_gpus == 0 && r.req_gpus == 8, "AllocTRES without GPUs wins over ReqTRES's");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=16,node=1") == AT_SACCT_OK && r.gpu_num == 0 && r.alloc_gpus == 0,
		  "AllocTRES without a gres/gpu entry: 0");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=16,gres/gpumem=80G,gres/gpu_sharding=1,node=1") == AT_SACCT_OK && r.gpu_num == 0,
		  "gres/gpumem and other gres are no GPUs");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=1,gres/gpu=2147483647") == AT_SACCT_OK && r.gpu_num == INT32_MAX, "INT32_MAX GPUs");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=1,gres/gpu:a=2147483647,gres/gpu=3") == AT_SACCT_OK && r.gpu_num == 3,
		  "untyped count wins, typed sum not checked then");
	CHECK(with(AT_SACCT_ALLOCTRES, "gres/gpu:nvidia_a100-sxm4-80gb=2") == AT_SACCT_OK &&
		  str_is(r.gpu_type, "nvidia_a100-sxm4-80gb"), "a long GPU type");
	CHECK(with(AT_SACCT_ALLOCTRES, "cpu=1,energy=123,fs/disk=456,license/matlab=1,node=1") == AT_SACCT_OK &&
		  r.gpu_num == 0, "other entries ignored");
	/* gpu_type falls back to the other list */
	CHECK(parse("9|9|c|p|q|a|u|n|2023-07-01T00:00:00||||COMPLETED|0:0|1|1|gres/gpu:h100=4|gres/gpu=4|00:01:00|n") ==
		  AT_SACCT_OK && r.gpu_num == 4 && str_is(r.gpu_type, "h100"), "gpu_type from ReqTRES when AllocTRES has none");
	/* memory */
	{
		static const struct
		{
			const char *v;
			int64_t		mb;
		}			mems[] = {
			{"mem=500G", 512000}, {"mem=4000M", 4000}, {"mem=4000", 4000}, {"mem=1.50T", 1572864}, {"mem=1T", 1048576},
			{"mem=1P", 1073741824LL}, {"mem=1024K", 1}, {"mem=1K", 1}, {"mem=1536K", 2}, {"mem=0", 0}, {"mem=0.5M", 1},
			{"mem=4000Mn", 4000}, {"mem=4000Mc", 4000}, {"mem=2Gn", 2048}, {"mem=100n", 100}, {"mem=0.000000001P", 2},
			{"mem=999999999999999999", 999999999999999999LL}, {"mem=1.123456789G", 1151}, {"mem=8589934591P", 9223372035781033984LL}
		};

		for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++)
			CHECK(with(AT_SACCT_ALLOCTRES, mems[i].v) == AT_SACCT_OK && r.has_mem && r.mem_mb == mems[i].mb,
				  "%s is %lld MiB (got %lld)", mems[i].v, (long long) mems[i].mb, (long long) r.mem_mb);
	}
	CHECK(with(AT_SACCT_ALLOCTRES, "") == AT_SACCT_OK && r.has_mem && r.mem_mb == 512000 && r.gpu_num == 8 &&
		  !r.has_alloc_gpus, "empty AllocTRES: ReqTRES's memory and GPUs");

	REFUSED(AT_SACCT_ALLOCTRES, "cpu=16,gres/gpu=x", AT_SACCT_INVALID, "invalid GPU count in TRES entry \"gres/gpu=x\"");
	REFUSED(AT_SACCT_ALLOCTRES, "gres/gpu=-1", AT_SACCT_INVALID, "invalid GPU count in TRES entry \"gres/gpu=-1\"");
	REFUSED(AT_SACCT_ALLOCTRES, "gres/gpu=2147483648", AT_SACCT_INVALID,
			"invalid GPU count in TRES entry \"gres/gpu=2147483648\"");
	REFUSED(AT_SACCT_ALLOCTRES, "gres/gpu:a100=1.5", AT_SACCT_INVALID, "invalid GPU count in TRES entry \"gres/gpu:a100=1.5\"");
	REFUSED(AT_SACCT_REQTRES, "gres/gpu:=1", AT_SACCT_INVALID, "invalid TRES entry \"gres/gpu:=1\"");
	REFUSED(AT_SACCT_REQTRES, "gres/gpu=1,gres/gpu=2", AT_SACCT_INVALID, "second gres/gpu entry \"gres/gpu=2\"");
	REFUSED(AT_SACCT_REQTRES, "mem=1G,mem=2G", AT_SACCT_INVALID, "second mem entry \"mem=2G\"");
	REFUSED(AT_SACCT_ALLOCTRES, "gres/gpu:a=2147483647,gres/gpu:b=1", AT_SACCT_INVALID,
			"GPU count out of range in \"gres/gpu:a=2147483647,gres/gpu:b=1\"");
	REFUSED(AT_SACCT_ALLOCTRES, "cpu=16,", AT_SACCT_INVALID, "empty TRES entry in \"cpu=16,\"");
	REFUSED(AT_SACCT_ALLOCTRES, ",cpu=16", AT_SACCT_INVALID, "empty TRES entry in \",cpu=16\"");
	REFUSED(AT_SACCT_ALLOCTRES, "cpu=16,,node=1", AT_SACCT_INVALID, "empty TRES entry in \"cpu=16,,node=1\"");
	REFUSED(AT_SACCT_ALLOCTRES, ",", AT_SACCT_INVALID, "empty TRES entry in \",\"");
	REFUSED(AT_SACCT_ALLOCTRES, "cpu", AT_SACCT_INVALID, "invalid TRES entry \"cpu\"");
	REFUSED(AT_SACCT_ALLOCTRES, "cpu=", AT_SACCT_INVALID, "invalid TRES entry \"cpu=\"");
	REFUSED(AT_SACCT_ALLOCTRES, "=16", AT_SACCT_INVALID, "invalid TRES entry \"=16\"");
	REFUSED(AT_SACCT_ALLOCTRES, "cpu=1=2", AT_SACCT_INVALID, "invalid TRES entry \"cpu=1=2\"");
	REFUSED(AT_SACCT_REQTRES, "billing=16 cpu=16", AT_SACCT_INVALID, "invalid TRES entry \"billing=16 cpu=16\"");
	{
		static const char *const bad_mem[] = {"mem=G", "mem=1X", "mem=1GB", "mem=-1G", "mem=1.G", "mem=.5G", "mem=1.0000000001G",
			"mem=1e3M", "mem=1Gnc", "mem=1nG", "mem=1 G", "mem=9999999999999999999", "mem=8589934592P"};

		for (size_t i = 0; i < sizeof(bad_mem) / sizeof(bad_mem[0]); i++)
		{
			char		want[96];

			snprintf(want, sizeof(want), "invalid memory size in TRES entry \"%s\"", bad_mem[i]);
			REFUSED(AT_SACCT_ALLOCTRES, bad_mem[i], AT_SACCT_INVALID, want);
		}
	}
}

static void
test_messages(void)
{
	char		small[8];
	size_t		n;
	at_sacct_error x;

	CHECK(with(AT_SACCT_JOBNAME, "anything goes \x01 here") == AT_SACCT_OK, "a job name is not checked");
	/* the value is cut at value_max bytes, marked by ... */
	with(AT_SACCT_SUBMIT, "2023-13-01T00:00:00");
	n = at_sacct_message(&e, 4, msg, sizeof(msg));
	CHECK(strcmp(msg, "invalid time \"2023...\"") == 0 && n == strlen(msg), "value cut: %s", msg);
	n = at_sacct_message(&e, 64, small, sizeof(small));
	CHECK(n == strlen("invalid time \"2023-13-01T00:00:00\"") && strlen(small) == 7 && memcmp(small, "invalid", 7) == 0,
		  "a short buffer: cut, terminated, the whole length returned");
	CHECK(at_sacct_message(&e, 64, NULL, 0) == n, "no buffer: only the length");
	memset(&x, 0, sizeof(x));
	at_sacct_message(&x, 64, msg, sizeof(msg));
	CHECK(strcmp(msg, "\"\"") == 0, "an empty error prints only quotes");
	/* the first bad field is reported, in field order */
	CHECK(parse("4242|4242|c|p|q|a|u|n|bad|bad|||BAD|x|x|x|,|,|x|n") == AT_SACCT_INVALID_TIME && e.field == AT_SACCT_SUBMIT,
		  "the first bad field: Submit");
	CHECK(parse("4242|4242|c|p|q|a|u|n||||bad|BAD|x|x|x|,|,|x|n") == AT_SACCT_INVALID_TIME && e.field == AT_SACCT_END,
		  "then End");
	CHECK(parse("4242|4242|c|p|q|a|u|n|||||COMPLETED|0:0|1|1|cpu=1|,|x|n") == AT_SACCT_INVALID &&
		  e.field == AT_SACCT_ALLOCTRES, "then AllocTRES");
	CHECK(parse("4242|4242|c|p|q|a|u|n|||||COMPLETED|0:0|1|1|cpu=1|cpu=1|x|n") == AT_SACCT_INVALID &&
		  e.field == AT_SACCT_TIMELIMIT, "then Timelimit");
	/* a long value: the parse reads only its bytes */
	{
		size_t		len = 100000;
		char	   *big = malloc(len);

		memset(big, '9', len);
		split(base, '|');
		f[AT_SACCT_JOBIDRAW].s = big;
		f[AT_SACCT_JOBIDRAW].len = len;
		CHECK(at_sacct_parse(f, &r, &e) == AT_SACCT_INVALID && e.field == AT_SACCT_JOBIDRAW && e.value.len == len,
			  "100,000 digits: out of range");
		memset(big, ',', len);
		f[AT_SACCT_JOBIDRAW].s = "1";
		f[AT_SACCT_JOBIDRAW].len = 1;
		f[AT_SACCT_REQTRES].s = big;
		f[AT_SACCT_REQTRES].len = len;
		CHECK(at_sacct_parse(f, &r, &e) == AT_SACCT_INVALID && e.field == AT_SACCT_REQTRES, "100,000 commas");
		for (size_t i = 0; i + 12 <= len; i += 12)
			memcpy(big + i, "gres/gpu:x=1", 12);
		f[AT_SACCT_REQTRES].len = len / 12 * 12;
		f[AT_SACCT_ALLOCTRES].len = 0;
		CHECK(at_sacct_parse(f, &r, &e) == AT_SACCT_INVALID && e.field == AT_SACCT_REQTRES, "typed entries without commas");
		for (size_t i = 0; i + 13 <= len; i += 13)
			memcpy(big + i, "gres/gpu:x=1,", 13);
		f[AT_SACCT_REQTRES].len = len / 13 * 13 - 1;
		CHECK(at_sacct_parse(f, &r, &e) == AT_SACCT_OK && r.gpu_num == (int32_t) (len / 13) && str_is(r.gpu_type, "x"),
			  "7,692 typed entries summed");
		free(big);
	}
	for (int k = 0; k < AT_SACCT_NFIELDS; k++)
	{
		free(copies[k]);
		copies[k] = NULL;
	}
}

/* ---- host lists ---- */

static char hosts[4096];
static size_t hosts_len;
static int	stop_after;

/* appends host and a space to hosts (each host copied to a buffer of its length) */
static int
collect(void *arg, const char *host, size_t len)
{
	char	   *copy = malloc(len + 1);

	(void) arg;
	memcpy(copy, host, len + 1);
	if (strlen(copy) == len && hosts_len + len + 1 < sizeof(hosts))
	{
		memcpy(hosts + hosts_len, copy, len);
		hosts_len += len;
		hosts[hosts_len++] = ' ';
		hosts[hosts_len] = '\0';
	}
	free(copy);
	return stop_after > 0 && --stop_after == 0 ? 7 : 0;
}

/* the expansion of list (from a buffer of exactly its length), as "h1 h2 " */
static int
expand(const char *list, uint64_t max, uint64_t *count, const char **what, size_t *at)
{
	size_t		len = strlen(list);
	char	   *copy = malloc(len ? len : 1);
	int			rc;

	memcpy(copy, list, len);
	hosts_len = 0;
	hosts[0] = '\0';
	rc = at_sacct_hostlist(copy, len, max, collect, NULL, count, what, at);
	free(copy);
	return rc;
}

static void
test_hostlist(void)
{
	static const struct
	{
		const char *list,
				   *hosts;
		uint64_t	count;
	}			good[] = {
		{"node01", "node01 ", 1},
		{"node[01-04,07]", "node01 node02 node03 node04 node07 ", 5},
		{"a,b", "a b ", 2},
		{"prefix[1-3]suffix", "prefix1suffix prefix2suffix prefix3suffix ", 3},
		{"n[8-10]", "n8 n9 n10 ", 3},
		{"n[08-10]", "n08 n09 n10 ", 3},
		{"n[001-2]", "n001 n002 ", 2},
		{"rack[1-2]n[1,3]-ib", "rack1n1-ib rack1n3-ib rack2n1-ib rack2n3-ib ", 4},
		{"x,gpu[2],y[5-5]", "x gpu2 y5 ", 3},
		{"[1-2]", "1 2 ", 2},
		{"10.140.1.29", "10.140.1.29 ", 1},
		{"a-b_c.d", "a-b_c.d ", 1},
		{"", "", 0},
	};
	static const struct
	{
		const char *list,
				   *what;
		size_t		at;
	}			bad[] = {
		{"a,,b", "an empty host name", 2},
		{",a", "an empty host name", 0},
		{"a,", "an empty host name", 2},
		{"n[1-3", "a '[' without its ']'", 5},
		{"n1-3]", "a ']' without its '['", 4},
		{"n[1-[2]]", "a '[' inside a bracket group", 4},
		{"n[]", "a bracket group item that is not a number or a range a-b", 2},
		{"n[3-1]", "a range whose end is below its start", 5},
		{"n[1-]", "a bracket group item that is not a number or a range a-b", 4},
		{"n[-1]", "a bracket group item that is not a number or a range a-b", 2},
		{"n[1,]", "an empty item at the end of a bracket group", 4},
		{"n[,1]", "a bracket group item that is not a number or a range a-b", 2},
		{"n[a]", "a bracket group item that is not a number or a range a-b", 2},
		{"n[1-2x]", "a bracket group holding something other than digits, '-' and ','", 5},
		{"n[1:2]", "a bracket group holding something other than digits, '-' and ','", 3},
		{"n[1234567890123456789]", "a number of more than 18 digits", 2},
		{"a b", "a blank or control character", 1},
		{"a\tb", "a blank or control character", 1},
		{"[1][1][1][1][1][1][1][1][1]", "more than 8 bracket groups in one host name", 24},
	};
	uint64_t	count;
	const char *what;
	size_t		at;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		int			rc = expand(good[i].list, 100000, &count, &what, &at);

		CHECK(rc == AT_SACCT_HOSTLIST_OK && count == good[i].count && strcmp(hosts, good[i].hosts) == 0,
			  "host list \"%s\" expands to \"%s\" (got rc %d, %llu: \"%s\")", good[i].list, good[i].hosts, rc,
			  (unsigned long long) count, hosts);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		int			rc = expand(bad[i].list, 100000, &count, &what, &at);

		CHECK(rc == AT_SACCT_HOSTLIST_INVALID && what && strcmp(what, bad[i].what) == 0 && at == bad[i].at &&
			  hosts_len == 0, "host list \"%s\" refused: %s at %zu (got %s at %zu)", bad[i].list, bad[i].what,
			  bad[i].at, what ? what : "(none)", at);
	}
	/* an error after valid hosts: nothing written */
	CHECK(expand("a,b,c[", 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_INVALID && hosts_len == 0,
		  "a list whose last host is bad writes no host");

	/* limits: counted before any host is written, products and sums saturate */
	CHECK(expand("n[1-100000]", 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_OK && count == 100000,
		  "100,000 hosts at the limit");
	CHECK(expand("n[1-100000],m", 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_TOO_MANY && count == 100001 &&
		  hosts_len == 0, "100,001 hosts over the limit, none written");
	CHECK(expand("n[1-999999999999999999][1-999999999999999999][1-999999999999999999]", 100000, &count, &what,
				 &at) == AT_SACCT_HOSTLIST_TOO_MANY && count == UINT64_MAX && hosts_len == 0,
		  "a product beyond 2^64 saturates");
	CHECK(expand("n[1-3][1-2]", 5, &count, &what, &at) == AT_SACCT_HOSTLIST_TOO_MANY && count == 6,
		  "the groups multiply: 6 hosts over a limit of 5");

	/* host length: 255 bytes, counting the widest number of each group */
	{
		char		name[300];

		memset(name, 'h', 253);
		strcpy(name + 253, "[1-99]");
		CHECK(expand(name, 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_OK && count == 99,
			  "hosts of 255 bytes");
		memset(name, 'h', 254);
		strcpy(name + 254, "[1-99]");
		CHECK(expand(name, 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_INVALID &&
			  strcmp(what, "a host name of more than 255 bytes") == 0, "a host of 256 bytes refused");
		memset(name, 'h', 250);
		strcpy(name + 250, "[00001-2]");
		CHECK(expand(name, 100000, &count, &what, &at) == AT_SACCT_HOSTLIST_OK && hosts_len == 2 * 256,
			  "the padding counts toward the length");
	}

	/* a callback's non-zero return stops the expansion */
	stop_after = 2;
	CHECK(expand("n[1-5]", 100000, &count, &what, &at) == 7 && strcmp(hosts, "n1 n2 ") == 0,
		  "a callback's non-zero return stops after its host");
	stop_after = 0;
}

void
test_sacct(void)
{
	test_good_lines();
	test_times();
	test_timelimit();
	test_ids();
	test_fields();
	test_tres();
	test_messages();
	test_hostlist();
}
