/*
 * A deliberately wrong fndsa.keygen.ifft.scalar: past the first layer (as a kernel whose first layer is code of its
 * own, like the MVE kernel's), the halving is computed as (x >> 1) + (x & 1), which is (x + 1) >> 1 for every x
 * but one: x = 2^63 - 1, where the kernel's x + 1 wraps (half = -2^62) and this one gives 2^62. Past the first
 * layer only a difference of two halved values reaches it (2^62 - 1 minus -2^62), which random vectors almost never
 * give; the contract's corner cases (pqhelium_sim::corner_search::keygen_ifft_halving_corners) give it in every
 * layer. Otherwise fft_q32_scalar.c's inverse FFT, operation for operation.
 */
#include <stdint.h>

#include "../fndsa_keygen/fft_q32.h"
#include "../fndsa_keygen/fxr_arith.h"

static uint64_t fxr_half(uint64_t x)
{
    return (uint64_t)((int64_t)(x + 1) >> 1);
}

static uint64_t half_without_wrap(uint64_t x)
{
    return (uint64_t)(((int64_t)x >> 1) + (int64_t)(x & 1));
}

void pqh_selftest_fndsa_keygen_ifft_half_without_wrap(uint64_t *f, uint32_t logn)
{
    const unsigned hn = 1u << (logn - 1);
    for (unsigned lm = logn - 1, ht = 1; lm >= 1; lm--, ht <<= 1) {
        const unsigned m = 1u << lm, t = 2 * ht;
        for (unsigned i = 0; i < m / 2; i++) {
            const uint64_t sr = fndsa_keygen_gm[2 * (m + i)], si = -fndsa_keygen_gm[2 * (m + i) + 1];
            for (unsigned j = i * t; j < i * t + ht; j++) {
                uint64_t (*const half)(uint64_t) = ht == 1 ? fxr_half : half_without_wrap;
                const uint64_t xr = f[j], xi = f[j + hn], yr = f[j + ht], yi = f[j + ht + hn];
                f[j] = half(xr + yr);
                f[j + hn] = half(xi + yi);
                fxr_cmul(&f[j + ht], &f[j + ht + hn], sr, si, half(xr - yr), half(xi - yi));
            }
        }
    }
}
