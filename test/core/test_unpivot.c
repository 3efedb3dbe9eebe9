/* test_unpivot.c: unit tests of the CSV record splitter, the header and its lines, times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unpivot.h"
#include "tap.h"

#define MAXF 64

static at_field f[MAXF];
static size_t nf;
static size_t pos;

/* Splits a copy of s; the copy is kept until the next call (fields point in). */
static at_csv_status
split(const char *s, size_t max)
{
	static char *copy = NULL;

	free(copy);
	copy = malloc(strlen(s) + 1);
	memcpy(copy, s, strlen(s) + 1);
	return at_csv_split(copy, strlen(s), f, max, &nf, &pos);
}

static int
field_is(size_t i, const char *want)
{
	return i < nf && f[i].len == strlen(want) && memcmp(f[i].start, want, f[i].len) == 0;
}

void
test_unpivot(void)
{
	CHECK(split("a,b,c", MAXF) == AT_CSV_OK && nf == 3 &&
		  field_is(0, "a") && field_is(1, "b") && field_is(2, "c"), "plain fields");
	CHECK(split("", MAXF) == AT_CSV_OK && nf == 1 && field_is(0, ""), "empty line is one empty field");
	CHECK(split(",", MAXF) == AT_CSV_OK && nf == 2 && field_is(0, "") && field_is(1, ""), "lone comma is two empty fields");
	CHECK(split("m29,60.8,", MAXF) == AT_CSV_OK && nf == 3 && field_is(2, ""), "trailing comma (Philly) adds an empty field");
	CHECK(split("a,b\n", MAXF) == AT_CSV_OK && nf == 2 && field_is(1, "b"), "trailing LF stripped");
	CHECK(split("a,b\r\n", MAXF) == AT_CSV_OK && nf == 2 && field_is(1, "b"), "trailing CRLF stripped");
	CHECK(split("a,b\n\n", MAXF) == AT_CSV_OK && nf == 2 && f[1].len == 2, "only one terminator stripped");
	CHECK(split("\"x,y\",z", MAXF) == AT_CSV_OK && nf == 2 && field_is(0, "x,y") && f[0].quoted && !f[1].quoted,
		  "comma inside quotes");
	CHECK(split("\"say \"\"hi\"\"\",2", MAXF) == AT_CSV_OK && nf == 2 && field_is(0, "say \"hi\""),
		  "doubled quotes unescaped");
	CHECK(split("\"\"", MAXF) == AT_CSV_OK && nf == 1 && field_is(0, "") && f[0].quoted, "quoted empty field");
	CHECK(split("\"a\nb\",c", MAXF) == AT_CSV_OK && nf == 2 && field_is(0, "a\nb"), "newline inside quotes kept");
	CHECK(split("1,\"abc", MAXF) == AT_CSV_UNTERMINATED_QUOTE && pos == 2 && nf == 1, "unterminated quote at its offset");
	CHECK(split("\"", MAXF) == AT_CSV_UNTERMINATED_QUOTE && pos == 0, "lone quote");
	CHECK(split("\"ab\"\"", MAXF) == AT_CSV_UNTERMINATED_QUOTE, "escaped quote at end does not close");
	CHECK(split("\"ab\"x,1", MAXF) == AT_CSV_TEXT_AFTER_QUOTE && pos == 4, "text after closing quote");
	CHECK(split("a\"b,c", MAXF) == AT_CSV_OK && field_is(0, "a\"b"), "quote inside an unquoted field is data");
	CHECK(split("a,b,c", 2) == AT_CSV_TOO_MANY_FIELDS && pos == 4, "too many fields detected at the third");
	/* fuzz regression (test/fuzz/corpus/unpivot/regress-too-many-fields-count) */
	CHECK(split("a,b,c", 2) == AT_CSV_TOO_MANY_FIELDS && nf == 2, "too many fields: the two split so far are counted");
	CHECK(split("a", 0) == AT_CSV_TOO_MANY_FIELDS && nf == 0 && pos == 0, "no room at all");
	CHECK(split("a,b,c", 3) == AT_CSV_OK && nf == 3, "exactly max fields");
	CHECK(split("a,b,", 2) == AT_CSV_TOO_MANY_FIELDS, "trailing comma counts against max");
	CHECK(strcmp(at_csv_status_text(AT_CSV_UNTERMINATED_QUOTE), "unterminated quoted field") == 0, "status text");

	/* A wide line: 2,600 value columns after the timestamp. */
	{
		size_t		cap = 2601 * 8 + 64;
		char	   *line = malloc(cap);
		at_field   *many = malloc(sizeof(at_field) * 3000);
		size_t		len = 0,
					k;
		int			good = 1;

		len += (size_t) snprintf(line, cap, "2023-07-01 08:00:00+08:00");
		for (k = 0; k < 2600; k++)
			len += (size_t) snprintf(line + len, cap - len, ",%zu.5", k % 100);
		CHECK(at_csv_split(line, len, many, 3000, &nf, &pos) == AT_CSV_OK && nf == 2601, "2,601-field line");
		for (k = 1; k < nf && good; k++)
		{
			char		want[16];

			snprintf(want, sizeof want, "%zu.5", (k - 1) % 100);
			good = many[k].len == strlen(want) && memcmp(many[k].start, want, many[k].len) == 0;
		}
		CHECK(good, "every field of the wide line in order");
		free(line);
		free(many);
	}
}

