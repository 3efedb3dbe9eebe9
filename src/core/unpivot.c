/*
 * unpivot.c: the core of unpivot and of the wide-file loader: split one CSV
 * record into fields, parse a value, a header and the lines split against
 * it, a line's time.  See unpivot.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "num.h"
#include "unpivot.h"

const char *
at_csv_status_text(at_csv_status status)
{
	switch (status)
	{
		case AT_CSV_OK:
			return "ok";
		case AT_CSV_UNTERMINATED_QUOTE:
			return "unterminated quoted field";
		case AT_CSV_TEXT_AFTER_QUOTE:
			return "text after the closing quote of a field";
		case AT_CSV_TOO_MANY_FIELDS:
			return "more fields than expected";
	}
	return "unknown error";
}

at_csv_status
at_csv_split(char *buf, size_t len, at_field *fields, size_t max_fields,
			 size_t *nfields, size_t *err_pos)
{
	size_t		i = 0;
	size_t		n = 0;

	*nfields = 0;
	*err_pos = 0;

	/* One line terminator is not data. */
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len > 0 && buf[len - 1] == '\r')
		len--;

	for (;;)
	{
		at_field	f;

		if (n == max_fields)
		{
			*err_pos = i;
			*nfields = n;		/* the fields split so far, as unpivot.h says */
			return AT_CSV_TOO_MANY_FIELDS;
		}

		if (i < len && buf[i] == '"')
		{
			/* Quoted: unescape "" in place, writing behind the read cursor. */
			size_t		w = i + 1;
			size_t		r = i + 1;
			int			closed = 0;

			f.start = buf + w;
			f.quoted = 1;
			while (r < len)
			{
				if (buf[r] == '"')
				{
					if (r + 1 < len && buf[r + 1] == '"')
					{
						buf[w++] = '"';
						r += 2;
						continue;
					}
					closed = 1;
					r++;
					break;
				}
				buf[w++] = buf[r++];
			}
			if (!closed)
			{
				*err_pos = i;
				*nfields = n;
				return AT_CSV_UNTERMINATED_QUOTE;
			}
			f.len = w - (size_t) (f.start - buf);
			if (r < len && buf[r] != ',')
			{
				*err_pos = r;
				*nfields = n;
				return AT_CSV_TEXT_AFTER_QUOTE;
			}
			i = r;
		}
		else
		{
			size_t		s = i;

			while (i < len && buf[i] != ',')
				i++;
			f.start = buf + s;
			f.len = i - s;
			f.quoted = 0;
		}

		fields[n++] = f;
		if (i >= len)
			break;
		i++;					/* skip the comma; a trailing comma makes an empty last field */
	}
	*nfields = n;
	return AT_CSV_OK;
}

/*
 * The common cell, [-]digits[.digits] with at most 15 digits: m / 10^k.
 * m and 10^k are exact doubles and IEEE division rounds correctly, so this
 * is the double strtod (and float8in) gives for the text, ten times faster.
 */
static int
at_parse_decimal_fast(const char *s, size_t len, double *out)
{
	const char *p = s,
			   *end = s + len;
	int			neg = 0,
				digits = 0,
				frac = -1;
	int64_t		m = 0;
	double		v;

	if (p < end && *p == '-')
	{
		neg = 1;
		p++;
	}
	if (p == end || *p < '0' || *p > '9')
		return 0;
	for (; p < end; p++)
	{
		if (*p >= '0' && *p <= '9')
		{
			if (++digits > 15)
				return 0;
			m = m * 10 + (*p - '0');
			if (frac >= 0)
				frac++;
		}
		else if (*p == '.' && frac < 0)
			frac = 0;
		else
			return 0;
	}
	if (frac == 0)				/* "12." is left to strtod */
		return 0;
	v = frac > 0 ? (double) m / at_p10[frac] : (double) m;
	*out = neg ? -v : v;
	return 1;
}

at_value_status
at_parse_value(const char *s, size_t len, double *out)
{
	char		buf[64];
	char	   *end;
	size_t		i;
	double		v;

	while (len > 0 && (*s == ' ' || *s == '\t'))
	{
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0)
		return AT_VALUE_MISSING;
	if ((len == 2 && strncasecmp(s, "NA", 2) == 0) || (len == 3 && strncasecmp(s, "NaN", 3) == 0))
		return AT_VALUE_MISSING;
	if (at_parse_decimal_fast(s, len, out))
		return AT_VALUE_OK;
	if (len >= sizeof(buf))
		return AT_VALUE_INVALID;
	/* strtod alone would take "inf", "0x1p3" and leading blanks */
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' ||
			  s[i] == '+' || s[i] == 'e' || s[i] == 'E'))
			return AT_VALUE_INVALID;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + len || errno == ERANGE || !isfinite(v))
		return AT_VALUE_INVALID;
	*out = v;
	return AT_VALUE_OK;
}

