/*
 * fuzz_occupancy_state_text.c: acmetrace.occupancy_state's text form, as
 * acmetrace_occupancy_state_in reads it (src/occupancy_agg.c): the input,
 * cut at its first NUL as a cstring is, through at_occ_state_text_read
 * ("v1:" and lower-case hexadecimal).  A refused text names a position
 * inside it.  Accepted text must write back to the very same text, and the
 * bytes it holds go through every check of the state (state_form,
 * fuzz_occupancy_state.h: at_occ_state_decode, which the input function
 * calls next).  And any bytes at all, written as text, read back the same.
 */
#include "fuzz_occupancy_state.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		len = strnlen((const char *) data, size);
	/* copies of exactly the right size: reading past them is an ASan error */
	char	   *s = malloc(len ? len : 1);
	uint8_t    *bytes = malloc(len / 2 + 1);
	char	   *text;
	uint8_t    *exact;
	size_t		n = 0,
				pos = 0;
	const char *msg;

	memcpy(s, data, len);
	msg = at_occ_state_text_read(s, len, bytes, &n, &pos);
	if (msg != NULL)
		FUZZ_CHECK(pos < len || (len == 0 && pos == 0), "error position %zu past the text's %zu bytes", pos, len);
	else
	{
		FUZZ_CHECK(len % 2 == 1 && n == (len - 3) / 2, "%zu bytes from %zu characters", n, len);
		text = malloc(at_occ_state_text_len(n) + 1);
		at_occ_state_text_write(text, bytes, n);
		FUZZ_CHECK(strlen(text) == len && memcmp(text, s, len) == 0, "the text does not write back the same");
		free(text);
		exact = malloc(n ? n : 1);
		memcpy(exact, bytes, n);
		state_form(exact, n);
		free(exact);
	}
	free(s);
	free(bytes);

	/* any bytes as text: read back the same bytes */
	text = malloc(at_occ_state_text_len(size) + 1);
	at_occ_state_text_write(text, data, size);
	bytes = malloc(size ? size : 1);
	FUZZ_CHECK(strlen(text) == at_occ_state_text_len(size) &&
			   at_occ_state_text_read(text, strlen(text), bytes, &n, &pos) == NULL && n == size &&
			   memcmp(bytes, data, size) == 0, "written bytes do not read back");
	free(text);
	free(bytes);
	return 0;
}
