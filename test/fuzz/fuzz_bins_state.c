/*
 * fuzz_bins_state.c: acmetrace.bins_state's text and binary readers.
 *
 * Every input is used twice:
 *  - as text for at_bins_parse (bins_state_in, src/bins_type.c): an error
 *    points inside the text and leaves no arrays; an accepted text is
 *    v1: and hexadecimal, and at_bins_format writes it back, lower case,
 *    as the same text, which reads again;
 *  - as the bytes of a flat state (bins_state_recv and every function
 *    reading a stored state): "v1:" and their hexadecimal read exactly
 *    when at_bins_decode takes the bytes, with the same message, so the
 *    text form has no checks of its own to get wrong.
 * at_bins_decode's own invariants are fuzz_bins.c's.
 */
#include <ctype.h>

#include "fuzz_common.h"
#include "bins.h"

static void
as_text(const uint8_t *data, size_t size)
{
	at_bins		h,
				again;
	size_t		pos = (size_t) -1;
	const char *msg = at_bins_parse(&h, (const char *) data, size, fuzz_mem, &fuzz_live, &pos);
	char	   *t;

	if (msg != NULL)
	{
		FUZZ_CHECK(pos <= size, "error position %zu past the %zu-byte text", pos, size);
		FUZZ_CHECK(h.counts == NULL && h.params == NULL && h.in == NULL && h.weights == NULL,
				   "a refused text left arrays behind");
		return;
	}
	FUZZ_CHECK(size >= 3 && memcmp(data, "v1:", 3) == 0 && size % 2 == 1, "accepted without v1: and digit pairs");
	t = malloc(at_bins_text_size(&h));
	at_bins_format(&h, t);
	FUZZ_CHECK(strlen(t) + 1 == at_bins_text_size(&h) && strlen(t) == size, "formatted to %zu characters from %zu",
			   strlen(t), size);
	for (size_t i = 0; i < size; i++)
		FUZZ_CHECK(t[i] == tolower(data[i]) && (i < 3 || isxdigit((unsigned char) data[i])),
				   "text differs at %zu: %c for %c", i, t[i], data[i]);
	msg = at_bins_parse(&again, t, strlen(t), fuzz_mem, &fuzz_live, &pos);
	FUZZ_CHECK(msg == NULL && at_bins_same_shape(&h, &again) && again.n == h.n, "own text refused: %s",
			   msg ? msg : "other state");
	at_bins_free(&again, fuzz_mem, &fuzz_live);
	free(t);
	at_bins_free(&h, fuzz_mem, &fuzz_live);
}

static void
as_bytes(const uint8_t *data, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	char	   *t = malloc(3 + 2 * size + 1);
	at_bins		a,
				b;
	size_t		pos;
	const char *ma,
			   *mb;

	memcpy(t, "v1:", 3);
	for (size_t i = 0; i < size; i++)
	{
		/* mixed case: both read */
		t[3 + 2 * i] = (char) (i % 2 ? toupper(hex[data[i] >> 4]) : hex[data[i] >> 4]);
		t[3 + 2 * i + 1] = hex[data[i] & 15];
	}
	t[3 + 2 * size] = '\0';
	ma = at_bins_decode(&a, data, size, fuzz_mem, &fuzz_live);
	mb = at_bins_parse(&b, t, 3 + 2 * size, fuzz_mem, &fuzz_live, &pos);
	FUZZ_CHECK((ma == NULL) == (mb == NULL) && (ma == NULL || strcmp(ma, mb) == 0),
			   "bytes: %s, their text: %s", ma ? ma : "accepted", mb ? mb : "accepted");
	if (ma == NULL)
	{
		FUZZ_CHECK(at_bins_same_shape(&a, &b) && a.n == b.n && a.wtotal == b.wtotal &&
				   memcmp(a.counts, b.counts, (size_t) a.nslots * sizeof(int64_t)) == 0, "text read another state");
		at_bins_free(&a, fuzz_mem, &fuzz_live);
	}
	if (mb == NULL)
		at_bins_free(&b, fuzz_mem, &fuzz_live);
	free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_text(data, size);
	as_bytes(data, size);
	FUZZ_CHECK(fuzz_live == 0, "%ld allocations leaked", fuzz_live);
	return 0;
}
