/*
 * x25519.cswap, x25519.ladder_step: the Montgomery ladder's conditional swap and one differential addition-and-
 * doubling (RFC 7748 section 5), on the field elements of fe.c (8 x 32-bit limbs, any value in [0, 2^256), outputs
 * partially reduced); x25519.inv2, the zero-safe paired inversion; x25519.scalarmult, the whole ladder with its
 * byte encodings (x25519_ladder: the same ladder stopping at the projective (X : Z), for a shared inversion).
 * Portable C for every image. Model: pqhelium_sim::x25519_fe (same order of operations).
 */
#include <stdint.h>

#include "fe.h"

#define N X25519_FE_LIMBS

/* Swaps a and b when swap is 1, leaves them when it is 0 (swap in {0, 1}, secret): the same loads, stores and XORs
 * either way, the choice carried by an all-ones or all-zeros mask. */
void x25519_cswap(uint32_t a[N], uint32_t b[N], uint32_t swap)
{
    const uint32_t mask = 0u - swap;
    for (int i = 0; i < N; i++) {
        const uint32_t t = mask & (a[i] ^ b[i]);
        a[i] ^= t;
        b[i] ^= t;
    }
}

/* state = x2 || z2 || x3 || z3 (four elements) after the ladder's swap: (x2 : z2) doubled and (x3 : z3) replaced
 * by the sum of the two points, whose difference has u-coordinate x1. z2 uses (A + 2) / 4 = 121666 on BB where
 * RFC 7748 uses 121665 on AA (AA = BB + E): one multiplier for the kernel, the same element. */
void x25519_ladder_step(uint32_t state[4 * N], const uint32_t x1[N])
{
    uint32_t *x2 = state, *z2 = state + N, *x3 = state + 2 * N, *z3 = state + 3 * N;
    uint32_t a[N], aa[N], b[N], bb[N], e[N], c[N], d[N], da[N], cb[N], t[N];
    x25519_fe_add(a, x2, z2);
    x25519_fe_sqr(aa, a);
    x25519_fe_sub(b, x2, z2);
    x25519_fe_sqr(bb, b);
    x25519_fe_sub(e, aa, bb);
    x25519_fe_add(c, x3, z3);
    x25519_fe_sub(d, x3, z3);
    x25519_fe_mul(da, d, a);
    x25519_fe_mul(cb, c, b);
    x25519_fe_add(t, da, cb);
    x25519_fe_sqr(x3, t);
    x25519_fe_sub(t, da, cb);
    x25519_fe_sqr(t, t);
    x25519_fe_mul(z3, x1, t);
    x25519_fe_mul(x2, aa, bb);
    x25519_fe_mul121666(t, e);
    x25519_fe_add(t, bb, t);
    x25519_fe_mul(z2, e, t);
}

/* All ones when a is 0 mod p (any of 0, p, 2p), else zero, without a branch. */
static uint32_t zero_mask(const uint32_t a[N])
{
    uint32_t c[N], acc = 0;
    x25519_fe_canonical(c, a);
    for (int i = 0; i < N; i++) {
        acc |= c[i];
    }
    uint32_t mask = 0u - (uint32_t)(((uint64_t)acc - 1) >> 63);
    __asm__("" : "+r"(mask)); /* opaque, so that the compiler selects with it rather than predicating on it */
    return mask;
}

/* Each zero input replaced by 1 (so that it cannot zero the other's inverse), t = (a b)^-1, r1 = b t, r2 = a t;
 * the saved masks then clear the output of each zero input: 1 inversion and 3 multiplications for 2 inverses. */
void x25519_inv2(uint32_t r1[N], uint32_t r2[N], const uint32_t a[N], const uint32_t b[N])
{
    const uint32_t zero_a = zero_mask(a), zero_b = zero_mask(b);
    uint32_t safe_a[N], safe_b[N], t[N], u1[N], u2[N];
    for (int i = 0; i < N; i++) {
        safe_a[i] = a[i] & ~zero_a;
        safe_b[i] = b[i] & ~zero_b;
    }
    safe_a[0] |= zero_a & 1;
    safe_b[0] |= zero_b & 1;
    x25519_fe_mul(t, safe_a, safe_b);
    x25519_fe_inv(t, t);
    x25519_fe_mul(u1, safe_b, t);
    x25519_fe_mul(u2, safe_a, t);
    for (int i = 0; i < N; i++) {
        r1[i] = u1[i] & ~zero_a;
        r2[i] = u2[i] & ~zero_b;
    }
}

static void load_le(uint32_t r[N], const uint8_t b[32])
{
    for (int i = 0; i < N; i++) {
        r[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
               (uint32_t)b[4 * i + 3] << 24;
    }
}

static void store_le(uint8_t b[32], const uint32_t a[N])
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < 4; j++) {
            b[4 * i + j] = (uint8_t)(a[i] >> (8 * j));
        }
    }
}

/* u = x z^-1, canonical, as 32 bytes (z = 0 gives 0). */
void x25519_fe_encode_ratio(uint8_t out[32], const uint32_t x[N], const uint32_t z[N])
{
    uint32_t r[N];
    x25519_fe_inv(r, z);
    x25519_fe_mul(r, x, r);
    x25519_fe_canonical(r, r);
    store_le(out, r);
}

/* canonical(a b) as 32 bytes. */
void x25519_fe_encode_product(uint8_t out[32], const uint32_t a[N], const uint32_t b[N])
{
    uint32_t r[N];
    x25519_fe_mul(r, a, b);
    x25519_fe_canonical(r, r);
    store_le(out, r);
}

/* The ladder of RFC 7748 on k and u, state = x2 || z2 || x3 || z3 at its end; inlined: x25519.scalarmult stays one
 * function. */
static inline __attribute__((always_inline)) void ladder(uint32_t state[4 * N], const uint8_t k[32],
                                                        const uint8_t u[32])
{
    /* decodeScalar25519: bits 0, 1, 2 and 255 cleared, bit 254 set (the ladder starts at bit 254). */
    uint8_t e[32];
    for (int i = 0; i < 32; i++) {
        e[i] = k[i];
    }
    e[0] &= 248;
    e[31] = (uint8_t)((e[31] & 127) | 64);
    uint32_t x1[N];
    load_le(x1, u);
    x1[N - 1] &= 0x7FFFFFFFu; /* decodeUCoordinate: bit 255 ignored; values >= p are fine as they are */
    uint32_t *x2 = state, *z2 = state + N, *x3 = state + 2 * N, *z3 = state + 3 * N;
    for (int i = 0; i < N; i++) {
        x2[i] = 0;
        z2[i] = 0;
        x3[i] = x1[i];
        z3[i] = 0;
    }
    x2[0] = 1;
    z3[0] = 1;
    uint32_t swap = 0;
    for (int t = 254; t >= 0; t--) {
        const uint32_t bit = (e[t >> 3] >> (t & 7)) & 1u;
        swap ^= bit;
        x25519_cswap(x2, x3, swap);
        x25519_cswap(z2, z3, swap);
        swap = bit;
        x25519_ladder_step(state, x1);
    }
    x25519_cswap(x2, x3, swap);
    x25519_cswap(z2, z3, swap);
}

void x25519_scalarmult(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
    uint32_t state[4 * N];
    ladder(state, k, u);
    x25519_fe_encode_ratio(out, state, state + N);
}

void x25519_ladder(uint32_t xz[2 * N], const uint8_t k[32], const uint8_t u[32])
{
    uint32_t state[4 * N];
    ladder(state, k, u);
    for (int i = 0; i < 2 * N; i++) {
        xz[i] = state[i];
    }
}
