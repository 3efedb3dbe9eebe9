/*
 * generate_util.c: synthetic wide utilization lines.  See generate_util.h.
 */
#include <stdio.h>
#include <string.h>

#include "generate_util.h"

void
at_format_utc(int64_t unix_s, char out[26])
{
	/* civil_from_days (H. Hinnant); years outside 0..9999 are clamped */
	int64_t		days = unix_s >= 0 ? unix_s / 86400 : -((-unix_s + 86399) / 86400);
	int64_t		secs = unix_s - days * 86400;
	int64_t		z = days + 719468;
	int64_t		era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t		doe = z - era * 146097;
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;
	int			d = (int) (doy - (153 * mp + 2) / 5 + 1);
	int			m = (int) (mp < 10 ? mp + 3 : mp - 9);
	int64_t		y = yoe + era * 400 + (m <= 2);
	char		tmp[64];

	if (y < 0)
		y = 0;
	if (y > 9999)
		y = 9999;
	snprintf(tmp, sizeof tmp, "%04d-%02d-%02d %02d:%02d:%02d+00:00",
			 (int) y, m, d, (int) (secs / 3600), (int) (secs / 60 % 60), (int) (secs % 60));
	memcpy(out, tmp, 25);
	out[25] = '\0';
}

size_t
at_util_line_size(int series)
{
	/* a cell is at most ",100.000" or ",10.140.255.255" (16 bytes) */
	return 32 + (size_t) (series > 0 ? series : 0) * 16;
}

size_t
at_util_header(char *buf, int series)
{
	size_t		n = (size_t) sprintf(buf, "Time");
	int			i;

	for (i = 0; i < series; i++)
		n += (size_t) sprintf(buf + n, ",10.140.%d.%d", (i / 256) % 256, i % 256);
	return n;
}

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

size_t
at_util_line(char *buf, int series, int64_t unix_s, uint64_t seed,
			 double blank_share, at_rng *rng)
{
	char		ts[26];
	size_t		n;
	int			i;

	at_format_utc(unix_s, ts);
	n = (size_t) sprintf(buf, "%s", ts);
	for (i = 0; i < series; i++)
	{
		uint64_t	regime = mix(seed ^ mix((uint64_t) i * 1000003u + (uint64_t) (unix_s / 3600))) % 10;
		double		u = at_rng_uniform(rng);
		double		v;

		if (at_rng_uniform(rng) < blank_share)
		{
			buf[n++] = ',';
			continue;
		}
		if (regime < 4)
			v = 2.0 * u;			/* idle */
		else if (regime < 8)
			v = 97.0 + 3.0 * u;		/* busy */
		else
			v = 100.0 * u;
		n += (size_t) sprintf(buf + n, ",%.3f", v);
	}
	buf[n] = '\0';
	return n;
}
