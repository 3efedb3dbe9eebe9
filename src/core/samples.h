/*
 * samples.h: a compressed run of one series' samples (acmetrace.samples),
 * as plain C.
 *
 * A block holds n samples (ts, value): ts are int64 microseconds since
 * 2000-01-01 UTC (PostgreSQL's TimestampTz), strictly increasing; values
 * are finite doubles, kept bit for bit (-0.0 included).
 *
 * Codec, chosen from the data (mostly integers or short decimals, regular
 * 15 s steps with gaps):
 *   times   the most common step s; a block whose times are all
 *           first + i*s stores nothing more; gaps that are whole steps are
 *           stored as (position, missing steps) varints; anything else falls
 *           back to zigzag varint delta-of-deltas.
 *   values  the smallest scale k (0..AT_SAMPLES_MAX_SCALE) such that every
 *           value is exactly (double) m / 10^k for an integer |m| < 2^53
 *           (then m / 10^k, a correctly rounded division, is the same double
 *           float8in gives for the decimal text); the integers m go in
 *           chunks of AT_SAMPLES_CHUNK, each frame-of-reference or
 *           delta-coded (whichever is smaller) and bit-packed, a constant
 *           chunk costing a few bytes; or (version 2) entropy-coded with
 *           the block's value code when that is smaller still (values
 *           without temporal structure, as GPU_UTIL's polarized 0..100).
 *           A block with any other value keeps raw doubles (scale -1).
 *
 * Serialized form (the bytes after the varlena header), little-endian
 * fields after a fixed 48-byte header:
 *   byte 0 the version (1, or 2 when the value section starts with a value
 *   code; version-1 blocks are still read and written), byte 1 flags (time and value encodings),
 *   byte 2 scale + 1 (0: raw doubles), byte 3 zero, u32 n, i64 first ts,
 *   i64 last ts, f64 min, f64 max, u32 bytes of the time section, u32 bytes
 *   of the value counts section (0: none); then the time section, the value
 *   counts (below), and the value section to the end.
 *
 * Time section (n >= 2; empty for n = 1), varints are LEB128, zz() zigzag:
 *   AT_SAMPLES_T_REGULAR  varint s; times are first + i*s
 *   AT_SAMPLES_T_GAPS     varint s, then until the section ends one pair per
 *                         gap: varint (i - previous gap's i - 1; the first
 *                         counts from 0), varint (d/s - 2), where sample i
 *                         follows sample i - 1 by d, a multiple of s >= 2s
 *   AT_SAMPLES_T_DOD      varint s, then n - 1 varints zz(d_i - d_(i-1)),
 *                         d_i = ts[i] - ts[i-1], d_0 = s (mod 2^64)
 * Value section:
 *   AT_SAMPLES_V_INTS     ceil(n / AT_SAMPLES_CHUNK) chunks, each a byte
 *                         (0x80: delta-coded, low 7 bits the width w,
 *                         0..64), varint zz(ref) and, if delta-coded,
 *                         varint zz(dmin); then the packed w-bit integers x,
 *                         little-endian bit order: frame-of-reference m_i =
 *                         ref + x_i; delta m_0 = ref, m_i = m_(i-1) + dmin +
 *                         x_(i-1) (so cnt - 1 of them)
 *                         Version 2 only: the value section starts with a
 *                         value code, varint T then T bytes: byte L (raw low
 *                         bits, 0..AT_SAMPLES_CODE_RAW), varint zz(base),
 *                         byte E (0..AT_SAMPLES_CODE_EXACT) and E varints,
 *                         the exact values' x = m - base, increasing (the
 *                         first as is, then each step minus 1), varint B
 *                         (1..AT_SAMPLES_CODE_BUCKETS); then the code, ready
 *                         to decode: byte M (the longest code, 1..15), M
 *                         varints (how many codes of length 1..M, the last
 *                         not 0), and the symbols in code order, by length
 *                         and ascending within one, a varint each (the first
 *                         of a length as is, then each step minus 1).
 *                         Symbols 0..E-1 are the exact values, E + h the
 *                         bucket m = base + h * 2^L + (L raw bits); each is
 *                         listed at most once, and the lengths make a
 *                         complete canonical Huffman code (Kraft sum 1, at
 *                         least two symbols).  A chunk of kind
 *                         AT_SAMPLES_CHUNK_CODED (0x7f) is varint nbytes,
 *                         for more than AT_SAMPLES_CHUNK_HALF values varint
 *                         h (the first half's bytes, at most nbytes), then
 *                         nbytes of bits: two streams, values 0..HALF-1 in
 *                         the first h bytes and the rest after, each most
 *                         significant bit first, per value its symbol's
 *                         code then for a bucket L raw bits, each stream's
 *                         last byte zero-padded.  (Two independent streams
 *                         decode side by side, and a window decodes only the
 *                         halves it overlaps.)
 *   AT_SAMPLES_V_RAW      n little-endian doubles
 * min and max are the first value met that is smallest (largest) under <.
 * Every reader of untrusted bytes goes through at_samples_check, which
 * validates everything the decoders rely on (sizes, widths, varints, times
 * strictly increasing and matching the header, values finite and matching
 * min/max, no trailing bytes); a checked block then decodes without
 * further checks.
 */
