/*
 * bytes.h: the fields of every serialized form, so a value written on one
 * machine reads the same on any other: fixed-width big-endian fields (the
 * aggregate states), little-endian ones (acmetrace.samples), zigzag and
 * LEB128 varints (samples, delay_sketch), and the bit casts they need.
 */
#ifndef ACMETRACE_BYTES_H
#define ACMETRACE_BYTES_H

#include <stdint.h>
#include <string.h>

/* Bit casts without the implementation-defined conversions; plain moves. */
#define AT_BITCAST(name, from_t, to_t) \
static inline to_t \
name(from_t x) \
{ \
	to_t		y; \
\
	memcpy(&y, &x, sizeof y); \
	return y; \
}
AT_BITCAST(at_bits_double, uint64_t, double)
AT_BITCAST(at_double_bits, double, uint64_t)
/* two's complement, which int64_t always is; loops over it still vectorize */
AT_BITCAST(at_u2i, uint64_t, int64_t)
#undef AT_BITCAST

/* ---- big-endian ---- */

static inline void
at_put_u64(unsigned char *p, uint64_t v)
{
	for (int k = 7; k >= 0; k--, v >>= 8)
		p[k] = (unsigned char) (v & 0xff);
}

static inline uint64_t
at_get_u64(const unsigned char *p)
{
	uint64_t	v = 0;

	for (int k = 0; k < 8; k++)
		v = (v << 8) | p[k];
	return v;
}

static inline void
at_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) (v >> 24);
	p[1] = (unsigned char) (v >> 16);
	p[2] = (unsigned char) (v >> 8);
	p[3] = (unsigned char) v;
}

static inline uint32_t
at_get_u32(const unsigned char *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
}

static inline void
at_put_double(unsigned char *p, double d)
{
	at_put_u64(p, at_double_bits(d));
}

static inline double
at_get_double(const unsigned char *p)
{
	return at_bits_double(at_get_u64(p));
}

/* ---- little-endian (a plain load or store on little-endian machines) ---- */

static inline uint64_t
at_get_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t	v;

	memcpy(&v, p, 8);
	return v;
#else
	return (uint64_t) p[0] | (uint64_t) p[1] << 8 | (uint64_t) p[2] << 16 | (uint64_t) p[3] << 24 |
		(uint64_t) p[4] << 32 | (uint64_t) p[5] << 40 | (uint64_t) p[6] << 48 | (uint64_t) p[7] << 56;
#endif
}

static inline void
at_put_le64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	for (int k = 0; k < 8; k++, v >>= 8)
		p[k] = (unsigned char) v;
#endif
}

static inline uint32_t
at_get_le32(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static inline void
at_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) v;
	p[1] = (unsigned char) (v >> 8);
	p[2] = (unsigned char) (v >> 16);
	p[3] = (unsigned char) (v >> 24);
}

/* ---- zigzag (small magnitudes stay short) and LEB128 varints ---- */

static inline uint64_t
at_zigzag(uint64_t u)
{
	return (u << 1) ^ (0 - (u >> 63));
}

static inline uint64_t
at_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Bytes at_varint_put writes for x (1..10). */
static inline int
at_varint_len(uint64_t x)
{
	int			k = 1;

	while (x >= 0x80)
	{
		x >>= 7;
		k++;
	}
	return k;
}

/* Writes x at p; returns the byte after it. */
static inline unsigned char *
at_varint_put(unsigned char *p, uint64_t x)
{
	while (x >= 0x80)
	{
		*p++ = (unsigned char) (x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char) x;
	return p;
}

/* A varint of bytes already checked (at_varint_check passed them): no bounds checks. */
static inline uint64_t
at_varint_get(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint64_t	x = 0;
	int			sh = 0;
	unsigned char b;

	if (*p < 0x80)
	{
		*pp = p + 1;
		return *p;
	}
	do
	{
		b = *p++;
		x |= (uint64_t) (b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	*pp = p;
	return x;
}

/*
 * A varint of untrusted bytes at p: the byte after it, or NULL unless it
 * ends before end and fits 64 bits.
 */
static inline const unsigned char *
at_varint_check(const unsigned char *p, const unsigned char *end, uint64_t *out)
{
	uint64_t	x = 0;

	for (int sh = 0; sh < 64; sh += 7)
	{
		unsigned char b;

		if (p == end)
			return NULL;
		b = *p++;
		if (sh == 63 && b > 1)
			return NULL;
		x |= (uint64_t) (b & 0x7f) << sh;
		if (!(b & 0x80))
		{
			*out = x;
			return p;
		}
	}
	return NULL;
}

#endif
