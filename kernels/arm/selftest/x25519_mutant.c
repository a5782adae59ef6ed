/*
 * Deliberately wrong X25519 kernels, each with the prototype of the kernel it imitates, so that a campaign of that
 * contract with its symbol must report mismatches. x25519.fe.mul: the right 512-bit product, then a reduction whose
 * fold of the high half drops the carry out of limb 3 (limb 4 never receives it).
 */
#include <stdint.h>

#include "../x25519/fe.h"

void pqh_selftest_x25519_fe_mul_carry_dropped(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS],
                                             const uint32_t b[X25519_FE_LIMBS])
{
    uint32_t t[2 * X25519_FE_LIMBS];
    x25519_fe_product(t, a, b);
    uint32_t c = 0;
    for (int i = 0; i < X25519_FE_LIMBS; i++) {
        const uint64_t s = (uint64_t)t[X25519_FE_LIMBS + i] * 38u + t[i] + c;
        r[i] = (uint32_t)s;
        c = i == 3 ? 0 : (uint32_t)(s >> 32);
    }
    /* The final carry folded as the kernel does (r + 38 c, reduced below 2^256). */
    const uint32_t carry[X25519_FE_LIMBS] = {38u * c};
    x25519_fe_add(r, r, carry);
}

/* A deliberately wrong x25519.cswap: its mask taken from bit 1 of swap instead of bit 0, so that it never swaps. */
void pqh_selftest_x25519_cswap_wrong_bit(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap)
{
    x25519_cswap(a, b, (swap >> 1) & 1);
}

/* A deliberately wrong x25519.inv2: the zero test of b is left out, so a zero b zeroes the shared inverse, and with
 * it a's inverse (a^-1 = b t with t = (a b)^-1 = 0). Right whenever neither input is zero. */
void pqh_selftest_x25519_inv2_zero_unsafe(uint32_t r1[X25519_FE_LIMBS], uint32_t r2[X25519_FE_LIMBS],
                                          const uint32_t a[X25519_FE_LIMBS], const uint32_t b[X25519_FE_LIMBS])
{
    const uint32_t one[X25519_FE_LIMBS] = {1};
    uint32_t c[X25519_FE_LIMBS], safe_a[X25519_FE_LIMBS], t[X25519_FE_LIMBS], acc = 0;
    x25519_fe_canonical(c, a);
    for (int i = 0; i < X25519_FE_LIMBS; i++) {
        acc |= c[i];
    }
    const uint32_t zero_a = 0u - (uint32_t)(((uint64_t)acc - 1) >> 63);
    for (int i = 0; i < X25519_FE_LIMBS; i++) {
        safe_a[i] = (a[i] & ~zero_a) | (one[i] & zero_a);
    }
    x25519_fe_mul(t, safe_a, b);
    x25519_fe_inv(t, t);
    x25519_fe_mul(r1, b, t);
    x25519_fe_mul(r2, safe_a, t);
    for (int i = 0; i < X25519_FE_LIMBS; i++) {
        r1[i] &= ~zero_a;
    }
}
