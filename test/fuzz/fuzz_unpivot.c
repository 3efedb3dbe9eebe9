/*
 * fuzz_unpivot.c: the wide-utilization line splitter, at_csv_split, and the
 * cell parser, at_parse_value (what unpivot, src/unpivot.c, runs per line).
 *
 * The input is one line.  It is split with room for every field it could
 * hold (length + 1), then again with room for only a few (0 to 3, from the
 * first byte), which must give the same fields up to that room and then
 * AT_CSV_TOO_MANY_FIELDS at the next field's first byte.  Fields must lie
 * inside the buffer, unquoted ones hold no comma, error positions lie
 * inside the line, and *nfields is the fields split so far (unpivot.h).
 * Every field, and the whole input, goes through at_parse_value: OK means
 * a finite number.
 */
#include "fuzz_common.h"
#include "unpivot.h"

static void
check_fields(const char *buf, size_t size, const at_field *f, size_t nf)
{
	for (size_t i = 0; i < nf; i++)
	{
		FUZZ_CHECK(f[i].start >= buf && f[i].len <= size && f[i].start + f[i].len <= buf + size,
				   "field %zu outside the buffer", i);
		if (!f[i].quoted)
			FUZZ_CHECK(memchr(f[i].start, ',', f[i].len) == NULL, "unquoted field %zu holds a comma", i);
		FUZZ_CHECK(i == 0 || f[i].start > f[i - 1].start + f[i - 1].len, "fields %zu and %zu overlap", i - 1, i);
	}
}

static void
value(const char *s, size_t len)
{
	double		v = NAN;
	at_value_status st = at_parse_value(s, len, &v);

	FUZZ_CHECK(st == AT_VALUE_OK || st == AT_VALUE_MISSING || st == AT_VALUE_INVALID, "status %d", (int) st);
	if (st == AT_VALUE_OK)
		FUZZ_CHECK(isfinite(v), "cell parsed to %g", v);
	if (len == 0)
		FUZZ_CHECK(st == AT_VALUE_MISSING, "an empty cell is not missing");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* copies of exactly size bytes: reading past them is an ASan error */
	char	   *buf = malloc(size ? size : 1),
			   *buf2 = malloc(size ? size : 1);
	size_t		room = size + 1,
				small = size ? data[0] % 4 : 0,
				nf,
				nf2,
				pos,
				pos2;
	at_field   *f = malloc(room * sizeof(at_field)),
			   *f2 = malloc((small ? small : 1) * sizeof(at_field));
	at_csv_status st,
				st2;

	memcpy(buf, data, size);
	memcpy(buf2, data, size);
	st = at_csv_split(buf, size, f, room, &nf, &pos);
	FUZZ_CHECK(st == AT_CSV_OK || st == AT_CSV_UNTERMINATED_QUOTE || st == AT_CSV_TEXT_AFTER_QUOTE,
			   "status %d with room for every field", (int) st);
	FUZZ_CHECK(at_csv_status_text(st) != NULL, "no status text");
	FUZZ_CHECK(pos <= size, "error position %zu past %zu bytes", pos, size);
	FUZZ_CHECK(nf <= room && (st != AT_CSV_OK || nf >= 1), "%zu fields", nf);
	check_fields(buf, size, f, nf);

	st2 = at_csv_split(buf2, size, f2, small, &nf2, &pos2);
	FUZZ_CHECK(pos2 <= size && nf2 <= small, "small room: position %zu, %zu fields", pos2, nf2);
	check_fields(buf2, size, f2, nf2);
	if (st == AT_CSV_OK ? nf <= small : nf < small)
	{
		/* the small room was enough: the same answer */
		FUZZ_CHECK(st2 == st && nf2 == nf && (st == AT_CSV_OK || pos2 == pos),
				   "room for %zu: status %d, %zu fields; with room for all: %d, %zu", small, (int) st2, nf2,
				   (int) st, nf);
	}
	else
	{
		/* the first field past the room: counted as too many, at its first byte */
		FUZZ_CHECK(st2 == AT_CSV_TOO_MANY_FIELDS, "room for %zu of %zu fields: status %d", small, nf, (int) st2);
		FUZZ_CHECK(nf2 == small, "too many fields: %zu split so far, not %zu", nf2, small);
		if (small < nf)
		{
			size_t		at = (size_t) (f[small].start - buf) - (size_t) f[small].quoted;

			FUZZ_CHECK(pos2 == at, "too many fields at %zu, the field starts at %zu", pos2, at);
		}
		else if (st == AT_CSV_UNTERMINATED_QUOTE)
			FUZZ_CHECK(pos2 == pos, "too many fields at %zu, the bad field starts at %zu", pos2, pos);
		else
			FUZZ_CHECK(pos2 <= pos, "too many fields at %zu, after the error at %zu", pos2, pos);
	}
	for (size_t i = 0; i < nf2; i++)
		FUZZ_CHECK(f2[i].len == f[i].len && f2[i].quoted == f[i].quoted &&
				   f2[i].start - buf2 == f[i].start - buf && memcmp(f2[i].start, f[i].start, f[i].len) == 0,
				   "field %zu differs with less room", i);

	for (size_t i = 0; i < nf; i++)
		value(f[i].start, f[i].len);
	value((const char *) data, size);
	free(f);
	free(f2);
	free(buf);
	free(buf2);
	return 0;
}
