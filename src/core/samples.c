/*
 * samples.c: the compressed sample block (see samples.h for the format).
 *
 * Readers trust a block at_samples_check has passed: the decoders below do
 * no bounds checks of their own, and do all arithmetic on the encoded
 * integers unsigned (mod 2^64), exactly as the check did, so a crafted
 * block cannot make them overflow either.
 */
#include "samples.h"

#include "bytes.h"
#include "hex.h"

#include <math.h>
#include <string.h>

#define TWO53		9007199254740992.0
#define M_LIMIT		((uint64_t) 1 << 53)	/* |m| < 2^53 */
#define PACK_MAX	(AT_SAMPLES_CHUNK * 64 / 8)	/* packed bytes of a chunk */

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define ALWAYS_INLINE inline
#define PREFETCH(p) ((void) (p))
#endif

/* ---- bits ---- */

static inline int
bit_width(uint64_t x)
{
	int			w = 0;

	while (x)
	{
		w++;
		x >>= 1;
	}
	return w;
}

/* ---- the header ---- */

void
at_samples_info_read(const unsigned char *buf, at_samples_info *info)
{
	info->n = (int32_t) at_get_le32(buf + 4);
	info->scale = (int32_t) buf[2] - 1;
	info->first_ts = at_u2i(at_get_le64(buf + 8));
	info->last_ts = at_u2i(at_get_le64(buf + 16));
	info->min = at_bits_double(at_get_le64(buf + 24));
	info->max = at_bits_double(at_get_le64(buf + 32));
}

void
at_samples_int_bounds(const at_samples_info *info, int64_t *mlo, int64_t *mhi)
{
	*mlo = llround(info->min * at_p10[info->scale]) - 1;
	*mhi = llround(info->max * at_p10[info->scale]) + 1;
}

static inline const unsigned char *
time_end(const unsigned char *buf)
{
	return buf + AT_SAMPLES_HEADER + at_get_le32(buf + 40);
}

/* The value counts section (bytes 44..47 its size, 0 when absent) lies between. */
static inline const unsigned char *
value_section(const unsigned char *buf)
{
	return time_end(buf) + at_get_le32(buf + 44);
}

/* ---- bit unpacking ---- */

/*
 * Groups of 8 w-bit integers are w bytes, so with w a constant every load
 * offset and shift below is one too (the switch in unpack instantiates
 * this for each width up to 56, where a 64-bit load still covers a value
 * at any bit offset).  Reads up to w + 8 bytes past the packed bytes.
 */
static ALWAYS_INLINE void
unpack_fixed(const unsigned char *q, int groups, uint64_t base, uint64_t *out, const int w)
{
	const uint64_t mask = ((uint64_t) 1 << w) - 1;

	for (int g = 0; g < groups; g++, q += w, out += 8)
	{
#define AT_U(j) (base + ((at_get_le64(q + (j) * w / 8) >> ((j) * w % 8)) & mask))
		out[0] = AT_U(0);
		out[1] = AT_U(1);
		out[2] = AT_U(2);
		out[3] = AT_U(3);
		out[4] = AT_U(4);
		out[5] = AT_U(5);
		out[6] = AT_U(6);
		out[7] = AT_U(7);
#undef AT_U
	}
}

/*
 * base plus each of the cnt (1..AT_SAMPLES_CHUNK) w-bit integers packed at
 * p (nbytes, the block ending at end) into out[AT_SAMPLES_CHUNK], mod 2^64;
 * entries past cnt up to the next multiple of 8 are garbage (none when w
 * is 0 or over 56).  Near the end of the block the bytes are copied into a
 * padded buffer first, so nothing past end is read.
 */
static void
unpack(const unsigned char *p, size_t nbytes, const unsigned char *end, int w, int cnt, uint64_t base,
	   uint64_t *out)
{
	unsigned char pad[PACK_MAX + 64 + 16];
	int			groups = (cnt + 7) / 8;

	if (w == 0)
	{
		for (int i = 0; i < cnt; i++)
			out[i] = base;
		return;
	}
	if ((size_t) (end - p) < nbytes + (size_t) w + 9)
	{
		memcpy(pad, p, nbytes);
		memset(pad + nbytes, 0, (size_t) w + 9);
		p = pad;
	}
	switch (w)
	{
#define AT_W(n) case n: unpack_fixed(p, groups, base, out, n); break
			AT_W(1); AT_W(2); AT_W(3); AT_W(4); AT_W(5); AT_W(6); AT_W(7); AT_W(8);
			AT_W(9); AT_W(10); AT_W(11); AT_W(12); AT_W(13); AT_W(14); AT_W(15); AT_W(16);
			AT_W(17); AT_W(18); AT_W(19); AT_W(20); AT_W(21); AT_W(22); AT_W(23); AT_W(24);
			AT_W(25); AT_W(26); AT_W(27); AT_W(28); AT_W(29); AT_W(30); AT_W(31); AT_W(32);
			AT_W(33); AT_W(34); AT_W(35); AT_W(36); AT_W(37); AT_W(38); AT_W(39); AT_W(40);
			AT_W(41); AT_W(42); AT_W(43); AT_W(44); AT_W(45); AT_W(46); AT_W(47); AT_W(48);
			AT_W(49); AT_W(50); AT_W(51); AT_W(52); AT_W(53); AT_W(54); AT_W(55); AT_W(56);
#undef AT_W
		default:
			{
				/* 57..64 bits (never written by the encoder): a ninth byte */
				uint64_t	mask = w == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << w) - 1;

				for (int i = 0; i < cnt; i++)
				{
					size_t		b = (size_t) i * (size_t) w;
					int			sh = (int) (b & 7);
					uint64_t	x = at_get_le64(p + (b >> 3)) >> sh;

					if (sh)
						x |= (uint64_t) p[(b >> 3) + 8] << (64 - sh);
					out[i] = base + (x & mask);
				}
			}
	}
}

/* ---- the value code (version 2) ---- */

typedef struct chunk chunk;

/* Bits most significant first, left-aligned in acc; zero bytes past end. */
typedef struct bitreader
{
	const unsigned char *p;
	const unsigned char *end;
	uint64_t	acc;
	int			nbits;
	size_t		over;			/* zero bytes supplied past end */
} bitreader;

static ALWAYS_INLINE void
br_refill(bitreader *b)
{
	if (b->end - b->p >= 8)
	{
		/*
		 * whole bytes up to 57..64 bits (nbits < 64 here: every value takes
		 * a bit); the part of a next byte is its own bits
		 */
		int			adv = (64 - b->nbits) >> 3;

		b->acc |= __builtin_bswap64(at_get_le64(b->p)) >> b->nbits;
		b->p += adv;
		b->nbits += 8 * adv;
		return;
	}
	while (b->nbits <= 56)
	{
		uint64_t	byte = 0;

		if (b->p < b->end)
			byte = *b->p++;
		else
			b->over++;
		b->acc |= byte << (56 - b->nbits);
		b->nbits += 8;
	}
}

/*
 * The length of the code v begins with (v: the next MAXLEN bits), without
 * branches (a search mispredicts on every rare code): lim is nondecreasing
 * and the code ends at the first length whose limit is above v.
 */
static ALWAYS_INLINE int
long_len(const at_samples_code *c, uint32_t v)
{
	int			len = 1;

	for (int l = 1; l < AT_SAMPLES_CODE_MAXLEN; l++)
		len += v >= c->lim[l];
	return len;
}

/*
 * One value of a coded chunk: a refill leaves at least 57 bits, enough for
 * a code (<= 15) and its raw bits (<= 42).  The code is complete (the check
 * saw to it), so some length <= MAXLEN ends the scan.
 */
static ALWAYS_INLINE uint64_t
code_value(const at_samples_code *c, bitreader *b, const int has_raw)
{
	uint32_t	e = c->fast[b->acc >> (64 - c->fbits)];
	int			len,
				idx,
				r;
	uint64_t	m;

	if (__builtin_expect(e != 0, 1))
	{
		len = (int) (e & 15);
		idx = (int) (e >> 5);
		/* raw bits or none, without waiting for symraw */
		r = (int) ((e >> 4) & 1) * c->raw;
	}
	else
	{
		uint32_t	v = (uint32_t) (b->acc >> (64 - AT_SAMPLES_CODE_MAXLEN));

		len = long_len(c, v);
		idx = (int) (c->first_idx[len] + (v >> (AT_SAMPLES_CODE_MAXLEN - len)) - c->first_code[len]);
		r = has_raw ? c->symraw[idx] : 0;	/* symraw is unset without raw bits */
	}
	m = c->symv[idx];
	if (!has_raw)
	{
		b->acc <<= len;
		b->nbits -= len;
		return m;
	}
	/* no branch on whether this symbol has raw bits: (x >> 63 - 0) >> 1 is 0 */
	m += ((b->acc << len) >> (63 - r)) >> 1;
	b->acc <<= len + r;
	b->nbits -= len + r;
	return m;
}

/*
 * cnt values from one bit reader (two: b1 too, into o1), per values a
 * refill; two readers' dependency chains are independent, so decoding two
 * chunks together overlaps their look-ups.  The readers live in locals
 * (registers) while decoding.
 */
#define CODE_STEP(j) \
	do { \
		o0[i + (j)] = code_value(c, &r0, has_raw); \
		if (two) \
			o1[i + (j)] = code_value(c, &r1, has_raw); \
	} while (0)

static ALWAYS_INLINE void
code_run_t(const at_samples_code *c, bitreader *b0, bitreader *b1, uint64_t *o0, uint64_t *o1, int cnt,
		   const int two, const int per, const int has_raw)
{
	bitreader	r0 = *b0,
				r1 = two ? *b1 : *b0;
	int			i = 0;

	for (; i + per <= cnt; i += per)
	{
		br_refill(&r0);
		if (two)
			br_refill(&r1);
		CODE_STEP(0);
		if (per >= 2)
			CODE_STEP(1);
		if (per >= 3)
			CODE_STEP(2);
		if (per >= 4)
			CODE_STEP(3);
		if (per >= 5)
			CODE_STEP(4);
		if (per >= 6)
			CODE_STEP(5);
	}
	for (; i < cnt; i++)
	{
		br_refill(&r0);
		if (two)
			br_refill(&r1);
		CODE_STEP(0);
	}
	*b0 = r0;
	if (two)
		*b1 = r1;
}

/* The same, specialized by the code's values a refill and raw bits. */
static void
code_run(const at_samples_code *c, bitreader *b0, bitreader *b1, uint64_t *o0, uint64_t *o1, int cnt)
{
	int			sel = (b1 != NULL) << 4 | (c->raw ? c->per : 8 + c->per);

#define CODE_CASE(t, p, r) \
	case (t) << 4 | ((r) ? (p) : 8 + (p)): \
		code_run_t(c, b0, b1, o0, o1, cnt, t, p, r); \
		break
	switch (sel)
	{
			CODE_CASE(0, 1, 1);
			CODE_CASE(0, 2, 1);
			CODE_CASE(0, 3, 1);
			CODE_CASE(0, 3, 0);
			CODE_CASE(1, 1, 1);
			CODE_CASE(1, 2, 1);
			CODE_CASE(1, 3, 1);
			CODE_CASE(1, 3, 0);
			CODE_CASE(0, 4, 0);
			CODE_CASE(1, 4, 0);
			CODE_CASE(0, 5, 0);
			CODE_CASE(1, 5, 0);
		case 1 << 4 | (8 + 6):
			code_run_t(c, b0, b1, o0, o1, cnt, 1, 6, 0);
			break;
		default:
			code_run_t(c, b0, b1, o0, o1, cnt, 0, 6, 0);
			break;
	}
#undef CODE_CASE
}

/*
 * cnt values of a coded bit stream (nbytes at bits) into out, mod
 * 2^64; returns the bits used, and the unused bits of the
 * last byte read into *pad (when not NULL).
 */
static uint64_t
code_ints(const at_samples_code *c, const unsigned char *bits, size_t nbytes, int cnt, uint64_t *out,
		  uint64_t *pad)
{
	bitreader	b = {bits, bits + nbytes, 0, 0, 0};
	uint64_t	used;

	code_run(c, &b, NULL, out, NULL, cnt);
	used = 8 * ((uint64_t) (b.p - bits) + b.over) - (uint64_t) b.nbits;
	/* the bits left of the last byte read (the padding, if it was the last) */
	if (pad != NULL)
		*pad = (used & 7) ? b.acc >> (56 + (used & 7)) : 0;
	return used;
}

/* cnt values of one coded bit stream at bits, reads running on to end (as below). */
static void
code_ints1(const at_samples_code *c, const unsigned char *end, const unsigned char *bits, int cnt, uint64_t *out)
{
	bitreader	b = {bits, end, 0, 0, 0};

	code_run(c, &b, NULL, out, NULL, cnt);
}

