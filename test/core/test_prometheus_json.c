/* test_prometheus_json.c: unit tests of the streaming Prometheus JSON parser (prometheus_json.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus.h"
#include "prometheus_json.h"
#include "tap.h"

/* every callback appends an event to log */
typedef struct rec
{
	char		log[8192];
	size_t		len;
	int			stop_at;		/* stop at the n-th event (0: never) */
	int			events;
} rec;

static void
put(rec *r, const char *fmt, const char *s, size_t n)
{
	size_t		room = sizeof(r->log) - r->len;
	int			k = snprintf(r->log + r->len, room, fmt, (int) n, s);

	if (k > 0 && (size_t) k < room)
		r->len += k;
}

static int
ev_stop(rec *r)
{
	return r->stop_at && ++r->events >= r->stop_at;
}

static int
on_text(void *arg, at_pj_text which, const char *s, size_t len)
{
	static const char *const names[] = {"status", "errorType", "error", "resultType"};
	rec		   *r = arg;

	put(r, names[which], "", 0);
	put(r, "=%.*s;", s, len);
	return ev_stop(r);
}

static int
on_data(void *arg, int is_array)
{
	rec		   *r = arg;

	put(r, is_array ? "data[;" : "data{;", "", 0);
	return ev_stop(r);
}

static int
on_series(void *arg, const at_pj_label *l, int n)
{
	rec		   *r = arg;

	put(r, "S(", "", 0);
	for (int k = 0; k < n; k++)
	{
		put(r, "%.*s=", l[k].name, l[k].nlen);
		put(r, "%.*s,", l[k].value, l[k].vlen);
	}
	put(r, ");", "", 0);
	return ev_stop(r);
}

static int
on_sample(void *arg, const char *t, size_t tl, const char *v, size_t vl)
{
	rec		   *r = arg;

	put(r, "%.*s:", t, tl);
	put(r, "%.*s;", v, vl);
	return ev_stop(r);
}

static int
on_end(void *arg)
{
	rec		   *r = arg;

	put(r, "E;", "", 0);
	return ev_stop(r);
}

/*
 * Parses body split into chunks at the offsets cuts (ncuts of them), each
 * chunk copied into a buffer of exactly its size.  Returns the result of
 * the last call; the log and message in r and msg.
 */
static int
parse_cuts(const char *body, size_t len, const size_t *cuts, int ncuts, rec *r, char *msg, size_t max_pending)
{
	at_pj_handler h = {r, on_text, on_data, on_series, on_sample, on_end};
	at_pj	   *p = at_pj_new(&h, max_pending);
	size_t		from = 0;
	int			res = AT_PJ_OK;

	r->len = 0;
	r->log[0] = '\0';
	r->events = 0;
	for (int k = 0; k <= ncuts && res == AT_PJ_OK; k++)
	{
		size_t		to = k < ncuts ? cuts[k] : len;
		char	   *c = malloc(to - from ? to - from : 1);

		memcpy(c, body + from, to - from);
		res = at_pj_feed(p, c, to - from);
		free(c);
		from = to;
	}
	if (res == AT_PJ_OK)
		res = at_pj_finish(p);
	snprintf(msg, 256, "%s", at_pj_message(p));
	at_pj_free(p);
	return res;
}

static int
parse(const char *body, rec *r, char *msg)
{
	return parse_cuts(body, strlen(body), NULL, 0, r, msg, 0);
}

/* body parses to log, whole, cut at every offset, at two offsets and byte by byte */
static void
events_are(const char *name, const char *body, const char *want)
{
	static rec	r;
	char		msg[256];
	size_t		len = strlen(body);
	int			res = parse(body, &r, msg);
	size_t	   *cuts = malloc((len + 1) * sizeof(size_t));
	int			same = 1;

	CHECK(res == AT_PJ_OK && strcmp(r.log, want) == 0, "%s: its events", name);
	if (res != AT_PJ_OK || strcmp(r.log, want) != 0)
		printf("# want %s\n# got %d %s: %s\n", want, res, msg, r.log);
	for (size_t k = 0; k <= len && same; k++)
	{
		cuts[0] = k;
		same = parse_cuts(body, len, cuts, 1, &r, msg, 0) == AT_PJ_OK && strcmp(r.log, want) == 0;
		for (size_t m = k; m <= len && same && len < 400; m += 7)
		{
			cuts[1] = m;
			same = parse_cuts(body, len, cuts, 2, &r, msg, 0) == AT_PJ_OK && strcmp(r.log, want) == 0;
		}
	}
	for (size_t k = 0; k < len; k++)
		cuts[k] = k + 1;
	same = same && parse_cuts(body, len, cuts, (int) (len ? len - 1 : 0), &r, msg, 0) == AT_PJ_OK && strcmp(r.log, want) == 0;
	CHECK(same, "%s: the same events for chunks cut anywhere", name);
	free(cuts);
}

