/*
 * poly.c: coefficient-wise and FFT-domain polynomial kernels of FN-DSA signing, the same operations in the same
 * order as pqhelium_core::fndsa::fpu::Reference::{set_small, round, add, sub, neg, mulconst, mul_fft, muladj_fft,
 * mulownadj_fft}. Written once over fp64.h: compiled as is on the FPU (VADD/VSUB/VMUL/VNEG.F64, VCVT.F64.S32,
 * VRINTN.F64), and again by poly_emu.c on the soft-float. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fp64.h"

void FP64_KERNEL(fndsa_fpu_set_small)(fp64 *d, const int32_t *s, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = fp64_of_i32(s[i]);
    }
}

void FP64_KERNEL(fndsa_fpu_round)(int64_t *d, const fp64 *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = fp64_trunc_to_i64(fp64_rint(f[i]));
    }
}

void FP64_KERNEL(fndsa_fpu_add)(fp64 *a, const fp64 *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = fp64_add(a[i], b[i]);
    }
}

void FP64_KERNEL(fndsa_fpu_sub)(fp64 *a, const fp64 *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = fp64_sub(a[i], b[i]);
    }
}

void FP64_KERNEL(fndsa_fpu_neg)(fp64 *a, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = fp64_neg(a[i]);
    }
}

void FP64_KERNEL(fndsa_fpu_mulconst)(fp64 *a, uint32_t logn, fp64 c)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = fp64_mul(a[i], c);
    }
}

void FP64_KERNEL(fndsa_fpu_mul_fft)(fp64 *a, const fp64 *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        fp64 a_re = a[i], a_im = a[i + hn];
        fp64 b_re = b[i], b_im = b[i + hn];
        a[i] = fp64_sub(fp64_mul(a_re, b_re), fp64_mul(a_im, b_im));
        a[i + hn] = fp64_add(fp64_mul(a_re, b_im), fp64_mul(a_im, b_re));
    }
}

void FP64_KERNEL(fndsa_fpu_muladj_fft)(fp64 *a, const fp64 *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        fp64 a_re = a[i], a_im = a[i + hn];
        fp64 b_re = b[i], b_im = fp64_neg(b[i + hn]);
        a[i] = fp64_sub(fp64_mul(a_re, b_re), fp64_mul(a_im, b_im));
        a[i + hn] = fp64_add(fp64_mul(a_re, b_im), fp64_mul(a_im, b_re));
    }
}

void FP64_KERNEL(fndsa_fpu_mulownadj_fft)(fp64 *a, uint32_t logn)
{
    fp64 zero = fp64_of_bits(0);
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        fp64 a_re = a[i], a_im = a[i + hn];
        a[i] = fp64_add(fp64_mul(a_re, a_re), fp64_mul(a_im, a_im));
        a[i + hn] = zero;
    }
}
