/* test_prometheus.c: unit tests of the Prometheus rules (prometheus.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus.h"
#include "tap.h"

/* s copied into a buffer of exactly its length: reading past it is an ASan error */
static char *
exact(const char *s)
{
	size_t		n = strlen(s);
	char	   *b = malloc(n ? n : 1);

	memcpy(b, s, n);
	return b;
}

static void
test_fields(void)
{
	const at_prom_field *f;

	CHECK(at_prom_nfields == 9, "nine DCGM fields");
	f = at_prom_field_of("DCGM_FI_DEV_GPU_UTIL", 20);
	CHECK(f && strcmp(f->metric, "GPU_UTIL") == 0 && f->shift == 0, "GPU_UTIL, shift 0");
	f = at_prom_field_of("DCGM_FI_PROF_SM_ACTIVE", 22);
	CHECK(f && strcmp(f->metric, "SM_ACTIVE") == 0 && f->shift == 2, "SM_ACTIVE, shift 2");
	f = at_prom_field_of("DCGM_FI_PROF_DRAM_ACTIVE", 24);
	CHECK(f && f->shift == 2, "DRAM_ACTIVE, shift 2");
	f = at_prom_field_of("DCGM_FI_DEV_POWER_USAGE", 23);
	CHECK(f && strcmp(f->metric, "POWER_USAGE") == 0 && f->shift == 0, "POWER_USAGE");
	CHECK(at_prom_field_of("DCGM_FI_DEV_GPU_UTI", 19) == NULL, "a prefix is no field");
	CHECK(at_prom_field_of("DCGM_FI_DEV_GPU_UTILX", 21) == NULL, "a longer name is no field");
	CHECK(at_prom_field_of("DCGM_FI_DEV_GPU_UTILX", 20) != NULL, "the length is what counts");
	CHECK(at_prom_field_of("dcgm_fi_dev_gpu_util", 20) == NULL, "names are case-sensitive");
	CHECK(at_prom_field_of("DCGM_FI_DEV_XID_ERRORS", 22) == NULL, "XID errors are not read");
	CHECK(at_prom_field_of("", 0) == NULL, "empty");
	for (int i = 0; i < at_prom_nfields; i++)
	{
		const at_prom_field *g = at_prom_field_of(at_prom_fields[i].dcgm, strlen(at_prom_fields[i].dcgm));

		CHECK(g == &at_prom_fields[i] && (g->shift == 0 || g->shift == 2), "field %s found", at_prom_fields[i].dcgm);
	}
}

static int
name(char *out, size_t cap, const char *h, const char *g)
{
	char	   *hc = exact(h),
			   *gc = exact(g);
	int			r = at_prom_series_name(out, cap, hc, strlen(h), gc, strlen(g));

	free(hc);
	free(gc);
	return r;
}

static int
valid(const char *s)
{
	char	   *c = exact(s);
	int			r = at_prom_series_valid(c, strlen(s));

	free(c);
	return r;
}

static int
job(const char *s)
{
	char	   *c = exact(s);
	int			r = at_prom_job_valid(c, strlen(s));

	free(c);
	return r;
}

