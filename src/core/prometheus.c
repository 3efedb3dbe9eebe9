/*
 * prometheus.c: the rules the Prometheus converter and its loader share
 * (prometheus.h): the DCGM fields, series names, job labels, the exact
 * decimal scaling of values, times and the samples text of a line.
 */
#include "prometheus.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

const at_prom_field at_prom_fields[] = {
	{"DCGM_FI_DEV_GPU_UTIL", "GPU_UTIL", 0},
	{"DCGM_FI_PROF_SM_ACTIVE", "SM_ACTIVE", 2},
	{"DCGM_FI_PROF_SM_OCCUPANCY", "SM_OCCUPANCY", 2},
	{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "PIPE_TENSOR_ACTIVE", 2},
	{"DCGM_FI_PROF_DRAM_ACTIVE", "DRAM_ACTIVE", 2},
	{"DCGM_FI_DEV_FB_USED", "FB_USED", 0},
	{"DCGM_FI_DEV_FB_FREE", "FB_FREE", 0},
	{"DCGM_FI_DEV_GPU_TEMP", "GPU_TEMP", 0},
	{"DCGM_FI_DEV_POWER_USAGE", "POWER_USAGE", 0},
};
const int	at_prom_nfields = (int) (sizeof(at_prom_fields) / sizeof(at_prom_fields[0]));

const at_prom_field *
at_prom_field_of(const char *dcgm, size_t len)
{
	for (int i = 0; i < at_prom_nfields; i++)
		if (strlen(at_prom_fields[i].dcgm) == len && memcmp(at_prom_fields[i].dcgm, dcgm, len) == 0)
			return &at_prom_fields[i];
	return NULL;
}

static int
host_valid(const char *h, size_t len)
{
	if (len < 1 || len > AT_PROM_HOST_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
	{
		char		c = h[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == ':' || c == '-'))
			return 0;
	}
	return 1;
}

/* a decimal 0..AT_PROM_GPU_MAX, no sign, blank or leading zero */
static int
gpu_valid(const char *g, size_t len)
{
	int			v = 0;

	if (len < 1 || len > 4 || (len > 1 && g[0] == '0'))
		return 0;
	for (size_t i = 0; i < len; i++)
	{
		if (g[i] < '0' || g[i] > '9')
			return 0;
		v = v * 10 + (g[i] - '0');
	}
	return v <= AT_PROM_GPU_MAX;
}

int
at_prom_series_name(char *out, size_t cap, const char *host, size_t hlen, const char *gpu, size_t glen)
{
	if (!host_valid(host, hlen))
		return AT_PROM_BAD_HOST;
	if (!gpu_valid(gpu, glen))
		return AT_PROM_BAD_GPU;
	if (hlen + 4 + glen >= cap)
		return AT_PROM_BAD_HOST;	/* a caller's buffer under AT_PROM_SERIES_MAX + 1 */
	memcpy(out, host, hlen);
	memcpy(out + hlen, "-gpu", 4);
	memcpy(out + hlen + 4, gpu, glen);
	out[hlen + 4 + glen] = '\0';
	return (int) (hlen + 4 + glen);
}

int
at_prom_series_valid(const char *s, size_t len)
{
	/* the index holds no '-': the name splits at its last "-gpu" */
	for (size_t i = len; i >= 4; i--)
		if (memcmp(s + i - 4, "-gpu", 4) == 0)
			return host_valid(s, i - 4) && gpu_valid(s + i, len - i);
	return 0;
}

int
at_prom_job_valid(const char *s, size_t len)
{
	if (len < 1 || len > AT_PROM_JOB_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c <= ' ' || c >= 0x7f || c == '\\' || c == '"' || c == '\'' || c == '`')
			return 0;
	}
	return 1;
}

static int
ieq(const char *s, size_t len, const char *lower)
{
	if (strlen(lower) != len)
		return 0;
	for (size_t i = 0; i < len; i++)
	{
		char		c = s[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c != lower[i])
			return 0;
	}
	return 1;
}