void
test_parse_value(void)
{
	double		v = -1;

	CHECK(at_parse_value("8.101", 5, &v) == AT_VALUE_OK && v == 8.101, "decimal");
	CHECK(at_parse_value(" 100.0 ", 7, &v) == AT_VALUE_OK && v == 100.0, "blanks around");
	CHECK(at_parse_value("-1e3", 4, &v) == AT_VALUE_OK && v == -1000.0, "exponent and sign");
	CHECK(at_parse_value("99.366666667", 12, &v) == AT_VALUE_OK && v == 99.366666667, "Philly precision");
	CHECK(at_parse_value("", 0, &v) == AT_VALUE_MISSING, "empty is missing");
	CHECK(at_parse_value("  ", 2, &v) == AT_VALUE_MISSING, "blank is missing");
	CHECK(at_parse_value("NA", 2, &v) == AT_VALUE_MISSING && at_parse_value("na", 2, &v) == AT_VALUE_MISSING, "NA is missing");
	CHECK(at_parse_value("NaN", 3, &v) == AT_VALUE_MISSING && at_parse_value("nan", 3, &v) == AT_VALUE_MISSING, "NaN is missing");
	CHECK(at_parse_value("inf", 3, &v) == AT_VALUE_INVALID && at_parse_value("-Infinity", 9, &v) == AT_VALUE_INVALID, "infinity invalid");
	CHECK(at_parse_value("0x1p3", 5, &v) == AT_VALUE_INVALID, "hex invalid");
	CHECK(at_parse_value("1e999", 5, &v) == AT_VALUE_INVALID, "overflow invalid");
	CHECK(at_parse_value("1.2.3", 5, &v) == AT_VALUE_INVALID, "two dots invalid");
	CHECK(at_parse_value("12abc", 5, &v) == AT_VALUE_INVALID && at_parse_value("-", 1, &v) == AT_VALUE_INVALID, "junk invalid");
	CHECK(at_parse_value("8.1019", 3, &v) == AT_VALUE_OK && v == 8.1, "reads only len bytes");
	{
		char		longnum[100];

		memset(longnum, '1', sizeof longnum);
		CHECK(at_parse_value(longnum, sizeof longnum, &v) == AT_VALUE_INVALID, "over-long cell invalid, no overflow");
	}
}

static const at_header_rules loader_rules = {1000, 255, 1, NULL, 1};

/* Parses s with r into h; the status. */
static at_header_status
header(at_header *h, const char *s, const at_header_rules *r)
{
	return at_header_parse(h, s, strlen(s), r, tap_mem, NULL);
}

/* h's line s: the status; the values it gives as "col=value" in out. */
static at_line_status
line_values(at_header *h, const char *s, char *out, size_t cap)
{
	at_line_status st = at_header_split_line(h, s, strlen(s));
	size_t		len = 0;
	double		v;
	int			r;

	out[0] = '\0';
	if (st != AT_LINE_OK)
		return st;
	for (int i = 0; (r = at_header_next_value(h, &i, &v)) != 0 && len < cap;)
		len += (size_t) snprintf(out + len, cap - len, r < 0 ? "%s%d=bad" : "%s%d=%g", len ? " " : "", i,
								 v);
	return st;
}

