/*
 * poly_emu.c: poly.c on binary64 bit patterns with our soft-float (softfloat.c): the `.emu` baseline, integer
 * instructions only, the same operations in the same order. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_sign_kernels.h"
#include "softfloat.h"

void fndsa_fpu_set_small_emu(uint64_t *d, const int32_t *s, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = sf64_from_i64((int64_t)s[i]);
    }
}

void fndsa_fpu_round_emu(int64_t *d, const uint64_t *f, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        d[i] = fndsa_fpu_bits_to_i64(sf64_rint(f[i]));
    }
}

void fndsa_fpu_add_emu(uint64_t *a, const uint64_t *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = sf64_add(a[i], b[i]);
    }
}

void fndsa_fpu_sub_emu(uint64_t *a, const uint64_t *b, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = sf64_sub(a[i], b[i]);
    }
}

void fndsa_fpu_neg_emu(uint64_t *a, uint32_t logn)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = sf64_neg(a[i]);
    }
}

void fndsa_fpu_mulconst_emu(uint64_t *a, uint32_t logn, uint64_t c)
{
    size_t n = (size_t)1 << logn;
    for (size_t i = 0; i < n; i++) {
        a[i] = sf64_mul(a[i], c);
    }
}

void fndsa_fpu_mul_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        uint64_t a_re = a[i], a_im = a[i + hn];
        uint64_t b_re = b[i], b_im = b[i + hn];
        a[i] = sf64_sub(sf64_mul(a_re, b_re), sf64_mul(a_im, b_im));
        a[i + hn] = sf64_add(sf64_mul(a_re, b_im), sf64_mul(a_im, b_re));
    }
}

void fndsa_fpu_muladj_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        uint64_t a_re = a[i], a_im = a[i + hn];
        uint64_t b_re = b[i], b_im = sf64_neg(b[i + hn]);
        a[i] = sf64_sub(sf64_mul(a_re, b_re), sf64_mul(a_im, b_im));
        a[i + hn] = sf64_add(sf64_mul(a_re, b_im), sf64_mul(a_im, b_re));
    }
}

void fndsa_fpu_mulownadj_fft_emu(uint64_t *a, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        uint64_t a_re = a[i], a_im = a[i + hn];
        a[i] = sf64_add(sf64_mul(a_re, a_re), sf64_mul(a_im, a_im));
        a[i + hn] = 0;
    }
}
