/*
 * ldl.c: the LDL tree kernels of FN-DSA signing: LDL decomposition of the 2x2 Gram matrix, split and merge in FFT
 * form. The same operations in the same order as pqhelium_core::fndsa::fpu::Reference::{ldl_fft, split_fft,
 * split_selfadj_fft, merge_fft}. Written once over fp64.h: compiled as is on the FPU (VADD/VSUB/VMUL/VDIV/VNEG.F64),
 * and again by ldl_emu.c on the soft-float. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fp64.h"

void FP64_KERNEL(fndsa_fpu_ldl_fft)(const fp64 *g00, fp64 *g01, fp64 *g11, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        fp64 g01_re = g01[i], g01_im = g01[i + hn];
        fp64 inv = fp64_div(fp64_of_bits(FNDSA_FPU_ONE), g00[i]);
        fp64 mu_re = fp64_mul(g01_re, inv), mu_im = fp64_mul(g01_im, inv);
        g11[i] = fp64_sub(g11[i], fp64_add(fp64_mul(mu_re, g01_re), fp64_mul(mu_im, g01_im)));
        g01[i] = mu_re;
        g01[i + hn] = fp64_neg(mu_im);
    }
}

void FP64_KERNEL(fndsa_fpu_split_fft)(fp64 *f0, fp64 *f1, const fp64 *f, uint32_t logn)
{
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = f[1];
        return;
    }
    fp64 half = fp64_of_bits(FNDSA_FPU_HALF);
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        fp64 a_re = f[2 * i], a_im = f[2 * i + hn];
        fp64 b_re = f[2 * i + 1], b_im = f[2 * i + 1 + hn];
        f0[i] = fp64_mul(fp64_add(a_re, b_re), half);
        f0[i + qn] = fp64_mul(fp64_add(a_im, b_im), half);
        fp64 s_re = fp64_twiddle(2 * (i + hn)), s_im = fp64_neg(fp64_twiddle(2 * (i + hn) + 1));
        fp64 d_re = fp64_sub(a_re, b_re), d_im = fp64_sub(a_im, b_im);
        fp64 u_re = fp64_sub(fp64_mul(d_re, s_re), fp64_mul(d_im, s_im));
        fp64 u_im = fp64_add(fp64_mul(d_re, s_im), fp64_mul(d_im, s_re));
        f1[i] = fp64_mul(u_re, half);
        f1[i + qn] = fp64_mul(u_im, half);
    }
}

void FP64_KERNEL(fndsa_fpu_split_selfadj_fft)(fp64 *f0, fp64 *f1, const fp64 *f, uint32_t logn)
{
    fp64 zero = fp64_of_bits(0);
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = zero;
        return;
    }
    fp64 half = fp64_of_bits(FNDSA_FPU_HALF);
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        fp64 a_re = f[2 * i], b_re = f[2 * i + 1];
        f0[i] = fp64_mul(fp64_add(a_re, b_re), half);
        f0[i + qn] = zero;
        fp64 t = fp64_mul(fp64_sub(a_re, b_re), half);
        fp64 s_re = fp64_twiddle(2 * (i + hn)), s_im = fp64_neg(fp64_twiddle(2 * (i + hn) + 1));
        f1[i] = fp64_mul(t, s_re);
        f1[i + qn] = fp64_mul(t, s_im);
    }
}

void FP64_KERNEL(fndsa_fpu_merge_fft)(fp64 *f, const fp64 *f0, const fp64 *f1, uint32_t logn)
{
    if (logn == 1) {
        f[0] = f0[0];
        f[1] = f1[0];
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        fp64 a_re = f0[i], a_im = f0[i + qn];
        fp64 s_re = fp64_twiddle(2 * (i + hn)), s_im = fp64_twiddle(2 * (i + hn) + 1);
        fp64 c_re = f1[i], c_im = f1[i + qn];
        fp64 b_re = fp64_sub(fp64_mul(c_re, s_re), fp64_mul(c_im, s_im));
        fp64 b_im = fp64_add(fp64_mul(c_re, s_im), fp64_mul(c_im, s_re));
        f[2 * i] = fp64_add(a_re, b_re);
        f[2 * i + hn] = fp64_add(a_im, b_im);
        f[2 * i + 1] = fp64_sub(a_re, b_re);
        f[2 * i + 1 + hn] = fp64_sub(a_im, b_im);
    }
}
