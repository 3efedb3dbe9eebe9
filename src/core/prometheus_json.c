/*
 * prometheus_json.c: the streaming parser of Prometheus HTTP API bodies
 * (prometheus_json.h).
 *
 * One loop over the bytes: a JSON state machine (the lexer's states and
 * the containers' expectations) with a stack of frames, each with the role
 * its place in the body gives it (the top object, data, a result, a
 * series' labels, a sample, or skipped).  A token (a string or number) is
 * passed as a pointer into the chunk when it lies inside it unescaped,
 * else assembled in tok; a skipped token is only validated.
 */
#include "prometheus_json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lexer and grammar states */
enum
{
	S_VALUE,					/* a value is expected (p->slot says whose) */
	S_OBJ_FIRST,				/* after '{': a key or '}' */
	S_OBJ_KEY,					/* after ',' in an object: a key */
	S_COLON,					/* after a key */
	S_ARR_FIRST,				/* after '[': a value or ']' */
	S_AFTER,					/* after a value: ',' or the container's end */
	S_DONE,						/* the top value ended: only blanks */
	S_STRING,
	S_ESC,						/* after '\' */
	S_HEX,						/* in \uXXXX */
	S_LOW_BS,					/* a high surrogate's \uXXXX: its low's '\' */
	S_LOW_U,					/* ... and 'u' */
	S_NUMBER,
	S_LITERAL,
	S_FAILED
};

/* number sub-states */
enum
{
	N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP
};

/* frame roles: what a container is */
enum
{
	R_TOP, R_DATA_OBJ, R_RESULT, R_SERIES, R_LABELS, R_VALUES, R_SAMPLE, R_SERIES_LIST, R_SKIP
};

/* value slots: what the next value is */
enum
{
	V_DOC, V_SKIP, V_TEXT, V_DATA, V_RESULT_TYPE, V_RESULT, V_SERIES, V_LABELS, V_LABEL_VALUE,
	V_VALUES, V_SAMPLE, V_TIME, V_SAMPLE_VALUE, V_LABELSET
};

typedef struct frame
{
	uint8_t		role;
	uint8_t		is_obj;
	uint32_t	count;			/* elements or members so far */
} frame;

typedef struct label_ref
{
	size_t		name,
				nlen,
				value,
				vlen;
} label_ref;

struct at_pj
{
	at_pj_handler h;
	int			state;
	int			slot;			/* the next value's slot */
	int			text_which;		/* for V_TEXT */
	int			depth;
	frame		stack[AT_PJ_DEPTH_MAX];
	unsigned long long off;		/* bytes fed before this chunk */
	size_t		max_pending;
	char		msg[256];

	/* the token being read */
	int			is_key;
	int			key_any;		/* a key that is no label name: any length */
	int			want;			/* keep its text */
	size_t		want_max;
	const char *want_what;		/* what it is, for the limit's message */
	int			buffered;		/* its text is in tok */
	unsigned long long tok_off;	/* where it starts */
	char	   *tok;
	size_t		tok_len,
				tok_cap;
	int			num;			/* number sub-state */
	const char *lit;			/* the literal being matched */
	int			lit_i;
	int			utf_need;		/* continuation bytes still due */
	unsigned char utf_lo,
				utf_hi;
	int			hex_n;
	unsigned	hex;
	unsigned	high;			/* a high surrogate waiting for its low */

	/* the result or series being read */
	int			have_labels,
				have_values,
				in_series;
	char	   *arena;			/* label names and values */
	size_t		arena_len,
				arena_cap;
	label_ref	labels[AT_PJ_LABELS_MAX];
	at_pj_label out[AT_PJ_LABELS_MAX];
	int			nlabels;
	char		time[AT_PJ_TIME_MAX];
	size_t		time_len;
	int			time_set;
	char	   *pend;			/* samples before the labels: tlen, vlen (2 bytes), bytes */
	size_t		pend_len,
				pend_cap;
};

at_pj *
at_pj_new(const at_pj_handler *h, size_t max_pending)
{
	at_pj	   *p = calloc(1, sizeof(at_pj));

	if (p == NULL)
		return NULL;
	p->h = *h;
	p->state = S_VALUE;
	p->slot = V_DOC;
	p->max_pending = max_pending ? max_pending : AT_PJ_PENDING_DEFAULT;
	return p;
}

void
at_pj_free(at_pj *p)
{
	if (p == NULL)
		return;
	free(p->tok);
	free(p->arena);
	free(p->pend);
	free(p);
}

const char *
at_pj_message(const at_pj *p)
{
	return p->msg;
}

static int
fail(at_pj *p, size_t i, const char *kind, const char *what)
{
	snprintf(p->msg, sizeof(p->msg), "%s at byte %llu: %s", kind, p->off + (unsigned long long) i, what);
	p->state = S_FAILED;
	return AT_PJ_ERROR;
}

#define BAD(what) return fail(p, i, "invalid JSON", (what))
#define SHAPE(what) return fail(p, i, "unexpected JSON", (what))

/* grows *buf to hold need bytes */
static int
grow(char **buf, size_t *cap, size_t need)
{
	size_t		c = *cap ? *cap : 256;
	char	   *n;

	if (need <= *cap)
		return 1;
	while (c < need)
		c *= 2;
	n = realloc(*buf, c);
	if (n == NULL)
		return 0;
	*buf = n;
	*cap = c;
	return 1;
}

/* appends to the token, within want_max; 0: over it, -1: no memory */
static int
tok_add(at_pj *p, const char *s, size_t n)
{
	if (!p->want || n == 0)
		return 1;
	if (p->tok_len + n > p->want_max)
	{
		if (!p->key_any)
			return 0;
		p->want = 0;			/* a long key, no known one: "" */
		p->tok_len = 0;
		return 1;
	}
	if (!grow(&p->tok, &p->tok_cap, p->tok_len + n))
		return -1;
	memcpy(p->tok + p->tok_len, s, n);
	p->tok_len += n;
	return 1;
}

