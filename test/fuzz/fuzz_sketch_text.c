/*
 * fuzz_sketch_text.c: the delay_sketch text input, at_sk_parse.
 *
 * The input is the text (cut at its first NUL, as a cstring would be).  On
 * an error the position must lie inside the text and nothing stays
 * allocated; a sketch that parses must pass at_sk_check, format to a text
 * that parses back to the same sketch and formats the same again, encode and
 * decode to the same sketch, merge, take values, and answer quantiles and
 * ranks in range (fuzz_sketch.h).
 */
#include "fuzz_sketch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = malloc(size + 1);
	at_sketch	sk;
	size_t		pos = SIZE_MAX;
	const char *msg;

	memcpy(s, data, size);
	s[size] = '\0';
	msg = at_sk_parse(&sk, s, fuzz_mem, &fuzz_live, &pos);
	if (msg != NULL)
	{
		FUZZ_CHECK(pos <= strlen(s), "error position %zu past the text's %zu bytes", pos, strlen(s));
		FUZZ_CHECK(sk.counts == NULL && sk.cum == NULL, "a refused text left buckets behind");
	}
	else
	{
		/* values to add and rank: the text's numbers, as strtod reads them */
		double		vals[16];
		int			nvals = 0;

		for (const char *p = s; *p && nvals < 16; p++)
			if ((*p >= '0' && *p <= '9') && (p == s || p[-1] == '=' || p[-1] == ':' || p[-1] == '+'))
				vals[nvals++] = strtod(p, NULL);
		sk_exercise(&sk, vals, nvals);
		at_sk_free(&sk);
	}
	free(s);
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations leaked", fuzz_live);
	return 0;
}
