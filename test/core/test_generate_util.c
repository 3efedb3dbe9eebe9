/* test_generate_util.c: synthetic wide lines split back into what was generated. */
#include <stdlib.h>
#include <string.h>

#include "unpivot.h"
#include "generate_util.h"
#include "tap.h"

void
test_generate_util(void)
{
	char		ts[26];
	int			series = 2600;
	char	   *buf = malloc(at_util_line_size(series));
	at_field   *f = malloc(sizeof(at_field) * (size_t) (series + 2));
	size_t		nf,
				pos,
				len,
				k;
	at_rng		r;
	int			values_ok = 1,
				blanks = 0,
				low = 0,
				high = 0;
	double		v;

	at_format_utc(0, ts);
	CHECK(strcmp(ts, "1970-01-01 00:00:00+00:00") == 0, "epoch formatted");
	at_format_utc(1688169600, ts);
	CHECK(strcmp(ts, "2023-07-01 00:00:00+00:00") == 0, "2023-07-01 formatted");
	at_format_utc(951782399, ts);
	CHECK(strcmp(ts, "2000-02-28 23:59:59+00:00") == 0, "end of 2000-02-28 formatted");
	at_format_utc(951868800, ts);
	CHECK(strcmp(ts, "2000-03-01 00:00:00+00:00") == 0, "leap day 2000 counted");
	at_format_utc(-1, ts);
	CHECK(strcmp(ts, "1969-12-31 23:59:59+00:00") == 0, "before the epoch");

	len = at_util_header(buf, series);
	CHECK(len < at_util_line_size(series) && at_csv_split(buf, len, f, (size_t) series + 2, &nf, &pos) == AT_CSV_OK &&
		  nf == (size_t) series + 1 && f[0].len == 4 && memcmp(f[1].start, "10.140.0.0", 10) == 0 &&
		  memcmp(f[series].start, "10.140.10.39", 12) == 0, "header: Time and 2,600 server columns");

	at_rng_seed(&r, 1);
	len = at_util_line(buf, series, 1688169600, 1, 0.1, &r);
	CHECK(len < at_util_line_size(series) && at_csv_split(buf, len, f, (size_t) series + 2, &nf, &pos) == AT_CSV_OK &&
		  nf == (size_t) series + 1, "line has 2,601 cells");
	for (k = 1; k < nf; k++)
	{
		at_value_status s = at_parse_value(f[k].start, f[k].len, &v);

		if (s == AT_VALUE_MISSING)
			blanks++;
		else if (s != AT_VALUE_OK || v < 0 || v > 100)
			values_ok = 0;
		else if (v <= 2.0)
			low++;
		else if (v >= 97.0)
			high++;
	}
	CHECK(values_ok, "every cell blank or a number in [0, 100]");
	CHECK(blanks > 150 && blanks < 380, "about 10%% blank cells (%d of 2600)", blanks);
	CHECK(low > 600 && high > 600, "polarized: %d cells idle, %d busy", low, high);
	free(buf);
	free(f);
}
