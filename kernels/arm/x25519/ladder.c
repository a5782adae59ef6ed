/*
 * x25519.cswap, x25519.ladder_step: the Montgomery ladder's conditional swap and one differential addition-and-
 * doubling (RFC 7748 section 5), on the field elements of fe.c (8 x 32-bit limbs, any value in [0, 2^256), outputs
 * partially reduced). Portable C for every image. Model: pqhelium_sim::x25519_fe (same order of operations).
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
