/*
 * fft_emu.c: fft.c on binary64 bit patterns with our soft-float (softfloat.c): the `.emu` baseline, integer
 * instructions only, the same operations in the same order. Contract in fndsa_fpu.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_fpu.h"
#include "softfloat.h"

void fndsa_fpu_fft_emu(uint64_t *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = hn;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t m = (size_t)1 << lm, ht = t >> 1;
        for (size_t i = 0; i < (m >> 1); i++) {
            uint64_t s_re = fndsa_fpu_gm[2 * (m + i)], s_im = fndsa_fpu_gm[2 * (m + i) + 1];
            size_t j0 = i * t;
            for (size_t j1 = j0; j1 < j0 + ht; j1++) {
                size_t j2 = j1 + ht;
                uint64_t x_re = f[j1], x_im = f[j1 + hn];
                uint64_t y_re = f[j2], y_im = f[j2 + hn];
                uint64_t z_re = sf64_sub(sf64_mul(y_re, s_re), sf64_mul(y_im, s_im));
                uint64_t z_im = sf64_add(sf64_mul(y_re, s_im), sf64_mul(y_im, s_re));
                f[j1] = sf64_add(x_re, z_re);
                f[j1 + hn] = sf64_add(x_im, z_im);
                f[j2] = sf64_sub(x_re, z_re);
                f[j2 + hn] = sf64_sub(x_im, z_im);
            }
        }
        t = ht;
    }
}

void fndsa_fpu_ifft_emu(uint64_t *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = 1;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t hm = (size_t)1 << (logn - lm);
        for (size_t i = 0; i < (hm >> 1); i++) {
            uint64_t s_re = fndsa_fpu_gm[2 * (hm + i)], s_im = sf64_neg(fndsa_fpu_gm[2 * (hm + i) + 1]);
            size_t j0 = 2 * t * i;
            for (size_t j1 = j0; j1 < j0 + t; j1++) {
                size_t j2 = j1 + t;
                uint64_t x_re = f[j1], x_im = f[j1 + hn];
                uint64_t y_re = f[j2], y_im = f[j2 + hn];
                f[j1] = sf64_add(x_re, y_re);
                f[j1 + hn] = sf64_add(x_im, y_im);
                uint64_t d_re = sf64_sub(x_re, y_re), d_im = sf64_sub(x_im, y_im);
                f[j2] = sf64_sub(sf64_mul(d_re, s_re), sf64_mul(d_im, s_im));
                f[j2 + hn] = sf64_add(sf64_mul(d_re, s_im), sf64_mul(d_im, s_re));
            }
        }
        t <<= 1;
    }
    uint64_t scale = (uint64_t)(1023u + 1u - logn) << 52;
    for (size_t i = 0; i < n; i++) {
        f[i] = sf64_mul(f[i], scale);
    }
}
