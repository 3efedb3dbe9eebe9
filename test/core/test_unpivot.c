/* test_unpivot.c: unit tests of the CSV record splitter. */
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
