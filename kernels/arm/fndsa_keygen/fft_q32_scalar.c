/*
 * fndsa.keygen.fft.scalar, fndsa.keygen.ifft.scalar: the fixed-point FFT and inverse FFT of FN-DSA key generation
 * in portable C (64-bit C integers, no intrinsics), built into both images; the baseline of fft_q32.mve.c.
 * Model: pqhelium_sim::fxp_fft::scalar. Reference: pqhelium_core::fndsa::keygen::fxp::Reference.
 *
 * Representation: a uint64_t holds a signed 64-bit integer x standing for x / 2^32 (32.32 fixed point).
 * Storage order: n = 2^logn values hold n/2 complex values, real parts in f[0, n/2), imaginary parts in f[n/2, n).
 * Bounds: any uint64_t in, any out: additions wrap modulo 2^64 and every product is exact before its floor, so the
 * result is the reference's for every input.
 * Arithmetic (the reference's, step by step): mul(a, b) = floor(a b / 2^32) mod 2^64 of the signed 128-bit product,
 * built from 32x32 -> 64-bit partial products; the complex product with three multiplications z0 = a c, z1 = b d,
 * z2 = (a + b)(c + d), re = z0 - z1, im = z2 - (z0 + z1); half(x) = (x + 1) >> 1 (arithmetic, after the wrapping
 * addition). Forward: Cooley-Tukey x +/- s y; inverse: Gentleman-Sande half(x + y), conj(s) half(x - y).
 */
#include <stdint.h>

#include "fft_q32.h"

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

/* (x + 1) >> 1 on the signed value, the addition wrapping first (gcc's >> on a negative int64_t is arithmetic). */
static uint64_t fxr_half(uint64_t x)
{
    return (uint64_t)((int64_t)(x + 1) >> 1);
}

static void cmul(uint64_t *re, uint64_t *im, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    const uint64_t z0 = fxr_mul(a, c), z1 = fxr_mul(b, d), z2 = fxr_mul(a + b, c + d);
    *re = z0 - z1;
    *im = z2 - (z0 + z1);
}

void fndsa_keygen_fft_scalar(uint64_t *f, uint32_t logn)
{
    const unsigned hn = 1u << (logn - 1);
    for (unsigned lm = 1, t = hn; lm < logn; lm++, t >>= 1) {
        const unsigned m = 1u << lm, ht = t >> 1;
        for (unsigned i = 0; i < m / 2; i++) {
            const uint64_t sr = fndsa_keygen_gm[2 * (m + i)], si = fndsa_keygen_gm[2 * (m + i) + 1];
            for (unsigned j = i * t; j < i * t + ht; j++) {
                const uint64_t xr = f[j], xi = f[j + hn];
                uint64_t zr, zi;
                cmul(&zr, &zi, sr, si, f[j + ht], f[j + ht + hn]);
                f[j] = xr + zr;
                f[j + hn] = xi + zi;
                f[j + ht] = xr - zr;
                f[j + ht + hn] = xi - zi;
            }
        }
    }
}

void fndsa_keygen_ifft_scalar(uint64_t *f, uint32_t logn)
{
    const unsigned hn = 1u << (logn - 1);
    for (unsigned lm = logn - 1, ht = 1; lm >= 1; lm--, ht <<= 1) {
        const unsigned m = 1u << lm, t = 2 * ht;
        for (unsigned i = 0; i < m / 2; i++) {
            const uint64_t sr = fndsa_keygen_gm[2 * (m + i)], si = -fndsa_keygen_gm[2 * (m + i) + 1];
            for (unsigned j = i * t; j < i * t + ht; j++) {
                const uint64_t xr = f[j], xi = f[j + hn], yr = f[j + ht], yi = f[j + ht + hn];
                f[j] = fxr_half(xr + yr);
                f[j + hn] = fxr_half(xi + yi);
                cmul(&f[j + ht], &f[j + ht + hn], sr, si, fxr_half(xr - yr), fxr_half(xi - yi));
            }
        }
    }
}