#ifndef ACMETRACE_SAMPLES_H
#define ACMETRACE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "num.h"

#define AT_SAMPLES_VERSION		2	/* blocks with a value code; others are written as 1 */
#define AT_SAMPLES_VERSION_PLAIN	1
#define AT_SAMPLES_HEADER		48
#define AT_SAMPLES_MAX			(1 << 24)	/* samples in one block */
#define AT_SAMPLES_CHUNK		128
#define AT_SAMPLES_MAX_SCALE	15

/* byte 1: bits 0-1 the time encoding, bits 2-3 the value encoding */
#define AT_SAMPLES_T_REGULAR	0
#define AT_SAMPLES_T_GAPS		1
#define AT_SAMPLES_T_DOD		2
#define AT_SAMPLES_V_INTS		0
#define AT_SAMPLES_V_RAW		1
#define AT_SAMPLES_FLAGS(t, v)	((t) | (v) << 2)

/* a scaled value is (double) m / at_p10[k] (num.h), k <= AT_SAMPLES_MAX_SCALE = AT_P10_MAX */

/*
 * The value code of a version-2 block (see the format above): at most
 * AT_SAMPLES_CODE_EXACT exact values and AT_SAMPLES_CODE_BUCKETS buckets,
 * code lengths 1..AT_SAMPLES_CODE_MAXLEN, at most AT_SAMPLES_CODE_RAW raw
 * low bits.  A chunk whose kind byte is AT_SAMPLES_CHUNK_CODED uses it.
 */
#define AT_SAMPLES_CODE_EXACT	8
#define AT_SAMPLES_CODE_BUCKETS	256
#define AT_SAMPLES_CODE_SYMS	(AT_SAMPLES_CODE_EXACT + AT_SAMPLES_CODE_BUCKETS)
#define AT_SAMPLES_CODE_MAXLEN	15
#define AT_SAMPLES_CODE_RAW		42
/*
 * Codes up to fbits long decode by one table look-up: a window (a few
 * hundred values) builds the small table, whole blocks the large one.
 */
#define AT_SAMPLES_CODE_FAST	10
#define AT_SAMPLES_CODE_FAST_WINDOW	9
/*
 * The longest code the encoder writes (readers take up to MAXLEN): every
 * code of a block written here decodes by one look-up, also in a window.
 * At least 9: AT_SAMPLES_CODE_SYMS symbols need codes that long.
 */
#define AT_SAMPLES_CODE_WRITE_MAXLEN	AT_SAMPLES_CODE_FAST_WINDOW
#define AT_SAMPLES_CHUNK_CODED	0x7f
/* a coded chunk's two halves are separate bit streams: decoded side by side, or one alone */
#define AT_SAMPLES_CHUNK_HALF	(AT_SAMPLES_CHUNK / 2)

/* A block's value code, ready for decoding (canonical Huffman, MSB first). */
typedef struct at_samples_code
{
	uint32_t	lim[AT_SAMPLES_CODE_MAXLEN + 1];	/* (first code + count) << (MAXLEN - len) */
	uint32_t	first_code[AT_SAMPLES_CODE_MAXLEN + 1];
	uint32_t	first_idx[AT_SAMPLES_CODE_MAXLEN + 1];
	uint64_t	symv[AT_SAMPLES_CODE_SYMS];	/* in code order: the integer, or a bucket's lowest */
	uint8_t		symraw[AT_SAMPLES_CODE_SYMS];	/* raw low bits that follow the code */
	uint16_t	fast[1 << AT_SAMPLES_CODE_FAST];	/* by the next fbits bits: idx << 5 | has raw << 4 | len, 0 if longer */
	int			raw;			/* L: 0 when no symbol has raw bits */
	int			fbits;			/* the table's width */
	int			per;			/* values decoded per refill (57 bits over the longest code + raw bits) */
	int			maxlen;			/* the longest code */
} at_samples_code;

