/*
 * x25519.fe.mul, x25519.fe.sqr, x25519.fe.add, x25519.fe.sub, x25519.fe.mul121666, x25519.fe.inv,
 * x25519.fe.pow22523: arithmetic modulo p = 2^255 - 19, portable C for every image. Model: pqhelium_sim::x25519_fe (same order of operations).
 *
 * Representation: 8 little-endian uint32_t limbs, radix 2^32, value v = sum a[i] 2^(32 i) in [0, 2^256), standing
 * for v mod p. Inputs: any 256-bit value (every limb any uint32_t). Outputs: a 256-bit value congruent to the result
 * mod p, only partially reduced (it may be >= p, even >= 2p); encoding to the canonical residue is a separate step.
 *
 * Why radix 2^32: the Cortex-M85's UMAAL computes a*b + c + d for 32-bit operands without overflowing 64 bits, so
 * each row of the schoolbook product and each step of the reduction is one UMAAL with no carry handling in between;
 * the loops below are written as (uint64_t)x * y + c + d for the compiler to emit it.
 *
 * Reduction: 2^256 = 38 mod p. A value lo + 2^256 hi is folded to lo + 38 hi; what carries out of bit 256 (c) is
 * folded again as 38 c; the second fold carries out only when its result is below 38 * 38, so a third fold of 38
 * cannot carry. The same instructions run for every input (no branch, no secret-dependent address).
 */
#include <stdint.h>

#include "fe.h"

#define N X25519_FE_LIMBS
/* 2^256 mod p. */
#define FOLD 38u

/* r = v + 38 c reduced to [0, 2^256), for v in [0, 2^256) and c < 2^26. */
static void fold_carry(uint32_t r[N], uint32_t c)
{
    uint64_t t = (uint64_t)r[0] + (uint64_t)FOLD * c;
    r[0] = (uint32_t)t;
    for (int i = 1; i < N; i++) {
        uint32_t carry = (uint32_t)(t >> 32);
        __asm__("" : "+r"(carry)); /* a secret the compiler must not turn into a comparison and a predicate */
        t = (uint64_t)r[i] + carry;
        r[i] = (uint32_t)t;
    }
    /* A carry out leaves r below 38 c < 2^32 - 38, so adding 38 once more stays within the first limb. */
    uint32_t carry = (uint32_t)(t >> 32);
    __asm__("" : "+r"(carry));
    r[0] += FOLD * carry;
}

/* r = t mod (2^256 - 38), up to one extra multiple: t[0..8] + 38 t[8..16], then the carries folded. */
static void reduce_wide(uint32_t r[N], const uint32_t t[2 * N])
{
    uint32_t c = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t s = (uint64_t)t[N + i] * FOLD + t[i] + c;
        r[i] = (uint32_t)s;
        c = (uint32_t)(s >> 32);
    }
    fold_carry(r, c);
}

void x25519_fe_product(uint32_t t[2 * N], const uint32_t a[N], const uint32_t b[N])
{
    for (int i = 0; i < 2 * N; i++) {
        t[i] = 0;
    }
    /* Operand scanning: row i adds a[i] * b into t[i..i+8]; (2^32-1)^2 + 2 (2^32-1) < 2^64 (one UMAAL). */
    for (int i = 0; i < N; i++) {
        uint32_t c = 0;
        for (int j = 0; j < N; j++) {
            const uint64_t s = (uint64_t)a[i] * b[j] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = (uint32_t)(s >> 32);
        }
        t[i + N] = c;
    }
}

static void fe_mul(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
    uint32_t t[2 * N];
    x25519_fe_product(t, a, b);
    reduce_wide(r, t);
}

static void fe_sqr(uint32_t r[N], const uint32_t a[N])
{
    uint32_t t[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        t[i] = 0;
    }
    /* The products a[i] a[j] with i < j once (28 instead of 56) ... */
    for (int i = 0; i < N - 1; i++) {
        uint32_t c = 0;
        for (int j = i + 1; j < N; j++) {
            const uint64_t s = (uint64_t)a[i] * a[j] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = (uint32_t)(s >> 32);
        }
        t[i + N] = c;
    }
    /* ... doubled by a one-bit shift (the sum is below 2^511, so no bit leaves the top limb) ... */
    for (int i = 2 * N - 1; i > 0; i--) {
        t[i] = (t[i] << 1) | (t[i - 1] >> 31);
    }
    t[0] <<= 1;
    /* ... plus the squares a[i]^2 at limbs 2i, 2i+1. */
    uint32_t c = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t square = (uint64_t)a[i] * a[i];
        uint64_t s = (uint64_t)t[2 * i] + (uint32_t)square + c;
        t[2 * i] = (uint32_t)s;
        s = (uint64_t)t[2 * i + 1] + (uint32_t)(square >> 32) + (s >> 32);
        t[2 * i + 1] = (uint32_t)s;
        c = (uint32_t)(s >> 32);
    }
    reduce_wide(r, t);
}

void x25519_fe_mul(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
    fe_mul(r, a, b);
}

void x25519_fe_sqr(uint32_t r[N], const uint32_t a[N])
{
    fe_sqr(r, a);
}

