/*
 * softfloat.c: binary64 in integer arithmetic only (no floating-point type in this file). Contract and domain in
 * softfloat.h.
 *
 * Internal form of a finite value: sign s (0/1), biased exponent e and a 64-bit significand m normalised so that
 * bit 63 is its leading one: value = (-1)^s * (m / 2^63) * 2^(e - 1023), or m = 0 for zero. Bits 10..0 of m are
 * below the 53-bit precision; when bits were shifted out of m, its bit 0 is set ("sticky"), which never moves a
 * value across a rounding boundary because every boundary is a multiple of 2^10 in this scale.
 */
#include <stdint.h>

#include "ct64.h"
#include "softfloat.h"

#define SIGN_BIT 0x8000000000000000ull
#define FRAC_MASK 0x000FFFFFFFFFFFFFull
#define HIDDEN_BIT 0x0010000000000000ull
#define INF_BITS 0x7FF0000000000000ull

/* 1 if x != 0, else 0. */
static inline uint32_t nonzero32(uint32_t x)
{
    return ct64_opaque((x | (0u - x)) >> 31);
}

static inline uint32_t nonzero64(uint64_t x)
{
    return nonzero32((uint32_t)x | (uint32_t)(x >> 32));
}

/* 1 if a < b, for |a|, |b| < 2^30. */
static inline uint32_t less(int32_t a, int32_t b)
{
    return ct64_opaque((uint32_t)(a - b) >> 31);
}

/* All ones if bit (0/1) is 1. */
static inline uint64_t mask64(uint32_t bit)
{
    return ct64_mask(bit);
}

static inline uint32_t clz32(uint32_t x)
{
#if defined(__arm__)
    uint32_t r;
    __asm__("clz %0, %1" : "=r"(r) : "r"(x));
    return r; /* 32 for x = 0 */
#else /* host builds (quick checks only): not constant time */
    return x ? (uint32_t)__builtin_clz(x) : 32u;
#endif
}

/* Leading zeros of a 64-bit word, 64 for zero. */
static inline uint32_t clz64(uint64_t x)
{
    uint32_t hi = (uint32_t)(x >> 32);
    uint32_t hi_zero = 1u - nonzero32(hi);
    return clz32(hi) + (clz32((uint32_t)x) & (0u - hi_zero));
}

static inline uint32_t sign_of(uint64_t x)
{
    return (uint32_t)(x >> 63);
}

static inline int32_t exponent_of(uint64_t x)
{
    return (int32_t)((x >> 52) & 0x7FFu);
}

/* The 53-bit significand with its hidden bit; 0 for zeros and subnormals (read as zero). */
static inline uint64_t significand_of(uint64_t x)
{
    uint64_t m = (x & FRAC_MASK) | HIDDEN_BIT;
    return m & mask64(nonzero32((uint32_t)exponent_of(x)));
}

/*
 * Rounds (-1)^s * (m / 2^63) * 2^(e - 1023) to binary64, ties to even. m has bit 63 set, or m = 0 (a zero of sign
 * s). A final exponent below 1 flushes to a signed zero; one above 2046 gives a signed infinity.
 * Requires |e| < 2^29.
 */
static uint64_t round_pack(uint32_t s, int32_t e, uint64_t m)
{
    uint64_t mant = m >> 11; /* 53 bits, bit 52 set */
    uint32_t low = (uint32_t)m & 0x7FFu;
    /* round up iff low > half, or low == half and mant is odd */
    uint32_t inc = ((low + ((uint32_t)mant & 1u) + 0x3FFu) >> 11) & 1u;
    mant += inc;                                  /* at most 2^53 */
    int32_t ef = e + (int32_t)(mant >> 53);       /* exponent after a carry out of the significand */
    /* the hidden bit (or the carry into bit 53) adds 1 (or 2) to the exponent field (e - 1) */
    uint64_t bits = ((uint64_t)(uint32_t)(e - 1) << 52) + mant;
    uint32_t zero = (1u - nonzero64(m)) | less(ef, 1);
    uint32_t overflow = (1u - zero) & (1u - less(ef, 2047));
    bits = (bits & mask64(1u - (zero | overflow))) | (INF_BITS & mask64(overflow));
    return bits | ((uint64_t)s << 63);
}

uint64_t sf64_neg(uint64_t a)
{
    return a ^ SIGN_BIT;
}