static void
test_series(void)
{
	char		out[AT_PROM_SERIES_MAX + 1];
	char		host[AT_PROM_HOST_MAX + 2];
	int			r;

	r = name(out, sizeof(out), "node01", "3");
	CHECK(r == 11 && strcmp(out, "node01-gpu3") == 0, "node01-gpu3");
	r = name(out, sizeof(out), "dgx-a100.example.org:9400", "0");
	CHECK(r > 0 && strcmp(out, "dgx-a100.example.org:9400-gpu0") == 0, "instance label as host");
	CHECK(name(out, sizeof(out), "a_b", "9999") == 11 && strcmp(out, "a_b-gpu9999") == 0, "the largest index");
	CHECK(name(out, sizeof(out), "n", "10000") == AT_PROM_BAD_GPU, "index over 9999");
	CHECK(name(out, sizeof(out), "n", "01") == AT_PROM_BAD_GPU, "leading zero");
	CHECK(name(out, sizeof(out), "n", "00") == AT_PROM_BAD_GPU, "00");
	CHECK(name(out, sizeof(out), "n", "") == AT_PROM_BAD_GPU, "empty index");
	CHECK(name(out, sizeof(out), "n", "-1") == AT_PROM_BAD_GPU, "negative index");
	CHECK(name(out, sizeof(out), "n", "+1") == AT_PROM_BAD_GPU, "signed index");
	CHECK(name(out, sizeof(out), "n", " 1") == AT_PROM_BAD_GPU, "blank in index");
	CHECK(name(out, sizeof(out), "n", "1a") == AT_PROM_BAD_GPU, "letter in index");
	CHECK(name(out, sizeof(out), "n", "nvidia0") == AT_PROM_BAD_GPU, "a device name is no index");
	CHECK(name(out, sizeof(out), "", "1") == AT_PROM_BAD_HOST, "empty host");
	CHECK(name(out, sizeof(out), "a b", "1") == AT_PROM_BAD_HOST, "blank in host");
	CHECK(name(out, sizeof(out), "a/b", "1") == AT_PROM_BAD_HOST, "slash in host");
	CHECK(name(out, sizeof(out), "a\tb", "1") == AT_PROM_BAD_HOST, "tab in host");
	CHECK(name(out, sizeof(out), "h\xc3\xa9", "1") == AT_PROM_BAD_HOST, "non-ASCII host");
	CHECK(name(out, sizeof(out), "", "x") == AT_PROM_BAD_HOST, "the host is checked first");
	memset(host, 'h', AT_PROM_HOST_MAX);
	host[AT_PROM_HOST_MAX] = '\0';
	r = name(out, sizeof(out), host, "9999");
	CHECK(r == AT_PROM_SERIES_MAX && (int) strlen(out) == r && valid(out), "the longest name fits AT_PROM_SERIES_MAX");
	CHECK(name(out, AT_PROM_SERIES_MAX, host, "9999") == AT_PROM_BAD_HOST, "a buffer one byte short");
	CHECK(name(out, 8, "n", "123") == AT_PROM_BAD_HOST && name(out, 9, "n", "123") == 8 && strcmp(out, "n-gpu123") == 0, "cap counts the NUL");
	host[AT_PROM_HOST_MAX] = 'h';
	host[AT_PROM_HOST_MAX + 1] = '\0';
	CHECK(name(out, sizeof(out), host, "1") == AT_PROM_BAD_HOST, "a host of 201 bytes");

	CHECK(valid("node01-gpu3"), "valid: node01-gpu3");
	CHECK(valid("a-gpu1-gpu2"), "valid: a host holding -gpu");
	CHECK(valid("x.y:9400-gpu0"), "valid: instance");
	CHECK(!valid("node01-gpu"), "no index");
	CHECK(!valid("node01-gpu03"), "leading zero");
	CHECK(!valid("-gpu3"), "no host");
	CHECK(!valid("gpu3"), "no -gpu");
	CHECK(!valid(""), "empty");
	CHECK(!valid("-gp"), "shorter than -gpu");
	CHECK(!valid("a-gpu1-gpu"), "the last -gpu has no index");
	CHECK(!valid("a b-gpu1"), "blank in host");
	CHECK(!valid("a-GPU1"), "-GPU");
	CHECK(!valid("!end"), "a control line is no series");
	CHECK(!valid("a-gpu10000"), "index over 9999");
	host[AT_PROM_HOST_MAX] = '\0';
	strcpy(out, host);
	strcat(out, "-gpu1");
	CHECK(valid(out), "a 200-byte host");
	memmove(out + 1, out, strlen(out) + 1);
	CHECK(!valid(out), "a 201-byte host");

	CHECK(job("4242"), "job 4242");
	CHECK(job("4242_7"), "array task");
	CHECK(job("4242+1"), "het job");
	CHECK(job("a!#$%&()*+,-./:;<=>?@[]^_{|}~"), "punctuation");
	CHECK(!job(""), "empty job");
	CHECK(!job("42 42"), "blank");
	CHECK(!job("42\t"), "tab");
	CHECK(!job("4\\2"), "backslash");
	CHECK(!job("4\"2"), "double quote");
	CHECK(!job("4'2"), "single quote");
	CHECK(!job("4`2"), "back quote");
	CHECK(!job("4\x7f"), "DEL");
	CHECK(!job("4\xc3\xa9"), "non-ASCII");
	CHECK(!job("\n"), "newline");
	memset(host, '7', AT_PROM_JOB_MAX);
	host[AT_PROM_JOB_MAX] = '\0';
	CHECK(job(host), "64 bytes");
	host[AT_PROM_JOB_MAX] = '7';
	host[AT_PROM_JOB_MAX + 1] = '\0';
	CHECK(!job(host), "65 bytes");
}