/*
 * Two coded bit streams decoded together: cnt0 values from bits0, cnt1
 * from bits1.  Reads may run on to end (the block's end: bits past a
 * stream's own are never taken as values), so refills stay 8 bytes wide.
 */
static void
code_ints2(const at_samples_code *c, const unsigned char *end, const unsigned char *bits0, int cnt0,
		   uint64_t *out0, const unsigned char *bits1, int cnt1, uint64_t *out1)
{
	bitreader	b[2] = {{bits0, end, 0, 0, 0}, {bits1, end, 0, 0, 0}};
	int			both = cnt0 < cnt1 ? cnt0 : cnt1;

	code_run(c, &b[0], &b[1], out0, out1, both);
	if (cnt0 > both)
		code_run(c, &b[0], NULL, out0 + both, NULL, cnt0 - both);
	if (cnt1 > both)
		code_run(c, &b[1], NULL, out1 + both, NULL, cnt1 - both);
}

/*
 * Reads a value code at p (varint T and T bytes, before end) into c;
 * returns the first chunk, or NULL with *msg set.  Validates everything
 * decoding relies on, so it serves trusted and untrusted bytes alike;
 * strict (at_samples_check) also refuses a symbol listed twice, which
 * would decode safely but is not the one form a block has.  fbits 0
 * (windows): the smaller AT_SAMPLES_CODE_FAST_WINDOW table, cheaper to
 * build for a few hundred values.
 */
static const unsigned char *
code_read(const unsigned char *p, const unsigned char *end, at_samples_code *c, int fbits, int strict,
		  const char **msg)
{
	uint64_t	t,
				x,
				nb,
				base,
				exact[AT_SAMPLES_CODE_EXACT],
				kraft = 0,
				seen[(AT_SAMPLES_CODE_SYMS + 63) / 64] = {0},
				anyraw = 0;
	const unsigned char *tend;
	int			L,
				ne,
				nsym,
				used = 0,
				maxlen,
				rawlen,
				listed = 0;		/* the symbols read by the fast loop */
	uint32_t	count[AT_SAMPLES_CODE_MAXLEN + 1] = {0},
				code = 0,
				idx = 0;

	*msg = "the value code is cut short or holds a bad varint";
	if ((p = at_varint_check(p, end, &t)) == NULL || t > (uint64_t) (end - p))
		return NULL;
	tend = p + t;
	if (p == tend)
		return NULL;
	L = *p++;
	if (L > AT_SAMPLES_CODE_RAW)
	{
		*msg = "the value code's raw bits are out of range";
		return NULL;
	}
	if ((p = at_varint_check(p, tend, &x)) == NULL || p == tend)
		return NULL;
	base = at_unzigzag(x);
	if (base + (M_LIMIT - 1) > 2 * M_LIMIT - 2)
	{
		*msg = "the value code's base is not below 2^53 in magnitude";
		return NULL;
	}
	ne = *p++;
	if (ne > AT_SAMPLES_CODE_EXACT)
	{
		*msg = "the value code has too many exact values";
		return NULL;
	}
	for (int i = 0; i < ne; i++)
	{
		if ((p = at_varint_check(p, tend, &x)) == NULL)
			return NULL;
		if (x >= 2 * M_LIMIT || (i > 0 && exact[i - 1] + x + 1 >= 2 * M_LIMIT))
		{
			*msg = "an exact value of the value code is out of range";
			return NULL;
		}
		exact[i] = i == 0 ? x : exact[i - 1] + x + 1;
	}
	if ((p = at_varint_check(p, tend, &nb)) == NULL || p == tend)
		return NULL;
	if (nb < 1 || nb > AT_SAMPLES_CODE_BUCKETS)
	{
		*msg = "the value code's bucket count is out of range";
		return NULL;
	}
	nsym = ne + (int) nb;
	maxlen = *p++;
	if (maxlen < 1 || maxlen > AT_SAMPLES_CODE_MAXLEN)
	{
		*msg = "the value code's longest length is out of range";
		return NULL;
	}
	for (int l = 1; l <= maxlen; l++)
	{
		if ((p = at_varint_check(p, tend, &x)) == NULL)
			return NULL;
		if (x > (uint64_t) nsym)
		{
			*msg = "the value code's lengths do not make a complete code";
			return NULL;
		}
		count[l] = (uint32_t) x;
		kraft += x << (AT_SAMPLES_CODE_MAXLEN - l);
		used += (int) x;
	}
	if (count[maxlen] == 0 || used < 2 || used > nsym || kraft != (uint64_t) 1 << AT_SAMPLES_CODE_MAXLEN)
	{
		*msg = "the value code's lengths do not make a complete code";
		return NULL;
	}
	/* canonical: codes in order of length, then symbol */
	for (int l = 1; l <= AT_SAMPLES_CODE_MAXLEN; l++)
	{
		c->first_code[l] = code;
		c->first_idx[l] = idx;
		code += count[l];
		idx += count[l];
		c->lim[l] = code << (AT_SAMPLES_CODE_MAXLEN - l);
		code <<= 1;
	}
	c->lim[0] = 0;
	c->first_code[0] = c->first_idx[0] = 0;
	c->fbits = fbits;

	/*
	 * The symbols in code order, ascending within a length (a gap varint
	 * each): each once, below nsym, filling the table exactly.
	 */
	if (!strict && ne == 0 && L == 0 && tend - p == used)
	{
		/*
		 * The common case (integers without raw bits, a byte a symbol) in
		 * a tight loop: symbols ascend within a length, so the last of
		 * each is checked; raw bits are none (symraw is not read).
		 */
		int			k = 0;
		unsigned	any = 0;

		for (int l = 1; l <= maxlen; l++)
		{
			int64_t		sym = -1;

			for (uint32_t j = 0; j < count[l]; j++, k++)
			{
				any |= p[k];
				sym += p[k] + 1;
				c->symv[k] = base + (uint64_t) sym;
			}
			if (sym >= nsym)
				any = 128;		/* out of range: the loop below says so */
		}
		if (any < 128)
		{
			p = tend;
			listed = 1;
		}
	}
	if (!listed)
	{
		int			k = 0;

		for (int l = 1; l <= maxlen; l++)
		{
			int64_t		sym = -1;

			for (uint32_t j = 0; j < count[l]; j++, k++)
			{
				uint64_t	bit;

				if (p < tend && *p < 128)
					x = *p++;
				else if ((p = at_varint_check(p, tend, &x)) == NULL)
					return NULL;
				if (x >= (uint64_t) nsym || (sym += (int64_t) x + 1) >= nsym)
				{
					*msg = "a symbol of the value code is out of range";
					return NULL;
				}
				if (strict)
				{
					bit = UINT64_C(1) << (sym & 63);
					if (seen[sym >> 6] & bit)
					{
						*msg = "a symbol of the value code is listed twice";
						return NULL;
					}
					seen[sym >> 6] |= bit;
				}
				c->symv[k] = base + (sym < ne ? exact[sym] : (uint64_t) (sym - ne) << L);
				c->symraw[k] = (uint8_t) (sym < ne ? 0 : L);
				anyraw |= (uint64_t) (sym >= ne);
			}
		}
	}
	if (p != tend)
	{
		*msg = "the value code has bytes past its symbols";
		return NULL;
	}
	rawlen = anyraw ? L : 0;
	c->raw = rawlen;
	c->maxlen = maxlen;
	if (fbits == 0)
		c->fbits = fbits = AT_SAMPLES_CODE_FAST_WINDOW;
	/* values a refill (57 bits) always holds */
	c->per = 57 / (maxlen + rawlen);
	if (c->per > (rawlen ? 3 : 6))
		c->per = rawlen ? 3 : 6;

	/*
	 * The look-up table of the short codes: canonical codes up to fbits
	 * fill it from the start, in order; the rest (longer codes) is 0.
	 */
	{
		uint32_t	x = 0;

		for (int l = 1; l <= fbits; l++)
		{
			uint32_t	span = (uint32_t) 1 << (fbits - l),
						n = count[l],
						k0 = c->first_idx[l];
			uint16_t   *f = c->fast + x;

			/* entries (k << 5 | raw flag << 4 | l), each span times: the common spans in straight loops */
			if (rawlen == 0 && span == 1)
				for (uint32_t j = 0; j < n; j++)
					f[j] = (uint16_t) ((k0 + j) << 5 | (uint32_t) l);
			else if (rawlen == 0 && span == 2)
				for (uint32_t j = 0; j < n; j++)
					f[2 * j] = f[2 * j + 1] = (uint16_t) ((k0 + j) << 5 | (uint32_t) l);
			else
				for (uint32_t j = 0; j < n; j++)
				{
					uint32_t	k = k0 + j;
					uint16_t	e = (uint16_t) (k << 5 | (rawlen && c->symraw[k] ? 16u : 0u) | (uint32_t) l);

					if (span >= 8)
					{
						uint64_t	e8[2];

						e8[0] = e8[1] = e * UINT64_C(0x0001000100010001);
						for (uint32_t y = 0; y < span; y += 8)
							memcpy(f + j * span + y, e8, 16);
					}
					else if (span == 4)
					{
						uint64_t	e4 = e * UINT64_C(0x0001000100010001);

						memcpy(f + j * span, &e4, 8);
					}
					else
						for (uint32_t y = 0; y < span; y++)
							f[j * span + y] = e;
				}
			x += n * span;
		}
		memset(c->fast + x, 0, sizeof(uint16_t) * (((size_t) 1 << fbits) - x));
	}
	*msg = NULL;
	return tend;
}

/*
 * The first value chunk of a checked block; for version 2, its value
 * code into c and *coded set.
 */
static const unsigned char *
chunks_begin(const unsigned char *buf, size_t len, at_samples_code *c, int *coded, int fbits)
{
	const unsigned char *vs = value_section(buf);
	const char *msg;

	*coded = buf[0] == AT_SAMPLES_VERSION;
	if (!*coded)
		return vs;
	return code_read(vs, buf + len, c, fbits, 0, &msg);
}

/* ---- writing a value code ---- */

/* Bits most significant first; acc holds nb pending bits (nb < 8 between calls). */
typedef struct bitwriter
{
	unsigned char *p;
	uint64_t	acc;
	int			nb;
} bitwriter;

static ALWAYS_INLINE void
bw_put(bitwriter *w, uint64_t v, int len)
{
	w->acc = (w->acc << len) | v;
	w->nb += len;
	while (w->nb >= 8)
	{
		w->nb -= 8;
		*w->p++ = (unsigned char) (w->acc >> w->nb);
	}
}

/* Values counted while planning a code: open addressing, new keys dropped when full. */
#define PLAN_SLOTS 1024
typedef struct planner
{
	int64_t		key[PLAN_SLOTS];
	uint32_t	cnt[PLAN_SLOTS];
	int			used;
	uint64_t	bucket[AT_SAMPLES_CODE_BUCKETS];
} planner;

typedef struct coder
{
	int			L,
				ne,
				nb;
	int64_t		base;
	int64_t		exact[AT_SAMPLES_CODE_EXACT];
	uint8_t		len[AT_SAMPLES_CODE_SYMS];
	uint32_t	code[AT_SAMPLES_CODE_SYMS];
} coder;

/* The coder's symbol of m, and its raw bits in *raw. */
static ALWAYS_INLINE int
coder_sym(const coder *cd, int64_t m, uint64_t *raw)
{
	uint64_t	x = (uint64_t) m - (uint64_t) cd->base;

	for (int i = 0; i < cd->ne; i++)
		if (cd->exact[i] == m)
		{
			*raw = 0;
			return i;
		}
	*raw = x & (((uint64_t) 1 << cd->L) - 1);
	return cd->ne + (int) (x >> cd->L);
}

/*
 * Huffman code lengths of the n weights w (0: no code) into len, at most
 * maxlen (weights halved until they fit; at worst all equal, so maxlen
 * must cover log2 n: 9 for AT_SAMPLES_CODE_SYMS).  0 when fewer
 * than two weights are nonzero.
 */
