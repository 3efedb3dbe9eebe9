/*
 * fuzz_unpivot.c: the wide-utilization line splitter, at_csv_split, and the
 * cell parser, at_parse_value (what unpivot, src/unpivot_fns.c, runs per
 * line); then the input as a file, a header and its lines, through what the
 * loader (src/utilization_load.c) runs: at_header_parse, the lines split
 * against it, their times and values into the open blocks of their series
 * (src/core/utilization.c).
 *
 * The input is one line.  It is split with room for every field it could
 * hold (length + 1), then again with room for only a few (0 to 3, from the
 * first byte), which must give the same fields up to that room and then
 * AT_CSV_TOO_MANY_FIELDS at the next field's first byte.  Fields must lie
 * inside the buffer, unquoted ones hold no comma, error positions lie
 * inside the line, and *nfields is the fields split so far (unpivot.h).
 * Every field, and the whole input, goes through at_parse_value: OK means
 * a finite number.  As a file, the first byte picks the header rules; the
 * header's names, key column and every line's cells must agree with it,
 * and everything allocated is freed.
 */
#include "fuzz_common.h"
#include "unpivot.h"
#include "utilization.h"

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

/* A line's time, as the loader reads it: a day when it is epoch seconds. */
static int32_t
line_day(char *cell)
{
	char	   *s = at_trim_blanks(cell);
	int64_t		us = 0;
	at_epoch_status st = at_parse_epoch(s, &us);

	FUZZ_CHECK(s >= cell && strlen(s) <= strlen(cell), "trimmed outside the cell");
	FUZZ_CHECK(*s != ' ' && *s != '\t' && (*s == '\0' || (s[strlen(s) - 1] != ' ' && s[strlen(s) - 1] != '\t')),
			   "blanks left around \"%s\"", s);
	FUZZ_CHECK(st == AT_EPOCH_NOT || st == AT_EPOCH_OK || st == AT_EPOCH_RANGE, "epoch status %d", (int) st);
	if (st == AT_EPOCH_OK)
		FUZZ_CHECK(us <= ((int64_t) 1 << 40) * 1000000 + 1000000 && us >= -((int64_t) 1 << 40) * 1000000 - 1000000,
				   "epoch %lld us past 2^40 s", (long long) us);
	(void) at_time_has_zone(s);
	return st == AT_EPOCH_OK ? at_day_of(us) : 0;
}

/* One line of the file against h: its cells, values and series. */
static void
file_line(at_header *h, at_series_set *set, const char *s, size_t len)
{
	at_line_status st = at_header_split_line(h, s, len);
	int32_t		day;
	double		v;
	int			r,
				prev = 0;

	FUZZ_CHECK(st == AT_LINE_OK || st == AT_LINE_MALFORMED || st == AT_LINE_CELLS, "line status %d", (int) st);
	if (st == AT_LINE_CELLS)
		FUZZ_CHECK(h->err != (size_t) h->ncols && h->err <= (size_t) h->ncols + 1, "%zu cells", h->err);
	if (st != AT_LINE_OK)
		return;
	check_fields(h->line, len, h->fields, (size_t) h->ncols);
	day = line_day((char *) h->fields[0].start);
	for (int i = 0; (r = at_header_next_value(h, &i, &v)) != 0; prev = i)
	{
		int			too_long;
		at_series  *b;
		at_add_status add;

		FUZZ_CHECK(i > prev && i < h->ncols && i != h->key_col, "value column %d after %d", i, prev);
		if (r < 0)
			continue;
		FUZZ_CHECK(isfinite(v), "cell parsed to %g", v);
		b = at_series_of(set, h, i, &too_long);
		FUZZ_CHECK(b != NULL || too_long, "no series for column %d", i);
		if (b == NULL)
			continue;
		FUZZ_CHECK(strlen(b->name) <= AT_SERIES_NAME_MAX, "series name of %zu bytes", strlen(b->name));
		if ((add = at_series_add(set, b, day, 0, v)) == AT_ADD_FLUSH)
		{
			at_series_empty(b);
			add = at_series_add(set, b, day, 0, v);
		}
		FUZZ_CHECK(add == AT_ADD_OK && b->day == day && b->v[b->n - 1] == v, "add: %d", (int) add);
	}
}

/* The input as a file: a header line, then lines, with rules from its first byte. */
static void
file(const uint8_t *data, size_t size)
{
	at_header_rules r = {size % 7 + 2, size && (data[0] & 1) ? AT_SERIES_NAME_MAX : 0,
	size && (data[0] & 2), size && (data[0] & 4) ? "machineId" : NULL, size && (data[0] & 8)};
	const char *s = (const char *) data + (size > 0),
			   *end = (const char *) data + size,
			   *nl = memchr(s, '\n', (size_t) (end - s));
	size_t		hlen = nl ? (size_t) (nl - s) : (size_t) (end - s);
	long		live = 0;
	at_header	h;
	at_series_set set;
	at_header_status st;

	if (!(size && (data[0] & 16)))
		r.max_fields = hlen + 2;	/* room for any header */
	st = at_header_parse(&h, s, hlen, &r, fuzz_mem, &live);
	FUZZ_CHECK(st != AT_HEADER_NO_MEMORY && (st == AT_HEADER_OK) == (h.text != NULL), "header status %d", (int) st);
	if (st == AT_HEADER_OK)
	{
		FUZZ_CHECK(h.ncols >= 2 && at_header_same(&h, s, hlen), "%d columns", h.ncols);
		FUZZ_CHECK(h.key_col < 0 ? !r.key : h.key_col > 0 && h.key_col < h.ncols &&
				   strcmp(h.names[h.key_col], r.key ? r.key : "machineId") == 0, "key column %d", h.key_col);
		for (int i = 1; i < h.ncols; i++)
			FUZZ_CHECK(h.fields[i].len > 0 && strlen(h.names[i]) <= h.fields[i].len &&
					   (!r.name_max || h.fields[i].len <= r.name_max), "name %d", i);
		FUZZ_CHECK(at_series_set_init(&set, &h, fuzz_mem, &live), "series set");
		for (const char *p = nl; p != NULL && p < end;)
		{
			const char *next = memchr(p + 1, '\n', (size_t) (end - p - 1));
			size_t		len = (size_t) ((next ? next : end) - (p + 1));

			file_line(&h, &set, p + 1, len);
			p = next;
		}
		at_series_set_free(&set);
	}
	at_header_free(&h);
	FUZZ_CHECK(live == 0, "%ld blocks left", live);
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
	file(data, size);
	free(f);
	free(f2);
	free(buf);
	free(buf2);
	return 0;
}