static int
is_time(const at_field *f)
{
	static const char want[] = "time";

	if (f->len != 4)
		return 0;
	for (int i = 0; i < 4; i++)
	{
		char		c = f->start[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c != want[i])
			return 0;
	}
	return 1;
}

/* The header's fields, split in h->copy: into h->fields (room for nf + 1). */
static at_header_status
split_header(at_header *h, const char *s, size_t len, size_t max, size_t *nf)
{
	at_field   *all;
	size_t		pos;

	h->copy = h->mem(h->ctx, NULL, len + 1);
	if (h->copy == NULL)
		return AT_HEADER_NO_MEMORY;
	/* a header has at most one field more than it has commas (",,," has four) */
	all = h->mem(h->ctx, NULL, sizeof(at_field) * max);
	if (all == NULL)
		return AT_HEADER_NO_MEMORY;
	memcpy(h->copy, s, len);
	h->csv = at_csv_split(h->copy, len, all, max, nf, &pos);
	if (h->csv == AT_CSV_OK)
	{
		h->fields = h->mem(h->ctx, NULL, sizeof(at_field) * (*nf + 1));
		if (h->fields != NULL)
			memcpy(h->fields, all, sizeof(at_field) * *nf);
	}
	h->mem(h->ctx, all, 0);
	if (h->csv != AT_CSV_OK)
	{
		h->err = pos;
		return AT_HEADER_MALFORMED;
	}
	return h->fields == NULL ? AT_HEADER_NO_MEMORY : AT_HEADER_OK;
}

/* Checks the value columns' names and NUL-terminates every name in place. */
static at_header_status
name_columns(at_header *h, size_t nf, const at_header_rules *r)
{
	for (size_t i = 1; i < nf; i++)
	{
		h->err = i;
		h->err_len = h->fields[i].len;
		if (h->fields[i].len == 0)
			return AT_HEADER_NO_NAME;
		if (r->name_max > 0 && h->fields[i].len > r->name_max)
			return AT_HEADER_NAME_TOO_LONG;
	}
	h->names = h->mem(h->ctx, NULL, sizeof(char *) * nf);
	if (h->names == NULL)
		return AT_HEADER_NO_MEMORY;
	/* split is done: the byte after a field (comma, quote, end) is free */
	for (size_t i = 0; i < nf; i++)
	{
		h->names[i] = h->copy + (h->fields[i].start - h->copy);
		h->names[i][h->fields[i].len] = '\0';
	}
	return AT_HEADER_OK;
}

static at_header_status
find_key(at_header *h, size_t nf, const at_header_rules *r)
{
	if (r->key != NULL)
	{
		for (size_t i = 1; i < nf && h->key_col < 0; i++)
			if (strcmp(h->names[i], r->key) == 0)
				h->key_col = (int) i;
		if (h->key_col < 0)
			return AT_HEADER_NO_KEY;
		if (nf == 2)
			return AT_HEADER_KEY_ONLY;
	}
	else if (r->philly_key && nf > 2 && strcmp(h->names[1], "machineId") == 0)
		h->key_col = 1;
	return AT_HEADER_OK;
}

at_header_status
at_header_parse(at_header *h, const char *s, size_t len, const at_header_rules *r, at_mem_fn mem, void *ctx)
{
	size_t		max = 2,
				nf = 0;
	at_header_status st;

	memset(h, 0, sizeof *h);
	h->mem = mem;
	h->ctx = ctx;
	h->key_col = -1;
	for (size_t i = 0; i < len; i++)
		max += s[i] == ',';
	if (max > r->max_fields)
	{
		h->err = max - 1;
		return AT_HEADER_TOO_WIDE;
	}
	st = split_header(h, s, len, max, &nf);
	if (st != AT_HEADER_OK)
		return st;
	if (r->time_first && !is_time(&h->fields[0]))
		return AT_HEADER_NO_TIME;
	if (nf < 2)
	{
		h->err = nf;
		return AT_HEADER_ONE_COLUMN;
	}
	if ((st = name_columns(h, nf, r)) != AT_HEADER_OK || (st = find_key(h, nf, r)) != AT_HEADER_OK)
		return st;
	h->ncols = (int) nf;
	h->text = mem(ctx, NULL, len + 1);
	if (h->text == NULL)
		return AT_HEADER_NO_MEMORY;
	memcpy(h->text, s, len);
	h->len = len;
	return AT_HEADER_OK;
}