static int
huffman_lengths(const uint64_t *w0, int n, int maxlen, uint8_t *len)
{
	uint64_t	w[AT_SAMPLES_CODE_SYMS],
				nw[2 * AT_SAMPLES_CODE_SYMS];
	int			leaf[AT_SAMPLES_CODE_SYMS],
				parent[2 * AT_SAMPLES_CODE_SYMS],
				depth[2 * AT_SAMPLES_CODE_SYMS],
				k = 0;

	memcpy(w, w0, sizeof(uint64_t) * (size_t) n);
	for (int s = 0; s < n; s++)
		if (w[s])
			leaf[k++] = s;
	if (k < 2)
		return 0;
	for (;;)
	{
		int			li = 0,
					ii = k,
					top = k,
					maxd = 0;

		/* leaves by weight (insertion sort: k is small) */
		for (int i = 1; i < k; i++)
		{
			int			s = leaf[i],
						j = i;

			while (j > 0 && w[leaf[j - 1]] > w[s])
			{
				leaf[j] = leaf[j - 1];
				j--;
			}
			leaf[j] = s;
		}
		for (int i = 0; i < k; i++)
			nw[i] = w[leaf[i]];
		/* two queues: sorted leaves 0..k-1, internal nodes k.. in order made */
		for (int j = 0; j < k - 1; j++)
		{
			int			a[2];

			for (int t = 0; t < 2; t++)
				a[t] = li < k && (ii == top || nw[li] <= nw[ii]) ? li++ : ii++;
			nw[top] = nw[a[0]] + nw[a[1]];
			parent[a[0]] = parent[a[1]] = top++;
		}
		depth[top - 1] = 0;
		for (int i = top - 2; i >= 0; i--)
		{
			depth[i] = depth[parent[i]] + 1;
			if (i < k && depth[i] > maxd)
				maxd = depth[i];
		}
		if (maxd <= maxlen)
		{
			memset(len, 0, (size_t) n);
			for (int i = 0; i < k; i++)
				len[leaf[i]] = (uint8_t) depth[i];
			return 1;
		}
		for (int i = 0; i < k; i++)
			w[leaf[i]] = (w[leaf[i]] + 1) / 2;
	}
}

/* Canonical codes for cd->len (as code_read assigns them). */
static void
coder_codes(coder *cd)
{
	uint32_t	count[AT_SAMPLES_CODE_MAXLEN + 1] = {0},
				next[AT_SAMPLES_CODE_MAXLEN + 1],
				code = 0;
	int			nsym = cd->ne + cd->nb;

	for (int s = 0; s < nsym; s++)
		count[cd->len[s]]++;
	count[0] = 0;
	for (int l = 1; l <= AT_SAMPLES_CODE_MAXLEN; l++)
	{
		next[l] = code;
		code = (code + count[l]) << 1;
	}
	for (int s = 0; s < nsym; s++)
		if (cd->len[s])
			cd->code[s] = next[cd->len[s]]++;
}

/* The value code's bytes (varint T and the table) at p; returns the end. */
static unsigned char *
put_code(unsigned char *p, const coder *cd)
{
	unsigned char tbl[16 + 10 * AT_SAMPLES_CODE_EXACT + 2 * AT_SAMPLES_CODE_MAXLEN + 2 * AT_SAMPLES_CODE_SYMS + 16],
			   *q = tbl;
	int			nsym = cd->ne + cd->nb,
				count[AT_SAMPLES_CODE_MAXLEN + 1] = {0},
				maxlen = 0;

	*q++ = (unsigned char) cd->L;
	q = at_varint_put(q, at_zigzag((uint64_t) cd->base));
	*q++ = (unsigned char) cd->ne;
	for (int i = 0; i < cd->ne; i++)
		q = at_varint_put(q, i == 0 ? (uint64_t) (cd->exact[0] - cd->base) : (uint64_t) (cd->exact[i] - cd->exact[i - 1] - 1));
	q = at_varint_put(q, (uint64_t) cd->nb);
	for (int s = 0; s < nsym; s++)
	{
		count[cd->len[s]]++;
		if (cd->len[s] > maxlen)
			maxlen = cd->len[s];
	}
	/* decode-ready: the counts by length, then the symbols in code order */
	*q++ = (unsigned char) maxlen;
	for (int l = 1; l <= maxlen; l++)
		q = at_varint_put(q, (uint64_t) count[l]);
	for (int l = 1; l <= maxlen; l++)
	{
		int			prev = -1;

		for (int s = 0; s < nsym; s++)
			if (cd->len[s] == l)
			{
				q = at_varint_put(q, (uint64_t) (s - prev - 1));
				prev = s;
			}
	}
	p = at_varint_put(p, (uint64_t) (q - tbl));
	memcpy(p, tbl, (size_t) (q - tbl));
	return p + (q - tbl);
}

/* ---- value chunks ---- */

struct chunk
{
	int			delta;			/* delta-coded, else frame of reference */
	const at_samples_code *code;	/* entropy-coded with this code, else bit-packed */
	int			w;
	uint64_t	ref;			/* unzigzagged: m (two's complement) */
	uint64_t	dmin;
	const unsigned char *bits;
	size_t		nbytes;
	size_t		h;				/* coded: the first half's bytes (all of them when cnt <= HALF) */
};

static inline size_t
packed_bytes(int cnt, int w, int delta)
{
	return ((size_t) (cnt - delta) * (size_t) w + 7) / 8;
}

/*
 * The header of a checked block's chunk of cnt values at p (code: the
 * block's value code, NULL for version 1); returns the next chunk.
 */
static inline const unsigned char *
chunk_read(const unsigned char *p, int cnt, chunk *c, const at_samples_code *code)
{
	unsigned char kind = *p++;

	if (kind == AT_SAMPLES_CHUNK_CODED && code != NULL)
	{
		c->code = code;
		c->delta = 0;
		c->w = kind;
		c->ref = c->dmin = 0;
		c->nbytes = (size_t) at_varint_get(&p);
		c->h = cnt > AT_SAMPLES_CHUNK_HALF ? (size_t) at_varint_get(&p) : c->nbytes;
		c->bits = p;
		return p + c->nbytes;
	}
	c->code = NULL;
	c->delta = kind >> 7;
	c->w = kind & 0x7f;
	c->ref = at_unzigzag(at_varint_get(&p));
	c->dmin = c->delta ? at_unzigzag(at_varint_get(&p)) : 0;
	c->bits = p;
	c->nbytes = packed_bytes(cnt, c->w, c->delta);
	return p + c->nbytes;
}

/* The same for untrusted bytes: NULL if it does not fit before end. */
static const unsigned char *
chunk_check(const unsigned char *p, const unsigned char *end, int cnt, chunk *c, const at_samples_code *code)
{
	uint64_t	x;

	if (p == end)
		return NULL;
	c->code = NULL;
	if (*p == AT_SAMPLES_CHUNK_CODED && code != NULL)
	{
		if ((p = at_varint_check(p + 1, end, &x)) == NULL)
			return NULL;
		c->nbytes = (size_t) x;
		c->h = c->nbytes;
		if (cnt > AT_SAMPLES_CHUNK_HALF && ((p = at_varint_check(p, end, &x)) == NULL || x > c->nbytes))
			return NULL;
		if (cnt > AT_SAMPLES_CHUNK_HALF)
			c->h = (size_t) x;
		if (c->nbytes > (uint64_t) (end - p))
			return NULL;
		c->code = code;
		c->delta = 0;
		c->w = AT_SAMPLES_CHUNK_CODED;
		c->ref = c->dmin = 0;
		c->bits = p;
		return p + c->nbytes;
	}
	c->delta = *p >> 7;
	c->w = *p & 0x7f;
	p++;
	if (c->w > 64 || (p = at_varint_check(p, end, &x)) == NULL)
		return NULL;
	c->ref = at_unzigzag(x);
	c->dmin = 0;
	if (c->delta)
	{
		if ((p = at_varint_check(p, end, &x)) == NULL)
			return NULL;
		c->dmin = at_unzigzag(x);
	}
	c->bits = p;
	c->nbytes = packed_bytes(cnt, c->w, c->delta);
	if ((size_t) (end - p) < c->nbytes)
		return NULL;
	return p + c->nbytes;
}

/*
 * The cnt values of a coded chunk into out, mod 2^64:
 * its two halves are independent bit streams, decoded together.
 */
static void
coded_ints(const chunk *c, int cnt, const unsigned char *end, uint64_t *out)
{
	if (cnt <= AT_SAMPLES_CHUNK_HALF)
		code_ints1(c->code, end, c->bits, cnt, out);
	else
		code_ints2(c->code, end, c->bits, AT_SAMPLES_CHUNK_HALF, out, c->bits + c->h, cnt - AT_SAMPLES_CHUNK_HALF,
				   out + AT_SAMPLES_CHUNK_HALF);
}

static inline int
chunk_constant(const chunk *c)
{
	return c->code == NULL && c->w == 0 && (!c->delta || c->dmin == 0);
}

/*
 * The chunk's cnt integers into m (mod 2^64: the check then tests their
 * range); a frame-of-reference chunk of AT_SAMPLES_CHUNK unpacks straight
 * into m.
 */
static void
chunk_ints(const chunk *c, int cnt, const unsigned char *end, int64_t *m)
{
	uint64_t	x[AT_SAMPLES_CHUNK];

	if (c->code != NULL)
		coded_ints(c, cnt, end, (uint64_t *) m);
	else if (!c->delta)
	{
		if (cnt == AT_SAMPLES_CHUNK)
			unpack(c->bits, c->nbytes, end, c->w, cnt, c->ref, (uint64_t *) m);
		else
		{
			unpack(c->bits, c->nbytes, end, c->w, cnt, c->ref, x);
			memcpy(m, x, sizeof(int64_t) * (size_t) cnt);
		}
	}
	else
	{
		uint64_t	cur = c->ref,
					dmin = c->dmin;

		if (cnt > 1)
			unpack(c->bits, c->nbytes, end, c->w, cnt - 1, dmin, x);
		m[0] = at_u2i(cur);
		for (int i = 1; i < cnt; i++)
		{
			cur += x[i - 1];
			m[i] = at_u2i(cur);
		}
	}
}

/* ---- the time section ---- */

typedef struct tdec
{
	const unsigned char *p;		/* next varint */
	int			enc;
	int32_t		i;				/* next sample */
	int32_t		n;
	uint64_t	cur;			/* the last time */
	uint64_t	s;				/* the step; the last delta for T_DOD */
	int32_t		gap;			/* the next gap's sample, or n */
	uint64_t	gapd;			/* its delta */
} tdec;

static void
tdec_next_gap(tdec *t, const unsigned char *end)
{
	if (t->p == end)
	{
		t->gap = t->n;
		return;
	}
	t->gap += 1 + (int32_t) at_varint_get(&t->p);
	t->gapd = (at_varint_get(&t->p) + 2) * t->s;
}

static void
tdec_init(tdec *t, const unsigned char *buf)
{
	const unsigned char *end = time_end(buf);

	t->p = buf + AT_SAMPLES_HEADER;
	t->enc = buf[1] & 3;
	t->i = 0;
	t->n = (int32_t) at_get_le32(buf + 4);
	t->cur = at_get_le64(buf + 8);
	t->s = t->n > 1 ? at_varint_get(&t->p) : 0;
	t->gap = 0;
	if (t->enc == AT_SAMPLES_T_GAPS)
		tdec_next_gap(t, end);
}

/*
 * Regular and gap-coded times: moves t, without decoding, so that the next
 * sample it gives is the first at or after from (or none is left).  Whole
 * regular runs are stepped over by division, gaps one by one.
 */
static void
tdec_skip(tdec *t, const unsigned char *end, int64_t from)
{
	if (t->i == 0)
	{
		if (at_u2i(t->cur) >= from)
			return;
		t->i = 1;				/* cur is sample 0's time */
	}
	while (t->i < t->n)
	{
		int32_t		limit = t->enc == AT_SAMPLES_T_GAPS ? t->gap : t->n;

		if (limit > t->i)
		{
			/* samples i .. limit - 1 follow by s: sample i - 1 + k is at cur + k s */
			uint64_t	need = (uint64_t) from - t->cur;	/* > 0: cur < from */
			uint64_t	k = need / t->s + (need % t->s != 0);

			if (k <= (uint64_t) (limit - t->i))
			{
				t->cur += (k - 1) * t->s;
				t->i += (int32_t) k - 1;
				return;
			}
			t->cur += (uint64_t) (limit - t->i) * t->s;
			t->i = limit;
			if (t->i >= t->n)
				return;
		}
		/* sample i is the gap's, gapd after i - 1 */
		if (at_u2i(t->cur + t->gapd) >= from)
			return;
		t->cur += t->gapd;
		t->i++;
		tdec_next_gap(t, end);
	}
}