static int
scale(char *out, const char *v, int shift)
{
	char	   *c = exact(v);
	int			r;

	memset(out, 'X', AT_PROM_VALUE_MAX + 8);
	r = at_prom_scale(out, AT_PROM_VALUE_MAX + 8, c, strlen(v), shift);
	free(c);
	return r;
}

/* v scaled by shift writes want exactly, and strtod reads it as exact's nearest double */
static void
scale_is(const char *v, int shift, const char *want, const char *exactval)
{
	char		out[AT_PROM_VALUE_MAX + 8];
	int			r = scale(out, v, shift);

	CHECK(r == (int) strlen(want) && r >= 0 && strcmp(out, want) == 0 &&
		  strtod(out, NULL) == strtod(exactval, NULL),
		  "scale %s by 10^%d: %s (got %d \"%.*s\")", v, shift, want, r, r > 0 ? r : 0, out);
}

static void
test_scale(void)
{
	char		out[AT_PROM_VALUE_MAX + 8];
	char		in[AT_PROM_VALUE_MAX + 2];

	scale_is("0.537", 2, "53.7", "53.7");
	scale_is("1", 2, "100", "100");
	scale_is("1", 0, "1", "1");
	scale_is("45", 0, "45", "45");
	scale_is("1e-05", 2, "0.001", "0.001");
	scale_is("1e-05", 0, "0.00001", "0.00001");
	scale_is("1E-05", 0, "0.00001", "1e-5");
	scale_is("1e-07", 0, "0.0000001", "1e-7");
	scale_is("1e-08", 0, "1e-8", "1e-8");
	scale_is("-1.25e-10", 2, "-1.25e-8", "-1.25e-8");
	scale_is("1.5e-07", 2, "0.000015", "0.000015");
	scale_is("-0", 2, "0", "0");
	scale_is("0", 2, "0", "0");
	scale_is("+0.000", 0, "0", "0");
	scale_is("0e999999999999", 2, "0", "0");
	scale_is("0.005", 2, "0.5", "0.5");
	scale_is("0.1", 2, "10", "10");
	scale_is("0.12345678901234567", 2, "12.345678901234567", "12.345678901234567");
	scale_is("-0.25", 2, "-25", "-25");
	scale_is("+7.50", 0, "7.5", "7.5");
	scale_is("007", 0, "7", "7");
	scale_is("1.", 2, "100", "100");
	scale_is(".5", 2, "50", "50");
	scale_is("123.456", 2, "12345.6", "12345.6");
	scale_is("81920", 0, "81920", "81920");
	scale_is("2.5e3", 2, "250000", "250000");
	scale_is("2.5E+3", 0, "2500", "2500");
	scale_is("1e18", 2, "100000000000000000000", "1e20");
	scale_is("1e19", 2, "1e21", "1e21");
	scale_is("1e20", 2, "1e22", "1e22");
	scale_is("1.5e25", 0, "1.5e25", "1.5e25");
	scale_is("1e-6", 0, "0.000001", "1e-6");
	scale_is("1.25e-6", 0, "0.00000125", "1.25e-6");
	scale_is("0.1e-6", 0, "0.0000001", "1e-7");
	scale_is("0.1e-7", 0, "1e-8", "1e-8");
	scale_is("1.7976931348623157e308", 0, "1.7976931348623157e308", "1.7976931348623157e308");
	scale_is("1.7976931348623157e306", 2, "1.7976931348623157e308", "1.7976931348623157e308");
	scale_is("4.9e-324", 0, "4.9e-324", "4.9e-324");
	scale_is("4.9e-326", 2, "4.9e-324", "4.9e-324");
	scale_is("2e-324", 0, "0", "0");
	scale_is("1e-400", 2, "0", "0");
	scale_is("-1e-400", 0, "0", "0");
	scale_is("3e-323", 0, "3e-323", "3e-323");
	/* the exact product's nearest double: 0.1 * 100 is not 10.000000000000002 */
	scale_is("0.07", 2, "7", "7");
	scale_is("0.29", 2, "29", "29");
	scale_is("0.57", 2, "57", "57");
	/* 17 significant digits the shift keeps */
	scale_is("0.30000000000000004", 2, "30.000000000000004", "30.000000000000004");

	CHECK(scale(out, "1.8e308", 0) == AT_PROM_BAD_VALUE, "overflow");
	CHECK(scale(out, "1.7976931348623159e308", 0) == AT_PROM_BAD_VALUE, "rounds past DBL_MAX");
	CHECK(scale(out, "1.8e306", 2) == AT_PROM_BAD_VALUE, "overflow by the shift");
	CHECK(scale(out, "1e309", 0) == AT_PROM_BAD_VALUE, "1e309");
	CHECK(scale(out, "1e99999999999", 0) == AT_PROM_BAD_VALUE, "a huge exponent");
	CHECK(scale(out, "NaN", 0) == AT_PROM_NONFINITE, "NaN");
	CHECK(scale(out, "nan", 2) == AT_PROM_NONFINITE, "nan");
	CHECK(scale(out, "+Inf", 0) == AT_PROM_NONFINITE, "+Inf");
	CHECK(scale(out, "-Inf", 2) == AT_PROM_NONFINITE, "-Inf");
	CHECK(scale(out, "Inf", 0) == AT_PROM_NONFINITE, "Inf");
	CHECK(scale(out, "-infinity", 0) == AT_PROM_NONFINITE, "-infinity");
	CHECK(scale(out, "+NaN", 0) == AT_PROM_BAD_VALUE, "+NaN");
	CHECK(scale(out, "Infinit", 0) == AT_PROM_BAD_VALUE, "Infinit");
	CHECK(scale(out, "", 0) == AT_PROM_BAD_VALUE, "empty");
	CHECK(scale(out, "-", 0) == AT_PROM_BAD_VALUE, "a sign alone");
	CHECK(scale(out, ".", 0) == AT_PROM_BAD_VALUE, "a point alone");
	CHECK(scale(out, "e5", 0) == AT_PROM_BAD_VALUE, "no digits");
	CHECK(scale(out, "1e", 0) == AT_PROM_BAD_VALUE, "no exponent digits");
	CHECK(scale(out, "1e+", 0) == AT_PROM_BAD_VALUE, "an exponent sign alone");
	CHECK(scale(out, " 1", 0) == AT_PROM_BAD_VALUE, "leading blank");
	CHECK(scale(out, "1 ", 0) == AT_PROM_BAD_VALUE, "trailing blank");
	CHECK(scale(out, "0x10", 0) == AT_PROM_BAD_VALUE, "hexadecimal");
	CHECK(scale(out, "1,5", 0) == AT_PROM_BAD_VALUE, "a comma");
	CHECK(scale(out, "--1", 0) == AT_PROM_BAD_VALUE, "two signs");
	CHECK(scale(out, "1.2.3", 0) == AT_PROM_BAD_VALUE, "two points");
	CHECK(scale(out, "1e5.5", 0) == AT_PROM_BAD_VALUE, "a fractional exponent");
	CHECK(scale(out, "\"1\"", 0) == AT_PROM_BAD_VALUE, "quoted");
	memset(in, '9', AT_PROM_VALUE_MAX);
	in[AT_PROM_VALUE_MAX] = '\0';
	CHECK(scale(out, in, 2) == 68 && strtod(out, NULL) == strtod("9999999999999999999999999999999999999999999999999999999999999999e2", NULL),
		  "64 digits: %s", out);
	in[0] = '-';
	in[1] = '.';
	CHECK(scale(out, in, 2) > 0 && out[0] == '-' && strtod(out, NULL) == -strtod("0.99999999999999999999999999999999999999999999999999999999999999e2", NULL),
		  "-.999...: %s", out);
	in[1] = '0';
	in[2] = '.';
	memset(in + 3, '0', 60);
	CHECK(scale(out, in, 0) > 0 && (int) strlen(out) < AT_PROM_VALUE_MAX + 8 &&
		  strtod(out, NULL) == strtod(in, NULL), "-0.000...9: %s", out);
	in[AT_PROM_VALUE_MAX] = '9';
	in[AT_PROM_VALUE_MAX + 1] = '\0';
	CHECK(scale(out, in, 0) == AT_PROM_BAD_VALUE, "65 bytes");
	CHECK(at_prom_scale(out, 3, "100", 3, 0) == AT_PROM_BAD_VALUE && at_prom_scale(out, 4, "100", 3, 0) == 3,
		  "cap counts the NUL");
	CHECK(at_prom_scale(out, 1, "0", 1, 0) == AT_PROM_BAD_VALUE, "no room for 0");

	/* random decimals against strtod of the text with the shift as an exponent */
	srand(34);
	for (int k = 0; k < 20000; k++)
	{
		char		v[48],
					ref[64];
		int			n = 0,
					shift = rand() % 3 == 0 ? 0 : 2,
					r;
		int			ip = rand() % 6,
					fp = rand() % 19;

		if (rand() % 4 == 0)
			v[n++] = '-';
		for (int i = 0; i < ip + 1; i++)
			v[n++] = (char) ('0' + (i == 0 && ip > 0 ? 1 + rand() % 9 : rand() % 10));
		if (fp > 0)
		{
			v[n++] = '.';
			for (int i = 0; i < fp; i++)
				v[n++] = (char) ('0' + rand() % 10);
		}
		if (rand() % 5 == 0)
			n += sprintf(v + n, "e%d", rand() % 41 - 20);
		v[n] = '\0';
		snprintf(ref, sizeof(ref), "%s%se%d", v, strchr(v, 'e') ? "" : "", 0);
		if (strchr(v, 'e'))
		{
			int			ex = atoi(strchr(v, 'e') + 1);

			snprintf(ref, sizeof(ref), "%.*se%d", (int) (strchr(v, 'e') - v), v, ex + shift);
		}
		else
			snprintf(ref, sizeof(ref), "%se%d", v, shift);
		r = scale(out, v, shift);
		if (!(r > 0 && strtod(out, NULL) == strtod(ref, NULL) && (strtod(out, NULL) != 0 || strcmp(out, "0") == 0)))
		{
			CHECK(0, "random scale %s by 10^%d: %s", v, shift, out);
			return;
		}
	}
	CHECK(1, "20,000 random decimals scale to the nearest double of the exact product");
}

