/*
 * csvsplit.c: split one CSV record into fields.  See csvsplit.h.
 */
#include "csvsplit.h"

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