/* The next cnt (<= n - i) times into out. */
static void
tdec_run(tdec *t, const unsigned char *end, int64_t *out, int32_t cnt)
{
	/* locals: out may alias t's uint64_t fields as far as the compiler knows */
	uint64_t	cur = t->cur,
				s = t->s;
	int32_t		k = 0;

	if (cnt <= 0)
		return;
	if (t->i == 0)
	{
		out[k++] = at_u2i(cur);
		t->i = 1;
	}
	if (t->enc != AT_SAMPLES_T_GAPS)
		t->i += cnt - k;
	switch (t->enc)
	{
		case AT_SAMPLES_T_REGULAR:
			for (; k < cnt; k++)
			{
				cur += s;
				out[k] = at_u2i(cur);
			}
			break;
		case AT_SAMPLES_T_GAPS:
			while (k < cnt)
			{
				int32_t		run = t->gap - t->i;	/* regular steps before the gap */

				if (run > cnt - k)
					run = cnt - k;
				for (int32_t e = k + run; k < e; k++)
				{
					cur += s;
					out[k] = at_u2i(cur);
				}
				t->i += run;
				if (k < cnt)	/* at the gap */
				{
					cur += t->gapd;
					out[k++] = at_u2i(cur);
					t->i++;
					tdec_next_gap(t, end);
				}
			}
			break;
		default:
			{
				const unsigned char *p = t->p;

				for (; k < cnt; k++)
				{
					s += at_unzigzag(at_varint_get(&p));
					cur += s;
					out[k] = at_u2i(cur);
				}
				t->p = p;
				t->s = s;
			}
	}
	t->cur = cur;
}

/* ---- encoding ---- */

size_t
at_samples_encode_bound(int32_t n)
{
	/* header, time (10 bytes a varint), values (8n + 18 at worst), slice's stage */
	return AT_SAMPLES_HEADER + 18 + 10 * (size_t) n + 8 * (size_t) n + 16 * (size_t) n + 16;
}

/*
 * The most common step: one pass when every step is the same, a second
 * when one is a majority (Boyer-Moore), else the counted most common of
 * the candidates of a Misra-Gries pass (exact whenever the mode is more
 * than a ninth of the steps: irregular times go to delta-of-deltas, where
 * s only seeds the first delta).  Ties go to the smaller step.
 */
static uint64_t
mode_step(const int64_t *ts, int32_t n)
{
	uint64_t	cand = 0,
				mg[8] = {0},
				best = 0;
	int64_t		votes = 0,
				count = 0,
				mc[8] = {0},
				bestc;
	int32_t		i;

	for (i = 1; i < n; i++)
	{
		uint64_t	d = (uint64_t) ts[i] - (uint64_t) ts[i - 1];

		if (votes == 0)
			cand = d;
		votes += d == cand ? 1 : -1;
	}
	for (i = 1; i < n; i++)
		count += (uint64_t) ts[i] - (uint64_t) ts[i - 1] == cand;
	if (2 * count > n - 1)
		return cand;
	best = cand;				/* if no Misra-Gries counter survives */
	bestc = count;

	for (i = 1; i < n; i++)
	{
		uint64_t	d = (uint64_t) ts[i] - (uint64_t) ts[i - 1];
		int			j,
					free_slot = -1;

		for (j = 0; j < 8; j++)
		{
			if (mc[j] > 0 && mg[j] == d)
				break;
			if (mc[j] == 0 && free_slot < 0)
				free_slot = j;
		}
		if (j < 8)
			mc[j]++;
		else if (free_slot >= 0)
		{
			mg[free_slot] = d;
			mc[free_slot] = 1;
		}
		else
			for (j = 0; j < 8; j++)
				mc[j]--;
	}
	for (int j = 0; j < 8; j++)
		if (mc[j] > 0)
		{
			int64_t		c = 0;

			for (i = 1; i < n; i++)
				c += (uint64_t) ts[i] - (uint64_t) ts[i - 1] == mg[j];
			if (mg[j] != cand && (c > bestc || (c == bestc && mg[j] < best)))
			{
				best = mg[j];
				bestc = c;
			}
		}
	return best;
}

/* The time section of n >= 2 times; *enc its encoding. */
static unsigned char *
encode_times(const int64_t *ts, int32_t n, unsigned char *p, int *enc)
{
	uint64_t	s = (uint64_t) ts[1] - (uint64_t) ts[0],
				prev;
	int32_t		i;
	int			multiples = 1;
	size_t		gaps_size = 0,
				dod_size = 0;
	int32_t		last_gap = 0;

	for (i = 2; i < n; i++)
		if ((uint64_t) ts[i] - (uint64_t) ts[i - 1] != s)
			break;
	if (i == n)
	{
		*enc = AT_SAMPLES_T_REGULAR;
		return at_varint_put(p, s);
	}
	s = mode_step(ts, n);
	p = at_varint_put(p, s);

	/* both sizes when every step is a whole number of s, else delta-of-deltas */
	prev = s;
	for (i = 1; i < n; i++)
	{
		uint64_t	d = (uint64_t) ts[i] - (uint64_t) ts[i - 1];

		if (d != s && multiples)
		{
			if (d % s != 0 || d < s)
				multiples = 0;
			else
			{
				gaps_size += at_varint_len((uint64_t) (i - last_gap - 1)) + at_varint_len(d / s - 2);
				last_gap = i;
			}
		}
		dod_size += at_varint_len(at_zigzag(d - prev));
		prev = d;
	}
	if (multiples && gaps_size <= dod_size)
	{
		*enc = AT_SAMPLES_T_GAPS;
		last_gap = 0;
		for (i = 1; i < n; i++)
		{
			uint64_t	d = (uint64_t) ts[i] - (uint64_t) ts[i - 1];

			if (d != s)
			{
				p = at_varint_put(p, (uint64_t) (i - last_gap - 1));
				p = at_varint_put(p, d / s - 2);
				last_gap = i;
			}
		}
		return p;
	}
	*enc = AT_SAMPLES_T_DOD;
	prev = s;
	for (i = 1; i < n; i++)
	{
		uint64_t	d = (uint64_t) ts[i] - (uint64_t) ts[i - 1];

		p = at_varint_put(p, at_zigzag(d - prev));
		prev = d;
	}
	return p;
}

/*
 * Whether v is exactly m / 10^k for an integer |m| < 2^53 (bit for bit, so
 * -0.0 never is), and that m.  Rounding v * 10^k by hand keeps llround's
 * call out of the loop.  The product is off m by up to |m| * 2^-52, so past
 * 2^50 the nearest integer can miss: its neighbours are tried too.
 */
static inline int
exact_at(double v, int k, int64_t *m)
{
	double		x = v * at_p10[k],
				f;
	int64_t		r;

	if (!(fabs(x) < TWO53))
		return 0;
	r = (int64_t) x;
	f = x - (double) r;
	if (f >= 0.5)
		r++;
	else if (f <= -0.5)
		r--;
	if (r < (int64_t) M_LIMIT && r > -(int64_t) M_LIMIT && at_double_bits((double) r / at_p10[k]) == at_double_bits(v))
	{
		*m = r;
		return 1;
	}
	if (fabs(x) < TWO53 / 8)
		return 0;
	for (int64_t c = r - 2; c <= r + 2; c++)
		if (c != r && c < (int64_t) M_LIMIT && c > -(int64_t) M_LIMIT && at_double_bits((double) c / at_p10[k]) == at_double_bits(v))
		{
			*m = c;
			return 1;
		}
	return 0;
}

/*
 * An m for v at scale k.  Rounding v * 10^k can miss even when v is exact
 * at k (38.38 is 3838 / 10^2, but round(38.38 * 10^14) / 10^14 is not
 * 38.38), so then the smaller scales are tried and their m multiplied up:
 * the same rational number, so the same double.  0 if there is none.
 */
static int
int_at(double v, int k, int64_t *m)
{
	if (exact_at(v, k, m))
		return 1;
	for (int j = k - 1; j >= 0; j--)
	{
		int64_t		r;

		if (exact_at(v, j, &r))
		{
			int			e;

			/* times 10^(k - j) while |r| stays below 2^53 */
			for (e = j; e < k && r <= (int64_t) ((M_LIMIT - 1) / 10) && r >= -(int64_t) ((M_LIMIT - 1) / 10); e++)
				r *= 10;
			if (e == k)
			{
				*m = r;
				return 1;
			}
		}
	}
	return 0;
}

/*
 * The smallest scale at which every value is exact, or -1.  A value exact
 * at k is the same rational number at any larger K, so only the new value
 * is tried at a raised scale; the earlier ones need only their largest |m|
 * times 10^(K - k) to stay below 2^53 (exact at k means exact at K only
 * within that bound: 1e15 is exact at 0, not at 1).
 */
static int
find_scale(const double *v, int32_t n)
{
	int			k = 0;
	uint64_t	maxabs = 0;		/* of the m so far, at scale k */

	for (int32_t i = 0; i < n; i++)
	{
		int64_t		m;
		uint64_t	a;

		if (!int_at(v[i], k, &m))
		{
			int			k0 = k;

			do
			{
				if (++k > AT_SAMPLES_MAX_SCALE)
					return -1;
			} while (!int_at(v[i], k, &m));
			for (; k0 < k; k0++)
			{
				if (maxabs > (M_LIMIT - 1) / 10)
					return -1;
				maxabs *= 10;
			}
		}
		a = m < 0 ? (uint64_t) 0 - (uint64_t) m : (uint64_t) m;
		if (a > maxabs)
			maxabs = a;
	}
	return k;
}

/* Packs cnt w-bit (<= 56) integers at out (8 bytes of slack past them). */
static unsigned char *
pack(unsigned char *out, const uint64_t *x, int cnt, int w)
{
	uint64_t	acc = 0;
	int			nb = 0;

	if (w == 0)
		return out;
	for (int i = 0; i < cnt; i++)
	{
		int			k;

		acc |= x[i] << nb;
		nb += w;
		at_put_le64(out, acc);
		k = nb >> 3;
		out += k;
		acc = k == 8 ? 0 : acc >> (8 * k);
		nb &= 7;
	}
	if (nb)
		*out++ = (unsigned char) acc;
	return out;
}

/*
 * One chunk of cnt integers |m| < 2^53, the smallest of the codings: the
 * two bit-packings, and with cd (not NULL) the value code; *saved grows by
 * the bytes the code saves.
 */
static unsigned char *
put_chunk(unsigned char *p, const int64_t *m, int cnt, const coder *cd, int64_t *saved)
{
	unsigned char tmp[PACK_MAX + 16];
	uint64_t	x[AT_SAMPLES_CHUNK];
	int64_t		mn = m[0],
				mx = m[0],
				dmn = 0,
				dmx = 0;
	int			wf,
				wd = 0;
	size_t		size_f,
				size_d = SIZE_MAX;

	for (int i = 1; i < cnt; i++)
	{
		int64_t		d = m[i] - m[i - 1];	/* |d| < 2^54 */

		if (m[i] < mn)
			mn = m[i];
		if (m[i] > mx)
			mx = m[i];
		if (i == 1 || d < dmn)
			dmn = d;
		if (i == 1 || d > dmx)
			dmx = d;
	}
	wf = bit_width((uint64_t) mx - (uint64_t) mn);
	size_f = at_varint_len(at_zigzag((uint64_t) mn)) + packed_bytes(cnt, wf, 0);
	if (cnt > 1)
	{
		wd = bit_width((uint64_t) dmx - (uint64_t) dmn);
		size_d = at_varint_len(at_zigzag((uint64_t) m[0])) + at_varint_len(at_zigzag((uint64_t) dmn)) + packed_bytes(cnt, wd, 1);
	}
	if (cd != NULL && (wf > 0 || wd > 0))
	{
		uint64_t	bits = 0,
					raw;
		size_t		nbytes,
					size_c,
					best = size_f < size_d ? size_f : size_d;

		size_t		h = 0;
		int			split = cnt > AT_SAMPLES_CHUNK_HALF;

		/* two halves, each whole bytes: h the first's */
		for (int i = 0; i < cnt; i++)
		{
			int			sym = coder_sym(cd, m[i], &raw);

			if (i == AT_SAMPLES_CHUNK_HALF)
			{
				h = (size_t) ((bits + 7) / 8);
				bits = 8 * (uint64_t) h;
			}
			bits += (uint64_t) cd->len[sym] + (sym < cd->ne ? 0 : (uint64_t) cd->L);
		}
		nbytes = (size_t) ((bits + 7) / 8);
		size_c = (size_t) at_varint_len(nbytes) + (split ? (size_t) at_varint_len(h) : 0) + nbytes;
		if (size_c < best)
		{
			bitwriter	w = {NULL, 0, 0};

			*saved += (int64_t) (best - size_c);
			*p++ = AT_SAMPLES_CHUNK_CODED;
			p = at_varint_put(p, nbytes);
			if (split)
				p = at_varint_put(p, h);
			w.p = p;
			for (int i = 0; i < cnt; i++)
			{
				int			sym = coder_sym(cd, m[i], &raw);

				if (i == AT_SAMPLES_CHUNK_HALF && w.nb > 0)
				{
					/* the first half's last byte, zero-padded */
					*w.p++ = (unsigned char) (w.acc << (8 - w.nb));
					w.nb = 0;
				}
				bw_put(&w, cd->code[sym], cd->len[sym]);
				if (sym >= cd->ne && cd->L > 0)
					bw_put(&w, raw, cd->L);
			}
			if (w.nb > 0)
				*w.p++ = (unsigned char) (w.acc << (8 - w.nb));
			return w.p;
		}
	}
	if (size_f <= size_d)
	{
		*p++ = (unsigned char) wf;
		p = at_varint_put(p, at_zigzag((uint64_t) mn));
		for (int i = 0; i < cnt; i++)
			x[i] = (uint64_t) m[i] - (uint64_t) mn;
		memcpy(p, tmp, (size_t) (pack(tmp, x, cnt, wf) - tmp));
		return p + packed_bytes(cnt, wf, 0);
	}
	*p++ = (unsigned char) (0x80 | wd);
	p = at_varint_put(p, at_zigzag((uint64_t) m[0]));
	p = at_varint_put(p, at_zigzag((uint64_t) dmn));
	for (int i = 1; i < cnt; i++)
		x[i - 1] = (uint64_t) (m[i] - m[i - 1]) - (uint64_t) dmn;
	memcpy(p, tmp, (size_t) (pack(tmp, x, cnt - 1, wd) - tmp));
	return p + packed_bytes(cnt, wd, 1);
}