void
test_unpivot_header(void)
{
	at_header	h;
	at_header_rules unpivot = {1000, 0, 0, NULL, 0},
				keyed = {1000, 0, 0, "machineId", 0};
	char		out[256];

	CHECK(header(&h, "Time,a,\"b,c\"\r\n", &loader_rules) == AT_HEADER_OK && h.ncols == 3 && h.key_col == -1 &&
		  strcmp(h.names[0], "Time") == 0 && strcmp(h.names[2], "b,c") == 0, "header: names unquoted, CRLF off");
	CHECK(at_header_same(&h, "Time,a,\"b,c\"\r\n", 14) && !at_header_same(&h, "Time,a,\"b,c\"", 12),
		  "header: its text is known again byte for byte");
	CHECK(line_values(&h, "2023-07-01 08:00,1.5,NA", out, sizeof out) == AT_LINE_OK &&
		  strcmp(out, "1=1.5") == 0 && strcmp(h.fields[0].start, "2023-07-01 08:00") == 0,
		  "line: missing cells skipped, the time NUL-terminated");
	CHECK(line_values(&h, "t,1,2,", out, sizeof out) == AT_LINE_OK && strcmp(out, "1=1 2=2") == 0,
		  "line: one trailing comma is not a cell");
	CHECK(line_values(&h, "t,1,2,\"\"", out, sizeof out) == AT_LINE_CELLS && h.err == 4 && !h.err_more,
		  "line: a quoted empty extra cell is a cell");
	CHECK(line_values(&h, "t,1,2,3,4", out, sizeof out) == AT_LINE_CELLS && h.err == 4 && h.err_more,
		  "line: too many cells are \"more than\" ncols + 1");
	CHECK(line_values(&h, "t,1", out, sizeof out) == AT_LINE_CELLS && h.err == 2 && !h.err_more,
		  "line: too few cells counted");
	CHECK(line_values(&h, "t,\"1,2", out, sizeof out) == AT_LINE_MALFORMED && h.err == 2 &&
		  h.csv == AT_CSV_UNTERMINATED_QUOTE, "line: malformed at its byte");
	CHECK(line_values(&h, "t,x,2", out, sizeof out) == AT_LINE_OK && strcmp(out, "1=bad 2=2") == 0,
		  "line: an invalid cell is reported at its column, then the next");
	{
		char		longline[5000];

		memset(longline, ' ', sizeof longline);
		memcpy(longline, "t,1,", 4);
		longline[sizeof longline - 2] = '3';
		longline[sizeof longline - 1] = '\0';
		CHECK(line_values(&h, longline, out, sizeof out) == AT_LINE_OK && strcmp(out, "1=1 2=3") == 0,
			  "line: the scratch grows for a long line");
	}
	at_header_free(&h);

	CHECK(header(&h, "Time,machineId,gpu0,gpu1", &loader_rules) == AT_HEADER_OK && h.key_col == 1,
		  "loader: a second column machineId is the key");
	CHECK(line_values(&h, "t,m29,1,2", out, sizeof out) == AT_LINE_OK && strcmp(out, "2=1 3=2") == 0,
		  "line: the key column gives no value");
	at_header_free(&h);
	CHECK(header(&h, "Time,machineId", &loader_rules) == AT_HEADER_OK && h.key_col == -1,
		  "loader: machineId alone is a value column");
	at_header_free(&h);
	CHECK(header(&h, "Time,a,machineId,b", &loader_rules) == AT_HEADER_OK && h.key_col == -1,
		  "loader: machineId elsewhere is a value column");
	at_header_free(&h);
	CHECK(header(&h, "Time,a,machineId,b", &keyed) == AT_HEADER_OK && h.key_col == 2,
		  "unpivot: key_column anywhere after the time");
	at_header_free(&h);
	CHECK(header(&h, "Time,a", &keyed) == AT_HEADER_NO_KEY, "unpivot: no such key column");
	at_header_free(&h);
	CHECK(header(&h, "Time,machineId", &keyed) == AT_HEADER_KEY_ONLY, "unpivot: the key is the only value column");
	at_header_free(&h);
	CHECK(header(&h, "machineId,a", &keyed) == AT_HEADER_NO_KEY, "unpivot: the time column is never the key");
	at_header_free(&h);

	CHECK(header(&h, "tIME,a", &loader_rules) == AT_HEADER_OK, "loader: Time in any case");
	at_header_free(&h);
	CHECK(header(&h, "Times,a", &loader_rules) == AT_HEADER_NO_TIME && h.text == NULL, "loader: Time first");
	at_header_free(&h);
	CHECK(header(&h, "x,a", &unpivot) == AT_HEADER_OK, "unpivot: any first column");
	at_header_free(&h);
	CHECK(header(&h, "Time", &loader_rules) == AT_HEADER_ONE_COLUMN && h.err == 1, "one column");
	at_header_free(&h);
	CHECK(header(&h, "Time,a,,b", &loader_rules) == AT_HEADER_NO_NAME && h.err == 2, "a column without a name");
	at_header_free(&h);
	{
		char		s[300] = "Time,a,";

		memset(s + 7, 'x', 256);
		s[263] = '\0';
		CHECK(header(&h, s, &loader_rules) == AT_HEADER_NAME_TOO_LONG && h.err == 2 && h.err_len == 256,
			  "loader: a name over 255 bytes");
		at_header_free(&h);
		CHECK(header(&h, s, &unpivot) == AT_HEADER_OK, "unpivot: names of any length");
		at_header_free(&h);
	}
	CHECK(header(&h, "Time,\"a\"b", &loader_rules) == AT_HEADER_MALFORMED && h.err == 8 &&
		  h.csv == AT_CSV_TEXT_AFTER_QUOTE, "malformed header at its byte");
	at_header_free(&h);
	{
		at_header_rules narrow = {3, 0, 0, NULL, 0};

		CHECK(header(&h, "Time,a", &narrow) == AT_HEADER_OK, "room for the fields a header may have");
		at_header_free(&h);
		CHECK(header(&h, "Time,a,b", &narrow) == AT_HEADER_TOO_WIDE && h.err == 3, "too wide: its bound counted");
		at_header_free(&h);
	}
	{
		tap_counted mem = {0, 0, 0};
		int			fails = 0;

		for (mem.fail_at = 1; mem.fail_at < 10; mem.fail_at++)
		{
			at_header_status st = at_header_parse(&h, "Time,a,b", 8, &loader_rules, tap_counted_mem, &mem);

			if (st == AT_HEADER_OK && at_header_split_line(&h, "t,1,2", 5) == AT_LINE_NO_MEMORY)
				st = AT_HEADER_NO_MEMORY;
			fails += st == AT_HEADER_NO_MEMORY;
			at_header_free(&h);
			mem.calls = 0;
		}
		CHECK(fails == 6 && mem.live == 0, "out of memory at each allocation, nothing left (%d)", fails);
	}
	CHECK(at_header_legacy_key("Time,machineId,a", 16) && at_header_legacy_key("Time,machineId", 14) &&
		  !at_header_legacy_key("Time,machineIds", 15) && !at_header_legacy_key("Time", 4) &&
		  !at_header_legacy_key("Time,a,machineId", 16), "the releases' machineId rule");
}