static int
tms(const char *s, int64_t *ms)
{
	char	   *c = exact(s);
	int			r;

	*ms = -42;
	r = at_prom_time_ms(c, strlen(s), ms);
	free(c);
	return r;
}

static void
test_time(void)
{
	int64_t		ms;

	CHECK(tms("1688169600.123", &ms) == 0 && ms == INT64_C(1688169600123), "1688169600.123");
	CHECK(tms("1688169600", &ms) == 0 && ms == INT64_C(1688169600000), "whole seconds");
	CHECK(tms("1688169600.5", &ms) == 0 && ms == INT64_C(1688169600500), "one decimal");
	CHECK(tms("1688169600.05", &ms) == 0 && ms == INT64_C(1688169600050), "two decimals");
	CHECK(tms("1688169600.001", &ms) == 0 && ms == INT64_C(1688169600001), "one ms");
	CHECK(tms("1688169600.100", &ms) == 0 && ms == INT64_C(1688169600100), "trailing zeros");
	CHECK(tms("0", &ms) == 0 && ms == 0, "0");
	CHECK(tms("0.001", &ms) == 0 && ms == 1, "0.001");
	CHECK(tms("253402300799.999", &ms) == 0 && ms == INT64_C(253402300799999), "the last ms of 9999");
	CHECK(tms("253402300800", &ms) == -1 && ms == -42, "year 10000");
	CHECK(tms("253402300799.9999", &ms) == -1, "4 decimals at the end");
	CHECK(tms("1688169600.1234", &ms) == -1, "4 decimals");
	CHECK(tms("1688169600.1230", &ms) == -1, "4 decimals, the last a zero");
	CHECK(tms("99999999999999999999999999", &ms) == -1, "huge");
	CHECK(tms("-1", &ms) == -1, "negative");
	CHECK(tms("-0", &ms) == -1, "-0");
	CHECK(tms("+1", &ms) == -1, "plus sign");
	CHECK(tms("1e9", &ms) == -1, "1e9");
	CHECK(tms("1.6881696e9", &ms) == -1, "1.6881696e9");
	CHECK(tms("1688169600E0", &ms) == -1, "E0");
	CHECK(tms("01", &ms) == -1, "leading zero");
	CHECK(tms("00.5", &ms) == -1, "00.5");
	CHECK(tms("1.", &ms) == -1, "1.");
	CHECK(tms(".5", &ms) == -1, ".5");
	CHECK(tms("", &ms) == -1, "empty");
	CHECK(tms(" 1", &ms) == -1, "blank");
	CHECK(tms("1 ", &ms) == -1, "trailing blank");
	CHECK(tms("\"1688169600\"", &ms) == -1, "quoted");
	CHECK(tms("1688169600.12a", &ms) == -1, "a letter");
	CHECK(tms("NaN", &ms) == -1, "NaN");
}

