/*
 * prometheus_json.h: a streaming (push) parser of Prometheus HTTP API
 * bodies, for the converter (tools/acmetrace-prometheus.c).
 *
 * Bytes are fed in chunks of any size, split anywhere; the parser validates
 * the whole body as JSON (RFC 8259: strings with every escape, \uXXXX and
 * surrogate pairs, UTF-8, numbers, literals, nothing after the top value)
 * and calls back as the parts it knows complete:
 *   {"status":..., "errorType":..., "error":..., "warnings":..., "data": D}
 *   D, an instant query's answer: {"resultType":"matrix", "result":
 *     [{"metric":{labels}, "values":[[<time>,"<value>"],...]}, ...]}
 *     ("value":[<time>,"<value>"] of a vector gives one sample)
 *   D, /api/v1/series's answer: [{labels}, ...] (each a series, no samples)
 * Keys come in any order; unknown keys ("warnings", "infos", "stats",
 * "histograms", ...) are validated and skipped at any nesting up to
 * AT_PJ_DEPTH_MAX.  When a result's "values" come before its "metric", the
 * samples are kept (up to max_pending bytes) and given after its labels.
 * Memory: the labels and pending samples of one series, one token; never
 * the body.
 */
#ifndef ACMETRACE_PROMETHEUS_JSON_H
#define ACMETRACE_PROMETHEUS_JSON_H

#include <stddef.h>

#include "prometheus.h"

#define AT_PJ_DEPTH_MAX 64			/* nested arrays and objects */
#define AT_PJ_NAME_MAX 1024			/* bytes of a label name */
#define AT_PJ_LABEL_MAX 4096		/* bytes of a label value */
#define AT_PJ_LABELS_MAX 256		/* labels of a series */
#define AT_PJ_TEXT_MAX 65536		/* bytes of status, errorType, error, resultType */
#define AT_PJ_TIME_MAX 64			/* bytes of a sample's time */
#define AT_PJ_VALUE_MAX 256			/* bytes of a sample's value */
#define AT_PJ_PENDING_DEFAULT (64 << 20)	/* max_pending when 0 */

typedef struct at_pj_label
{
	const char *name;			/* decoded, valid UTF-8, not NUL-terminated */
	size_t		nlen;
	const char *value;
	size_t		vlen;
} at_pj_label;

/* the top-level strings given to at_pj_handler.text */
typedef enum at_pj_text
{
	AT_PJ_T_STATUS = 0,			/* "success" or "error" */
	AT_PJ_T_ERROR_TYPE,			/* "timeout", "bad_data", "execution", ... */
	AT_PJ_T_ERROR,				/* the error's message */
	AT_PJ_T_RESULT_TYPE			/* data.resultType: "matrix", "vector", ... */
} at_pj_text;

/*
 * The callbacks (any may be NULL).  Texts point into the parser's buffers
 * or the chunk, valid during the call only.  A callback returns 0 to go
 * on, anything else to stop: at_pj_feed then returns AT_PJ_STOPPED.
 */
typedef struct at_pj_handler
{
	void	   *arg;
	int			(*text) (void *arg, at_pj_text which, const char *s, size_t len);
	/* "data" starts: an object (a query's) or an array (series') */
	int			(*data) (void *arg, int is_array);
	/* a series' labels, complete, in the body's order, names unique */
	int			(*series) (void *arg, const at_pj_label *labels, int n);
	/* a sample of the last series: the time as the JSON number's text,
	 * the value as the decoded string */
	int			(*sample) (void *arg, const char *t, size_t tlen, const char *v, size_t vlen);
	/* the series ended, after its samples */
	int			(*series_end) (void *arg);
} at_pj_handler;

typedef struct at_pj at_pj;

#define AT_PJ_OK 0
#define AT_PJ_ERROR (-1)		/* malformed, truncated or over a limit: at_pj_message */
#define AT_PJ_STOPPED (-2)		/* a callback stopped it */
#define AT_PJ_NO_MEMORY (-3)

/* A parser calling h (copied); max_pending 0: AT_PJ_PENDING_DEFAULT.  NULL without memory. */
extern at_pj *at_pj_new(const at_pj_handler *h, size_t max_pending);
extern void at_pj_free(at_pj *p);

/* Parses the next len bytes.  After anything but AT_PJ_OK the parser is done. */
extern int	at_pj_feed(at_pj *p, const char *buf, size_t len);

/* The body ended: AT_PJ_OK when it held one complete JSON object, else AT_PJ_ERROR (truncated). */
extern int	at_pj_finish(at_pj *p);

/* What went wrong, with the byte offset: "invalid JSON at byte 12: ..." */
extern const char *at_pj_message(const at_pj *p);

/*
 * The converter over the parser (what tools/acmetrace-prometheus runs):
 * a body in, lines out through write (0: written, else it failed).
 *   samples mode: a range-selector query's matrix as lines of
 *     acmetrace.prometheus_samples (prometheus.h): "<series>\t<job or \N>\t
 *     <ms>:<value> ..." (values scaled by field's shift, NaN and infinities
 *     skipped and counted, at most AT_PROM_LINE_SAMPLES a line, times
 *     strictly increasing within a series), then "!end\t\N\t<series>
 *     <samples> <skipped>"; on an error "!error\t\N\t<message>", the
 *     message as COPY text.
 *   series mode: the body of /api/v1/series: "<series>\t<job or \N>" per series.
 * Every series must be field's (__name__), with a host and a GPU label
 * making a series name (at_prom_series_name) and a valid job label if any.
 */
typedef int (*at_pc_write) (void *arg, const char *s, size_t n);
typedef struct at_pc at_pc;

typedef struct at_pc_options
{
	int			samples_mode;	/* else series */
	const char *dcgm;			/* the DCGM field, from at_prom_fields */
	const char *host_label;		/* NULL: Hostname */
	const char *gpu_label;		/* NULL: gpu */
	const char *job_label;		/* NULL: hpc_job */
	at_pc_write write;
	void	   *arg;
} at_pc_options;

/* The exit statuses of at_pc_end, the converter's. */
#define AT_PC_OK 0
#define AT_PC_FAILED 1			/* the message: on stderr; samples mode wrote an !error line */
#define AT_PC_RETRY 3			/* a Prometheus timeout or too many samples: nothing was written */

/* NULL when dcgm is no field or without memory. */
extern at_pc *at_pc_new(const at_pc_options *o);
extern void at_pc_free(at_pc *c);

/* The next chunk of the body: 0, or non-zero when the conversion stopped (then at_pc_end). */
extern int	at_pc_feed(at_pc *c, const char *buf, size_t len);

/*
 * The body ended (or stopped): checks it, writes the !end or !error line
 * and returns the exit status.  A status "error" is AT_PC_RETRY when its
 * errorType is "timeout" or its error says "query processing would load
 * too many samples" and nothing was written, else AT_PC_FAILED.
 * why, when not NULL, fails the conversion with that message (a read error).
 */
extern int	at_pc_end(at_pc *c, const char *why);

/* What failed, or "" */
extern const char *at_pc_message(const at_pc *c);

/* The counts so far: series, samples written, samples skipped. */
extern void at_pc_counts(const at_pc *c, long long *series, long long *samples, long long *skipped);

#endif
