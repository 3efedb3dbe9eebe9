/*
 * sacct.h: one record of Slurm's `sacct --parsable2` output, the 20 fields
 * of the documented --format (JobIDRaw ... NodeList), parsed and checked,
 * and a NodeList expanded to its hosts (at_sacct_hostlist, at the end).
 *
 * Plain C, no PostgreSQL headers, no allocation: the fields are (pointer,
 * length) pairs that need no NUL, text results point into them, and every
 * number is read with an overflow check.  The glue (src/sacct_fns.c) turns
 * a record into acmetrace_internal.sacct_row and an error into
 * `sacct line N, field F: <message>` with the hint.
 *
 * What is accepted (what Slurm 22.05 prints; test/fixtures/slurm/README.md):
 *  - JobIDRaw: digits, no leading zero, 1 .. INT64_MAX (required);
 *  - JobID: N, N_M (array task), N_[ranges] (pending array: items a or a-b
 *    with a <= b, an optional :step, separated by commas, an optional %N
 *    limit), N+K (heterogeneous component) (required).  A JobID or JobIDRaw
 *    with a dot after a valid id (123.batch, 123.0, 123_4.batch,
 *    123+0.batch) is a job step: AT_SACCT_STEP, named in that field;
 *  - Cluster, Partition, QOS, Account, User, JobName, NodeList: any text;
 *    empty is unset, and so is NodeList `None assigned`;
 *  - Submit, Eligible, Start, End: YYYY-MM-DDTHH:MM:SS, year 1 .. 9999,
 *    a real calendar day (Feb 29 in leap years only), 00:00:00 ..
 *    23:59:59; `Unknown`, `None` or empty is unset;
 *  - State: a base word (see at_sacct_state), `CANCELLED by <uid>` (uid
 *    digits, at most 4294967295) (required);
 *  - ExitCode: code:signal, each 0 .. 255; empty is unset;
 *  - NNodes, NCPUS: digits, 0 .. INT32_MAX; empty is unset;
 *  - ReqTRES, AllocTRES: empty, or name=value entries separated by commas
 *    (each name and value non-empty).  gres/gpu=N and gres/gpu:<type>=N
 *    give the GPUs (the untyped count when present, else the sum of the
 *    typed ones; 0 when neither), mem=<number>[K|M|G|T|P][n|c] the memory
 *    (base 1024, a bare number is MiB, fractions like 1.50T allowed, at
 *    most 9 decimals; rounded up to whole MiB; n/c are accepted and
 *    ignored: a TRES's mem is the job's total).  A second untyped gres/gpu
 *    or mem entry is an error;
 *  - Timelimit: [D-]HH:MM:SS or MM:SS (HH 00-23, MM and SS 00-59, at most
 *    9 digits of days); `UNLIMITED`, `Partition_Limit` or empty is unset.
 */
#ifndef ACMETRACE_SACCT_H
#define ACMETRACE_SACCT_H

#include <stddef.h>
#include <stdint.h>

/* The fields, in the documented --format order. */
typedef enum at_sacct_field
{
	AT_SACCT_JOBIDRAW = 0,
	AT_SACCT_JOBID,
	AT_SACCT_CLUSTER,
	AT_SACCT_PARTITION,
	AT_SACCT_QOS,
	AT_SACCT_ACCOUNT,
	AT_SACCT_USER,
	AT_SACCT_JOBNAME,
	AT_SACCT_SUBMIT,
	AT_SACCT_ELIGIBLE,
	AT_SACCT_START,
	AT_SACCT_END,
	AT_SACCT_STATE,
	AT_SACCT_EXITCODE,
	AT_SACCT_NNODES,
	AT_SACCT_NCPUS,
	AT_SACCT_REQTRES,
	AT_SACCT_ALLOCTRES,
	AT_SACCT_TIMELIMIT,
	AT_SACCT_NODELIST,
	AT_SACCT_NFIELDS
} at_sacct_field;

/* "JobIDRaw", ... as in sacct's header; NULL outside 0 .. AT_SACCT_NFIELDS - 1. */
extern const char *at_sacct_field_name(int field);

/* A piece of text: not NUL-terminated; s may be NULL when len is 0. */
typedef struct at_sacct_str
{
	const char *s;
	size_t		len;
} at_sacct_str;

/* Job states: sacct's base words, in this order (at_sacct_state_name). */
typedef enum at_sacct_state
{
	AT_SACCT_BOOT_FAIL = 0,
	AT_SACCT_CANCELLED,
	AT_SACCT_COMPLETED,
	AT_SACCT_COMPLETING,
	AT_SACCT_DEADLINE,
	AT_SACCT_FAILED,
	AT_SACCT_NODE_FAIL,
	AT_SACCT_OUT_OF_MEMORY,
	AT_SACCT_PENDING,
	AT_SACCT_PREEMPTED,
	AT_SACCT_REQUEUED,
	AT_SACCT_RESIZING,
	AT_SACCT_REVOKED,
	AT_SACCT_RUNNING,
	AT_SACCT_SPECIAL_EXIT,
	AT_SACCT_STOPPED,
	AT_SACCT_SUSPENDED,
	AT_SACCT_TIMEOUT,
	AT_SACCT_NSTATES
} at_sacct_state;

/* "BOOT_FAIL", ...; NULL outside the enum. */
extern const char *at_sacct_state_name(int state);

/* A wall-clock time as sacct prints it, without a zone. */
typedef struct at_sacct_time
{
	int			set;			/* 0: Unknown, None or empty */
	int			year,
				mon,
				mday,
				hour,
				min,
				sec;
} at_sacct_time;

