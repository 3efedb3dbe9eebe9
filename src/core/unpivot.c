/*
 * unpivot.c: the core of unpivot: split one CSV record into fields, parse
 * a value.  See unpivot.h.
 */
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