/* What the header says (at_samples_check fills it; so does at_samples_info_read). */
typedef struct at_samples_info
{
	int32_t		n;				/* >= 1 */
	int32_t		scale;			/* 0..AT_SAMPLES_MAX_SCALE, or -1 for raw doubles */
	int64_t		first_ts;
	int64_t		last_ts;
	double		min;
	double		max;
} at_samples_info;

/* A sample whose two values disagree (merges and de-duplication). */
typedef struct at_samples_conflict
{
	int64_t		ts;
	double		old_value;		/* the one met first (or: in a, the stored run) */
	double		new_value;
} at_samples_conflict;

/* ---- encoding ---- */

/*
 * Upper bound of the bytes at_samples_encode writes for n samples.  It
 * also leaves the room at_samples_slice stages a window's samples in (at
 * the end of out), so it is about 34n bytes, not the at most 18n + 66
 * at_samples_encode writes.
 */
extern size_t at_samples_encode_bound(int32_t n);

/*
 * Encodes n (1..AT_SAMPLES_MAX) samples: ts strictly increasing, v finite
 * (the caller guarantees both).  Returns the bytes written into out (at
 * least at_samples_encode_bound(n) of room).
 */
extern size_t at_samples_encode(const int64_t *ts, const double *v, int32_t n, unsigned char *out);

/*
 * The same with value codes up to maxlen bits (clamped to
 * AT_SAMPLES_CODE_WRITE_MAXLEN..AT_SAMPLES_CODE_MAXLEN): blocks as another
 * writer may make them, whose long codes decoders take the slow way (tests).
 */
extern size_t at_samples_encode_maxlen(const int64_t *ts, const double *v, int32_t n, unsigned char *out,
									   int maxlen);

/* ---- reading ---- */

/*
 * NULL if buf[0..len) is a valid block (and *info its header, when info is
 * not NULL), else a message.
 */
extern const char *at_samples_check(const unsigned char *buf, size_t len, at_samples_info *info);

/* The header of a checked block. */
extern void at_samples_info_read(const unsigned char *buf, at_samples_info *info);

/*
 * Bounds of the integers m (value = m / 10^scale) of a block with scale
 * >= 0, from its min and max: one more each side, as min * 10^scale may
 * round to the next integer.
 */
extern void at_samples_int_bounds(const at_samples_info *info, int64_t *mlo, int64_t *mhi);

/* Every sample of a checked block into ts[n] and v[n] (either may be NULL). */
extern void at_samples_decode(const unsigned char *buf, size_t len, int64_t *ts, double *v);

/*
 * Values of a checked block in order, a chunk (at most AT_SAMPLES_CHUNK,
 * so v and m need that much room) per call.  next returns the chunk's
 * count (0 at the end) and sets *constant when every value of the chunk is
 * the same: then only v[0] (or m[0]) is written.  next_scaled gives the integers m (value = m / 10^scale)
 * and may only be used when info.scale >= 0.
 */
typedef struct at_samples_iter
{
	const unsigned char *buf;
	size_t		len;
	size_t		pos;			/* offset in buf of the next chunk (in the value section) */
	int32_t		n;				/* values in the block */
	int32_t		done;			/* values returned so far */
	int32_t		scale;
	double		div;			/* 10^scale */
	int			coded;			/* version 2: code holds the block's value code */
	at_samples_code code;
} at_samples_iter;

extern void at_samples_iter_init(at_samples_iter *it, const unsigned char *buf, size_t len);
extern int	at_samples_iter_next(at_samples_iter *it, double *v, int *constant);
extern int	at_samples_iter_next_scaled(at_samples_iter *it, int64_t *m, int *constant);

