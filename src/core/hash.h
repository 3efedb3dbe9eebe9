/*
 * hash.h: the 64-bit finalizers the core hashes with.
 *
 * at_hash_mix is splitmix64's finalizer: the summaries' hash tables, the
 * occupancy fingerprint (stored in every value since 0.1.0) and the seeding
 * of the random numbers (rng.c) mix with it.
 * at_hash_fmix is MurmurHash3's fmix64, other constants: the utilization
 * generator draws its regimes with it, and its output is in expected files,
 * so it stays as it is.
 */
#ifndef ACMETRACE_HASH_H
#define ACMETRACE_HASH_H

#include <stdint.h>

static inline uint64_t
at_hash_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static inline uint64_t
at_hash_fmix(uint64_t x)
{
	x = (x ^ (x >> 33)) * UINT64_C(0xff51afd7ed558ccd);
	x = (x ^ (x >> 33)) * UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

#endif
