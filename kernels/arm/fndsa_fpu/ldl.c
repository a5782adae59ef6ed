/*
 * ldl.c: the LDL tree kernels of FN-DSA signing on the FPU (VADD/VSUB/VMUL/VDIV.F64, VNEG.F64): LDL decomposition of
 * the 2x2 Gram matrix, split and merge in FFT form. The same operations in the same order as
 * pqhelium_core::fndsa::fpu::Reference::{ldl_fft, split_fft, split_selfadj_fft, merge_fft}. Built with
 * -ffp-contract=off: no fused multiply-add. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_fpu.h"
#include "fndsa_sign_kernels.h"

void fndsa_fpu_ldl_fft(const double *g00, double *g01, double *g11, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        double g01_re = g01[i], g01_im = g01[i + hn];
        double inv = 1.0 / g00[i];
        double mu_re = g01_re * inv, mu_im = g01_im * inv;
        g11[i] = g11[i] - (mu_re * g01_re + mu_im * g01_im);
        g01[i] = mu_re;
        g01[i + hn] = -mu_im;
    }
}

void fndsa_fpu_split_fft(double *f0, double *f1, const double *f, uint32_t logn)
{
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = f[1];
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        double a_re = f[2 * i], a_im = f[2 * i + hn];
        double b_re = f[2 * i + 1], b_im = f[2 * i + 1 + hn];
        f0[i] = (a_re + b_re) * 0.5;
        f0[i + qn] = (a_im + b_im) * 0.5;
        double s_re = fndsa_fpu_gm_value(2 * (i + hn)), s_im = -fndsa_fpu_gm_value(2 * (i + hn) + 1);
        double d_re = a_re - b_re, d_im = a_im - b_im;
        double u_re = d_re * s_re - d_im * s_im;
        double u_im = d_re * s_im + d_im * s_re;
        f1[i] = u_re * 0.5;
        f1[i + qn] = u_im * 0.5;
    }
}

void fndsa_fpu_split_selfadj_fft(double *f0, double *f1, const double *f, uint32_t logn)
{
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = 0.0;
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        double a_re = f[2 * i], b_re = f[2 * i + 1];
        f0[i] = (a_re + b_re) * 0.5;
        f0[i + qn] = 0.0;
        double t = (a_re - b_re) * 0.5;
        double s_re = fndsa_fpu_gm_value(2 * (i + hn)), s_im = -fndsa_fpu_gm_value(2 * (i + hn) + 1);
        f1[i] = t * s_re;
        f1[i + qn] = t * s_im;
    }
}

void fndsa_fpu_merge_fft(double *f, const double *f0, const double *f1, uint32_t logn)
{
    if (logn == 1) {
        f[0] = f0[0];
        f[1] = f1[0];
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        double a_re = f0[i], a_im = f0[i + qn];
        double s_re = fndsa_fpu_gm_value(2 * (i + hn)), s_im = fndsa_fpu_gm_value(2 * (i + hn) + 1);
        double c_re = f1[i], c_im = f1[i + qn];
        double b_re = c_re * s_re - c_im * s_im;
        double b_im = c_re * s_im + c_im * s_re;
        f[2 * i] = a_re + b_re;
        f[2 * i + hn] = a_im + b_im;
        f[2 * i + 1] = a_re - b_re;
        f[2 * i + 1 + hn] = a_im - b_im;
    }
}
