/*
 * x25519.cswap.mve: the Montgomery ladder's conditional swap with MVE (Helium) intrinsics, M55/M85 images only. The
 * same masks as x25519.cswap (ladder.c), four limbs per vector: one mask vector, two loads, an exclusive or and an
 * and, two exclusive ors and two stores per half element, the same instructions and addresses for either bit.
 * Model: pqhelium_sim::x25519_fe::cswap.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "fe.h"

void x25519_cswap_mve(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap)
{
    const uint32x4_t mask = vdupq_n_u32(0u - swap);
    for (int i = 0; i < X25519_FE_LIMBS; i += 4) {
        const uint32x4_t va = vld1q_u32(a + i), vb = vld1q_u32(b + i);
        const uint32x4_t t = vandq_u32(veorq_u32(va, vb), mask);
        vst1q_u32(a + i, veorq_u32(va, t));
        vst1q_u32(b + i, veorq_u32(vb, t));
    }
}