/* all pairs of s: "<ms>:<value>;..." or "ERR@<offset>" */
static void
pairs(const char *s, char *res, size_t cap)
{
	char	   *c = exact(s);
	const char *p = c,
			   *end = c + strlen(s);
	int64_t		ms;
	double		v;
	int			r;
	size_t		o = 0;

	res[0] = '\0';
	while ((r = at_prom_sample_next(&p, end, &ms, &v)) == 1)
		o += snprintf(res + o, cap - o, "%lld:%.17g;", (long long) ms, v);
	if (r < 0)
		snprintf(res + o, cap - o, "ERR@%d", (int) (p - c));
	free(c);
}

static void
pairs_are(const char *s, const char *want)
{
	char		res[1024];

	pairs(s, res, sizeof(res));
	CHECK(strcmp(res, want) == 0, "samples \"%s\": %s (got %s)", s, want, res);
}

static void
test_sample_next(void)
{
	char		buf[256];

	pairs_are("", "");
	pairs_are("1688169600123:45", "1688169600123:45;");
	pairs_are("1:45 2:53.7 3:-0.5", "1:45;2:53.700000000000003;3:-0.5;");
	pairs_are("0:0", "0:0;");
	pairs_are("5:1e-7 6:1.5e25 7:4.9e-324 8:1E+2", "5:9.9999999999999995e-08;6:1.5e+25;7:4.9406564584124654e-324;8:100;");
	pairs_are("253402300799999:1", "253402300799999:1;");
	pairs_are("5:0.1234567890123456789", "5:0.12345678901234568;");
	pairs_are("253402300800000:1", "ERR@0");
	pairs_are("1:45 ", "1:45;ERR@4");
	pairs_are(" 1:45", "ERR@0");
	pairs_are("1:45  2:46", "1:45;ERR@5");
	pairs_are("1:45\t2:46", "ERR@0");
	pairs_are("1:", "ERR@0");
	pairs_are(":1", "ERR@0");
	pairs_are("1", "ERR@0");
	pairs_are("01:1", "ERR@0");
	pairs_are("-1:1", "ERR@0");
	pairs_are("1:+1", "ERR@0");
	pairs_are("1:.5", "ERR@0");
	pairs_are("1:5.", "ERR@0");
	pairs_are("1:1e", "ERR@0");
	pairs_are("1:1e+", "ERR@0");
	pairs_are("1:NaN", "ERR@0");
	pairs_are("1:Inf", "ERR@0");
	pairs_are("1:1e309", "ERR@0");
	pairs_are("1:1e-400", "ERR@0");
	pairs_are("1:0x1", "ERR@0");
	pairs_are("1:1:2", "ERR@0");
	pairs_are("1:2 x", "1:2;ERR@4");
	pairs_are("2:1 1:1", "2:1;1:1;");	/* the order is the caller's check */
	pairs_are("99999999999999999999:1", "ERR@0");
	/* the longest value */
	memset(buf, 0, sizeof(buf));
	strcpy(buf, "1:");
	memset(buf + 2, '1', AT_PROM_VALUE_MAX + 8);
	pairs(buf, buf + 128, 128);
	CHECK(strncmp(buf + 128, "1:", 2) == 0 && strtod(buf + 130, NULL) == strtod(buf + 2, NULL) &&
		  strchr(buf + 128, ';') != NULL, "a value of 72 bytes: %s", buf + 128);
	memset(buf, 0, sizeof(buf));
	strcpy(buf, "1:");
	memset(buf + 2, '1', AT_PROM_VALUE_MAX + 9);
	pairs(buf, buf + 128, 128);
	CHECK(strcmp(buf + 128, "ERR@0") == 0, "a value of 73 bytes");

	/* everything at_prom_scale writes reads back as its double */
	srand(7);
	for (int k = 0; k < 5000; k++)
	{
		char		v[40],
					out[AT_PROM_VALUE_MAX + 8],
					line[128];
		int			r;
		const char *p;
		int64_t		ms;
		double		d;

		snprintf(v, sizeof(v), "%s%d.%de%d", rand() % 3 ? "" : "-", rand(), rand() % 1000, rand() % 700 - 350);
		r = at_prom_scale(out, sizeof(out), v, strlen(v), 2);
		if (r < 0)
			continue;
		snprintf(line, sizeof(line), "%d:%s", k, out);
		p = line;
		if (at_prom_sample_next(&p, line + strlen(line), &ms, &d) != 1 || ms != k || d != strtod(out, NULL))
		{
			CHECK(0, "scaled %s reads back: %s", v, line);
			return;
		}
	}
	CHECK(1, "every scaled value reads back as a line's sample");
}

void
test_prometheus(void)
{
	test_fields();
	test_series();
	test_scale();
	test_time();
	test_sample_next();
}