void
at_header_free(at_header *h)
{
	void	   *blocks[] = {h->text, h->copy, h->names, h->fields, h->line};

	for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
		if (blocks[i] != NULL)
			h->mem(h->ctx, blocks[i], 0);
	h->text = h->copy = h->line = NULL;
	h->names = NULL;
	h->fields = NULL;
	h->line_cap = 0;
}

int
at_header_same(const at_header *h, const char *s, size_t len)
{
	return h->text != NULL && h->len == len && memcmp(h->text, s, len) == 0;
}

int
at_header_legacy_key(const char *s, size_t len)
{
	const char *comma = memchr(s, ',', len);
	size_t		rest;

	if (comma == NULL)
		return 0;
	rest = len - (size_t) (comma + 1 - s);
	return rest >= 9 && memcmp(comma + 1, "machineId", 9) == 0 && (rest == 9 || comma[10] == ',');
}

at_line_status
at_header_split_line(at_header *h, const char *s, size_t len)
{
	size_t		ncols = (size_t) h->ncols,
				nf,
				pos;

	if (len + 1 > h->line_cap)
	{
		size_t		cap = len + 1 > 2 * h->line_cap ? len + 1 : 2 * h->line_cap;
		char	   *p = h->mem(h->ctx, NULL, cap);

		if (p == NULL)
			return AT_LINE_NO_MEMORY;
		if (h->line != NULL)
			h->mem(h->ctx, h->line, 0);
		h->line = p;
		h->line_cap = cap;
	}
	memcpy(h->line, s, len);
	h->csv = at_csv_split(h->line, len, h->fields, ncols + 1, &nf, &pos);
	if (h->csv == AT_CSV_TOO_MANY_FIELDS)
		nf = ncols + 2;			/* reported as "more than" ncols + 1 */
	else if (h->csv != AT_CSV_OK)
	{
		h->err = pos;
		return AT_LINE_MALFORMED;
	}
	/* one trailing comma (Philly) is an empty extra cell, not data */
	if (nf == ncols + 1 && h->csv == AT_CSV_OK && h->fields[nf - 1].len == 0 && !h->fields[nf - 1].quoted)
		nf--;
	if (nf != ncols)
	{
		h->err_more = nf > ncols + 1;
		h->err = h->err_more ? ncols + 1 : nf;
		return AT_LINE_CELLS;
	}
	h->line[(h->fields[0].start - h->line) + h->fields[0].len] = '\0';
	return AT_LINE_OK;
}

int
at_header_next_value(const at_header *h, int *col, double *v)
{
	for (int i = *col + 1; i < h->ncols; i++)
	{
		if (i == h->key_col)
			continue;
		switch (at_parse_value(h->fields[i].start, h->fields[i].len, v))
		{
			case AT_VALUE_MISSING:
				continue;		/* blank, NA, NaN: no sample */
			case AT_VALUE_INVALID:
				*col = i;
				return -1;
			case AT_VALUE_OK:
				*col = i;
				return 1;
		}
	}
	*col = h->ncols;
	return 0;
}

char *
at_trim_blanks(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	for (size_t n = strlen(s); n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'); n--)
		s[n - 1] = '\0';
	return s;
}

at_epoch_status
at_parse_epoch(const char *s, int64_t *unix_us)
{
	const char *p = s;
	int			neg = 0,
				fd = 0;
	int64_t		sec = 0,
				us = 0;

	if (*p == '-')
	{
		neg = 1;
		p++;
	}
	if (*p < '0' || *p > '9')
		return AT_EPOCH_NOT;
	/* past 2^40 s (34,000 years) is out of PostgreSQL's range anyway */
	for (; *p >= '0' && *p <= '9'; p++)
	{
		sec = sec * 10 + (*p - '0');
		if (sec > ((int64_t) 1 << 40))
			return AT_EPOCH_RANGE;
	}
	if (*p == '.')
	{
		p++;
		if (*p < '0' || *p > '9')
			return AT_EPOCH_NOT;
		for (; *p >= '0' && *p <= '9'; p++, fd++)
			if (fd < 7)
				us = us * 10 + (*p - '0');
		for (int i = fd; i < 7; i++)
			us *= 10;
		us = (us + 5) / 10;
	}
	if (*p != '\0')
		return AT_EPOCH_NOT;
	*unix_us = neg ? -(sec * 1000000 + us) : sec * 1000000 + us;
	return AT_EPOCH_OK;
}

int
at_time_has_zone(const char *s)
{
	size_t		n = strlen(s);

	for (size_t i = 10; i < n; i++)
	{
		char		c = s[i];

		if (c == '+' || c == '-' || c == 'Z' || c == 'z')
			return 1;
		if (isalpha((unsigned char) c) && !(i == 10 && (c == 'T' || c == 't')))
			return 1;
	}
	return 0;
}