void x25519_fe_add(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
    uint64_t t = 0;
    for (int i = 0; i < N; i++) {
        t = (uint64_t)a[i] + b[i] + (t >> 32);
        r[i] = (uint32_t)t;
    }
    fold_carry(r, (uint32_t)(t >> 32));
}

void x25519_fe_sub(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
    /* A borrow out of bit 256 means the limbs hold a - b + 2^256: take 38 off. A second borrow leaves them at
     * least 2^256 - 38, so the third subtraction of 38 stays within the first limb. A difference below zero has
     * bit 63 set (it is at least -2^32). */
    uint32_t borrow = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t t = (uint64_t)a[i] - b[i] - borrow;
        r[i] = (uint32_t)t;
        borrow = (uint32_t)(t >> 63);
    }
    uint32_t subtrahend = FOLD * borrow;
    for (int i = 0; i < N; i++) {
        /* The borrow out of x - s from the operands' and the difference's top bits: written as a comparison, gcc
         * made it a secret-conditioned IT block. */
        const uint32_t x = r[i], d = x - subtrahend;
        r[i] = d;
        subtrahend = ((~x & subtrahend) | (~(x ^ subtrahend) & d)) >> 31;
    }
    __asm__("" : "+r"(subtrahend)); /* not a condition for the compiler to predicate on */
    r[0] -= FOLD * subtrahend;
}

void x25519_fe_mul121666(uint32_t r[N], const uint32_t a[N])
{
    /* (A + 2) / 4 for A = 486662: the ladder's z2 = E (BB + 121666 E). The product has one more limb, below 2^17. */
    uint32_t c = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t s = (uint64_t)a[i] * 121666u + c;
        r[i] = (uint32_t)s;
        c = (uint32_t)(s >> 32);
    }
    fold_carry(r, c);
}

/* r = a^(2^k) */
static void sqr_times(uint32_t r[N], const uint32_t a[N], int k)
{
    fe_sqr(r, a);
    for (int i = 1; i < k; i++) {
        fe_sqr(r, r);
    }
}

/* a^(2^250 - 1) and a^11, the common head of the inversion and of pow22523: 249 squarings, 11 multiplications. */
static void pow_2_250_minus_1(uint32_t x250[N], uint32_t a11[N], const uint32_t a[N])
{
    uint32_t a2[N], a9[N], x5[N], x10[N], x20[N], x50[N], x100[N], t[N];
    fe_sqr(a2, a);
    sqr_times(t, a2, 2);
    fe_mul(a9, t, a);
    fe_mul(a11, a9, a2);
    fe_sqr(t, a11);
    fe_mul(x5, t, a9); /* a^(2^5 - 1) */
    sqr_times(t, x5, 5);
    fe_mul(x10, t, x5);
    sqr_times(t, x10, 10);
    fe_mul(x20, t, x10);
    sqr_times(t, x20, 20);
    fe_mul(t, t, x20); /* a^(2^40 - 1) */
    sqr_times(t, t, 10);
    fe_mul(x50, t, x10);
    sqr_times(t, x50, 50);
    fe_mul(x100, t, x50);
    sqr_times(t, x100, 100);
    fe_mul(t, t, x100); /* a^(2^200 - 1) */
    sqr_times(t, t, 50);
    fe_mul(x250, t, x50);
}

void x25519_fe_inv(uint32_t r[N], const uint32_t a[N])
{
    /* a^(p-2) (0 maps to 0): p - 2 = 2^255 - 21 = (2^250 - 1) 2^5 + 11, 254 squarings and 11 multiplications. */
    uint32_t x250[N], a11[N];
    pow_2_250_minus_1(x250, a11, a);
    sqr_times(x250, x250, 5);
    fe_mul(r, x250, a11);
}

void x25519_fe_pow22523(uint32_t r[N], const uint32_t a[N])
{
    /* a^((p-5)/8) = a^(2^252 - 3) = a^((2^250 - 1) 4 + 1), the candidate square root's exponent (p = 5 mod 8):
     * 251 squarings and 11 multiplications. */
    uint32_t x250[N], a11[N];
    pow_2_250_minus_1(x250, a11, a);
    sqr_times(x250, x250, 2);
    fe_mul(r, x250, a);
}

/* The residue in [0, p-1] of a value below 2^256 = 2p + 38: p subtracted twice where it fits, by masks. */
void x25519_fe_canonical(uint32_t r[N], const uint32_t a[N])
{
    static const uint32_t p[N] = {0xFFFFFFEDu, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x7FFFFFFFu};
    for (int i = 0; i < N; i++) {
        r[i] = a[i];
    }
    for (int round = 0; round < 2; round++) {
        uint32_t d[N], borrow = 0;
        for (int i = 0; i < N; i++) {
            const uint64_t t = (uint64_t)r[i] - p[i] - borrow;
            d[i] = (uint32_t)t;
            borrow = (uint32_t)(t >> 63);
        }
        /* All ones when r < p; hidden from the compiler, which would otherwise predicate the selection on it. */
        uint32_t keep = 0u - borrow;
        __asm__("" : "+r"(keep));
        for (int i = 0; i < N; i++) {
            r[i] = (r[i] & keep) | (d[i] & ~keep);
        }
    }
}