/*
 * Counting the integers of a block while encoding it: a window of
 * COUNTS_WINDOW integers centred on the first; one outside it (a wide
 * range) gives up, and so do more than AT_SAMPLES_COUNTS_MAX distinct ones.
 */
#define COUNTS_WINDOW 2048
typedef struct counter
{
	int			ok;
	int64_t		base;			/* the first integer - COUNTS_WINDOW / 2 */
	uint32_t	c[COUNTS_WINDOW];
} counter;

/*
 * The value chunks at scale k (cd: with the value code, adding the bytes
 * it saves to *saved); NULL when a value has no integer after all.  cs
 * (when not NULL) counts the integers.
 */
static unsigned char *
encode_ints(const double *v, int32_t n, int k, unsigned char *p, counter *cs, const coder *cd, int64_t *saved)
{
	int64_t		m[AT_SAMPLES_CHUNK];

	for (int32_t base = 0; base < n; base += AT_SAMPLES_CHUNK)
	{
		int			cnt = n - base < AT_SAMPLES_CHUNK ? (int) (n - base) : AT_SAMPLES_CHUNK;

		for (int i = 0; i < cnt; i++)
			if (!int_at(v[base + i], k, &m[i]))
				return NULL;
		if (cs != NULL && base == 0)
			cs->base = m[0] - COUNTS_WINDOW / 2;
		for (int i = 0; cs != NULL && i < cnt && cs->ok; i++)
		{
			uint64_t	d = (uint64_t) m[i] - (uint64_t) cs->base;

			if (d < COUNTS_WINDOW)
				cs->c[d]++;
			else
				cs->ok = 0;
		}
		p = put_chunk(p, m, cnt, cd, saved);
	}
	return p;
}

/*
 * Plans the value code of n values at scale k (integers mmin..mmax): the
 * fewest raw bits L that leave at most AT_SAMPLES_CODE_BUCKETS buckets,
 * the values common enough to be worth a symbol of their own (an idle 0
 * among decimals), and Huffman lengths from the block's own counts.  0
 * when no code applies.
 */
static int
coder_plan(const double *v, int32_t n, int k, int64_t mmin, int64_t mmax, int maxlen, coder *cd, planner *pl)
{
	uint64_t	span = (uint64_t) mmax - (uint64_t) mmin,
				w[AT_SAMPLES_CODE_SYMS];
	int			L = 0;

	while ((span >> L) >= AT_SAMPLES_CODE_BUCKETS)
		L++;
	if (L > AT_SAMPLES_CODE_RAW)
		return 0;
	cd->L = L;
	cd->base = mmin;
	cd->nb = (int) (span >> L) + 1;
	cd->ne = 0;
	memset(pl->bucket, 0, sizeof(uint64_t) * (size_t) cd->nb);
	memset(pl->cnt, 0, sizeof pl->cnt);
	pl->used = 0;
	for (int32_t i = 0; i < n; i++)
	{
		int64_t		m;
		uint64_t	x;

		if (!int_at(v[i], k, &m))
			return 0;
		x = (uint64_t) m - (uint64_t) mmin;
		if (x > span)
			return 0;
		pl->bucket[x >> L]++;
		if (L > 0)
		{
			uint32_t	h = (uint32_t) (((uint64_t) m * UINT64_C(0x9E3779B97F4A7C15)) >> 54);

			while (pl->cnt[h] != 0 && pl->key[h] != m)
				h = (h + 1) & (PLAN_SLOTS - 1);
			if (pl->cnt[h] != 0)
				pl->cnt[h]++;
			else if (pl->used < PLAN_SLOTS * 3 / 4)
			{
				pl->key[h] = m;
				pl->cnt[h] = 1;
				pl->used++;
			}
		}
	}
	if (L > 0)
	{
		/* the most common values with at least a 64th of the samples, increasing */
		uint32_t	ec[AT_SAMPLES_CODE_EXACT];
		uint32_t	floor = (uint32_t) (n / 64);

		for (int h = 0; h < PLAN_SLOTS; h++)
		{
			int			j;

			if (pl->cnt[h] < floor || pl->cnt[h] == 0)
				continue;
			if (cd->ne == AT_SAMPLES_CODE_EXACT && pl->cnt[h] <= ec[cd->ne - 1])
				continue;
			j = cd->ne < AT_SAMPLES_CODE_EXACT ? cd->ne++ : cd->ne - 1;
			for (; j > 0 && ec[j - 1] < pl->cnt[h]; j--)
			{
				ec[j] = ec[j - 1];
				cd->exact[j] = cd->exact[j - 1];
			}
			ec[j] = pl->cnt[h];
			cd->exact[j] = pl->key[h];
		}
		for (int i = 1; i < cd->ne; i++)
			for (int j = i; j > 0 && cd->exact[j - 1] > cd->exact[j]; j--)
			{
				int64_t		t = cd->exact[j];
				uint32_t	tc = ec[j];

				cd->exact[j] = cd->exact[j - 1];
				ec[j] = ec[j - 1];
				cd->exact[j - 1] = t;
				ec[j - 1] = tc;
			}
		for (int i = 0; i < cd->ne; i++)
		{
			w[i] = ec[i];
			pl->bucket[((uint64_t) cd->exact[i] - (uint64_t) mmin) >> L] -= ec[i];
		}
	}
	memcpy(w + cd->ne, pl->bucket, sizeof(uint64_t) * (size_t) cd->nb);
	if (!huffman_lengths(w, cd->ne + cd->nb, maxlen, cd->len))
		return 0;
	coder_codes(cd);
	return 1;
}

/*
 * The value counts section of cs into out (room for AT_SAMPLES_COUNTS_MAX
 * entries): varint k, then per distinct integer in increasing order a
 * varint of at_zigzag(m) (the first) or of the step from the previous one minus 1,
 * and a varint of its count minus 1.  0 when there are too many.
 */
static size_t
put_counts(const counter *cs, unsigned char *out)
{
	unsigned char *p;
	int			k = 0;
	int64_t		prev = 0;

	for (int i = 0; i < COUNTS_WINDOW; i++)
		k += cs->c[i] != 0;
	if (k > AT_SAMPLES_COUNTS_MAX)
		return 0;
	p = at_varint_put(out, (uint64_t) k);
	k = 0;
	for (int i = 0; i < COUNTS_WINDOW; i++)
	{
		int64_t		m = cs->base + i;

		if (cs->c[i] == 0)
			continue;
		p = at_varint_put(p, k++ == 0 ? at_zigzag((uint64_t) m) : (uint64_t) (m - prev - 1));
		p = at_varint_put(p, (uint64_t) cs->c[i] - 1);
		prev = m;
	}
	return (size_t) (p - out);
}

/*
 * Blocks under this many samples get no value counts (an aggregate reads a
 * small block fast anyway), and windows under it are cut as raw doubles:
 * at_samples_slice's result is most often read once, by an aggregate, so
 * a cheap encoding beats a small one.
 */
#define SMALL_BLOCK 1024

static size_t encode_impl(const int64_t *ts, const double *v, int32_t n, unsigned char *out, int force_raw,
						  int maxlen);

size_t
at_samples_encode(const int64_t *ts, const double *v, int32_t n, unsigned char *out)
{
	return encode_impl(ts, v, n, out, 0, AT_SAMPLES_CODE_WRITE_MAXLEN);
}

size_t
at_samples_encode_maxlen(const int64_t *ts, const double *v, int32_t n, unsigned char *out, int maxlen)
{
	if (maxlen < AT_SAMPLES_CODE_WRITE_MAXLEN)
		maxlen = AT_SAMPLES_CODE_WRITE_MAXLEN;
	if (maxlen > AT_SAMPLES_CODE_MAXLEN)
		maxlen = AT_SAMPLES_CODE_MAXLEN;
	return encode_impl(ts, v, n, out, 0, maxlen);
}

