/*
 * poly.c: coefficient-wise and FFT-domain polynomial kernels of FN-DSA signing on the FPU (VADD/VSUB/VMUL.F64,
 * VNEG.F64, VCVT.F64.S32, VRINTN.F64), the same operations in the same order as
 * pqhelium_core::fndsa::fpu::Reference::{set_small, round, add, sub, neg, mulconst, mul_fft, muladj_fft,
 * mulownadj_fft}. Built with -ffp-contract=off: no fused multiply-add. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_fpu.h"
#include "fndsa_sign_kernels.h"

/* Round to nearest, ties to even, whatever the FPSCR rounding mode. */
static inline double rint_even(double x)
{
    double r;
    __asm__("vrintn.f64 %P0, %P1" : "=w"(r) : "w"(x));
    return r;
}

void fndsa_fpu_set_small(double *d, const int32_t *s, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = (double)s[i];
    }
}

void fndsa_fpu_round(int64_t *d, const double *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = fndsa_fpu_bits_to_i64(fndsa_fpu_dbits(rint_even(f[i])));
    }
}

void fndsa_fpu_add(double *a, const double *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = a[i] + b[i];
    }
}

void fndsa_fpu_sub(double *a, const double *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = a[i] - b[i];
    }
}

void fndsa_fpu_neg(double *a, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = -a[i];
    }
}

void fndsa_fpu_mulconst(double *a, uint32_t logn, double c)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = a[i] * c;
    }
}

void fndsa_fpu_mul_fft(double *a, const double *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        double a_re = a[i], a_im = a[i + hn];
        double b_re = b[i], b_im = b[i + hn];
        a[i] = a_re * b_re - a_im * b_im;
        a[i + hn] = a_re * b_im + a_im * b_re;
    }
}

void fndsa_fpu_muladj_fft(double *a, const double *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        double a_re = a[i], a_im = a[i + hn];
        double b_re = b[i], b_im = -b[i + hn];
        a[i] = a_re * b_re - a_im * b_im;
        a[i + hn] = a_re * b_im + a_im * b_re;
    }
}

void fndsa_fpu_mulownadj_fft(double *a, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        double a_re = a[i], a_im = a[i + hn];
        a[i] = a_re * a_re + a_im * a_im;
        a[i + hn] = 0.0;
    }
}