/* Whether the decimal d (n digits, no leading zero) x 10^e overflows a double. */
static int
overflows(int neg, const char *d, int n, int e, double *v)
{
	char		buf[AT_PROM_VALUE_MAX + 16];

	snprintf(buf, sizeof(buf), "%s%.*se%d", neg ? "-" : "", n, d, e);
	*v = strtod(buf, NULL);
	return isinf(*v);
}

int
at_prom_scale(char *out, size_t cap, const char *v, size_t len, int shift)
{
	char		dig[AT_PROM_VALUE_MAX];
	int			n = 0,
				neg = 0,
				any = 0,
				e = 0,
				adj;
	long		x = 0;
	size_t		i = 0,
				o = 0;

	if (len == 0 || len > AT_PROM_VALUE_MAX)
		return AT_PROM_BAD_VALUE;
	{
		size_t		s = (v[0] == '+' || v[0] == '-') ? 1 : 0;

		if (ieq(v + s, len - s, "inf") || ieq(v + s, len - s, "infinity") || ieq(v, len, "nan"))
			return AT_PROM_NONFINITE;
	}
	if (v[i] == '+' || v[i] == '-')
		neg = v[i++] == '-';
	/* significant digits into dig (leading zeros dropped), e their exponent */
	for (; i < len && v[i] >= '0' && v[i] <= '9'; i++)
	{
		any = 1;
		if (n > 0 || v[i] != '0')
			dig[n++] = v[i];
	}
	if (i < len && v[i] == '.')
	{
		for (i++; i < len && v[i] >= '0' && v[i] <= '9'; i++)
		{
			any = 1;
			if (n > 0 || v[i] != '0')
				dig[n++] = v[i];
			e--;
		}
	}
	if (!any)
		return AT_PROM_BAD_VALUE;
	if (i < len && (v[i] == 'e' || v[i] == 'E'))
	{
		int			eneg = 0,
					edig = 0;

		i++;
		if (i < len && (v[i] == '+' || v[i] == '-'))
			eneg = v[i++] == '-';
		for (; i < len && v[i] >= '0' && v[i] <= '9'; i++, edig++)
			if (x < 100000)
				x = x * 10 + (v[i] - '0');	/* saturates: far out of range anyway */
		if (edig == 0)
			return AT_PROM_BAD_VALUE;
		if (eneg)
			x = -x;
	}
	if (i != len)
		return AT_PROM_BAD_VALUE;
	while (n > 0 && dig[n - 1] == '0')
	{
		n--;
		e++;
	}
	if (n == 0)
	{
		/* zero, whatever its sign or exponent: written "0" */
		if (cap < 2)
			return AT_PROM_BAD_VALUE;
		out[0] = '0';
		out[1] = '\0';
		return 1;
	}
	e += (int) x + shift;
	adj = e + n - 1;			/* the value is in [10^adj, 10^(adj+1)) */
	if (adj >= 309)
		return AT_PROM_BAD_VALUE;
	if (adj <= -325)
		adj = -400;				/* rounds to zero */
	else if (adj == 308 || adj <= -323)
	{
		double		d;

		if (overflows(neg, dig, n, e, &d))
			return AT_PROM_BAD_VALUE;
		if (d == 0)
			adj = -400;
	}
	if (adj == -400)
	{
		if (cap < 2)
			return AT_PROM_BAD_VALUE;
		out[0] = '0';
		out[1] = '\0';
		return 1;
	}
	if (neg)
		out[o++] = '-';
	if (e >= 0 && n + e <= 21)
	{
		/* an integer: the digits, then e zeros */
		if (o + n + e + 1 > cap)
			return AT_PROM_BAD_VALUE;
		memcpy(out + o, dig, n);
		o += n;
		memset(out + o, '0', e);
		o += e;
	}
	else if (e < 0 && n + e > 0)
	{
		/* the point inside the digits */
		if (o + n + 2 > cap)
			return AT_PROM_BAD_VALUE;
		memcpy(out + o, dig, n + e);
		o += n + e;
		out[o++] = '.';
		memcpy(out + o, dig + n + e, -e);
		o += -e;
	}
	else if (e < 0 && -(n + e) <= 6 && o + 2 + -(n + e) + n + 1 <= cap)
	{
		/* 0.000ddd */
		out[o++] = '0';
		out[o++] = '.';
		memset(out + o, '0', -(n + e));
		o += -(n + e);
		memcpy(out + o, dig, n);
		o += n;
	}
	else
	{
		/* d.ddde<adj> */
		char		ex[8];
		int			el = snprintf(ex, sizeof(ex), "e%d", adj);

		if (o + n + 1 + el + 1 > cap)
			return AT_PROM_BAD_VALUE;
		out[o++] = dig[0];
		if (n > 1)
		{
			out[o++] = '.';
			memcpy(out + o, dig + 1, n - 1);
			o += n - 1;
		}
		memcpy(out + o, ex, el);
		o += el;
	}
	out[o] = '\0';
	return (int) o;
}