static size_t
encode_impl(const int64_t *ts, const double *v, int32_t n, unsigned char *out, int force_raw, int maxlen)
{
	unsigned char *p = out + AT_SAMPLES_HEADER,
			   *tend;
	int			tenc = AT_SAMPLES_T_REGULAR,
				venc = AT_SAMPLES_V_INTS,
				k;
	double		mn = v[0],
				mx = v[0];
	counter		cs;
	size_t		csize = 0;
	int			version = AT_SAMPLES_VERSION_PLAIN;

	for (int32_t i = 1; i < n; i++)
	{
		if (v[i] < mn)
			mn = v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	if (n > 1)
		p = encode_times(ts, n, p, &tenc);
	tend = p;
	k = force_raw ? -1 : find_scale(v, n);
	cs.ok = n >= SMALL_BLOCK;
	if (cs.ok)
		memset(cs.c, 0, sizeof cs.c);
	p = NULL;
	if (k >= 0 && n >= SMALL_BLOCK)
	{
		/* with a value code when it saves more than it costs */
		planner		pl;
		coder		cd;
		int64_t		mmin,
					mmax,
					saved = 0;
		unsigned char *cstart;

		if (int_at(mn, k, &mmin) && int_at(mx, k, &mmax) && coder_plan(v, n, k, mmin, mmax, maxlen, &cd, &pl))
		{
			cstart = put_code(tend, &cd);
			p = encode_ints(v, n, k, cstart, &cs, &cd, &saved);
			if (p != NULL && saved > cstart - tend)
				version = AT_SAMPLES_VERSION;
			else
			{
				p = NULL;
				cs.ok = 1;
				memset(cs.c, 0, sizeof cs.c);
			}
		}
	}
	if (k >= 0 && p == NULL)
		p = encode_ints(v, n, k, tend, &cs, NULL, NULL);
	if (k >= 0 && p != NULL)
	{
		/* few distinct integers: their counts go between times and values */
		unsigned char cbuf[2 + AT_SAMPLES_COUNTS_MAX * 15];

		if (cs.ok && (csize = put_counts(&cs, cbuf)) > 0)
		{
			memmove(tend + csize, tend, (size_t) (p - tend));
			memcpy(tend, cbuf, csize);
			p += csize;
		}
	}
	else
	{
		k = -1;
		venc = AT_SAMPLES_V_RAW;
		p = tend;
		for (int32_t i = 0; i < n; i++, p += 8)
			at_put_le64(p, at_double_bits(v[i]));
	}
	out[0] = (unsigned char) version;
	out[1] = (unsigned char) AT_SAMPLES_FLAGS(tenc, venc);
	out[2] = (unsigned char) (k + 1);
	out[3] = 0;
	at_put_le32(out + 4, (uint32_t) n);
	at_put_le64(out + 8, (uint64_t) ts[0]);
	at_put_le64(out + 16, (uint64_t) ts[n - 1]);
	at_put_le64(out + 24, at_double_bits(mn));
	at_put_le64(out + 32, at_double_bits(mx));
	at_put_le32(out + 40, (uint32_t) (tend - out - AT_SAMPLES_HEADER));
	at_put_le32(out + 44, (uint32_t) csize);
	return (size_t) (p - out);
}

/* ---- checking untrusted bytes ---- */

static const char *
check_times(const unsigned char *p, const unsigned char *end, int enc, int32_t n, uint64_t first,
			uint64_t last)
{
	uint64_t	s,
				span = last - first;

	if (n == 1)
	{
		if (p != end || enc != AT_SAMPLES_T_REGULAR)
			return "a one-sample block has a time section";
		if (first != last)
			return "a one-sample block has two times";
		return NULL;
	}
	if (at_u2i(last) <= at_u2i(first))
		return "the last time is not after the first";
	if ((p = at_varint_check(p, end, &s)) == NULL)
		return "the time section is cut short or holds a bad varint";
	if (s == 0)
		return "the time step is zero";
	if (enc == AT_SAMPLES_T_REGULAR)
	{
		if (p != end)
			return "trailing bytes in the time section";
		if (span % s != 0 || span / s != (uint64_t) (n - 1))
			return "the times do not end at the last time";
	}
	else if (enc == AT_SAMPLES_T_GAPS)
	{
		/* steps of s in all, bounded so that steps * s never passes the span */
		uint64_t	limit = span / s,
					steps = (uint64_t) (n - 1);
		int32_t		at = 0;

		if (steps > limit)
			return "the times pass the last time";
		while (p != end)
		{
			uint64_t	pd,
						k;

			if ((p = at_varint_check(p, end, &pd)) == NULL || (p = at_varint_check(p, end, &k)) == NULL)
				return "the time section is cut short or holds a bad varint";
			if (pd >= (uint64_t) (n - 1 - at))
				return "a gap lies past the last sample";
			at += 1 + (int32_t) pd;
			if (k >= limit - steps)
				return "the times pass the last time";
			steps += k + 1;
		}
		if (steps * s != span)
			return "the times do not end at the last time";
	}
	else
	{
		uint64_t	cur = first,
					d = s;

		for (int32_t i = 1; i < n; i++)
		{
			uint64_t	x;

			if ((p = at_varint_check(p, end, &x)) == NULL)
				return "the time section is cut short or holds a bad varint";
			d += at_unzigzag(x);
			if (at_u2i(cur + d) <= at_u2i(cur))
				return "the times are not strictly increasing";
			cur += d;
		}
		if (p != end)
			return "trailing bytes in the time section";
		if (cur != last)
			return "the times do not end at the last time";
	}
	return NULL;
}

/*
 * The value counts section p..end into cm/cc (room for
 * AT_SAMPLES_COUNTS_MAX); *k their number.  NULL or a message.
 */
static const char *
check_counts(const unsigned char *p, const unsigned char *end, int32_t n, int64_t *cm, int64_t *cc, int *k)
{
	uint64_t	x,
				total = 0;

	if ((p = at_varint_check(p, end, &x)) == NULL || x < 1 || x > AT_SAMPLES_COUNTS_MAX)
		return "the value counts section is cut short or counts too many values";
	*k = (int) x;
	for (int i = 0; i < *k; i++)
	{
		uint64_t	d,
					c;

		if ((p = at_varint_check(p, end, &d)) == NULL || (p = at_varint_check(p, end, &c)) == NULL)
			return "the value counts section is cut short or holds a bad varint";
		if (i == 0)
		{
			if (at_unzigzag(d) + (M_LIMIT - 1) > 2 * M_LIMIT - 2)
				return "a counted value is not below 2^53 in magnitude";
			cm[0] = at_u2i(at_unzigzag(d));
		}
		else
		{
			if (d >= 2 * M_LIMIT || (uint64_t) cm[i - 1] + d + 1 + (M_LIMIT - 1) > 2 * M_LIMIT - 2)
				return "a counted value is not below 2^53 in magnitude";
			cm[i] = cm[i - 1] + (int64_t) d + 1;
		}
		if (c >= (uint64_t) n)
			return "a value count exceeds the number of samples";
		cc[i] = (int64_t) c + 1;
		total += c + 1;
	}
	if (p != end)
		return "trailing bytes in the value counts section";
	if (total != (uint64_t) n)
		return "the value counts do not add up to the number of samples";
	return NULL;
}

static const char *
check_values(const unsigned char *p, const unsigned char *end, int version, int scale, int32_t n,
			 double hmin, double hmax, const int64_t *cm, int64_t *cc, int k)
{
	double		mn,
				mx;
	at_samples_code code;
	const char *msg;

	if (scale < 0)
	{
		if ((size_t) (end - p) != 8 * (size_t) n)
			return "the raw values do not fill the value section";
		mn = mx = at_bits_double(at_get_le64(p));
		for (int32_t i = 0; i < n; i++, p += 8)
		{
			double		d = at_bits_double(at_get_le64(p));

			if (!isfinite(d))
				return "a value is not finite";
			if (d < mn)
				mn = d;
			if (d > mx)
				mx = d;
		}
	}
	else
	{
		int64_t		m[AT_SAMPLES_CHUNK],
					imin = INT64_MAX,
					imax = INT64_MIN;

		if (version == AT_SAMPLES_VERSION && (p = code_read(p, end, &code, AT_SAMPLES_CODE_FAST, 1, &msg)) == NULL)
			return msg;
		for (int32_t base = 0; base < n; base += AT_SAMPLES_CHUNK)
		{
			int			cnt = n - base < AT_SAMPLES_CHUNK ? (int) (n - base) : AT_SAMPLES_CHUNK;
			uint64_t	bad = 0;
			chunk		c;

			if ((p = chunk_check(p, end, cnt, &c, version == AT_SAMPLES_VERSION ? &code : NULL)) == NULL)
				return "a value chunk is cut short or holds a bad varint or width";
			if (c.code != NULL)
			{
				/* each half fills its bytes exactly, zero-padded */
				for (int half = 0; half < 2; half++)
				{
					int			h0 = half * AT_SAMPLES_CHUNK_HALF,
								hn = cnt - h0 < AT_SAMPLES_CHUNK_HALF ? cnt - h0 : AT_SAMPLES_CHUNK_HALF;
					const unsigned char *hb = half ? c.bits + c.h : c.bits;
					size_t		hbytes = half ? c.nbytes - c.h : c.h;
					uint64_t	pad,
								used;

					if (hn <= 0)
						break;
					used = code_ints(&code, hb, hbytes, hn, (uint64_t *) m + h0, &pad);
					if (used > 8 * (uint64_t) hbytes || (used + 7) / 8 != (uint64_t) hbytes)
						return "a coded value chunk's bits do not fill its bytes";
					if (pad != 0)
						return "a coded value chunk's padding bits are not zero";
				}
			}
			else
				chunk_ints(&c, cnt, end, m);
			/* each integer takes one off its count (binary search) */
			for (int i = 0; i < cnt && k > 0; i++)
			{
				int			lo = 0,
							hi = k - 1;

				while (lo < hi)
				{
					int			mid = (lo + hi) / 2;

					if (cm[mid] < m[i])
						lo = mid + 1;
					else
						hi = mid;
				}
				if (cm[lo] != m[i] || cc[lo]-- == 0)
					return "the value counts do not match the values";
			}
			for (int i = 0; i < cnt; i++)
			{
				bad |= (uint64_t) m[i] + (M_LIMIT - 1) > 2 * M_LIMIT - 2;
				if (m[i] < imin)
					imin = m[i];
				if (m[i] > imax)
					imax = m[i];
			}
			if (bad)
				return "a scaled value is not below 2^53 in magnitude";
		}
		if (p != end)
			return "trailing bytes after the last value chunk";
		mn = (double) imin / at_p10[scale];
		mx = (double) imax / at_p10[scale];
	}
	if (at_double_bits(mn) != at_double_bits(hmin) || at_double_bits(mx) != at_double_bits(hmax))
		return "min or max does not match the values";
	return NULL;
}

const char *
at_samples_check(const unsigned char *buf, size_t len, at_samples_info *info)
{
	at_samples_info h;
	int			tenc,
				venc;
	uint32_t	n,
				tsize,
				csize;
	const char *msg;
	int64_t		cm[AT_SAMPLES_COUNTS_MAX],
				cc[AT_SAMPLES_COUNTS_MAX];
	int			k = 0;

	if (len < AT_SAMPLES_HEADER)
		return "value is shorter than the header";
	if (buf[0] != AT_SAMPLES_VERSION && buf[0] != AT_SAMPLES_VERSION_PLAIN)
		return "unsupported samples version";
	tenc = buf[1] & 3;
	venc = buf[1] >> 2;
	if (tenc > AT_SAMPLES_T_DOD || venc > AT_SAMPLES_V_RAW)
		return "unknown encoding flags";
	if (buf[2] > AT_SAMPLES_MAX_SCALE + 1)
		return "scale out of range";
	if ((buf[2] == 0) != (venc == AT_SAMPLES_V_RAW))
		return "the scale does not match the value encoding";
	if (buf[0] == AT_SAMPLES_VERSION && venc != AT_SAMPLES_V_INTS)
		return "a version-2 block must have integer values";
	if (buf[3] != 0)
		return "reserved header bytes are not zero";
	n = at_get_le32(buf + 4);
	if (n < 1 || n > AT_SAMPLES_MAX)
		return "the number of samples is out of range";
	tsize = at_get_le32(buf + 40);
	if (tsize > len - AT_SAMPLES_HEADER)
		return "the time section runs past the end";
	csize = at_get_le32(buf + 44);
	if (csize > len - AT_SAMPLES_HEADER - tsize)
		return "the value counts section runs past the end";
	if (csize > 0 && venc != AT_SAMPLES_V_INTS)
		return "raw values cannot have a value counts section";
	at_samples_info_read(buf, &h);
	msg = check_times(buf + AT_SAMPLES_HEADER, buf + AT_SAMPLES_HEADER + tsize, tenc, h.n, at_get_le64(buf + 8),
					  at_get_le64(buf + 16));
	if (msg == NULL && csize > 0)
		msg = check_counts(buf + AT_SAMPLES_HEADER + tsize, buf + AT_SAMPLES_HEADER + tsize + csize, h.n, cm, cc, &k);
	if (msg == NULL)
		msg = check_values(buf + AT_SAMPLES_HEADER + tsize + csize, buf + len, buf[0], h.scale, h.n, h.min, h.max,
						   cm, cc, k);
	/* every count used up: the counts are the values' */
	for (int i = 0; msg == NULL && i < k; i++)
		if (cc[i] != 0)
			msg = "the value counts do not match the values";
	if (msg == NULL && info != NULL)
		*info = h;
	return msg;
}

/* ---- decoding ---- */

/*
 * An integer |m| < 2^51 as a double without cvtsi2sd: the bits of 1.5 * 2^52
 * plus m are the double 1.5 * 2^52 + m, exactly.  Unlike the conversion
 * instruction (x86-64 has no packed one before AVX-512), this vectorizes,
 * and with it the division.
 */
#define MAGIC_BITS	((uint64_t) 0x4338000000000000)
#define MAGIC		6755399441055744.0
#define MAGIC_LIMIT	((uint64_t) 1 << 51)

/*
 * v[i] = x[i] / 10^k for i < cnt (x two's complement); x holds whole groups
 * of 8 (as unpack writes them).  small: every x[i] lies within +-2^51, so the
 * vectorizable conversion applies; the results go straight into v when it
 * has room for the whole groups.
 */
static ALWAYS_INLINE void
ints_to_doubles(const uint64_t *restrict x, int cnt, double *restrict v, int k, int small)
{
	double		div = at_p10[k];

	if (small)
	{
		double		tmp[AT_SAMPLES_CHUNK],
				   *o = cnt == AT_SAMPLES_CHUNK ? v : tmp;
		int			groups = (cnt + 7) / 8;

		if (k == 0)
			for (int g = 0; g < groups; g++)
				for (int j = 0; j < 8; j++)
					o[8 * g + j] = at_bits_double(x[8 * g + j] + MAGIC_BITS) - MAGIC;
		else
			for (int g = 0; g < groups; g++)
				for (int j = 0; j < 8; j++)
					o[8 * g + j] = (at_bits_double(x[8 * g + j] + MAGIC_BITS) - MAGIC) / div;
		if (o == tmp)
			memcpy(v, tmp, sizeof(double) * (size_t) cnt);
	}
	else if (k == 0)
		for (int i = 0; i < cnt; i++)
			v[i] = (double) at_u2i(x[i]);
	else
		for (int i = 0; i < cnt; i++)
			v[i] = (double) at_u2i(x[i]) / div;
}

/* Decoded integers x[0..cnt) (room for whole groups of 8) as doubles into v. */
static void
coded_doubles(uint64_t *x, int cnt, double *v, int k)
{
	uint64_t	big = 0;
	int			i;

	for (i = 0; i < cnt; i++)
		big |= x[i] + MAGIC_LIMIT;
	for (; i % 8; i++)
		x[i] = 0;
	ints_to_doubles(x, cnt, v, k, big < 2 * MAGIC_LIMIT);
}

/* cnt values of a chunk as doubles m / 10^k into v (every one, even when constant). */
static void
chunk_doubles(const chunk *c, int cnt, const unsigned char *end, double *v, int k)
{
	uint64_t	x[AT_SAMPLES_CHUNK + 8];	/* delta: unpacked from x + 1 */

	if (chunk_constant(c))
	{
		double		d = (double) at_u2i(c->ref) / at_p10[k];

		for (int i = 0; i < cnt; i++)
			v[i] = d;
	}
	else if (c->code != NULL)
	{
		coded_ints(c, cnt, end, x);
		coded_doubles(x, cnt, v, k);
	}
	else if (!c->delta)
	{
		uint64_t	top = c->ref + (c->w == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << c->w) - 1);

		unpack(c->bits, c->nbytes, end, c->w, cnt, c->ref, x);
		ints_to_doubles(x, cnt, v, k,
						c->w < 51 && c->ref + MAGIC_LIMIT < 2 * MAGIC_LIMIT && top + MAGIC_LIMIT < 2 * MAGIC_LIMIT);
	}
	else
	{
		/* the running sum in place (cnt - 1 deltas become m[1..]), then convert */
		uint64_t	cur = c->ref,
					dmin = c->dmin,
					big = cur + MAGIC_LIMIT;
		int			i;

		if (cnt > 1)
			unpack(c->bits, c->nbytes, end, c->w, cnt - 1, dmin, x + 1);
		x[0] = cur;
		for (i = 1; i < cnt; i++)
		{
			cur += x[i];
			x[i] = cur;
			big |= cur + MAGIC_LIMIT;
		}
		for (; i % 8; i++)
			x[i] = 0;
		ints_to_doubles(x, cnt, v, k, big < 2 * MAGIC_LIMIT);
	}
}

