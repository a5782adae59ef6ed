/*
 * fft.c: FFT and inverse FFT of FN-DSA signing on the FPU (VADD/VSUB/VMUL.F64), the same operations in the same
 * order as pqhelium_core::fndsa::fpu::Reference::{fft, ifft}. Built with -ffp-contract=off: no fused multiply-add.
 * Contract in fndsa_fpu.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_fpu.h"

void fndsa_fpu_fft(double *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = hn;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t m = (size_t)1 << lm, ht = t >> 1;
        for (size_t i = 0; i < (m >> 1); i++) {
            double s_re = fndsa_fpu_gm_value(2 * (m + i)), s_im = fndsa_fpu_gm_value(2 * (m + i) + 1);
            size_t j0 = i * t;
            for (size_t j1 = j0; j1 < j0 + ht; j1++) {
                size_t j2 = j1 + ht;
                double x_re = f[j1], x_im = f[j1 + hn];
                double y_re = f[j2], y_im = f[j2 + hn];
                double z_re = y_re * s_re - y_im * s_im;
                double z_im = y_re * s_im + y_im * s_re;
                f[j1] = x_re + z_re;
                f[j1 + hn] = x_im + z_im;
                f[j2] = x_re - z_re;
                f[j2 + hn] = x_im - z_im;
            }
        }
        t = ht;
    }
}

void fndsa_fpu_ifft(double *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn, hn = n >> 1, t = 1;
    for (uint32_t lm = 1; lm < logn; lm++) {
        size_t hm = (size_t)1 << (logn - lm);
        for (size_t i = 0; i < (hm >> 1); i++) {
            double s_re = fndsa_fpu_gm_value(2 * (hm + i)), s_im = -fndsa_fpu_gm_value(2 * (hm + i) + 1);
            size_t j0 = 2 * t * i;
            for (size_t j1 = j0; j1 < j0 + t; j1++) {
                size_t j2 = j1 + t;
                double x_re = f[j1], x_im = f[j1 + hn];
                double y_re = f[j2], y_im = f[j2 + hn];
                f[j1] = x_re + y_re;
                f[j1 + hn] = x_im + y_im;
                double d_re = x_re - y_re, d_im = x_im - y_im;
                f[j2] = d_re * s_re - d_im * s_im;
                f[j2 + hn] = d_re * s_im + d_im * s_re;
            }
        }
        t <<= 1;
    }
    /* the logn - 1 halvings as one scaling by 2^(1 - logn) (exact bit pattern) */
    union {
        uint64_t u;
        double d;
    } scale = {.u = (uint64_t)(1023u + 1u - logn) << 52};
    for (size_t i = 0; i < n; i++) {
        f[i] *= scale.d;
    }
}