void
test_unpivot_time(void)
{
	int64_t		us = 0;
	char		s[] = " \t2023-07-01 08:00 \t";

	CHECK(strcmp(at_trim_blanks(s), "2023-07-01 08:00") == 0, "blanks around a time trimmed");
	CHECK(at_parse_epoch("1688169600", &us) == AT_EPOCH_OK && us == INT64_C(1688169600000000), "epoch seconds");
	CHECK(at_parse_epoch("-1.5", &us) == AT_EPOCH_OK && us == -1500000, "negative, fractional");
	CHECK(at_parse_epoch("0.0000005", &us) == AT_EPOCH_OK && us == 1, "half a microsecond rounds up");
	CHECK(at_parse_epoch("0.00000049", &us) == AT_EPOCH_OK && us == 0, "under half rounds down");
	CHECK(at_parse_epoch("1.99999999", &us) == AT_EPOCH_OK && us == 2000000, "rounding carries into seconds");
	CHECK(at_parse_epoch("1099511627776", &us) == AT_EPOCH_OK, "2^40 seconds");
	CHECK(at_parse_epoch("1099511627777", &us) == AT_EPOCH_RANGE, "past 2^40 seconds");
	CHECK(at_parse_epoch("99999999999999x", &us) == AT_EPOCH_RANGE, "out of range before any non-digit");
	CHECK(at_parse_epoch("2023-07-01", &us) == AT_EPOCH_NOT && at_parse_epoch("1.", &us) == AT_EPOCH_NOT &&
		  at_parse_epoch("-", &us) == AT_EPOCH_NOT && at_parse_epoch("", &us) == AT_EPOCH_NOT &&
		  at_parse_epoch(".5", &us) == AT_EPOCH_NOT, "not epoch seconds");
	CHECK(at_time_has_zone("2023-07-01 08:00:00+08:00") && at_time_has_zone("2023-07-01T08:00:00Z") &&
		  at_time_has_zone("2023-07-01 08:00 PDT") && at_time_has_zone("2023-07-01 08:00-07"),
		  "offsets and zones");
	CHECK(!at_time_has_zone("2023-07-01 08:00:00") && !at_time_has_zone("2023-07-01T08:00:00") &&
		  !at_time_has_zone("2023-07-01"), "local times");
}
