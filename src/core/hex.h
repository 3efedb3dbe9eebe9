/*
 * hex.h: the hexadecimal digits of the states' "v1:<hex>" text forms
 * (bins_state, occupancy_state, gbdt, gbdt_state), shared so both read and write them alike.
 */
#ifndef ACMETRACE_HEX_H
#define ACMETRACE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* 0..15 for a digit; upper-case A-F only when upper_ok; else -1. */
static inline int
at_hex_value(char c, int upper_ok)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (upper_ok && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The n bytes as 2n lower-case digits at out (no NUL).  Each byte is read
 * before its pair is written, so the bytes may lie at out + n, expanded in
 * place.
 */
static inline void
at_hex_write(char *out, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
	{
		uint8_t		c = bytes[i];

		out[2 * i] = digits[c >> 4];
		out[2 * i + 1] = digits[c & 15];
	}
}

#endif