static inline void
raw_values(const unsigned char *p, int32_t cnt, double *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(v, p, 8 * (size_t) cnt);
#else
	for (int32_t i = 0; i < cnt; i++)
		v[i] = at_bits_double(at_get_le64(p + 8 * (size_t) i));
#endif
}

void
at_samples_decode(const unsigned char *buf, size_t len, int64_t *ts, double *v)
{
	int32_t		n = (int32_t) at_get_le32(buf + 4);
	int			scale = (int) buf[2] - 1,
				coded = 0;
	const unsigned char *vs = value_section(buf);
	at_samples_code code;

	if (ts != NULL)
	{
		tdec		t;

		tdec_init(&t, buf);
		tdec_run(&t, time_end(buf), ts, n);
	}
	if (v == NULL)
		return;
	if (scale < 0)
	{
		raw_values(vs, n, v);
		return;
	}
	vs = chunks_begin(buf, len, &code, &coded, AT_SAMPLES_CODE_FAST);
	for (int32_t base = 0; base < n; base += AT_SAMPLES_CHUNK)
	{
		int			cnt = n - base < AT_SAMPLES_CHUNK ? (int) (n - base) : AT_SAMPLES_CHUNK;
		chunk		c;

		vs = chunk_read(vs, cnt, &c, coded ? &code : NULL);
		chunk_doubles(&c, cnt, buf + len, v + base, scale);
	}
}

void
at_samples_iter_init(at_samples_iter *it, const unsigned char *buf, size_t len)
{
	it->buf = buf;
	it->len = len;
	it->n = (int32_t) at_get_le32(buf + 4);
	it->done = 0;
	it->scale = (int32_t) buf[2] - 1;
	it->div = it->scale >= 0 ? at_p10[it->scale] : 1;
	it->coded = 0;
	if (it->scale >= 0)
		it->pos = (size_t) (chunks_begin(buf, len, &it->code, &it->coded, AT_SAMPLES_CODE_FAST) - buf);
	else
		it->pos = (size_t) (value_section(buf) - buf);
}

/*
 * The iterator's next chunk (cnt values): 1 with its integers in x when
 * it is coded, else 0 with its header in *c.
 */
static int
iter_chunk(at_samples_iter *it, int cnt, chunk *c, uint64_t *x)
{
	const unsigned char *next = chunk_read(it->buf + it->pos, cnt, c, it->coded ? &it->code : NULL);

	it->pos = (size_t) (next - it->buf);
	if (c->code == NULL)
		return 0;
	coded_ints(c, cnt, it->buf + it->len, x);
	return 1;
}

int
at_samples_iter_next(at_samples_iter *it, double *v, int *constant)
{
	int			cnt = it->n - it->done < AT_SAMPLES_CHUNK ? it->n - it->done : AT_SAMPLES_CHUNK;

	if (cnt <= 0)
		return 0;
	*constant = 0;
	if (it->scale < 0)
	{
		raw_values(it->buf + it->pos, cnt, v);
		it->pos += 8 * (size_t) cnt;
	}
	else
	{
		chunk		c;
		uint64_t	x[AT_SAMPLES_CHUNK + 8];

		if (iter_chunk(it, cnt, &c, x))
			coded_doubles(x, cnt, v, it->scale);
		else if (chunk_constant(&c))
		{
			*constant = 1;
			v[0] = (double) at_u2i(c.ref) / it->div;
		}
		else
			chunk_doubles(&c, cnt, it->buf + it->len, v, it->scale);
	}
	it->done += cnt;
	return cnt;
}

int
at_samples_iter_next_scaled(at_samples_iter *it, int64_t *m, int *constant)
{
	int			cnt = it->n - it->done < AT_SAMPLES_CHUNK ? it->n - it->done : AT_SAMPLES_CHUNK;
	chunk		c;

	if (cnt <= 0)
		return 0;
	*constant = 0;
	if (!iter_chunk(it, cnt, &c, (uint64_t *) m))
	{
		*constant = chunk_constant(&c);
		if (*constant)
			m[0] = at_u2i(c.ref);
		else
			chunk_ints(&c, cnt, it->buf + it->len, m);
	}
	it->done += cnt;
	return cnt;
}

/* ---- slices ---- */

/*
 * A window's values a..b-1 of a decoded coded chunk (x, room for whole
 * groups of 8), the chunk's first value at out position at: as integers
 * into mout, or else as doubles into v.
 */
static void
window_put(uint64_t *x, int a, int b, int32_t at, int scale, double *v, int64_t *mout)
{
	uint64_t	big = 0;
	double		vbuf[AT_SAMPLES_CHUNK];
	int			i;

	if (mout != NULL)
	{
		memcpy(mout + at + a, x + a, sizeof(int64_t) * (size_t) (b - a));
		return;
	}
	for (i = a; i < b; i++)
		big |= x[i] + MAGIC_LIMIT;
	for (i = b; i % 8; i++)
		x[i] = 0;
	ints_to_doubles(x + a - a % 8, b - (a - a % 8), vbuf, scale, big < 2 * MAGIC_LIMIT);
	memcpy(v + at + a, vbuf + a % 8, sizeof(double) * (size_t) (b - a));
}