static int
too_long(at_pj *p, size_t i)
{
	(void) i;
	snprintf(p->msg, sizeof(p->msg), "unexpected JSON at byte %llu: %s is longer than %zu bytes",
			 p->tok_off, p->want_what, p->want_max);
	p->state = S_FAILED;
	return AT_PJ_ERROR;
}

static int
no_memory(at_pj *p)
{
	snprintf(p->msg, sizeof(p->msg), "out of memory");
	p->state = S_FAILED;
	return AT_PJ_NO_MEMORY;
}

static int
stopped(at_pj *p)
{
	snprintf(p->msg, sizeof(p->msg), "stopped by its caller");
	p->state = S_FAILED;
	return AT_PJ_STOPPED;
}

/* Starts a string or number: whether its text is kept, up to how much. */
static void
tok_start(at_pj *p, size_t i)
{
	p->tok_off = p->off + i;
	p->buffered = 0;
	p->tok_len = 0;
	p->want = 1;
	p->key_any = 0;
	if (p->is_key)
	{
		frame	   *f = &p->stack[p->depth - 1];

		p->want = f->role != R_SKIP;
		p->want_max = f->role == R_LABELS ? AT_PJ_NAME_MAX : 64;
		p->want_what = f->role == R_LABELS ? "a label name" : "a key";
		p->key_any = f->role != R_LABELS;
		return;
	}
	switch (p->slot)
	{
		case V_TEXT:
		case V_RESULT_TYPE:
			p->want_max = AT_PJ_TEXT_MAX;
			p->want_what = "a top-level text";
			break;
		case V_LABEL_VALUE:
			p->want_max = AT_PJ_LABEL_MAX;
			p->want_what = "a label value";
			break;
		case V_TIME:
			p->want_max = AT_PJ_TIME_MAX;
			p->want_what = "a sample's time";
			break;
		case V_SAMPLE_VALUE:
			p->want_max = AT_PJ_VALUE_MAX;
			p->want_what = "a sample's value";
			break;
		default:
			p->want = 0;		/* skipped, or an error once complete */
			p->want_max = 0;
			break;
	}
}

static int
keyis(const char *s, size_t n, const char *k)
{
	return strlen(k) == n && memcmp(s, k, n) == 0;
}

/* gives one sample of the current series, or keeps it until its labels */
static int
sample_out(at_pj *p, size_t i, const char *v, size_t vlen)
{
	if (!p->in_series || p->have_labels)
		return p->h.sample && p->h.sample(p->h.arg, p->time, p->time_len, v, vlen) ? stopped(p) : AT_PJ_OK;
	if (p->pend_len + 3 + p->time_len + vlen > p->max_pending)
		return fail(p, i, "unexpected JSON", "a result's samples before its \"metric\" are over the parser's bound");
	if (!grow(&p->pend, &p->pend_cap, p->pend_len + 3 + p->time_len + vlen + 1))
		return no_memory(p);
	p->pend[p->pend_len++] = (char) p->time_len;
	p->pend[p->pend_len++] = (char) (vlen >> 8);
	p->pend[p->pend_len++] = (char) (vlen & 0xff);
	memcpy(p->pend + p->pend_len, p->time, p->time_len);
	p->pend_len += p->time_len;
	memcpy(p->pend + p->pend_len, v, vlen);
	p->pend_len += vlen;
	return AT_PJ_OK;
}

/* the labels are complete: the series callback, then the kept samples */
static int
labels_done(at_pj *p)
{
	for (int k = 0; k < p->nlabels; k++)
	{
		p->out[k].name = p->arena + p->labels[k].name;
		p->out[k].nlen = p->labels[k].nlen;
		p->out[k].value = p->arena + p->labels[k].value;
		p->out[k].vlen = p->labels[k].vlen;
	}
	if (p->h.series && p->h.series(p->h.arg, p->out, p->nlabels))
		return stopped(p);
	for (size_t o = 0; o < p->pend_len;)
	{
		size_t		tl = (unsigned char) p->pend[o],
					vl = ((size_t) (unsigned char) p->pend[o + 1] << 8) | (unsigned char) p->pend[o + 2];
		const char *t = p->pend + o + 3;

		if (p->h.sample && p->h.sample(p->h.arg, t, tl, t + tl, vl))
			return stopped(p);
		o += 3 + tl + vl;
	}
	p->pend_len = 0;
	return AT_PJ_OK;
}

