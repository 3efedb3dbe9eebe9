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

#endif