/* The first i < n with t[i] >= x (t ascending), or n. */
static int
first_at(const int64_t *t, int n, int64_t x)
{
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = (lo + hi) >> 1;

		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int32_t
at_samples_window_room(const unsigned char *buf, int64_t from, int64_t to)
{
	tdec		t;
	uint64_t	k;

	tdec_init(&t, buf);
	/* regular and gap-coded times are at least s apart; s > 0 when n > 1 */
	if (t.n < 2 || t.enc == AT_SAMPLES_T_DOD)
		return t.n;
	k = ((uint64_t) to - (uint64_t) from - 1) / t.s + 1;
	return k < (uint64_t) t.n ? (int32_t) k : t.n;
}

/* A coded half's part of a window: values a..b-1 of it, its value 0 at out position at. */
typedef struct wstream
{
	const unsigned char *bits;
	int			a;
	int			b;
	int32_t		at;
} wstream;

/* The first nw (1 or 2) halves of a window, each decoded to its b and put out. */
static void
window_halves(const at_samples_code *code, const unsigned char *end, const wstream *w, int nw, int scale,
			  double *v, int64_t *mout)
{
	uint64_t	x[2][AT_SAMPLES_CHUNK_HALF + 8];

	if (nw == 2)
		code_ints2(code, end, w[0].bits, w[0].b, x[0], w[1].bits, w[1].b, x[1]);
	else
		code_ints1(code, end, w[0].bits, w[0].b, x[0]);
	for (int k = 0; k < nw; k++)
		window_put(x[k], w[k].a, w[k].b, w[k].at, scale, v, mout);
}

int32_t
at_samples_window(const unsigned char *buf, size_t len, int64_t from, int64_t to,
				  int64_t *ts, double *v, int64_t *mout)
{
	at_samples_info info;
	const unsigned char *vs = value_section(buf),
			   *end = buf + len;
	int64_t		tbuf[AT_SAMPLES_CHUNK];
	int32_t		i0 = -1,
				m = 0;
	tdec		t;
	at_samples_code code;
	const unsigned char *code_table = NULL;	/* version 2: built on first use */
	int			built = 0;
	wstream		ws[2];			/* coded halves waiting to decode side by side */
	int			nw = 0;

	at_samples_info_read(buf, &info);
	if (from >= to || to <= info.first_ts || from > info.last_ts)
		return 0;
	/* a block just read from a page is seldom in cache: its code loads while times decode */
	for (size_t j = 0; j < 4 && 64 * j < (size_t) (end - vs); j++)
		PREFETCH(vs + 64 * j);
	tdec_init(&t, buf);
	if (t.enc != AT_SAMPLES_T_DOD && from > info.first_ts)
		tdec_skip(&t, time_end(buf), from);
	if (t.enc == AT_SAMPLES_T_REGULAR && info.n > 1)
	{
		/* times first + i s: the window's by arithmetic (t.i is its first) */
		uint64_t	first = (uint64_t) info.first_ts,
					kend = ((uint64_t) to - first - 1) / t.s + 1;	/* first + k s < to for k < kend */

		if (kend > (uint64_t) info.n)
			kend = (uint64_t) info.n;
		if ((uint64_t) t.i < kend)
		{
			uint64_t	cur = first + (uint64_t) t.i * t.s;

			i0 = t.i;
			m = (int32_t) kend - i0;
			for (int32_t j = 0; j < m; j++, cur += t.s)
				ts[j] = at_u2i(cur);
		}
	}
	else
		for (int32_t base = t.i; base < info.n; base += AT_SAMPLES_CHUNK)
		{
			int			cnt = info.n - base < AT_SAMPLES_CHUNK ? (int) (info.n - base) : AT_SAMPLES_CHUNK,
						k,
						a;

			tdec_run(&t, time_end(buf), tbuf, cnt);
			/* times ascend: [a, k) of this chunk is in the window */
			a = first_at(tbuf, cnt, from);
			k = a + first_at(tbuf + a, cnt - a, to);
			if (k > a)
			{
				if (i0 < 0)
					i0 = base + a;
				memcpy(ts + m, tbuf + a, sizeof(int64_t) * (size_t) (k - a));
				m += k - a;
			}
			if (k < cnt)
				break;
		}
	if (m == 0)
		return 0;
	if (info.scale < 0)
	{
		raw_values(vs + 8 * (size_t) i0, m, v);
		return m;
	}
	/*
	 * Only the chunks overlapping [i0, i0 + m) are decoded, and the value
	 * code is built only when one of them is coded.
	 */
	if (buf[0] == AT_SAMPLES_VERSION)
	{
		const unsigned char *q = vs;
		uint64_t	t = at_varint_get(&q);

		code_table = vs;
		vs = q + t;
	}
	for (int32_t base = 0; base < i0 + m; base += AT_SAMPLES_CHUNK)
	{
		int			cnt = info.n - base < AT_SAMPLES_CHUNK ? (int) (info.n - base) : AT_SAMPLES_CHUNK;
		chunk		c;
		int32_t		a,
					b;

		vs = chunk_read(vs, cnt, &c, code_table != NULL ? &code : NULL);
		if (base + cnt <= i0)
			continue;
		a = i0 > base ? i0 - base : 0;
		b = i0 + m < base + cnt ? i0 + m - base : cnt;
		if (c.code != NULL)
		{
			if (!built)
			{
				const char *msg;

				/* the window's bits load while the code builds */
				for (size_t j = 0; j < 4 && 64 * j < (size_t) (end - c.bits); j++)
					PREFETCH(c.bits + 64 * j);
				code_read(code_table, end, &code, 0, 0, &msg);
				built = 1;
			}

			/*
			 * Each half overlapping the window is decoded from its start
			 * to the window's end, two halves (of this chunk or the
			 * next) side by side.
			 */
			for (int h0 = 0; h0 < cnt; h0 += AT_SAMPLES_CHUNK_HALF)
			{
				int			hn = cnt - h0 < AT_SAMPLES_CHUNK_HALF ? cnt - h0 : AT_SAMPLES_CHUNK_HALF;
				wstream		w;

				w.a = (a > h0 ? a : h0) - h0;
				w.b = (b < h0 + hn ? b : h0 + hn) - h0;
				if (w.a >= w.b)
					continue;
				w.bits = h0 ? c.bits + c.h : c.bits;
				w.at = base + h0 - i0;
				ws[nw++] = w;
				if (nw == 2)
				{
					window_halves(&code, end, ws, nw, info.scale, v, mout);
					nw = 0;
				}
			}
		}
		else if (mout != NULL)
		{
			int64_t		mbuf[AT_SAMPLES_CHUNK];

			chunk_ints(&c, cnt, end, mbuf);
			memcpy(mout + (base + a - i0), mbuf + a, sizeof(int64_t) * (size_t) (b - a));
		}
		else
		{
			double		vbuf[AT_SAMPLES_CHUNK];

			chunk_doubles(&c, cnt, end, vbuf, info.scale);
			memcpy(v + (base + a - i0), vbuf + a, sizeof(double) * (size_t) (b - a));
		}
	}
	if (nw > 0)
		window_halves(&code, end, ws, nw, info.scale, v, mout);
	return m;
}

size_t
at_samples_slice(const unsigned char *buf, size_t len, int64_t from, int64_t to, unsigned char *out,
				 int32_t *nout)
{
	at_samples_info info;
	unsigned char *stage;
	int64_t    *sts;
	double	   *sv;
	int32_t		m;

	at_samples_info_read(buf, &info);
	*nout = 0;

	/*
	 * The window's samples are staged at the end of out, 8-aligned, past
	 * the at most 18n + 66 bytes at_samples_encode writes at its start.
	 */
	stage = out + at_samples_encode_bound(info.n) - 16 * (size_t) info.n - 8;
	stage += (8 - ((uintptr_t) stage & 7)) & 7;
	sts = (int64_t *) (void *) stage;
	sv = (double *) (void *) (stage + 8 * (size_t) info.n);
	m = at_samples_window(buf, len, from, to, sts, sv, NULL);
	if (m == 0)
		return 0;
	*nout = m;
	return encode_impl(sts, sv, m, out, m < SMALL_BLOCK, AT_SAMPLES_CODE_WRITE_MAXLEN);
}

/* ---- the exact sum ---- */

int
at_samples_sum_text(const unsigned char *buf, size_t len, char *out, size_t outlen)
{
	int32_t		n = (int32_t) at_get_le32(buf + 4);
	int			scale = (int) buf[2] - 1;
	const unsigned char *vs = value_section(buf);
	/* the sum mod 2^128 as two limbs; |sum| < 2^24 * 2^53 */
	uint64_t	lo = 0,
				hi = 0;
	uint32_t	limb[4];
	char		digits[48],
				text[64],
			   *q = text;
	int			nd = 0,
				neg,
				coded;
	at_samples_code code;

	if (scale < 0)
		return -1;
	vs = chunks_begin(buf, len, &code, &coded, AT_SAMPLES_CODE_FAST);
	for (int32_t base = 0; base < n; base += AT_SAMPLES_CHUNK)
	{
		int			cnt = n - base < AT_SAMPLES_CHUNK ? (int) (n - base) : AT_SAMPLES_CHUNK;
		chunk		c;
		int64_t		m[AT_SAMPLES_CHUNK],
					sum = 0;	/* |sum| < 2^7 * 2^53 */
		uint64_t	nlo;

		vs = chunk_read(vs, cnt, &c, coded ? &code : NULL);
		if (chunk_constant(&c))
			sum = (int64_t) cnt * at_u2i(c.ref);
		else
		{
			chunk_ints(&c, cnt, buf + len, m);
			for (int i = 0; i < cnt; i++)
				sum += m[i];
		}
		nlo = lo + (uint64_t) sum;
		hi += (sum < 0 ? ~(uint64_t) 0 : 0) + (nlo < lo);
		lo = nlo;
	}
	neg = hi >> 63;
	if (neg)
	{
		lo = ~lo + 1;
		hi = ~hi + (lo == 0);
	}
	limb[0] = (uint32_t) (hi >> 32);
	limb[1] = (uint32_t) hi;
	limb[2] = (uint32_t) (lo >> 32);
	limb[3] = (uint32_t) lo;
	/* digits, least significant first, at least scale + 1 of them */
	do
	{
		uint64_t	r = 0;
		int			nonzero = 0;

		for (int k = 0; k < 4; k++)
		{
			uint64_t	cur = r << 32 | limb[k];

			limb[k] = (uint32_t) (cur / 10);
			r = cur % 10;
			nonzero |= limb[k] != 0;
		}
		digits[nd++] = (char) ('0' + r);
		if (!nonzero)
			break;
	} while (1);
	while (nd <= scale)
		digits[nd++] = '0';
	if (neg && (nd > 1 || digits[0] != '0'))
		*q++ = '-';
	while (nd > 0)
	{
		*q++ = digits[--nd];
		if (nd == scale && nd > 0)
			*q++ = '.';
	}
	*q = '\0';
	if (outlen > 0)
	{
		size_t		k = (size_t) (q - text) < outlen - 1 ? (size_t) (q - text) : outlen - 1;

		memcpy(out, text, k);
		out[k] = '\0';
	}
	return 0;
}

/* ---- runs in memory ---- */

static inline void
swap2(int64_t *ts, double *v, int64_t a, int64_t b)
{
	int64_t		t = ts[a];
	double		d = v[a];

	ts[a] = ts[b];
	v[a] = v[b];
	ts[b] = t;
	v[b] = d;
}

static void
reverse2(int64_t *ts, double *v, int64_t a, int64_t b)
{
	for (b--; a < b; a++, b--)
		swap2(ts, v, a, b);
}

/* [a, m) and [m, b) trade places */
static void
rotate2(int64_t *ts, double *v, int64_t a, int64_t m, int64_t b)
{
	reverse2(ts, v, a, m);
	reverse2(ts, v, m, b);
	reverse2(ts, v, a, b);
}

static void
insertion2(int64_t *ts, double *v, int64_t a, int64_t b)
{
	for (int64_t i = a + 1; i < b; i++)
		for (int64_t j = i; j > a && ts[j] < ts[j - 1]; j--)
			swap2(ts, v, j, j - 1);
}

/*
 * Merges the sorted runs [a, m) and [m, b) in place, stably: SymMerge (Kim
 * and Kutzner 2004), as Go's sort.Stable does it, plus a quick return when
 * the runs are already in order.
 */
static void
sym_merge(int64_t *ts, double *v, int64_t a, int64_t m, int64_t b)
{
	int64_t		mid,
				n,
				start,
				r,
				p,
				end;

	if (ts[m - 1] <= ts[m])
		return;
	if (m - a == 1)
	{
		int64_t		i = m,
					j = b;

		while (i < j)			/* the first of [m, b) not less than ts[a] */
		{
			int64_t		h = i + (j - i) / 2;

			if (ts[h] < ts[a])
				i = h + 1;
			else
				j = h;
		}
		for (int64_t k = a; k < i - 1; k++)
			swap2(ts, v, k, k + 1);
		return;
	}
	if (b - m == 1)
	{
		int64_t		i = a,
					j = m;

		while (i < j)			/* the first of [a, m) greater than ts[m] */
		{
			int64_t		h = i + (j - i) / 2;

			if (!(ts[m] < ts[h]))
				i = h + 1;
			else
				j = h;
		}
		for (int64_t k = m; k > i; k--)
			swap2(ts, v, k, k - 1);
		return;
	}
	mid = a + (b - a) / 2;
	n = mid + m;
	if (m > mid)
	{
		start = n - b;
		r = mid;
	}
	else
	{
		start = a;
		r = m;
	}
	p = n - 1;
	while (start < r)
	{
		int64_t		c = start + (r - start) / 2;

		if (!(ts[p - c] < ts[c]))
			start = c + 1;
		else
			r = c;
	}
	end = n - start;
	if (start < m && m < end)
		rotate2(ts, v, start, m, end);
	if (a < start && start < mid)
		sym_merge(ts, v, a, start, mid);
	if (mid < end && end < b)
		sym_merge(ts, v, mid, end, b);
}

static void
stable_sort2(int64_t *ts, double *v, int64_t n)
{
	int64_t		block = 20,
				a,
				b;

	for (a = 0; a < n; a += block)
		insertion2(ts, v, a, a + block < n ? a + block : n);
	for (; block < n; block *= 2)
	{
		for (a = 0, b = 2 * block; b <= n; a = b, b += 2 * block)
			sym_merge(ts, v, a, a + block, b);
		if (a + block < n)
			sym_merge(ts, v, a, a + block, n);
	}
}

int
at_samples_sort_dedup(int64_t *ts, double *v, int32_t *n, int64_t *dups, at_samples_conflict *c)
{
	int32_t		i,
				g,
				w;

	for (i = 1; i < *n; i++)
		if (ts[i] <= ts[i - 1])
			break;
	if (i >= *n)
		return 0;				/* strictly increasing: nothing to do */
	for (; i < *n; i++)
		if (ts[i] < ts[i - 1])
		{
			stable_sort2(ts, v, *n);
			break;
		}
	/* every conflict first, so a refused run keeps all its samples */
	for (g = 0, i = 1; i < *n; i++)
	{
		if (ts[i] != ts[g])
			g = i;
		else if (!(v[i] == v[g]))
		{
			c->ts = ts[i];
			c->old_value = v[g];
			c->new_value = v[i];
			return -1;
		}
	}
	for (w = 1, i = 1; i < *n; i++)
	{
		if (ts[i] == ts[w - 1])
		{
			(*dups)++;
			continue;
		}
		ts[w] = ts[i];
		v[w] = v[i];
		w++;
	}
	*n = w;
	return 0;
}

int32_t
at_samples_merge(const int64_t *ts_a, const double *v_a, int32_t na, const int64_t *ts_b, const double *v_b,
				 int32_t nb, int64_t *out_ts, double *out_v, int64_t *dups, at_samples_conflict *c)
{
	int32_t		i = 0,
				j = 0,
				k = 0;

	while (i < na && j < nb)
	{
		if (ts_a[i] < ts_b[j])
		{
			out_ts[k] = ts_a[i];
			out_v[k++] = v_a[i++];
		}
		else if (ts_b[j] < ts_a[i])
		{
			out_ts[k] = ts_b[j];
			out_v[k++] = v_b[j++];
		}
		else
		{
			if (!(v_a[i] == v_b[j]))
			{
				c->ts = ts_a[i];
				c->old_value = v_a[i];
				c->new_value = v_b[j];
				return -1;
			}
			(*dups)++;
			out_ts[k] = ts_a[i];
			out_v[k++] = v_a[i++];
			j++;
		}
	}
	for (; i < na; i++, k++)
	{
		out_ts[k] = ts_a[i];
		out_v[k] = v_a[i];
	}
	for (; j < nb; j++, k++)
	{
		out_ts[k] = ts_b[j];
		out_v[k] = v_b[j];
	}
	return k;
}

/* ---- text form: "v1:" and the serialized form in lower-case hexadecimal ---- */

size_t
at_samples_text_size(size_t len)
{
	return strlen(AT_SAMPLES_TEXT_PREFIX) + 2 * len + 1;
}

void
at_samples_format(const unsigned char *buf, size_t len, char *out)
{
	size_t		k = strlen(AT_SAMPLES_TEXT_PREFIX);

	memcpy(out, AT_SAMPLES_TEXT_PREFIX, k);
	at_hex_write(out + k, buf, len);
	out[k + 2 * len] = '\0';
}

const char *
at_samples_parse(const char *s, size_t slen, unsigned char *out, size_t *outlen, size_t *pos)
{
	size_t		k = strlen(AT_SAMPLES_TEXT_PREFIX),
				nbytes;

	*pos = 0;
	*outlen = 0;
	if (slen < k || memcmp(s, AT_SAMPLES_TEXT_PREFIX, k) != 0)
	{
		size_t		d = 1;

		/* name a later version (v<digits>:) as such, not as garbage */
		while (d < slen && s[d] >= '0' && s[d] <= '9')
			d++;
		if (slen > 0 && s[0] == 'v' && d > 1 && d < slen && s[d] == ':')
			return "unsupported text version (this version reads v1:)";
		return "a samples value starts with v1:";
	}
	for (size_t i = k; i < slen; i++)
		if (at_hex_value(s[i], 0) < 0)
		{
			*pos = i;
			return "not a lower-case hexadecimal digit";
		}
	if ((slen - k) % 2 != 0)
	{
		*pos = slen;
		return "odd number of hexadecimal digits";
	}
	nbytes = (slen - k) / 2;
	for (size_t i = 0; i < nbytes; i++)
		out[i] = (unsigned char) (at_hex_value(s[k + 2 * i], 0) << 4 | at_hex_value(s[k + 2 * i + 1], 0));
	*outlen = nbytes;
	*pos = k;
	return at_samples_check(out, nbytes, NULL);
}

/* ---- the value counts ---- */

int
at_samples_counts(const unsigned char *buf, int64_t *m, int64_t *count)
{
	const unsigned char *p = time_end(buf);
	int			k;

	if (at_get_le32(buf + 44) == 0)
		return 0;
	k = (int) at_varint_get(&p);
	for (int i = 0; i < k; i++)
	{
		uint64_t	d = at_varint_get(&p);

		m[i] = i == 0 ? at_u2i(at_unzigzag(d)) : m[i - 1] + (int64_t) d + 1;
		count[i] = (int64_t) at_varint_get(&p) + 1;
	}
	return k;
}
