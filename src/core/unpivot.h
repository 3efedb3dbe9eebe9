/*
 * unpivot.h: the core of unpivot and of the wide-file loader: split one CSV
 * record into fields (RFC 4180 quoting), parse a value, a header's columns
 * and the lines split against them, a line's time.
 *
 * Plain C, no PostgreSQL headers: the wide-utilization unpivot and loader
 * call it once per line and it is unit-tested and fuzzed alone.  Only the
 * header (at_header_parse, at_header_split_line) allocates, through mem.
 */
#ifndef ACMETRACE_UNPIVOT_H
#define ACMETRACE_UNPIVOT_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

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

/*
 * A wide file's header (Time, then a column per series) and the scratch a
 * line is split into against it.  Everything is allocated through mem.
 */
typedef struct at_header
{
	char	   *text;			/* the header's bytes, to know it again; NULL until parsed */
	size_t		len;
	char	   *copy;			/* the split header; names point into it */
	char	  **names;			/* ncols NUL-terminated column names */
	at_field   *fields;			/* room for ncols + 1: a line's cells */
	int			ncols;
	int			key_col;		/* the key column (Philly's machineId), or -1 */
	char	   *line;			/* scratch copy of a line, split in place */
	size_t		line_cap;
	/* what went wrong (see at_header_status, at_line_status) */
	size_t		err;
	size_t		err_len;
	int			err_more;
	at_csv_status csv;
	at_mem_fn	mem;
	void	   *ctx;
} at_header;

/* What a caller accepts as a header. */
typedef struct at_header_rules
{
	size_t		max_fields;		/* more fields than this is AT_HEADER_TOO_WIDE */
	size_t		name_max;		/* the longest value column name in bytes, 0: any */
	int			time_first;		/* the first column must be named Time (any case) */
	const char *key;			/* the key column's name (the first value column so named), or NULL */
	int			philly_key;		/* no key: a second column machineId with a value column after it is */
} at_header_rules;

typedef enum at_header_status
{
	AT_HEADER_OK = 0,
	AT_HEADER_NO_MEMORY,
	AT_HEADER_TOO_WIDE,			/* err: the columns it may have, over max_fields - 1 */
	AT_HEADER_MALFORMED,		/* csv at byte err */
	AT_HEADER_NO_TIME,			/* time_first and the first column is not Time */
	AT_HEADER_ONE_COLUMN,		/* err columns (1), no value column */
	AT_HEADER_NO_NAME,			/* value column err (0-based) has no name */
	AT_HEADER_NAME_TOO_LONG,	/* value column err's name is err_len bytes, over name_max */
	AT_HEADER_NO_KEY,			/* no value column is named key */
	AT_HEADER_KEY_ONLY			/* the key column is the only value column */
} at_header_status;

/*
 * Parses header s[0..len) into h (whose previous contents are not freed).
 * On any status but OK, h->text stays NULL and at_header_free frees what
 * was allocated.
 */
extern at_header_status at_header_parse(at_header *h, const char *s, size_t len, const at_header_rules *r,
										at_mem_fn mem, void *ctx);
extern void at_header_free(at_header *h);

/* s[0..len) is the parsed header's text. */
extern int	at_header_same(const at_header *h, const char *s, size_t len);

/*
 * The releases before 0.4.0 keyed a header (raw bytes, no unquoting) whose
 * second column is machineId.
 */
extern int	at_header_legacy_key(const char *s, size_t len);

typedef enum at_line_status
{
	AT_LINE_OK = 0,
	AT_LINE_NO_MEMORY,
	AT_LINE_MALFORMED,			/* csv at byte err */
	AT_LINE_CELLS				/* err cells ("more than" err when err_more), not ncols */
} at_line_status;

/*
 * Splits a copy of line s[0..len) into h->fields: ncols cells (one trailing
 * empty unquoted cell, Philly's trailing comma, is not data).  On OK the
 * first cell (the time) is NUL-terminated; on AT_LINE_CELLS the first cell
 * is split.
 */
extern at_line_status at_header_split_line(at_header *h, const char *s, size_t len);

/*
 * The next value cell of the split line after column *col (start at 0),
 * skipping the key column and missing cells: 1 with its column in *col and
 * its value in *v, -1 for an invalid cell at column *col, 0 past the last.
 */
extern int	at_header_next_value(const at_header *h, int *col, double *v);

/* s without blanks (spaces, tabs) around: the trailing ones are cut off. */
extern char *at_trim_blanks(char *s);

typedef enum at_epoch_status
{
	AT_EPOCH_NOT = 0,			/* not [-]digits[.digits] */
	AT_EPOCH_OK,
	AT_EPOCH_RANGE				/* more than 2^40 seconds */
} at_epoch_status;

/*
 * Unix epoch seconds, [-]digits[.digits], as microseconds (rounded half
 * up), read as far as needed to tell (so RANGE before a later non-digit).
 */
extern at_epoch_status at_parse_epoch(const char *s, int64_t *unix_us);

/* A time text with its own offset or zone: anything past the date that is not the time. */
extern int	at_time_has_zone(const char *s);

#endif