uint64_t sf64_add(uint64_t a, uint64_t b)
{
    /* order by magnitude, |a| >= |b| (bit patterns of non-negative values order like the values) */
    uint64_t smaller = mask64(ct64_opaque((uint32_t)(((a & ~SIGN_BIT) - (b & ~SIGN_BIT)) >> 63)));
    uint64_t t = (a ^ b) & smaller;
    a ^= t;
    b ^= t;
    uint32_t sa = sign_of(a), sb = sign_of(b);
    int32_t ea = exponent_of(a), eb = exponent_of(b);
    uint64_t ma = significand_of(a) << 10, mb = significand_of(b) << 10; /* leading one at bit 62 */
    /* align b on a: shift right by ea - eb, at most 63 (everything shifted out), with sticky */
    uint32_t sh = (uint32_t)(ea - eb);
    uint32_t far = ct64_opaque((63u - sh) >> 31);
    sh = (sh & (far - 1u)) | (63u & (0u - far));
    uint64_t lost = mb & (ct64_shl(1u, sh) - 1u);
    mb = ct64_shr(mb, sh) | nonzero64(lost);
    /* add, or subtract if the signs differ (no borrow: |a| >= |b|) */
    uint64_t negate = mask64(sa ^ sb);
    uint64_t sum = ma + ((mb ^ negate) - negate);
    uint32_t n = clz64(sum);
    uint64_t m = ct64_shl(sum, n & 63u); /* n = 64 only for sum = 0 */
    /* an exact zero is +0, unless both operands are -0 */
    uint32_t is_zero = 1u - nonzero64(sum);
    uint32_t s = sa & (sb | (1u - is_zero));
    return round_pack(s, ea + 1 - (int32_t)(n & 63u), m);
}

uint64_t sf64_sub(uint64_t a, uint64_t b)
{
    return sf64_add(a, b ^ SIGN_BIT);
}

uint64_t sf64_mul(uint64_t a, uint64_t b)
{
    /* the significands with their hidden bits; a zero (or subnormal) operand zeroes m at the end instead, off the
     * multiplications' path */
    uint64_t ma = (a & FRAC_MASK) | HIDDEN_BIT, mb = (b & FRAC_MASK) | HIDDEN_BIT;
    uint32_t a0 = (uint32_t)ma, a1 = (uint32_t)(ma >> 32), b0 = (uint32_t)mb, b1 = (uint32_t)(mb >> 32);
    /* 106-bit product = hi * 2^64 + lo, by 32x32 -> 64-bit pieces */
    uint64_t p00 = (uint64_t)a0 * b0;
    uint64_t mid = (uint64_t)a0 * b1 + (uint64_t)a1 * b0 + (p00 >> 32);
    uint64_t hi = (uint64_t)a1 * b1 + (mid >> 32);
    uint32_t lo_hi = (uint32_t)mid;
    /* product in [2^104, 2^106): top = product >> 42, leading one at bit 63 (t = 1) or 62 */
    uint64_t top = (hi << 22) | (lo_hi >> 10);
    uint32_t t = ct64_opaque((uint32_t)(top >> 63));
    /* normalise by doubling when t = 0; product bit 41, shifted in then, is the sticky bit's place when t = 1, so
     * either way it joins the sticky of bits 40..0 */
    uint64_t m = top + (top & mask64(1u - t));
    m |= ((lo_hi >> 9) & 1u) | nonzero32((uint32_t)p00 | (lo_hi & 0x1FFu));
    m &= mask64(nonzero32((uint32_t)exponent_of(a)) & nonzero32((uint32_t)exponent_of(b)));
    return round_pack(sign_of(a) ^ sign_of(b), exponent_of(a) + exponent_of(b) - 1023 + (int32_t)t, m);
}

/* The two loops of this file start on a 512-byte boundary, so that neither crosses a 1 KiB page: QEMU does not chain
 * translated blocks across pages, and a loop that crosses one runs several times slower in the emulator (object code
 * and cycle estimates are unaffected). */
#define LOOP_ALIGNED __attribute__((aligned(512)))

LOOP_ALIGNED uint64_t sf64_div(uint64_t a, uint64_t b)
{
    uint64_t num = significand_of(a), den = significand_of(b);
    /* restoring division, one quotient bit per step: q = floor(num * 2^54 / den), num < 2 den throughout */
    uint64_t q = 0;
    for (int i = 0; i < 55; i++) {
        uint32_t bit = ct64_opaque(1u - (uint32_t)((num - den) >> 63));
        num = (num - (den & mask64(bit))) << 1;
        q = (q << 1) | bit;
    }
    uint32_t t = ct64_opaque((uint32_t)(q >> 54)); /* num >= den: quotient in [1, 2) */
    uint64_t m = ct64_shl(q, 10u - t) | nonzero64(num);
    return round_pack(sign_of(a) ^ sign_of(b), exponent_of(a) - exponent_of(b) + 1022 + (int32_t)t, m);
}

/* One step of the bit-by-bit square root: the next quotient bit, from the remainder with its next two bits in. */
#define SQRT_STEP(type, q, r)                                                                                         \
    do {                                                                                                               \
        type trial_ = ((q) << 2) | 1u;                                                                                 \
        uint32_t bit_ = ct64_opaque(1u - (uint32_t)(((r) - trial_) >> (8 * sizeof(type) - 1)));                       \
        (r) -= trial_ & (type)mask64(bit_);                                                                            \
        (q) = ((q) << 1) | bit_;                                                                                       \
    } while (0)