/* body fails with a message holding want, whole and byte by byte */
static void
fails(const char *name, const char *body, int want_res, const char *want)
{
	static rec	r;
	char		msg[256],
				msg2[256];
	size_t		len = strlen(body);
	size_t	   *cuts = malloc((len + 1) * sizeof(size_t));
	int			res = parse(body, &r, msg),
				res2;

	for (size_t k = 0; k < len; k++)
		cuts[k] = k + 1;
	res2 = parse_cuts(body, len, cuts, (int) (len ? len - 1 : 0), &r, msg2, 0);
	CHECK(res == want_res && strstr(msg, want) != NULL && res2 == want_res && strcmp(msg, msg2) == 0,
		  "%s: fails with \"%s\" (got %d \"%s\", byte by byte %d \"%s\")", name, want, res, msg, res2, msg2);
	free(cuts);
}

static void
test_bodies(void)
{
	events_are("matrix",
			   "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
			   "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"node01\",\"gpu\":\"0\"},"
			   "\"values\":[[1688169600.123,\"45\"],[1688169615,\"NaN\"]]},"
			   "{\"metric\":{\"gpu\":\"1\"},\"values\":[]}]}}",
			   "status=success;data{;resultType=matrix;S(__name__=DCGM_FI_DEV_GPU_UTIL,Hostname=node01,gpu=0,);"
			   "1688169600.123:45;1688169615:NaN;E;S(gpu=1,);E;");
	events_are("pretty, with blanks everywhere",
			   " \r\n\t{ \"status\" : \"success\" , \"data\" : { \"result\" : [ { \"values\" : [ [ 1 , \"2\" ] ] ,"
			   " \"metric\" : { } } ] , \"resultType\" : \"matrix\" } } \n",
			   "status=success;data{;S();1:2;E;resultType=matrix;");
	events_are("values before metric are kept until the labels",
			   "{\"data\":{\"result\":[{\"values\":[[1,\"1\"],[2,\"2\"]],\"x\":[{}],\"metric\":{\"a\":\"b\"}},"
			   "{\"metric\":{\"a\":\"c\"},\"values\":[[3,\"3\"]]}]},\"status\":\"success\"}",
			   "data{;S(a=b,);1:1;2:2;E;S(a=c,);3:3;E;status=success;");
	events_are("a vector's value",
			   "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[5,\"6\"]}]}}",
			   "status=success;data{;resultType=vector;S();5:6;E;");
	events_are("series list",
			   "{\"status\":\"success\",\"data\":[{\"__name__\":\"m\",\"gpu\":\"0\"},{}]}",
			   "status=success;data[;S(__name__=m,gpu=0,);E;S();E;");
	events_are("empty series list", "{\"status\":\"success\",\"data\":[]}", "status=success;data[;");
	events_are("error body",
			   "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in expression evaluation\"}",
			   "status=error;errorType=timeout;error=query timed out in expression evaluation;");
	events_are("unknown keys skipped at any depth",
			   "{\"warnings\":[\"w\",{\"a\":[1,2.5e-3,-0,true,false,null,{}]}],\"infos\":[],\"status\":\"success\","
			   "\"data\":{\"stats\":{\"timings\":{\"evalTotalTime\":0.001}},\"resultType\":\"matrix\","
			   "\"result\":[{\"metric\":{\"a\":\"b\"},\"histograms\":[[1,{\"count\":\"1\"}]],\"values\":[[1,\"2\"]]}]}}",
			   "status=success;data{;resultType=matrix;S(a=b,);1:2;E;");
	events_are("escapes",
			   "{\"status\":\"s\\\"\\\\\\/\\b\\f\\n\\r\\t\",\"data\":[{\"h\\u00e9\":\"\\u20ac\\ud83d\\ude00x\\u0041\"}]}",
			   "status=s\"\\/\b\f\n\r\t;data[;S(h\xc3\xa9=\xe2\x82\xac\xf0\x9f\x98\x80xA,);E;");
	events_are("UTF-8 kept as is",
			   "{\"data\":[{\"h\xc3\xa9\":\"\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf\"}]}",
			   "data[;S(h\xc3\xa9=\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf,);E;");
	events_are("numbers kept as written",
			   "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[0,\"1\"],[-1.5E+3,\"2\"],[1e9,\"3\"],[0.000,\"x\"]]}]}}",
			   "data{;S();0:1;-1.5E+3:2;1e9:3;0.000:x;E;");
	events_are("empty strings", "{\"data\":[{\"a\":\"\",\"b\":\"\"}],\"status\":\"\"}", "data[;S(a=,b=,);E;status=;");
	events_are("a long unknown key",
			   "{\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n\":1,"
			   "\"status\":\"success\"}",
			   "status=success;");
}