/* A string or number ended at byte i (its text s, n; is_str). */
static int
scalar(at_pj *p, size_t i, const char *s, size_t n, int is_str)
{
	frame	   *f;

	if (p->is_key)
	{
		f = &p->stack[p->depth - 1];
		p->is_key = 0;
		p->state = S_COLON;
		switch (f->role)
		{
			case R_TOP:
				p->slot = V_TEXT;
				if (keyis(s, n, "status"))
					p->text_which = AT_PJ_T_STATUS;
				else if (keyis(s, n, "errorType"))
					p->text_which = AT_PJ_T_ERROR_TYPE;
				else if (keyis(s, n, "error"))
					p->text_which = AT_PJ_T_ERROR;
				else
					p->slot = keyis(s, n, "data") ? V_DATA : V_SKIP;
				break;
			case R_DATA_OBJ:
				p->slot = keyis(s, n, "resultType") ? V_RESULT_TYPE : keyis(s, n, "result") ? V_RESULT : V_SKIP;
				break;
			case R_SERIES:
				if (keyis(s, n, "metric"))
				{
					if (p->have_labels)
						SHAPE("a result has two \"metric\" keys");
					p->slot = V_LABELS;
				}
				else if (keyis(s, n, "values") || keyis(s, n, "value"))
				{
					if (p->have_values)
						SHAPE("a result has two \"values\" or \"value\" keys");
					p->have_values = 1;
					p->slot = keyis(s, n, "value") ? V_SAMPLE : V_VALUES;
				}
				else
					p->slot = V_SKIP;
				break;
			case R_LABELS:
				if (p->nlabels >= AT_PJ_LABELS_MAX)
					SHAPE("a series has more than 256 labels");
				if (n == 0)
					SHAPE("a label name is empty");
				for (int k = 0; k < p->nlabels; k++)
					if (p->labels[k].nlen == n && memcmp(p->arena + p->labels[k].name, s, n) == 0)
						SHAPE("a series has a label twice");
				if (!grow(&p->arena, &p->arena_cap, p->arena_len + n + 1))
					return no_memory(p);
				memcpy(p->arena + p->arena_len, s, n);
				p->labels[p->nlabels].name = p->arena_len;
				p->labels[p->nlabels].nlen = n;
				p->arena_len += n;
				p->slot = V_LABEL_VALUE;
				break;
			default:
				p->slot = V_SKIP;
				break;
		}
		return AT_PJ_OK;
	}
	p->state = S_AFTER;
	switch (p->slot)
	{
		case V_SKIP:
			return AT_PJ_OK;
		case V_TEXT:
		case V_RESULT_TYPE:
			if (!is_str)
				SHAPE(p->slot == V_RESULT_TYPE ? "\"resultType\" is not a string" : "\"status\", \"errorType\" or \"error\" is not a string");
			if (p->h.text && p->h.text(p->h.arg, p->slot == V_RESULT_TYPE ? AT_PJ_T_RESULT_TYPE : p->text_which, s, n))
				return stopped(p);
			return AT_PJ_OK;
		case V_LABEL_VALUE:
			if (!is_str)
				SHAPE("a label value is not a string");
			if (!grow(&p->arena, &p->arena_cap, p->arena_len + n + 1))
				return no_memory(p);
			memcpy(p->arena + p->arena_len, s, n);
			p->labels[p->nlabels].value = p->arena_len;
			p->labels[p->nlabels].vlen = n;
			p->arena_len += n;
			p->nlabels++;
			return AT_PJ_OK;
		case V_TIME:
			if (is_str)
				SHAPE("a sample's time is not a number");
			memcpy(p->time, s, n);
			p->time_len = n;
			p->time_set = 1;
			return AT_PJ_OK;
		case V_SAMPLE_VALUE:
			if (!is_str)
				SHAPE("a sample's value is not a string");
			return sample_out(p, i, s, n);
		case V_DOC:
			SHAPE("the body is not a JSON object");
		case V_DATA:
			SHAPE("\"data\" is neither an object nor an array");
		case V_RESULT:
			SHAPE("\"result\" is not an array");
		case V_SERIES:
			SHAPE("an element of \"result\" is not an object (resultType scalar or string?)");
		case V_LABELS:
			SHAPE("\"metric\" is not an object");
		case V_LABELSET:
			SHAPE("an element of the series list is not an object");
		case V_VALUES:
			SHAPE("\"values\" is not an array");
		case V_SAMPLE:
			SHAPE("a sample is not an array");
	}
	SHAPE("a value in an unknown place");
}

/* A literal or container where a string or number belongs: the slot's error. */
static int
misplaced(at_pj *p, size_t i)
{
	p->is_key = 0;
	if (p->slot == V_TIME)
		SHAPE("a sample's time is not a number");
	return scalar(p, i, "", 0, 0);
}

/* A literal (true, false, null) ended. */
static int
literal(at_pj *p, size_t i)
{
	p->state = S_AFTER;
	if (p->slot == V_SKIP)
		return AT_PJ_OK;
	return misplaced(p, i);
}

/* '{' or '[' opens a container in the current slot */
static int
open_container(at_pj *p, size_t i, int is_obj)
{
	int			role;
	frame	   *f;

	if (p->depth >= AT_PJ_DEPTH_MAX)
		SHAPE("nested deeper than 64");
	switch (p->slot)
	{
		case V_SKIP:
			role = R_SKIP;
			break;
		case V_DOC:
			if (!is_obj)
				SHAPE("the body is not a JSON object");
			role = R_TOP;
			break;
		case V_DATA:
			if (p->h.data && p->h.data(p->h.arg, !is_obj))
				return stopped(p);
			role = is_obj ? R_DATA_OBJ : R_SERIES_LIST;
			break;
		case V_RESULT:
			if (is_obj)
				SHAPE("\"result\" is not an array");
			role = R_RESULT;
			break;
		case V_SERIES:
			if (!is_obj)
				SHAPE("an element of \"result\" is not an object (resultType scalar or string?)");
			role = R_SERIES;
			p->have_labels = p->have_values = 0;
			p->in_series = 1;
			p->nlabels = 0;
			p->arena_len = 0;
			p->pend_len = 0;
			break;
		case V_LABELS:
		case V_LABELSET:
			if (!is_obj)
				SHAPE(p->slot == V_LABELS ? "\"metric\" is not an object" : "an element of the series list is not an object");
			role = R_LABELS;
			if (p->slot == V_LABELSET)
			{
				p->in_series = 0;
				p->nlabels = 0;
				p->arena_len = 0;
			}
			break;
		case V_VALUES:
			if (is_obj)
				SHAPE("\"values\" is not an array");
			role = R_VALUES;
			break;
		case V_SAMPLE:
			if (is_obj)
				SHAPE("a sample is not an array");
			role = R_SAMPLE;
			p->time_set = 0;
			break;
		default:
			return misplaced(p, i);
	}
	f = &p->stack[p->depth++];
	f->role = (uint8_t) role;
	f->is_obj = (uint8_t) is_obj;
	f->count = 0;
	p->state = is_obj ? S_OBJ_FIRST : S_ARR_FIRST;
	return AT_PJ_OK;
}

/* the slot of the next element of array frame f */
static int
element_slot(at_pj *p, size_t i, frame *f)
{
	switch (f->role)
	{
		case R_RESULT:
			p->slot = V_SERIES;
			break;
		case R_VALUES:
			p->slot = V_SAMPLE;
			break;
		case R_SERIES_LIST:
			p->slot = V_LABELSET;
			break;
		case R_SAMPLE:
			if (f->count >= 2)
				SHAPE("a sample has more than 2 elements");
			p->slot = f->count == 0 ? V_TIME : V_SAMPLE_VALUE;
			break;
		default:
			p->slot = V_SKIP;
			break;
	}
	f->count++;
	return AT_PJ_OK;
}

