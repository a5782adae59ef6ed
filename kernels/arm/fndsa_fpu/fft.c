/*
 * fft.c: FFT and inverse FFT of FN-DSA signing, the same operations in the same order as
 * pqhelium_core::fndsa::fpu::Reference::{fft, ifft}. Written once over fp64.h: compiled as is on the FPU
 * (VADD/VSUB/VMUL.F64), and again by fft_emu.c on the soft-float. Contract in fndsa_fpu.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fp64.h"

void FP64_KERNEL(fndsa_fpu_fft)(fp64 *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = hn;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t m = (size_t)1 << lm, ht = t >> 1;
        for (size_t i = 0; i < (m >> 1); i++) {
            fp64 s_re = fp64_twiddle(2 * (m + i)), s_im = fp64_twiddle(2 * (m + i) + 1);
            size_t j0 = i * t;
            for (size_t j1 = j0; j1 < j0 + ht; j1++) {
                size_t j2 = j1 + ht;
                fp64 x_re = f[j1], x_im = f[j1 + hn];
                fp64 y_re = f[j2], y_im = f[j2 + hn];
                fp64 z_re = fp64_sub(fp64_mul(y_re, s_re), fp64_mul(y_im, s_im));
                fp64 z_im = fp64_add(fp64_mul(y_re, s_im), fp64_mul(y_im, s_re));
                f[j1] = fp64_add(x_re, z_re);
                f[j1 + hn] = fp64_add(x_im, z_im);
                f[j2] = fp64_sub(x_re, z_re);
                f[j2 + hn] = fp64_sub(x_im, z_im);
            }
        }
        t = ht;
    }
}

void FP64_KERNEL(fndsa_fpu_ifft)(fp64 *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = 1;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t hm = (size_t)1 << (logn - lm);
        for (size_t i = 0; i < (hm >> 1); i++) {
            fp64 s_re = fp64_twiddle(2 * (hm + i)), s_im = fp64_neg(fp64_twiddle(2 * (hm + i) + 1));
            size_t j0 = 2 * t * i;
            for (size_t j1 = j0; j1 < j0 + t; j1++) {
                size_t j2 = j1 + t;
                fp64 x_re = f[j1], x_im = f[j1 + hn];
                fp64 y_re = f[j2], y_im = f[j2 + hn];
                f[j1] = fp64_add(x_re, y_re);
                f[j1 + hn] = fp64_add(x_im, y_im);
                fp64 d_re = fp64_sub(x_re, y_re), d_im = fp64_sub(x_im, y_im);
                f[j2] = fp64_sub(fp64_mul(d_re, s_re), fp64_mul(d_im, s_im));
                f[j2 + hn] = fp64_add(fp64_mul(d_re, s_im), fp64_mul(d_im, s_re));
            }
        }
        t <<= 1;
    }
    /* the logn - 1 halvings as one scaling by 2^(1 - logn) (exact bit pattern) */
    fp64 scale = fp64_of_bits((uint64_t)(1023u + 1u - logn) << 52);
    for (size_t i = 0; i < n; i++) {
        f[i] = fp64_mul(f[i], scale);
    }
}