static void
test_errors(void)
{
	static rec	r;
	char		msg[256];
	char	   *big;

	fails("empty", "", AT_PJ_ERROR, "truncated JSON at byte 0: the body is empty");
	fails("blanks", "  \n", AT_PJ_ERROR, "truncated JSON at byte 3: the body has no value");
	fails("truncated object", "{\"status\":\"success\",\"data\":{", AT_PJ_ERROR, "truncated JSON at byte 28: the body ends before");
	fails("truncated string", "{\"status\":\"succ", AT_PJ_ERROR, "inside a string");
	fails("truncated escape", "{\"status\":\"succ\\u00", AT_PJ_ERROR, "inside a string");
	fails("truncated number", "{\"a\":12", AT_PJ_ERROR, "inside a number");
	fails("truncated literal", "{\"a\":tru", AT_PJ_ERROR, "inside a literal");
	fails("truncated after key", "{\"a\"", AT_PJ_ERROR, "truncated JSON");
	fails("not an object", "[1]", AT_PJ_ERROR, "the body is not a JSON object");
	fails("a string body", "\"x\"", AT_PJ_ERROR, "the body is not a JSON object");
	fails("a number body", "1 ", AT_PJ_ERROR, "the body is not a JSON object");
	fails("null body", "null", AT_PJ_ERROR, "the body is not a JSON object");
	fails("html", "<html>", AT_PJ_ERROR, "invalid JSON at byte 0: a value is expected");
	fails("BOM", "\xef\xbb\xbf{}", AT_PJ_ERROR, "byte order mark");
	fails("trailing text", "{} x", AT_PJ_ERROR, "invalid JSON at byte 3: more after the body's end");
	fails("two bodies", "{}{}", AT_PJ_ERROR, "more after");
	fails("trailing comma in object", "{\"a\":1,}", AT_PJ_ERROR, "a key is expected");
	fails("trailing comma in array", "{\"a\":[1,]}", AT_PJ_ERROR, "a value is expected");
	fails("missing colon", "{\"a\" 1}", AT_PJ_ERROR, "':' is expected");
	fails("missing comma", "{\"a\":1 \"b\":2}", AT_PJ_ERROR, "',' or '}' is expected");
	fails("missing comma in array", "{\"a\":[1 2]}", AT_PJ_ERROR, "',' or ']' is expected");
	fails("mismatched close", "{\"a\":[1}", AT_PJ_ERROR, "',' or ']' is expected");
	fails("key not a string", "{a:1}", AT_PJ_ERROR, "a key or '}' is expected");
	fails("single quotes", "{'a':1}", AT_PJ_ERROR, "a key or '}'");
	fails("bad literal", "{\"a\":nul}", AT_PJ_ERROR, "unknown literal");
	fails("True", "{\"a\":True}", AT_PJ_ERROR, "a value is expected");
	fails("leading zero", "{\"a\":01}", AT_PJ_ERROR, "leading zero");
	fails("plus", "{\"a\":+1}", AT_PJ_ERROR, "a value is expected");
	fails("lone minus", "{\"a\":-}", AT_PJ_ERROR, "'-' is not followed by a digit");
	fails("point without digits", "{\"a\":1.}", AT_PJ_ERROR, "'.' is not followed by a digit");
	fails("leading point", "{\"a\":.5}", AT_PJ_ERROR, "a value is expected");
	fails("exponent without digits", "{\"a\":1e}", AT_PJ_ERROR, "exponent has no digits");
	fails("exponent sign alone", "{\"a\":1e+}", AT_PJ_ERROR, "exponent has no digits");
	fails("NaN number", "{\"a\":NaN}", AT_PJ_ERROR, "a value is expected");
	fails("hex number", "{\"a\":0x1}", AT_PJ_ERROR, "',' or '}' is expected");
	fails("control char", "{\"a\":\"x\ty\"}", AT_PJ_ERROR, "control character");
	fails("newline in string", "{\"a\":\"x\ny\"}", AT_PJ_ERROR, "control character");
	fails("bad escape", "{\"a\":\"\\x\"}", AT_PJ_ERROR, "unknown escape");
	fails("short \\u", "{\"a\":\"\\u12\"}", AT_PJ_ERROR, "4 hexadecimal digits");
	fails("lone low surrogate", "{\"a\":\"\\udc00\"}", AT_PJ_ERROR, "low surrogate escape without a high one");
	fails("lone high surrogate", "{\"a\":\"\\ud800x\"}", AT_PJ_ERROR, "not followed by a low one");
	fails("high then high", "{\"a\":\"\\ud800\\ud800\"}", AT_PJ_ERROR, "not followed by a low one");
	fails("high then other escape", "{\"a\":\"\\ud800\\n\"}", AT_PJ_ERROR, "not followed by a low one");
	fails("bad UTF-8 lead", "{\"a\":\"\xff\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("lone continuation", "{\"a\":\"\x80\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("overlong", "{\"a\":\"\xc0\xaf\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("overlong 3", "{\"a\":\"\xe0\x80\xaf\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("surrogate in UTF-8", "{\"a\":\"\xed\xa0\x80\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("over U+10FFFF", "{\"a\":\"\xf4\x90\x80\x80\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("truncated UTF-8", "{\"a\":\"\xe2\x82\"}", AT_PJ_ERROR, "not valid UTF-8");
	fails("UTF-8 in a key", "{\"\xc3\":1}", AT_PJ_ERROR, "not valid UTF-8");
	fails("data a string", "{\"data\":\"x\"}", AT_PJ_ERROR, "\"data\" is neither an object nor an array");
	fails("data null", "{\"data\":null}", AT_PJ_ERROR, "\"data\" is neither");
	fails("status a number", "{\"status\":1}", AT_PJ_ERROR, "is not a string");
	fails("error an object", "{\"error\":{}}", AT_PJ_ERROR, "is not a string");
	fails("resultType null", "{\"data\":{\"resultType\":null}}", AT_PJ_ERROR, "\"resultType\" is not a string");
	fails("result an object", "{\"data\":{\"result\":{}}}", AT_PJ_ERROR, "\"result\" is not an array");
	fails("result a string", "{\"data\":{\"result\":\"x\"}}", AT_PJ_ERROR, "\"result\" is not an array");
	fails("scalar result", "{\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}", AT_PJ_ERROR,
		  "an element of \"result\" is not an object");
	fails("result without metric", "{\"data\":{\"result\":[{\"values\":[]}]}}", AT_PJ_ERROR, "a result has no \"metric\"");
	fails("two metrics", "{\"data\":{\"result\":[{\"metric\":{},\"metric\":{}}]}}", AT_PJ_ERROR, "two \"metric\"");
	fails("two values", "{\"data\":{\"result\":[{\"values\":[],\"value\":[1,\"1\"]}]}}", AT_PJ_ERROR, "two \"values\"");
	fails("metric an array", "{\"data\":{\"result\":[{\"metric\":[]}]}}", AT_PJ_ERROR, "\"metric\" is not an object");
	fails("label value a number", "{\"data\":[{\"a\":1}]}", AT_PJ_ERROR, "a label value is not a string");
	fails("label value null", "{\"data\":[{\"a\":null}]}", AT_PJ_ERROR, "a label value is not a string");
	fails("label value an object", "{\"data\":[{\"a\":{}}]}", AT_PJ_ERROR, "a label value is not a string");
	fails("empty label name", "{\"data\":[{\"\":\"x\"}]}", AT_PJ_ERROR, "a label name is empty");
	fails("label twice", "{\"data\":[{\"a\":\"x\",\"b\":\"y\",\"a\":\"x\"}]}", AT_PJ_ERROR, "a label twice");
	fails("series element a string", "{\"data\":[\"x\"]}", AT_PJ_ERROR, "an element of the series list is not an object");
	fails("values an object", "{\"data\":{\"result\":[{\"metric\":{},\"values\":{}}]}}", AT_PJ_ERROR, "\"values\" is not an array");
	fails("sample an object", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[{}]}]}}", AT_PJ_ERROR, "a sample is not an array");
	fails("sample a number", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[1]}]}}", AT_PJ_ERROR, "a sample is not an array");
	fails("time a string", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[\"1\",\"1\"]]}]}}", AT_PJ_ERROR, "time is not a number");
	fails("time null", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[null,\"1\"]]}]}}", AT_PJ_ERROR, "time is not a number");
	fails("time an array", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[[],\"1\"]]}]}}", AT_PJ_ERROR, "time is not a number");
	fails("value a number", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1,1]]}]}}", AT_PJ_ERROR, "value is not a string");
	fails("value null", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1,null]]}]}}", AT_PJ_ERROR, "value is not a string");
	fails("sample of 1", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1]]}]}}", AT_PJ_ERROR, "fewer than 2 elements");
	fails("sample of 0", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[]]}]}}", AT_PJ_ERROR, "fewer than 2 elements");
	fails("sample of 3", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1,\"1\",2]]}]}}", AT_PJ_ERROR, "more than 2 elements");
	fails("a long time", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1.00000000000000000000000000000000000000000000000000000000000000001,\"1\"]]}]}}",
		  AT_PJ_ERROR, "at byte 43: a sample's time is longer than 64 bytes");

	/* a limit is met before a later error, however the body is cut (found by fuzzing) */
	fails("a long time, then a bad number", "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1777777777777777777777777777777777777777777777777777777777777777777777.x,\"1\"]]}]}}",
		  AT_PJ_ERROR, "at byte 43: a sample's time is longer than 64 bytes");
	fails("a long label value, then a control character", "{\"data\":[{\"a\":\"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n\"}]}",
		  AT_PJ_ERROR, "at byte 14: a label value is longer than 4096 bytes");

	/* depth: 64 nested containers parse, 65 do not */
	big = malloc(4096);
	strcpy(big, "{\"a\":");
	for (int k = 0; k < 63; k++)
		strcat(big, "[");
	for (int k = 0; k < 63; k++)
		strcat(big, "]");
	strcat(big, "}");
	CHECK(parse(big, &r, msg) == AT_PJ_OK, "64 levels (%s)", msg);
	strcpy(big, "{\"a\":");
	for (int k = 0; k < 64; k++)
		strcat(big, "[");
	CHECK(parse(big, &r, msg) == AT_PJ_ERROR && strstr(msg, "nested deeper than 64"), "65 levels: %s", msg);

	/* limits of names and values */
	{
		char	   *b = malloc(AT_PJ_TEXT_MAX + 200);
		size_t		n;

		n = (size_t) sprintf(b, "{\"data\":[{\"");
		memset(b + n, 'n', AT_PJ_NAME_MAX);
		n += AT_PJ_NAME_MAX;
		n += (size_t) sprintf(b + n, "\":\"v\"}]}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_OK, "a label name of %d bytes", AT_PJ_NAME_MAX);
		n = (size_t) sprintf(b, "{\"data\":[{\"");
		memset(b + n, 'n', AT_PJ_NAME_MAX + 1);
		n += AT_PJ_NAME_MAX + 1;
		n += (size_t) sprintf(b + n, "\":\"v\"}]}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_ERROR && strstr(msg, "a label name is longer than 1024 bytes"), "a label name too long: %s", msg);
		n = (size_t) sprintf(b, "{\"data\":[{\"n\":\"");
		memset(b + n, 'v', AT_PJ_LABEL_MAX);
		n += AT_PJ_LABEL_MAX;
		n += (size_t) sprintf(b + n, "\"}]}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_OK, "a label value of %d bytes", AT_PJ_LABEL_MAX);
		n = (size_t) sprintf(b, "{\"data\":[{\"n\":\"\\u00e9");
		memset(b + n, 'v', AT_PJ_LABEL_MAX - 1);
		n += AT_PJ_LABEL_MAX - 1;
		n += (size_t) sprintf(b + n, "\"}]}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_ERROR && strstr(msg, "a label value is longer than 4096 bytes"), "a label value too long (escaped): %s", msg);
		n = (size_t) sprintf(b, "{\"error\":\"");
		memset(b + n, 'e', AT_PJ_TEXT_MAX + 1);
		n += AT_PJ_TEXT_MAX + 1;
		n += (size_t) sprintf(b + n, "\"}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_ERROR && strstr(msg, "longer than 65536"), "an error text too long: %s", msg);
		n = (size_t) sprintf(b, "{\"warnings\":[\"");
		memset(b + n, 'w', AT_PJ_TEXT_MAX + 100);
		n += AT_PJ_TEXT_MAX + 100;
		n += (size_t) sprintf(b + n, "\"]}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_OK, "a skipped string has no limit");
		n = (size_t) sprintf(b, "{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1,\"");
		memset(b + n, '1', AT_PJ_VALUE_MAX + 1);
		n += AT_PJ_VALUE_MAX + 1;
		n += (size_t) sprintf(b + n, "\"]]}]}}");
		b[n] = '\0';
		CHECK(parse(b, &r, msg) == AT_PJ_ERROR && strstr(msg, "a sample's value is longer than 256 bytes"), "a value too long: %s", msg);
		n = (size_t) sprintf(b, "{\"data\":[{");
		for (int k = 0; k <= AT_PJ_LABELS_MAX; k++)
			n += (size_t) sprintf(b + n, "%s\"l%d\":\"v\"", k ? "," : "", k);
		n += (size_t) sprintf(b + n, "}]}");
		CHECK(parse(b, &r, msg) == AT_PJ_ERROR && strstr(msg, "more than 256 labels"), "257 labels: %s", msg);
		free(b);
	}
	free(big);

	/* the samples kept before a metric are bounded */
	{
		const char *b = "{\"data\":{\"result\":[{\"values\":[[1,\"1\"],[2,\"2\"],[3,\"3\"]],\"metric\":{}}]}}";

		CHECK(parse_cuts(b, strlen(b), NULL, 0, &r, msg, 15) == AT_PJ_OK && strcmp(r.log, "data{;S();1:1;2:2;3:3;E;") == 0,
			  "3 kept samples fit 15 bytes: %s", r.log);
		CHECK(parse_cuts(b, strlen(b), NULL, 0, &r, msg, 14) == AT_PJ_ERROR && strstr(msg, "over the parser's bound"),
			  "but not 14: %s", msg);
	}

	/* a callback stops the parser; it stays stopped */
	for (int stop = 1; stop <= 6; stop++)
	{
		const char *b = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":[[1,\"1\"]]}]}}";
		at_pj_handler h = {&r, on_text, on_data, on_series, on_sample, on_end};
		at_pj	   *p = at_pj_new(&h, 0);
		int			res;

		r.len = 0;
		r.events = 0;
		r.stop_at = stop;
		res = at_pj_feed(p, b, strlen(b));
		CHECK(res == AT_PJ_STOPPED && r.events == stop && at_pj_feed(p, "", 0) == AT_PJ_ERROR &&
			  at_pj_finish(p) == AT_PJ_ERROR, "a callback stops it at event %d", stop);
		at_pj_free(p);
	}
	r.stop_at = 0;

	/* NULL callbacks */
	{
		at_pj_handler h = {NULL, NULL, NULL, NULL, NULL, NULL};
		at_pj	   *p = at_pj_new(&h, 0);
		const char *b = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"values\":[[1,\"1\"]],\"metric\":{\"a\":\"b\"}}]}}";

		CHECK(at_pj_feed(p, b, strlen(b)) == AT_PJ_OK && at_pj_finish(p) == AT_PJ_OK, "no callbacks");
		at_pj_free(p);
	}
}


/* ---- the converter ---- */

typedef struct sink
{
	char	   *buf;
	size_t		len,
				cap;
	int			fail_at;		/* fail the n-th write (0: never) */
	int			writes;
} sink;

static int
sink_write(void *arg, const char *s, size_t n)
{
	sink	   *k = arg;

	if (k->fail_at && ++k->writes >= k->fail_at)
		return 1;
	if (k->len + n + 1 > k->cap)
	{
		k->cap = (k->len + n + 1) * 2;
		k->buf = realloc(k->buf, k->cap);
	}
	memcpy(k->buf + k->len, s, n);
	k->len += n;
	k->buf[k->len] = '\0';
	return 0;
}

/* body through the converter, in chunks of step bytes (0: whole); the output in k */
static int
convert(int samples, const char *dcgm, const char *host_label, const char *body, size_t step, sink *k, char *msg)
{
	at_pc_options o = {samples, dcgm, host_label, NULL, NULL, sink_write, k};
	at_pc	   *c = at_pc_new(&o);
	size_t		len = strlen(body);
	int			rc;

	k->len = 0;
	k->writes = 0;
	if (k->buf)
		k->buf[0] = '\0';
	for (size_t from = 0; from < len;)
	{
		size_t		n = step && len - from > step ? step : len - from;

		if (at_pc_feed(c, body + from, n))
			break;
		from += n;
	}
	rc = at_pc_end(c, NULL);
	snprintf(msg, 512, "%s", at_pc_message(c));
	at_pc_free(c);
	return rc;
}

#define Q(x) "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[" x "]}}"
#define M(labels, values) "{\"metric\":{\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\"," labels "},\"values\":[" values "]}"

static void
converts(const char *name, int samples, const char *body, int want_rc, const char *want_out, const char *want_msg)
{
	static sink k;
	char		msg[512];
	int			rc = convert(samples, "DCGM_FI_PROF_SM_ACTIVE", NULL, body, 0, &k, msg);
	char	   *whole = malloc(k.len + 1);
	int			rc1;

	memcpy(whole, k.buf ? k.buf : "", k.len);
	whole[k.len] = '\0';
	rc1 = convert(samples, "DCGM_FI_PROF_SM_ACTIVE", NULL, body, 1, &k, msg);

	CHECK(rc == want_rc && rc1 == rc && strcmp(whole, want_out) == 0 && strcmp(k.buf ? k.buf : "", whole) == 0 &&
		  strstr(msg, want_msg) != NULL, "convert %s", name);
	if (!(rc == want_rc && strcmp(whole, want_out) == 0 && strstr(msg, want_msg) != NULL))
		printf("# got %d [%s] %s\n", rc, whole, msg);
	free(whole);
}

static void
test_convert(void)
{
	static sink k;
	char		msg[512];
	char	   *big;
	size_t		n;
	at_pc_options bad = {1, "DCGM_FI_DEV_XID_ERRORS", NULL, NULL, NULL, sink_write, &k};

	converts("samples", 1,
			 Q(M("\"Hostname\":\"node01\",\"gpu\":\"0\",\"hpc_job\":\"4242\"",
				 "[1688169600.123,\"0.537\"],[1688169615,\"NaN\"],[1688169630,\"1e-05\"],[1688169645,\"1\"],[1688169660,\"-Inf\"]")
			   "," "{\"values\":[[1,\"0.005\"]],\"metric\":{\"gpu\":\"1\",\"Hostname\":\"node01\",\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\"}}"
			   "," M("\"Hostname\":\"n\",\"gpu\":\"2\"", "")),
			 0,
			 "node01-gpu0\t4242\t1688169600123:53.7 1688169630000:0.001 1688169645000:100\n"
			 "node01-gpu1\t\\N\t1000:0.5\n!end\t\\N\t3 4 2\n", "");
	converts("empty result", 1, Q(""), 0, "!end\t\\N\t0 0 0\n", "");
	converts("only NaN", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"2\"", "[1,\"NaN\"]")), 0, "!end\t\\N\t1 0 1\n", "");
	converts("series", 0,
			 "{\"status\":\"success\",\"data\":[{\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\",\"Hostname\":\"n1\",\"gpu\":\"3\",\"hpc_job\":\"7\"},"
			 "{\"gpu\":\"4\",\"Hostname\":\"n1\",\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\",\"UUID\":\"GPU-1\"}]}",
			 0, "n1-gpu3\t7\nn1-gpu4\t\\N\n", "");
	converts("series, empty", 0, "{\"status\":\"success\",\"data\":[]}", 0, "", "");
	converts("timeout", 1, "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in expression evaluation\"}",
			 AT_PC_RETRY, "", "Prometheus answered an error (errorType timeout): query timed out");
	converts("too many samples", 1,
			 "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would load too many samples into memory in query execution\"}",
			 AT_PC_RETRY, "", "errorType execution");
	converts("too many samples, series mode", 0,
			 "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would load too many samples into memory\"}",
			 AT_PC_RETRY, "", "errorType execution");
	converts("other error, escaped", 1, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"bad\\t\\\\ \\n\\r\\u0001x\"}",
			 AT_PC_FAILED,
			 "!error\t\\N\tPrometheus answered an error (errorType bad_data): bad\\t\\\\ \\n\\r\\\\x01x\n", "bad_data");
	converts("error without errorType", 1, "{\"status\":\"error\"}", AT_PC_FAILED,
			 "!error\t\\N\tPrometheus answered an error (errorType none): \n", "errorType none");
	converts("error with data ignored", 1, "{\"status\":\"error\",\"errorType\":\"timeout\",\"data\":{\"resultType\":\"matrix\",\"result\":["
			 M("\"Hostname\":\"n\",\"gpu\":\"2\"", "[1,\"1\"]") "]}}", AT_PC_RETRY, "", "timeout");
	converts("status error after data", 1, "{\"data\":{\"resultType\":\"matrix\",\"result\":["
			 M("\"Hostname\":\"n\",\"gpu\":\"2\"", "[1,\"1\"]") "]},\"status\":\"error\"}", AT_PC_FAILED,
			 "n-gpu2\t\\N\t1000:100\n!error\t\\N\tPrometheus answered status error after its data\n", "after its data");
	converts("other status", 1, "{\"status\":\"partial\"}", AT_PC_FAILED,
			 "!error\t\\N\tPrometheus answered with status \"partial\", neither success nor error\n", "partial");
	converts("no status", 1, "{\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", AT_PC_FAILED,
			 "!error\t\\N\tthe Prometheus response has no \"status\"\n", "no \"status\"");
	converts("no data", 1, "{\"status\":\"success\"}", AT_PC_FAILED, "!error\t\\N\tthe Prometheus response has no \"data\"\n", "no \"data\"");
	converts("no resultType", 1, "{\"status\":\"success\",\"data\":{\"result\":[]}}", AT_PC_FAILED,
			 "!error\t\\N\tthe Prometheus response has no \"resultType\"\n", "no \"resultType\"");
	converts("vector", 1, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", AT_PC_FAILED,
			 "!error\t\\N\tPrometheus answered resultType \"vector\", not matrix (the query must be a range selector, METRIC[<range>])\n", "vector");
	converts("a list in samples mode", 1, "{\"status\":\"success\",\"data\":[]}", AT_PC_FAILED,
			 "!error\t\\N\tPrometheus answered a list (the body of /api/v1/series?), not a query's matrix\n", "a list");
	converts("a matrix in series mode", 0, Q(""), AT_PC_FAILED, "", "not the list of /api/v1/series");
	converts("truncated", 1, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[", AT_PC_FAILED,
			 "!error\t\\N\tthe Prometheus response is not what was expected: truncated JSON at byte 60: the body ends before its last '}' or ']'\n",
			 "truncated JSON");
	converts("malformed", 1, "<html>500</html>", AT_PC_FAILED,
			 "!error\t\\N\tthe Prometheus response is not what was expected: invalid JSON at byte 0: a value is expected\n", "invalid JSON");
	converts("another metric", 1, Q("{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"n\",\"gpu\":\"1\"},\"values\":[]}"),
			 AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_DEV_GPU_UTIL\", Hostname=\"n\", gpu=\"1\"} is not of metric DCGM_FI_PROF_SM_ACTIVE\n",
			 "is not of metric");
	converts("no __name__", 1, Q("{\"metric\":{\"Hostname\":\"n\",\"gpu\":\"1\"},\"values\":[]}"), AT_PC_FAILED,
			 "!error\t\\N\tseries {Hostname=\"n\", gpu=\"1\"} is not of metric DCGM_FI_PROF_SM_ACTIVE\n", "is not of metric");
	converts("no host", 1, Q(M("\"instance\":\"x:9400\",\"gpu\":\"1\"", "")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", instance=\"x:9400\", gpu=\"1\"} has no Hostname label (the host; --host-label names another)\n",
			 "has no Hostname label");
	converts("no gpu", 0, "{\"status\":\"success\",\"data\":[{\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\",\"Hostname\":\"n\"}]}", AT_PC_FAILED, "",
			 "has no gpu label");
	converts("bad host", 1, Q(M("\"Hostname\":\"a b\",\"gpu\":\"1\"", "")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"a b\", gpu=\"1\"}: its Hostname label is not a host name (1 to 200 of A-Z a-z 0-9 . _ : -)\n",
			 "not a host name");
	converts("bad gpu", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"01\"", "")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"01\"}: its gpu label is not a GPU index (0 to 9999, no sign or leading zero)\n",
			 "not a GPU index");
	converts("bad job", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\",\"hpc_job\":\"a\\tb\\\\\"", "")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\", hpc_job=\"a\\\\x09b\\\\\\\\\"}: its hpc_job label is not a job id (1 to 64 printable ASCII characters, no blank, backslash or quote)\n",
			 "not a job id");
	converts("bad value", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[1,\"1\"],[2,\"x\\\"y\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the value \"x\\\\\"y\" at 2 is not a finite decimal number (of at most 64 bytes, within float8's range)\n",
			 "not a finite decimal");
	converts("overflow", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[1,\"1.7e307\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the value \"1.7e307\" at 1 is not a finite decimal number (of at most 64 bytes, within float8's range)\n",
			 "1.7e307");
	converts("bad time", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[1e9,\"1\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the time 1e9 is not Unix seconds with at most 3 decimals, from 1970 to 9999\n",
			 "the time 1e9");
	converts("negative time", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[-1,\"1\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the time -1 is not Unix seconds with at most 3 decimals, from 1970 to 9999\n",
			 "the time -1");
	converts("time order", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[2,\"1\"],[2,\"1\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the time 2 does not follow the previous sample's\n",
			 "does not follow");
	converts("time order after NaN", 1, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[2,\"NaN\"],[1,\"1\"]")), AT_PC_FAILED,
			 "!error\t\\N\tseries {__name__=\"DCGM_FI_PROF_SM_ACTIVE\", Hostname=\"n\", gpu=\"1\"}: the time 1 does not follow the previous sample's\n",
			 "does not follow");
	converts("a sample in series mode is ignored", 0,
			 "{\"status\":\"success\",\"data\":[{\"__name__\":\"DCGM_FI_PROF_SM_ACTIVE\",\"Hostname\":\"n\",\"gpu\":\"0\"}]}", 0, "n-gpu0\t\\N\n", "");

	/* --host-label */
	CHECK(convert(1, "DCGM_FI_PROF_SM_ACTIVE", "instance", Q(M("\"instance\":\"x:9400\",\"gpu\":\"1\"", "[1,\"1\"]")), 0, &k, msg) == 0 &&
		  strcmp(k.buf, "x:9400-gpu1\t\\N\t1000:100\n!end\t\\N\t1 1 0\n") == 0, "--host-label instance");
	CHECK(at_pc_new(&bad) == NULL, "a field acmetrace does not read");

	/* lines of AT_PROM_LINE_SAMPLES: 10,000 samples are 3 lines, times continuing */
	big = malloc(400000);
	n = (size_t) sprintf(big, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
						 "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"h\",\"gpu\":\"0\"},\"values\":[");
	for (int i = 0; i < 10000; i++)
		n += (size_t) sprintf(big + n, "%s[%d.5,\"%d\"]", i ? "," : "", 1000 + i, i % 101);
	sprintf(big + n, "]}]}}");
	{
		int			rc = convert(1, "DCGM_FI_DEV_GPU_UTIL", NULL, big, 4093, &k, msg);
		int			lines = 0,
					ok = rc == 0,
					total = 0;
		int64_t		prev = -1;

		for (char *line = k.buf; ok && line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		{
			char	   *end = strchr(line, '\n');
			const char *p;
			int64_t		ms;
			double		v;
			int			cnt = 0,
						r;

			if (strncmp(line, "!end\t", 5) == 0)
			{
				ok = strncmp(line, "!end\t\\N\t1 10000 0\n", 18) == 0;
				break;
			}
			lines++;
			ok = strncmp(line, "h-gpu0\t\\N\t", 10) == 0;
			p = line + 10;
			while (ok && (r = at_prom_sample_next(&p, end, &ms, &v)) == 1)
			{
				ok = ms > prev && v == (double) ((ms - 1000500) / 1000 % 101);
				prev = ms;
				cnt++;
			}
			ok = ok && r == 0 && cnt <= AT_PROM_LINE_SAMPLES;
			total += cnt;
		}
		CHECK(ok && lines == 3 && total == 10000, "10,000 samples in 3 lines of at most %d (%d lines, %d samples, %s)",
			  AT_PROM_LINE_SAMPLES, lines, total, msg);
	}
	free(big);

	/* a failing write stops the conversion */
	k.fail_at = 1;
	CHECK(convert(1, "DCGM_FI_PROF_SM_ACTIVE", NULL, Q(M("\"Hostname\":\"n\",\"gpu\":\"1\"", "[1,\"1\"]")), 0, &k, msg) == AT_PC_FAILED &&
		  strcmp(msg, "cannot write the output") == 0, "a write fails: %s", msg);
	k.fail_at = 0;
	{
		at_pc_options o = {1, "DCGM_FI_DEV_GPU_UTIL", NULL, NULL, NULL, sink_write, &k};
		at_pc	   *c = at_pc_new(&o);

		k.len = 0;
		CHECK(at_pc_feed(c, "{\"status\":", 10) == 0 && at_pc_end(c, "cannot read standard input: Input/output error") == AT_PC_FAILED &&
			  strcmp(k.buf, "!error\t\\N\tcannot read standard input: Input/output error\n") == 0, "a read error");
		at_pc_free(c);
	}
	free(k.buf);
	k.buf = NULL;
	k.cap = 0;
}

void
test_prometheus_json(void)
{
	test_bodies();
	test_errors();
	test_convert();
}
