/*
 * bigendian.h: fixed-width big-endian fields of the serialized states, so
 * a state written on one machine reads the same on any other.
 */
#ifndef ACMETRACE_BIGENDIAN_H
#define ACMETRACE_BIGENDIAN_H

#include <stdint.h>
#include <string.h>

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
	uint64_t	v;

	memcpy(&v, &d, 8);
	at_put_u64(p, v);
}

static inline double
at_get_double(const unsigned char *p)
{
	uint64_t	v = at_get_u64(p);
	double		d;

	memcpy(&d, &v, 8);
	return d;
}

#endif