/*
 * The samples of a checked block with from <= ts < to, encoded into out (at
 * least at_samples_encode_bound(info.n) of room); *nout is their count and
 * the return the bytes written (0 when *nout is 0).  Value chunks wholly
 * outside the window are skipped, not decoded.
 */
extern size_t at_samples_slice(const unsigned char *buf, size_t len, int64_t from, int64_t to,
							   unsigned char *out, int32_t *nout);

/*
 * At least as many as the samples of a checked block with from <= ts < to
 * (from < to): the room at_samples_window needs, at most info.n; from the
 * step when every time is at least a step after the last.
 */
extern int32_t at_samples_window_room(const unsigned char *buf, int64_t from, int64_t to);

/*
 * The samples of a checked block with from <= ts < to, decoded: times into
 * ts, and either the values into v or, when mout is not NULL (only for a
 * block with scale >= 0), their integers into mout (value = m / 10^scale);
 * each array with room for at_samples_window_room.  Returns their count.
 * Only the chunks the window overlaps are decoded, and of a coded chunk
 * only the halves it overlaps.
 */
extern int32_t at_samples_window(const unsigned char *buf, size_t len, int64_t from, int64_t to,
								 int64_t *ts, double *v, int64_t *mout);

/*
 * The exact sum of a checked block's values as decimal text ("-1234.567",
 * scale digits after the point, no exponent) into out[outlen] (64 bytes
 * suffice): 0, or -1 for a block of raw doubles (the caller sums those).
 */
extern int	at_samples_sum_text(const unsigned char *buf, size_t len, char *out, size_t outlen);

/*
 * A block whose integers take at most AT_SAMPLES_COUNTS_MAX distinct values
 * in a narrow range (GPU_UTIL's 0..100) also stores how many samples hold
 * each, between the time and the value sections (bytes 44..47: its size,
 * 0 when absent): an aggregate over a whole block reads these instead of
 * decoding every sample.  The checker requires them to match the values.
 * at_samples_counts writes the integers (increasing) and their counts
 * into m and count (room for AT_SAMPLES_COUNTS_MAX) and returns how many,
 * 0 when the block has no counts.
 */
#define AT_SAMPLES_COUNTS_MAX 256
extern int	at_samples_counts(const unsigned char *buf, int64_t *m, int64_t *count);

/* ---- runs of samples in memory (loading and merging) ---- */

/*
 * Sorts ts[0..*n) with v by time (stable) and removes repeats: a repeated
 * time with an equal value (==, so 0.0 and -0.0 are equal) keeps the first
 * and adds one to *dups; with different values returns -1 and fills *c
 * (old_value the earlier in the input; the arrays are then sorted but keep
 * their repeats, *n unchanged).  0 on success, *n updated.  Sorts in place
 * (a stable in-place merge sort), allocating nothing; already sorted input,
 * the common case, costs one pass.
 */
extern int	at_samples_sort_dedup(int64_t *ts, double *v, int32_t *n, int64_t *dups,
								  at_samples_conflict *c);

/*
 * Merges two runs, each strictly increasing in time, into out_ts/out_v
 * (room for na + nb): a time in both with equal values is kept once (from
 * a) and counted in *dups; with different values returns -1 and fills *c
 * (old_value from a).  Returns the merged count otherwise.
 */
extern int32_t at_samples_merge(const int64_t *ts_a, const double *v_a, int32_t na,
								const int64_t *ts_b, const double *v_b, int32_t nb,
								int64_t *out_ts, double *out_v, int64_t *dups,
								at_samples_conflict *c);

/*
 * Text form of acmetrace.samples: "v1:" and the serialized form in lower
 * case hexadecimal (src/core/hex.h); the bytes go through at_samples_check.
 */
#define AT_SAMPLES_TEXT_PREFIX "v1:"

/* Bytes at_samples_format writes for a block of len bytes, the NUL included. */
extern size_t at_samples_text_size(size_t len);
extern void at_samples_format(const unsigned char *buf, size_t len, char *out);

/*
 * Reads s[0..slen) ("v1:" and lower-case digit pairs) into out (room for
 * slen / 2 bytes), *outlen bytes, and checks them with at_samples_check.
 * NULL, or a message with *pos the offset of the offending character (3,
 * the first digit, when the bytes are refused).
 */
extern const char *at_samples_parse(const char *s, size_t slen, unsigned char *out, size_t *outlen,
									size_t *pos);

#endif