/* 9999-12-31T23:59:59.999Z */
#define AT_PROM_MS_MAX INT64_C(253402300799999)

int
at_prom_time_ms(const char *s, size_t len, int64_t *ms)
{
	int64_t		sec = 0,
				frac = 0;
	size_t		i = 0,
				nd;

	/* JSON integer part: 0, or digits without a leading zero */
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
	{
		sec = sec * 10 + (s[i] - '0');
		if (sec > AT_PROM_MS_MAX / 1000)
			return -1;
	}
	if (i == 0 || (i > 1 && s[0] == '0'))
		return -1;
	if (i < len && s[i] == '.')
	{
		size_t		start = ++i;

		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (i - start < 3)
				frac = frac * 10 + (s[i] - '0');
		nd = i - start;
		if (nd < 1 || nd > 3)
			return -1;
		for (; nd < 3; nd++)
			frac *= 10;
	}
	if (i != len)
		return -1;
	if (sec * 1000 + frac > AT_PROM_MS_MAX)
		return -1;
	*ms = sec * 1000 + frac;
	return 0;
}

/*
 * The value text of a line: [-]digits[.digits][e[+-]digits], at most
 * AT_PROM_VALUE_MAX + 8 bytes, finite.  Simple decimals of up to 15
 * significant digits are read exactly (an integer over an exact power of
 * ten rounds once), the rest through strtod.
 */
static int
value_read(const char *s, size_t len, double *v)
{
	char		buf[AT_PROM_VALUE_MAX + 9];
	size_t		i = 0;
	int			digits = 0,
				frac = 0,
				expo = 0;
	int64_t		m = 0;
	double		d;
	char	   *end;

	if (len == 0 || len > AT_PROM_VALUE_MAX + 8)
		return -1;
	if (s[0] == '-')
		i++;
	if (i >= len || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		m = digits < 18 ? m * 10 + (s[i] - '0') : m;
	if (i < len && s[i] == '.')
	{
		i++;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return -1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++, frac++)
			m = digits < 18 ? m * 10 + (s[i] - '0') : m;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || s[i] < '0' || s[i] > '9')
			return -1;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		expo = 1;
	}
	if (i != len)
		return -1;
	if (!expo && digits <= 15 && frac <= AT_P10_MAX)
	{
		d = frac ? (double) m / at_p10[frac] : (double) m;
		*v = s[0] == '-' ? -d : d;
		return 0;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	d = strtod(buf, &end);
	/* as float8in: an overflow or an underflow to zero is out of range */
	if (end != buf + len || isinf(d) || (errno == ERANGE && d == 0))
		return -1;
	*v = d;
	return 0;
}

int
at_prom_sample_next(const char **p, const char *end, int64_t *ms, double *v)
{
	const char *s = *p,
			   *c,
			   *q;
	int64_t		t = 0;

	if (s >= end)
		return 0;
	for (c = s; c < end && *c >= '0' && *c <= '9'; c++)
	{
		t = t * 10 + (*c - '0');
		if (t > AT_PROM_MS_MAX)
			return -1;
	}
	if (c == s || c >= end || *c != ':' || (c - s > 1 && *s == '0'))
		return -1;
	for (q = c + 1; q < end && *q != ' '; q++)
		;
	if (value_read(c + 1, (size_t) (q - c - 1), v) != 0)
		return -1;
	*ms = t;
	/* past the one space before a next pair; a trailing or second space
	 * stays, so the next call fails on it */
	*p = (q + 1 < end) ? q + 1 : q;
	return 1;
}