/* '}' or ']' closes the top frame */
static int
close_container(at_pj *p, size_t i)
{
	frame	   *f = &p->stack[--p->depth];
	int			r;

	switch (f->role)
	{
		case R_SAMPLE:
			if (f->count != 2)
				SHAPE("a sample has fewer than 2 elements");
			break;
		case R_LABELS:
			if (p->in_series)
				p->have_labels = 1;
			if ((r = labels_done(p)) != AT_PJ_OK)
				return r;
			if (!p->in_series && p->h.series_end && p->h.series_end(p->h.arg))
				return stopped(p);
			break;
		case R_SERIES:
			if (!p->have_labels)
				SHAPE("a result has no \"metric\"");
			p->in_series = 0;
			if (p->h.series_end && p->h.series_end(p->h.arg))
				return stopped(p);
			break;
	}
	p->state = p->depth == 0 ? S_DONE : S_AFTER;
	return AT_PJ_OK;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* a code point of a \u escape, as UTF-8 into the token */
static int
put_code(at_pj *p, size_t i, unsigned c)
{
	char		u[4];
	size_t		n;
	int			r;

	if (c < 0x80)
	{
		u[0] = (char) c;
		n = 1;
	}
	else if (c < 0x800)
	{
		u[0] = (char) (0xC0 | (c >> 6));
		u[1] = (char) (0x80 | (c & 0x3F));
		n = 2;
	}
	else if (c < 0x10000)
	{
		u[0] = (char) (0xE0 | (c >> 12));
		u[1] = (char) (0x80 | ((c >> 6) & 0x3F));
		u[2] = (char) (0x80 | (c & 0x3F));
		n = 3;
	}
	else
	{
		u[0] = (char) (0xF0 | (c >> 18));
		u[1] = (char) (0x80 | ((c >> 12) & 0x3F));
		u[2] = (char) (0x80 | ((c >> 6) & 0x3F));
		u[3] = (char) (0x80 | (c & 0x3F));
		n = 4;
	}
	r = tok_add(p, u, n);
	if (r < 0)
		return no_memory(p);
	if (r == 0)
		return too_long(p, i);
	return AT_PJ_OK;
}

static int
is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* the chunk's part of the token, [seg, i), into tok */
#define SAVE_SEG() \
	do { \
		int			r_ = tok_add(p, (const char *) buf + seg, i - seg); \
		if (r_ < 0) return no_memory(p); \
		if (r_ == 0) return too_long(p, i); \
		p->buffered = 1; \
	} while (0)

int
at_pj_feed(at_pj *p, const char *cbuf, size_t len)
{
	const unsigned char *buf = (const unsigned char *) cbuf;
	size_t		i = 0,
				seg = 0;
	int			r;

	if (p->state == S_FAILED)
		return AT_PJ_ERROR;
	while (i < len)
	{
		unsigned char c = buf[i];

		switch (p->state)
		{
			case S_VALUE:
			value:
				if (is_blank(c))
				{
					i++;
					break;
				}
				if (c == '"')
				{
					p->is_key = 0;
					tok_start(p, i);
					p->state = S_STRING;
					p->utf_need = 0;
					seg = ++i;
					break;
				}
				if (c == '-' || (c >= '0' && c <= '9'))
				{
					p->is_key = 0;
					tok_start(p, i);
					p->state = S_NUMBER;
					p->num = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
					seg = i++;
					break;
				}
				if (c == '{' || c == '[')
				{
					p->is_key = 0;
					if ((r = open_container(p, i, c == '{')) != AT_PJ_OK)
						return r;
					i++;
					break;
				}
				if (c == 't' || c == 'f' || c == 'n')
				{
					p->lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
					p->lit_i = 1;
					p->state = S_LITERAL;
					i++;
					break;
				}
				if (p->depth == 0 && p->slot == V_DOC && c == 0xEF)
					BAD("a byte order mark");
				BAD("a value is expected");
			case S_OBJ_FIRST:
			case S_OBJ_KEY:
				if (is_blank(c))
				{
					i++;
					break;
				}
				if (c == '}' && p->state == S_OBJ_FIRST)
				{
					if ((r = close_container(p, i)) != AT_PJ_OK)
						return r;
					i++;
					break;
				}
				if (c != '"')
					BAD(p->state == S_OBJ_FIRST ? "a key or '}' is expected" : "a key is expected");
				p->stack[p->depth - 1].count++;
				p->is_key = 1;
				tok_start(p, i);
				p->state = S_STRING;
				p->utf_need = 0;
				seg = ++i;
				break;
			case S_COLON:
				if (is_blank(c))
				{
					i++;
					break;
				}
				if (c != ':')
					BAD("':' is expected after a key");
				p->state = S_VALUE;
				i++;
				break;
			case S_ARR_FIRST:
				if (is_blank(c))
				{
					i++;
					break;
				}
				if (c == ']')
				{
					if ((r = close_container(p, i)) != AT_PJ_OK)
						return r;
					i++;
					break;
				}
				if ((r = element_slot(p, i, &p->stack[p->depth - 1])) != AT_PJ_OK)
					return r;
				p->state = S_VALUE;
				goto value;
			case S_AFTER:
				{
					frame	   *f = &p->stack[p->depth - 1];

					if (is_blank(c))
					{
						i++;
						break;
					}
					if (c == ',')
					{
						i++;
						if (f->is_obj)
							p->state = S_OBJ_KEY;
						else
						{
							if ((r = element_slot(p, i, f)) != AT_PJ_OK)
								return r;
							p->state = S_VALUE;
						}
						break;
					}
					if (c == (f->is_obj ? '}' : ']'))
					{
						if ((r = close_container(p, i)) != AT_PJ_OK)
							return r;
						i++;
						break;
					}
					BAD(f->is_obj ? "',' or '}' is expected" : "',' or ']' is expected");
				}
			case S_DONE:
				if (!is_blank(c))
					BAD("more after the body's end");
				i++;
				break;
			case S_STRING:
				for (;;)
				{
					/* the common bytes, fast */
					while (i < len && p->utf_need == 0 && (c = buf[i]) >= 0x20 && c < 0x80 && c != '"' && c != '\\')
						i++;
					/* over its limit before anything else, however the body is cut */
					if (p->want && !p->key_any && p->tok_len + (i - seg) > p->want_max)
						return too_long(p, i);
					if (i >= len)
						break;
					c = buf[i];
					if (p->utf_need)
					{
						if (c < p->utf_lo || c > p->utf_hi)
							BAD("a string is not valid UTF-8");
						p->utf_lo = 0x80;
						p->utf_hi = 0xBF;
						p->utf_need--;
						i++;
						continue;
					}
					if (c == '"')
					{
						const char *s;
						size_t		n;

						if (p->buffered)
						{
							SAVE_SEG();
							s = p->tok ? p->tok : "";	/* an empty string cut between its quotes */
							n = p->tok_len;
						}
						else
						{
							s = (const char *) buf + seg;
							n = i - seg;
							if (p->want && n > p->want_max && !p->key_any)
								return too_long(p, i);
						}
						if ((r = scalar(p, i, s, n, 1)) != AT_PJ_OK)
							return r;
						i++;
						break;
					}
					if (c == '\\')
					{
						SAVE_SEG();
						p->state = S_ESC;
						i++;
						break;
					}
					if (c < 0x20)
						BAD("a control character in a string");
					/* a UTF-8 lead byte */
					p->utf_lo = 0x80;
					p->utf_hi = 0xBF;
					if (c >= 0xC2 && c <= 0xDF)
						p->utf_need = 1;
					else if (c >= 0xE0 && c <= 0xEF)
					{
						p->utf_need = 2;
						if (c == 0xE0)
							p->utf_lo = 0xA0;
						if (c == 0xED)
							p->utf_hi = 0x9F;	/* no surrogates */
					}
					else if (c >= 0xF0 && c <= 0xF4)
					{
						p->utf_need = 3;
						if (c == 0xF0)
							p->utf_lo = 0x90;
						if (c == 0xF4)
							p->utf_hi = 0x8F;
					}
					else
						BAD("a string is not valid UTF-8");
					i++;
				}
				break;
			case S_ESC:
				{
					char		e;

					switch (c)
					{
						case '"':
						case '\\':
						case '/':
							e = (char) c;
							break;
						case 'b':
							e = '\b';
							break;
						case 'f':
							e = '\f';
							break;
						case 'n':
							e = '\n';
							break;
						case 'r':
							e = '\r';
							break;
						case 't':
							e = '\t';
							break;
						case 'u':
							p->state = S_HEX;
							p->hex_n = 0;
							p->hex = 0;
							p->high = 0;
							i++;
							continue;
						default:
							BAD("an unknown escape in a string");
					}
					r = tok_add(p, &e, 1);
					if (r < 0)
						return no_memory(p);
					if (r == 0)
						return too_long(p, i);
					p->state = S_STRING;
					seg = ++i;
					break;
				}
			case S_HEX:
				{
					int			h = hexval(c);

					if (h < 0)
						BAD("\\u is not followed by 4 hexadecimal digits");
					p->hex = p->hex * 16 + (unsigned) h;
					i++;
					if (++p->hex_n < 4)
						break;
					if (p->high)
					{
						if (p->hex < 0xDC00 || p->hex > 0xDFFF)
							BAD("a high surrogate escape is not followed by a low one");
						r = put_code(p, i, 0x10000 + ((p->high - 0xD800) << 10) + (p->hex - 0xDC00));
					}
					else if (p->hex >= 0xDC00 && p->hex <= 0xDFFF)
						BAD("a low surrogate escape without a high one");
					else if (p->hex >= 0xD800 && p->hex <= 0xDBFF)
					{
						p->high = p->hex;
						p->state = S_LOW_BS;
						break;
					}
					else
						r = put_code(p, i, p->hex);
					if (r != AT_PJ_OK)
						return r;
					p->state = S_STRING;
					seg = i;
					break;
				}
			case S_LOW_BS:
			case S_LOW_U:
				if (c != (p->state == S_LOW_BS ? '\\' : 'u'))
					BAD("a high surrogate escape is not followed by a low one");
				i++;
				if (p->state == S_LOW_BS)
					p->state = S_LOW_U;
				else
				{
					p->state = S_HEX;
					p->hex_n = 0;
					p->hex = 0;
				}
				break;
			case S_NUMBER:
				{
					int			more = 1;

					while (more && i < len)
					{
						c = buf[i];
						switch (p->num)
						{
							case N_MINUS:
								if (c == '0')
									p->num = N_ZERO;
								else if (c >= '1' && c <= '9')
									p->num = N_INT;
								else
									BAD("a number's '-' is not followed by a digit");
								break;
							case N_ZERO:
							case N_INT:
								if (c >= '0' && c <= '9')
								{
									if (p->num == N_ZERO)
										BAD("a number has a leading zero");
								}
								else if (c == '.')
									p->num = N_DOT;
								else if (c == 'e' || c == 'E')
									p->num = N_E;
								else
									more = 0;
								break;
							case N_DOT:
								if (c < '0' || c > '9')
									BAD("a number's '.' is not followed by a digit");
								p->num = N_FRAC;
								break;
							case N_FRAC:
								if (c == 'e' || c == 'E')
									p->num = N_E;
								else if (c < '0' || c > '9')
									more = 0;
								break;
							case N_E:
								if (c == '+' || c == '-')
									p->num = N_ESIGN;
								else if (c >= '0' && c <= '9')
									p->num = N_EXP;
								else
									BAD("a number's exponent has no digits");
								break;
							case N_ESIGN:
								if (c < '0' || c > '9')
									BAD("a number's exponent has no digits");
								p->num = N_EXP;
								break;
							case N_EXP:
								if (c < '0' || c > '9')
									more = 0;
								break;
						}
						if (more)
						{
							i++;
							if (p->want && p->tok_len + (i - seg) > p->want_max)
								return too_long(p, i);
						}
					}
					if (more)
						break;	/* the chunk ended inside it */
					{
						const char *s;
						size_t		n;

						if (p->buffered)
						{
							SAVE_SEG();
							s = p->tok ? p->tok : "";	/* an empty string cut between its quotes */
							n = p->tok_len;
						}
						else
						{
							s = (const char *) buf + seg;
							n = i - seg;
							if (p->want && n > p->want_max && !p->key_any)
								return too_long(p, i);
						}
						if ((r = scalar(p, i, s, n, 0)) != AT_PJ_OK)
							return r;
					}
					/* c, not consumed, is read again after the value */
					break;
				}
			case S_LITERAL:
				if (c != (unsigned char) p->lit[p->lit_i])
					BAD("an unknown literal (true, false and null are JSON's)");
				i++;
				if (p->lit[++p->lit_i] == '\0' && (r = literal(p, i)) != AT_PJ_OK)
					return r;
				break;
			default:
				return AT_PJ_ERROR;
		}
	}
	/* the chunk ended inside a token: keep its part */
	if (p->state == S_STRING || p->state == S_NUMBER)
		SAVE_SEG();
	p->off += len;
	return AT_PJ_OK;
}

int
at_pj_finish(at_pj *p)
{
	const char *where;
	size_t		i = 0;

	if (p->state == S_FAILED)
		return AT_PJ_ERROR;
	if (p->state == S_DONE)
		return AT_PJ_OK;
	if (p->off == 0 && p->state == S_VALUE && p->depth == 0)
		return fail(p, i, "truncated JSON", "the body is empty");
	switch (p->state)
	{
		case S_STRING:
		case S_ESC:
		case S_HEX:
		case S_LOW_BS:
		case S_LOW_U:
			where = "the body ends inside a string";
			break;
		case S_NUMBER:
			where = "the body ends inside a number";
			break;
		case S_LITERAL:
			where = "the body ends inside a literal";
			break;
		default:
			where = p->depth == 0 ? "the body has no value" : "the body ends before its last '}' or ']'";
			break;
	}
	return fail(p, i, "truncated JSON", where);
}

/* ---- the converter (at_pc): the parser's callbacks writing lines ---- */

#define PC_MSG_MAX 2048

struct at_pc
{
	at_pc_options o;
	const at_prom_field *field;
	size_t		host_len,
				gpu_len,
				job_len;
	at_pj	   *pj;
	int			stopped;		/* a callback or the parser stopped: see msg */
	int			pj_res;

	/* the body's top level */
	int			status;			/* 0 none yet, 1 success, 2 error, 3 other */
	char	   *error_type;
	char	   *error_text;
	int			matrix;			/* resultType matrix seen */
	int			data_seen;

	/* the series being written */
	char		series[AT_PROM_SERIES_MAX + 1];
	int			series_len;
	char		job[AT_PROM_JOB_MAX + 1];
	int			job_len_now;	/* 0: no job label */
	int64_t		last_ms;
	char	   *line;			/* the current line: series, job, samples */
	size_t		line_len,
				prefix_len;
	int			line_n;
	char		labels[600];	/* the series' labels, for messages */

	long long	nseries,
				nsamples,
				nskipped;
	int			written;		/* anything written */
	char		msg[PC_MSG_MAX];
};

static int
pc_msg(at_pc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
pc_msg(at_pc *c, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return 1;
}

/* s quoted as a label value into out (room bytes), cut with "..." */
static size_t
pc_quote(char *out, size_t room, const char *s, size_t n)
{
	size_t		o = 0;

	if (room == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
	{
		unsigned char ch = (unsigned char) s[i];

		if (o + 8 >= room)
		{
			if (room >= 4)
			{
				o = o > room - 4 ? room - 4 : o;
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (ch == '"' || ch == '\\')
		{
			out[o++] = '\\';
			out[o++] = (char) ch;
		}
		else if (ch < 0x20 || ch == 0x7f)
			o += (size_t) snprintf(out + o, room - o, "\\x%02x", ch);
		else
			out[o++] = (char) ch;
	}
	out[o] = '\0';
	return o;
}

/* the labels as {a="b", ...}, cut to fit c->labels */
static void
pc_describe(at_pc *c, const at_pj_label *l, int n)
{
	size_t		room = sizeof(c->labels),
				o = 0;

	c->labels[o++] = '{';
	for (int k = 0; k < n && o + 32 < room; k++)
	{
		if (k)
		{
			c->labels[o++] = ',';
			c->labels[o++] = ' ';
		}
		o += pc_quote(c->labels + o, (room - o) / 3, l[k].name, l[k].nlen);
		c->labels[o++] = '=';
		c->labels[o++] = '"';
		o += pc_quote(c->labels + o, room - o - 8, l[k].value, l[k].vlen);
		c->labels[o++] = '"';
	}
	c->labels[o++] = '}';
	c->labels[o] = '\0';
}

static const at_pj_label *
pc_find(const at_pj_label *l, int n, const char *name, size_t len)
{
	for (int k = 0; k < n; k++)
		if (l[k].nlen == len && memcmp(l[k].name, name, len) == 0)
			return &l[k];
	return NULL;
}

static int
pc_text(void *arg, at_pj_text which, const char *s, size_t len)
{
	at_pc	   *c = arg;
	int			shown = (int) (len > 100 ? 100 : len);

	switch (which)
	{
		case AT_PJ_T_STATUS:
			c->status = (len == 7 && memcmp(s, "success", 7) == 0) ? 1 :
				(len == 5 && memcmp(s, "error", 5) == 0) ? 2 : 3;
			if (c->status == 3)
				return pc_msg(c, "Prometheus answered with status \"%.*s\", neither success nor error", shown, s);
			if (c->status == 2 && c->written)
				return pc_msg(c, "Prometheus answered status error after its data");
			break;
		case AT_PJ_T_ERROR_TYPE:
		case AT_PJ_T_ERROR:
			{
				char	  **to = which == AT_PJ_T_ERROR ? &c->error_text : &c->error_type;

				free(*to);
				*to = malloc(len + 1);
				if (*to == NULL)
					return pc_msg(c, "out of memory");
				memcpy(*to, s, len);
				(*to)[len] = '\0';
				break;
			}
		case AT_PJ_T_RESULT_TYPE:
			if (!c->o.samples_mode)
				break;
			if (!(len == 6 && memcmp(s, "matrix", 6) == 0))
				return pc_msg(c, "Prometheus answered resultType \"%.*s\", not matrix (the query must be a range selector, METRIC[<range>])",
							  shown, s);
			c->matrix = 1;
			break;
	}
	return 0;
}

static int
pc_data(void *arg, int is_array)
{
	at_pc	   *c = arg;

	c->data_seen = 1;
	if (c->o.samples_mode && is_array)
		return pc_msg(c, "Prometheus answered a list (the body of /api/v1/series?), not a query's matrix");
	if (!c->o.samples_mode && !is_array)
		return pc_msg(c, "Prometheus answered a query's result, not the list of /api/v1/series");
	return 0;
}

static int
pc_write(at_pc *c, const char *s, size_t n)
{
	c->written = 1;
	if (c->o.write(c->o.arg, s, n) != 0)
		return pc_msg(c, "cannot write the output");
	return 0;
}

/* the series' line so far, then a fresh one */
static int
pc_flush(at_pc *c)
{
	if (c->line_n == 0)
		return 0;
	c->line[c->line_len++] = '\n';
	if (pc_write(c, c->line, c->line_len))
		return 1;
	c->line_len = c->prefix_len;
	c->line_n = 0;
	return 0;
}

static int
pc_series(void *arg, const at_pj_label *l, int n)
{
	at_pc	   *c = arg;
	const at_pj_label *name,
			   *host,
			   *gpu,
			   *job;
	const char *dcgm = c->field->dcgm;
	int			r;

	if (c->status == 2)
		return 0;				/* an error body: nothing written */
	pc_describe(c, l, n);
	name = pc_find(l, n, "__name__", 8);
	if (name == NULL || name->vlen != strlen(dcgm) || memcmp(name->value, dcgm, name->vlen) != 0)
		return pc_msg(c, "series %s is not of metric %s", c->labels, dcgm);
	host = pc_find(l, n, c->o.host_label, c->host_len);
	gpu = pc_find(l, n, c->o.gpu_label, c->gpu_len);
	if (host == NULL)
		return pc_msg(c, "series %s has no %s label (the host; --host-label names another)", c->labels, c->o.host_label);
	if (gpu == NULL)
		return pc_msg(c, "series %s has no %s label (the GPU index; --gpu-label names another)", c->labels, c->o.gpu_label);
	r = at_prom_series_name(c->series, sizeof(c->series), host->value, host->vlen, gpu->value, gpu->vlen);
	if (r == AT_PROM_BAD_HOST)
		return pc_msg(c, "series %s: its %s label is not a host name (1 to %d of A-Z a-z 0-9 . _ : -)",
					  c->labels, c->o.host_label, AT_PROM_HOST_MAX);
	if (r == AT_PROM_BAD_GPU)
		return pc_msg(c, "series %s: its %s label is not a GPU index (0 to %d, no sign or leading zero)",
					  c->labels, c->o.gpu_label, AT_PROM_GPU_MAX);
	c->series_len = r;
	job = pc_find(l, n, c->o.job_label, c->job_len);
	c->job_len_now = 0;
	if (job != NULL)
	{
		if (!at_prom_job_valid(job->value, job->vlen))
			return pc_msg(c, "series %s: its %s label is not a job id (1 to %d printable ASCII characters, no blank, backslash or quote)",
						  c->labels, c->o.job_label, AT_PROM_JOB_MAX);
		memcpy(c->job, job->value, job->vlen);
		c->job[job->vlen] = '\0';
		c->job_len_now = (int) job->vlen;
	}
	c->nseries++;
	/* the line's prefix: series, job */
	memcpy(c->line, c->series, (size_t) r);
	c->line_len = (size_t) r;
	c->line[c->line_len++] = '\t';
	memcpy(c->line + c->line_len, c->job_len_now ? c->job : "\\N", c->job_len_now ? (size_t) c->job_len_now : 2);
	c->line_len += c->job_len_now ? (size_t) c->job_len_now : 2;
	if (!c->o.samples_mode)
	{
		c->line[c->line_len++] = '\n';
		return pc_write(c, c->line, c->line_len);
	}
	c->line[c->line_len++] = '\t';
	c->prefix_len = c->line_len;
	c->line_n = 0;
	c->last_ms = -1;
	return 0;
}

static int
pc_sample(void *arg, const char *t, size_t tlen, const char *v, size_t vlen)
{
	at_pc	   *c = arg;
	int64_t		ms;
	char		digits[24];
	int			nd = 0,
				r;
	char	   *o;

	if (c->status == 2 || !c->o.samples_mode)
		return 0;
	if (at_prom_time_ms(t, tlen, &ms) != 0)
		return pc_msg(c, "series %s: the time %.*s is not Unix seconds with at most 3 decimals, from 1970 to 9999",
					  c->labels, (int) tlen, t);
	if (ms <= c->last_ms)
		return pc_msg(c, "series %s: the time %.*s does not follow the previous sample's", c->labels, (int) tlen, t);
	c->last_ms = ms;
	if (c->line_n == AT_PROM_LINE_SAMPLES && pc_flush(c))
		return 1;
	o = c->line + c->line_len;
	if (c->line_n > 0)
		*o++ = ' ';
	do
	{
		digits[nd++] = (char) ('0' + ms % 10);
		ms /= 10;
	} while (ms > 0);
	while (nd > 0)
		*o++ = digits[--nd];
	*o++ = ':';
	r = at_prom_scale(o, AT_PROM_VALUE_MAX + 8, v, vlen, c->field->shift);
	if (r == AT_PROM_NONFINITE)
	{
		c->nskipped++;
		return 0;				/* the line is not extended */
	}
	if (r < 0)
	{
		char		q[AT_PJ_VALUE_MAX * 4 + 8];

		pc_quote(q, sizeof(q), v, vlen);
		return pc_msg(c, "series %s: the value \"%s\" at %.*s is not a finite decimal number (of at most %d bytes, within float8's range)",
					  c->labels, q, (int) tlen, t, AT_PROM_VALUE_MAX);
	}
	c->line_len = (size_t) (o + r - c->line);
	c->line_n++;
	c->nsamples++;
	return 0;
}

static int
pc_series_end(void *arg)
{
	at_pc	   *c = arg;

	if (c->status == 2 || !c->o.samples_mode)
		return 0;
	return pc_flush(c);
}

at_pc *
at_pc_new(const at_pc_options *o)
{
	at_pj_handler h = {NULL, pc_text, pc_data, pc_series, pc_sample, pc_series_end};
	at_pc	   *c;

	if (o->dcgm == NULL || at_prom_field_of(o->dcgm, strlen(o->dcgm)) == NULL)
		return NULL;
	c = calloc(1, sizeof(at_pc));
	if (c == NULL)
		return NULL;
	c->o = *o;
	c->o.host_label = o->host_label ? o->host_label : "Hostname";
	c->o.gpu_label = o->gpu_label ? o->gpu_label : "gpu";
	c->o.job_label = o->job_label ? o->job_label : "hpc_job";
	c->host_len = strlen(c->o.host_label);
	c->gpu_len = strlen(c->o.gpu_label);
	c->job_len = strlen(c->o.job_label);
	c->field = at_prom_field_of(o->dcgm, strlen(o->dcgm));
	h.arg = c;
	c->pj = at_pj_new(&h, 0);
	/* a line: series, job, AT_PROM_LINE_SAMPLES of " <ms>:<value>", newline */
	c->line = malloc(AT_PROM_SERIES_MAX + AT_PROM_JOB_MAX + 4 +
					 (size_t) AT_PROM_LINE_SAMPLES * (1 + 16 + 1 + AT_PROM_VALUE_MAX + 8) + 2);
	if (c->pj == NULL || c->line == NULL)
	{
		at_pc_free(c);
		return NULL;
	}
	return c;
}

void
at_pc_free(at_pc *c)
{
	if (c == NULL)
		return;
	at_pj_free(c->pj);
	free(c->line);
	free(c->error_type);
	free(c->error_text);
	free(c);
}

const char *
at_pc_message(const at_pc *c)
{
	return c->msg;
}

void
at_pc_counts(const at_pc *c, long long *series, long long *samples, long long *skipped)
{
	*series = c->nseries;
	*samples = c->nsamples;
	*skipped = c->nskipped;
}

int
at_pc_feed(at_pc *c, const char *buf, size_t len)
{
	int			r;

	if (c->stopped)
		return 1;
	r = at_pj_feed(c->pj, buf, len);
	if (r == AT_PJ_OK)
		return 0;
	c->stopped = 1;
	c->pj_res = r;
	return 1;
}

/* the message as COPY text in an !error line: backslash, tab, newline and CR escaped, other controls as \x.. text */
static int
pc_fail(at_pc *c)
{
	char		out[PC_MSG_MAX * 5 + 16];
	size_t		o = 0;

	if (!c->o.samples_mode)
		return AT_PC_FAILED;
	memcpy(out, "!error\t\\N\t", 10);
	o = 10;
	for (const char *s = c->msg; *s; s++)
	{
		unsigned char ch = (unsigned char) *s;

		if (ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r')
		{
			out[o++] = '\\';
			out[o++] = ch == '\\' ? '\\' : ch == '\t' ? 't' : ch == '\n' ? 'n' : 'r';
		}
		else if (ch < 0x20 || ch == 0x7f)
			o += (size_t) snprintf(out + o, sizeof(out) - o, "\\\\x%02x", ch);
		else
			out[o++] = (char) ch;
	}
	out[o++] = '\n';
	c->o.write(c->o.arg, out, o);
	return AT_PC_FAILED;
}

int
at_pc_end(at_pc *c, const char *why)
{
	if (why != NULL)
	{
		pc_msg(c, "%s", why);
		return pc_fail(c);
	}
	if (c->stopped)
	{
		if (c->pj_res == AT_PJ_ERROR)
			pc_msg(c, "the Prometheus response is not what was expected: %s", at_pj_message(c->pj));
		else if (c->pj_res == AT_PJ_NO_MEMORY)
			pc_msg(c, "out of memory");
		return pc_fail(c);		/* AT_PJ_STOPPED: a callback's message */
	}
	if (at_pj_finish(c->pj) != AT_PJ_OK)
	{
		pc_msg(c, "the Prometheus response is not what was expected: %s", at_pj_message(c->pj));
		return pc_fail(c);
	}
	if (c->status == 2)
	{
		const char *et = c->error_type ? c->error_type : "none";
		const char *tx = c->error_text ? c->error_text : "";

		pc_msg(c, "Prometheus answered an error (errorType %s): %s", et, tx);
		if (!c->written && (strcmp(et, "timeout") == 0 || strstr(tx, "query processing would load too many samples")))
			return AT_PC_RETRY;
		return pc_fail(c);
	}
	if (c->status == 0)
	{
		pc_msg(c, "the Prometheus response has no \"status\"");
		return pc_fail(c);
	}
	if (!c->data_seen)
	{
		pc_msg(c, "the Prometheus response has no \"data\"");
		return pc_fail(c);
	}
	if (c->o.samples_mode)
	{
		char		end[96];
		int			n;

		if (!c->matrix)
		{
			pc_msg(c, "the Prometheus response has no \"resultType\"");
			return pc_fail(c);
		}
		n = snprintf(end, sizeof(end), "!end\t\\N\t%lld %lld %lld\n", c->nseries, c->nsamples, c->nskipped);
		if (pc_write(c, end, (size_t) n))
			return AT_PC_FAILED;
	}
	return AT_PC_OK;
}
