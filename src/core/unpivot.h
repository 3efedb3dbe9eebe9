/*
 * unpivot.h: the core of unpivot: split one CSV record into fields (RFC 4180
 * quoting), parse a value.
 *
 * Plain C, no allocation, no PostgreSQL headers: the wide-utilization
 * unpivot calls it once per line and it is unit-tested and fuzzed alone.
 */
#ifndef ACMETRACE_UNPIVOT_H
#define ACMETRACE_UNPIVOT_H

#include <stddef.h>

typedef struct at_field
{
	const char *start;			/* into the caller's buffer; not NUL-terminated */
	size_t		len;
	int			quoted;			/* the field was written in quotes */
} at_field;

typedef enum at_csv_status
{
	AT_CSV_OK = 0,
	AT_CSV_UNTERMINATED_QUOTE,	/* a quoted field never closes */
	AT_CSV_TEXT_AFTER_QUOTE,	/* "abc"x: text between a closing quote and the delimiter */
	AT_CSV_TOO_MANY_FIELDS		/* more fields than the caller has room for */
} at_csv_status;

/*
 * Splits buf[0..len) into fields.  Quoted fields are unescaped in place
 * ("" becomes "), so buf is modified.  One trailing "\n" or "\r\n" is not
 * part of the last field.  An empty buffer is one empty field.  Fields never
 * read outside buf.  On error, *err_pos is the byte offset of the problem
 * and *nfields the fields split so far.
 */
extern at_csv_status at_csv_split(char *buf, size_t len,
								  at_field *fields, size_t max_fields,
								  size_t *nfields, size_t *err_pos);

/* A short English description of a status, for error messages. */
extern const char *at_csv_status_text(at_csv_status status);

typedef enum at_value_status
{
	AT_VALUE_OK = 0,
	AT_VALUE_MISSING,			/* empty, NA, NaN: no measurement */
	AT_VALUE_INVALID			/* not a finite decimal number */
} at_value_status;

/*
 * Parses one utilization cell: a finite decimal number, surrounding blanks
 * allowed.  Empty cells and NA / NaN (any case) are MISSING; infinities,
 * hexadecimal, overflow and anything else are INVALID.
 */
extern at_value_status at_parse_value(const char *s, size_t len, double *out);

#endif