typedef struct at_sacct_record
{
	at_sacct_str job_id;		/* JobIDRaw's digits */
	int64_t		job_id_num;
	at_sacct_str slurm_job_id;	/* JobID as printed */
	/* len 0: unset */
	at_sacct_str cluster,
				partition,
				qos,
				account,
				user,
				job_name,
				nodelist;
	at_sacct_time submit,
				eligible,
				start,
				end;
	at_sacct_state state;
	at_sacct_str cancelled_by;	/* the uid of CANCELLED by <uid>, else len 0 */
	int			has_exit;
	int			exit_code,
				exit_signal;
	int			has_node_num,
				has_cpu_num;
	int32_t		node_num,
				cpu_num;
	int32_t		gpu_num;		/* of AllocTRES when non-empty, else ReqTRES; 0 when none */
	int			has_req_gpus,	/* 0: ReqTRES empty */
				has_alloc_gpus; /* 0: AllocTRES empty */
	int32_t		req_gpus,
				alloc_gpus;
	at_sacct_str gpu_type;		/* first typed gres/gpu:<type> of that list, else of the other; len 0: none */
	int			has_mem;
	int64_t		mem_mb;			/* mem= of AllocTRES when it has one, else of ReqTRES */
	int			has_timelimit;
	int64_t		timelimit_s;
} at_sacct_record;

typedef enum at_sacct_status
{
	AT_SACCT_OK = 0,
	AT_SACCT_STEP,				/* a job step: sacct ran without --allocations */
	AT_SACCT_INVALID_TIME,		/* a time field */
	AT_SACCT_INVALID			/* any other malformed field */
} at_sacct_status;

/* What is wrong, and where. */
typedef struct at_sacct_error
{
	at_sacct_status status;
	int			field;			/* at_sacct_field */
	const char *what;			/* e.g. "invalid time": before the value in quotes */
	at_sacct_str value;			/* the offending text: the field or a part of it (a TRES entry) */
	const char *after;			/* after the value (a step's " is a job step"), or NULL */
	const char *hint;			/* a sentence, never NULL on an error */
} at_sacct_error;

/*
 * Parses the 20 fields f[0 .. AT_SACCT_NFIELDS) into *r (text results
 * point into f's texts).  On AT_SACCT_OK err->status is OK; else *err says
 * which field and why (the first bad field in the order above, except that
 * a step in JobID or JobIDRaw is reported first) and *r is partly filled.
 */
extern at_sacct_status at_sacct_parse(const at_sacct_str f[AT_SACCT_NFIELDS], at_sacct_record *r,
									  at_sacct_error *err);

/*
 * The message of err, `<what> "<value>"<after>` (a step: `"123.batch" is
 * a job step`), into buf[0 .. cap) (always
 * terminated when cap > 0): at most value_max bytes of the value (the glue
 * passes a multibyte-safe length), then "..." when it was cut.  Returns
 * the length the whole message would have, as snprintf.
 */
extern size_t at_sacct_message(const at_sacct_error *err, size_t value_max, char *buf, size_t cap);

/*
 * One time or Timelimit alone (as the record's fields): 1 parsed, 0 refused.
 * at_sacct_format_time writes YYYY-MM-DDTHH:MM:SS (20 bytes with the NUL),
 * at_sacct_format_elapsed [D-]HH:MM:SS (at most 24 bytes with the NUL).
 */
extern int	at_sacct_parse_time(const char *s, size_t len, at_sacct_time *t);
extern int	at_sacct_parse_timelimit(const char *s, size_t len, int *set, int64_t *seconds);
extern void at_sacct_format_time(const at_sacct_time *t, char buf[20]);
extern void at_sacct_format_elapsed(int64_t seconds, char buf[24]);

/*
 * Slurm host lists (NodeList): hosts separated by commas, each a name with
 * up to AT_SACCT_HOSTLIST_GROUPS bracket groups of numbers and ranges
 * (node[01-04,07], a,b, rack[1-2]n[1-3]-ib: every combination, the last
 * group varying fastest).  A range a-b needs a <= b; a number is at most 18
 * digits, and is written zero-padded to the width of the range's first
 * number (node[08-10] is node08, node09, node10).  Names hold any byte but
 * `[`, `]`, `,` and bytes up to space; a host is at most
 * AT_SACCT_HOST_MAX bytes.  An empty list has no hosts.
 *
 * at_sacct_hostlist checks the whole list first and counts its hosts: on
 * a malformed list it returns AT_SACCT_HOSTLIST_INVALID with *what naming
 * the fault and *at its byte offset, on more than max_hosts hosts
 * AT_SACCT_HOSTLIST_TOO_MANY, calling emit never.  Otherwise it calls
 * emit(arg, host, len) for each host in order (host is NUL-terminated,
 * valid during the call; a non-zero return stops the expansion and is
 * returned) and returns AT_SACCT_HOSTLIST_OK with *count the hosts.
 * No allocation.
 */
#define AT_SACCT_HOST_MAX 255
#define AT_SACCT_HOSTLIST_GROUPS 8

typedef enum at_sacct_hostlist_status
{
	AT_SACCT_HOSTLIST_OK = 0,
	AT_SACCT_HOSTLIST_INVALID = -1,
	AT_SACCT_HOSTLIST_TOO_MANY = -2
} at_sacct_hostlist_status;

typedef int (*at_sacct_host_fn) (void *arg, const char *host, size_t len);

extern int	at_sacct_hostlist(const char *s, size_t len, uint64_t max_hosts, at_sacct_host_fn emit, void *arg,
							  uint64_t *count, const char **what, size_t *at);

#endif
