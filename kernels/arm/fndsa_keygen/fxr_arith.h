/* 32.32 fixed-point products of FN-DSA key generation (pqhelium_core::fndsa::keygen::fxp::{mul, cmul}), shared by
 * the portable FFT (fft_q32_scalar.c) and key generation (keygen.c). */
#ifndef PQH_FXR_ARITH_H
#define PQH_FXR_ARITH_H

#include <stdint.h>

/* floor(a b / 2^32) mod 2^64 for signed a, b: with a = ah 2^32 + al (al unsigned, ah signed) and b likewise,
 * a b / 2^32 = ah bh 2^32 + ah bl + al bh + al bl / 2^32, every term but the last an integer (each cross product
 * is exact in int64_t: |ah bl| < 2^63). */
static uint64_t fxr_mul(uint64_t a, uint64_t b)
{
    const uint32_t al = (uint32_t)a, bl = (uint32_t)b;
    const int32_t ah = (int32_t)(uint32_t)(a >> 32), bh = (int32_t)(uint32_t)(b >> 32);
    const uint64_t low = (uint64_t)al * bl;
    const int64_t cross_a = (int64_t)ah * (int64_t)bl;
    const int64_t cross_b = (int64_t)bh * (int64_t)al;
    const uint32_t top = (uint32_t)ah * (uint32_t)bh;
    return ((uint64_t)top << 32) + (uint64_t)cross_a + (uint64_t)cross_b + (low >> 32);
}

/* The complex product with three multiplications: z0 = a c, z1 = b d, z2 = (a + b)(c + d); re = z0 - z1,
 * im = z2 - (z0 + z1). */
static void fxr_cmul(uint64_t *re, uint64_t *im, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    const uint64_t z0 = fxr_mul(a, c), z1 = fxr_mul(b, d), z2 = fxr_mul(a + b, c + d);
    *re = z0 - z1;
    *im = z2 - (z0 + z1);
}

#endif
