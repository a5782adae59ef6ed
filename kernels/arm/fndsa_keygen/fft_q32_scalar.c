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
#include "fxr_arith.h"

/* (x + 1) >> 1 on the signed value, the addition wrapping first (gcc's >> on a negative int64_t is arithmetic). */
static uint64_t fxr_half(uint64_t x)
{
    return (uint64_t)((int64_t)(x + 1) >> 1);
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
                fxr_cmul(&zr, &zi, sr, si, f[j + ht], f[j + ht + hn]);
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
                fxr_cmul(&f[j + ht], &f[j + ht + hn], sr, si, fxr_half(xr - yr), fxr_half(xi - yi));
            }
        }
    }
}