LOOP_ALIGNED uint64_t sf64_sqrt(uint64_t a)
{
    uint64_t m = significand_of(a);
    int32_t e = exponent_of(a) - 1023;
    uint32_t odd = ct64_opaque((uint32_t)e & 1u);
    m = ct64_shl(m, odd); /* in [2^52, 2^54): value = m * 2^(e - odd - 52), e - odd even */
    int32_t half_e = (e - (int32_t)odd) >> 1; /* exact: even; arithmetic shift (GCC) */
    /* bit-by-bit square root of m * 2^56 (110 bits, 55 pairs): q = floor(sqrt(m * 2^56)) in [2^54, 2^55). The 27
     * pairs of m leave q < 2^27 and r <= 2q, so they run in 32-bit words: 11 pairs from m's high word, 16 from its
     * low word; the 28 zero pairs after them need 64 bits. */
    uint32_t m_hi = (uint32_t)(m >> 32), m_lo = (uint32_t)m;
    uint32_t q32 = 0, r32 = 0;
    for (int k = 10; k >= 0; k--) {
        r32 = (r32 << 2) | ((m_hi >> (2 * k)) & 3u);
        SQRT_STEP(uint32_t, q32, r32);
    }
    for (int k = 15; k >= 0; k--) {
        r32 = (r32 << 2) | ((m_lo >> (2 * k)) & 3u);
        SQRT_STEP(uint32_t, q32, r32);
    }
    uint64_t q = q32, r = r32;
    for (int k = 0; k < 28; k++) {
        r <<= 2;
        SQRT_STEP(uint64_t, q, r);
    }
    return round_pack(sign_of(a), half_e + 1023, (q << 9) | nonzero64(r));
}

/*
 * Splits |a| into its integer part n (for |a| < 2^52; larger values are integers already) and the fraction's round
 * bit (>= 1/2) and sticky bit (anything below 1/2). *big is 1 when |a| >= 2^52 (or a is not finite).
 */
static uint64_t integer_part(uint64_t a, uint32_t *half, uint32_t *below_half, uint32_t *big)
{
    uint64_t m = significand_of(a);
    int32_t sh = 52 - (exponent_of(a) - 1023); /* fraction bits of m */
    *big = 1u - less(0, sh);                   /* sh <= 0 */
    uint32_t far = less(63, sh);
    uint32_t s = ((uint32_t)sh & (0u - (1u - *big))) & (far - 1u);
    s |= 63u & (0u - far); /* clamped to [0, 63]: a clamped value is < 1/2 and stays so */
    uint64_t frac = ct64_shl(m, 63u - s) << 1; /* fraction * 2^64 */
    *half = (uint32_t)(frac >> 63);
    *below_half = nonzero64(frac << 1);
    return ct64_shr(m, s);
}

/* Packs the non-negative integer n < 2^63 with sign s (exact). */
static uint64_t from_integer(uint32_t s, uint64_t n)
{
    uint32_t z = clz64(n);
    return round_pack(s, 1023 + 63 - (int32_t)(z & 63u), ct64_shl(n, z & 63u));
}

static uint64_t select_big(uint32_t big, uint64_t a, uint64_t r)
{
    return (a & mask64(big)) | (r & mask64(1u - big));
}

uint64_t sf64_trunc(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    return select_big(big, a, from_integer(sign_of(a), n));
}

uint64_t sf64_floor(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    n += sign_of(a) & (half | below);
    return select_big(big, a, from_integer(sign_of(a), n));
}

uint64_t sf64_rint(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    n += half & (below | ((uint32_t)n & 1u));
    return select_big(big, a, from_integer(sign_of(a), n));
}

uint64_t sf64_from_i64(int64_t x)
{
    uint32_t s = (uint32_t)((uint64_t)x >> 63);
    uint64_t mag = ((uint64_t)x ^ mask64(s)) + s;
    uint32_t z = clz64(mag);
    return round_pack(s, 1023 + 63 - (int32_t)(z & 63u), ct64_shl(mag, z & 63u));
}

/* |a| as an integer for |a| >= 2^52 (shift left by at most 11), n otherwise; then the sign. */
static int64_t to_integer(uint64_t a, uint64_t n, uint32_t big)
{
    int32_t up = exponent_of(a) - 1023 - 52;
    uint32_t over = less(11, up);
    uint32_t u = (((uint32_t)up) & (0u - big) & (over - 1u)) | (11u & (0u - over));
    uint64_t mag = select_big(big, ct64_shl(significand_of(a), u), n);
    uint64_t s = mask64(sign_of(a));
    return (int64_t)((mag ^ s) - s);
}

int64_t sf64_to_i64_trunc(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    return to_integer(a, n, big);
}

int64_t sf64_to_i64_round(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    n += half & (below | ((uint32_t)n & 1u));
    return to_integer(a, n, big);
}

int64_t sf64_to_i64_floor(uint64_t a)
{
    uint32_t half, below, big;
    uint64_t n = integer_part(a, &half, &below, &big);
    n += sign_of(a) & (half | below);
    return to_integer(a, n, big);
}
