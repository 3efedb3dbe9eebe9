/*
 * prometheus.h: GPU metrics read from Prometheus (dcgm-exporter's series).
 *
 * Shared by the converter (tools/acmetrace-prometheus.c, which turns the
 * JSON of Prometheus's HTTP API into lines of acmetrace.prometheus_samples)
 * and the server's loader of those lines (src/prometheus_load.c), so that
 * both apply one rule for series names, job labels, times and values.
 *
 * A line of acmetrace.prometheus_samples (COPY text format, three columns):
 *   series  <host>-gpu<index>, as the published per-GPU files name a GPU
 *   job     the sample's job label (hpc_job), \N when it has none
 *   samples "<ms>:<value>" pairs separated by one space, times strictly
 *           increasing, at most AT_PROM_LINE_SAMPLES of them; <ms> is Unix
 *           milliseconds, <value> a finite decimal already in the published
 *           unit (see at_prom_scale)
 * and two kinds of control line, series starting with '!':
 *   !end    job \N, samples "<series> <samples> <skipped>": one window
 *           ended, with its counts (skipped: NaN or infinite values)
 *   !error  job \N, samples: the message; the load fails with it
 */
#ifndef ACMETRACE_PROMETHEUS_H
#define ACMETRACE_PROMETHEUS_H

#include <stddef.h>
#include <stdint.h>

#define AT_PROM_LINE_SAMPLES 4096	/* samples per line at most */
#define AT_PROM_HOST_MAX 200		/* bytes of a host name */
#define AT_PROM_GPU_MAX 9999		/* largest GPU index */
#define AT_PROM_JOB_MAX 64			/* bytes of a job label */
#define AT_PROM_VALUE_MAX 64		/* bytes of a value's text */
#define AT_PROM_SERIES_MAX (AT_PROM_HOST_MAX + 8)	/* bytes of a series name */

/* A DCGM field acmetrace reads, the published metric it is stored as, and
 * the power of ten its values are multiplied by (2: a ratio 0..1 stored as
 * percent, as the published files write *_ACTIVE and *_OCCUPANCY). */
typedef struct at_prom_field
{
	const char *dcgm;			/* DCGM_FI_DEV_GPU_UTIL */
	const char *metric;			/* GPU_UTIL */
	int			shift;			/* 0 or 2 */
} at_prom_field;

extern const at_prom_field at_prom_fields[];
extern const int at_prom_nfields;

/* The field named dcgm (len bytes), or NULL. */
extern const at_prom_field *at_prom_field_of(const char *dcgm, size_t len);

/*
 * Writes "<host>-gpu<index>" into out (cap bytes, NUL-terminated) from the
 * host and gpu label values.  Host: 1..AT_PROM_HOST_MAX bytes of
 * [A-Za-z0-9._:-]; gpu: a decimal 0..AT_PROM_GPU_MAX without a sign, blanks
 * or leading zeros.  Returns the name's length, AT_PROM_BAD_HOST or
 * AT_PROM_BAD_GPU (AT_PROM_BAD_HOST too when cap is under
 * AT_PROM_SERIES_MAX + 1 and the name does not fit).
 */
#define AT_PROM_BAD_HOST (-1)
#define AT_PROM_BAD_GPU (-2)
extern int	at_prom_series_name(char *out, size_t cap, const char *host, size_t hlen,
								const char *gpu, size_t glen);

/* Whether s (len bytes) is a series name at_prom_series_name could write. */
extern int	at_prom_series_valid(const char *s, size_t len);

/* Whether s (len bytes) is a job label value: 1..AT_PROM_JOB_MAX bytes of
 * printable ASCII other than blank, backslash and the quote characters. */
extern int	at_prom_job_valid(const char *s, size_t len);

/*
 * Prometheus's text of a value (len bytes: "45", "0.537", "1e-05", "NaN",
 * "+Inf") multiplied by 10^shift exactly, by moving the decimal point, into
 * out (cap >= AT_PROM_VALUE_MAX + 8): a decimal text float8in reads as the
 * float8 nearest the exact product.  Returns its length, AT_PROM_NONFINITE
 * for NaN and infinities, AT_PROM_BAD_VALUE for anything else that is not a
 * decimal number (or is longer than AT_PROM_VALUE_MAX).
 * Accepted: [+-]digits[.[digits]] or [+-].digits, then [eE][+-]digits
 * (strtod's decimal forms, no blanks); NaN, [+-]Inf and [+-]Infinity in
 * any case.  Written: the significant digits with the point moved, as an
 * integer of up to 21 digits ("100"), with the point inside ("53.7"),
 * "0." and up to 6 zeros ("0.0000001"), or else d.ddde<exp> ("1e-8",
 * "1.5e25"); no '+', no leading or trailing zeros.  Zero of any sign or exponent, and a
 * product that rounds to zero, is "0"; a product beyond the largest
 * float8 is AT_PROM_BAD_VALUE (float8in would reject both otherwise).
 */
#define AT_PROM_NONFINITE (-1)
#define AT_PROM_BAD_VALUE (-2)
extern int	at_prom_scale(char *out, size_t cap, const char *v, size_t len, int shift);

/*
 * A JSON number of Unix seconds with at most 3 decimals ("1688169600",
 * "1688169600.5", "1688169600.123") as milliseconds.  Returns 0, or -1 when
 * it is not such a number, is negative or is after year 9999.  Rejected
 * too, as Prometheus never writes them: a sign, exponents ("1e9",
 * "1.6881696e9"), more than 3 decimals even when zeros ("1688169600.1230"),
 * leading zeros ("01"), "1." and ".5".  The last ms: 253402300799999.
 */
extern int	at_prom_time_ms(const char *s, size_t len, int64_t *ms);

/*
 * Reads the next "<ms>:<value>" of a line's samples text from *p (up to
 * end), skipping the one space between pairs; the value is parsed with
 * strtod after the same checks as at_prom_scale's output.  Returns 1 and
 * advances *p, 0 at end, -1 on a malformed pair (*p left at it).
 * <ms>: 0..253402300799999, digits without a leading zero.  <value>:
 * [-]digits[.digits][e[+-]digits], at most AT_PROM_VALUE_MAX + 8 bytes,
 * read as float8in would (an overflow, or an underflow to zero, is
 * malformed).  An empty text has no pair; a leading, trailing or doubled
 * space is malformed.  Whether the times increase is the caller's check.
 */
extern int	at_prom_sample_next(const char **p, const char *end, int64_t *ms, double *v);

#endif
