/*
 * ldl_emu.c: ldl.c on binary64 bit patterns with our soft-float (softfloat.c): the `.emu` baseline, integer
 * instructions only, the same operations in the same order. Contract in fndsa_sign_kernels.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fndsa_fpu.h"
#include "fndsa_sign_kernels.h"
#include "softfloat.h"

#define ONE 0x3FF0000000000000ull

void fndsa_fpu_ldl_fft_emu(const uint64_t *g00, uint64_t *g01, uint64_t *g11, uint32_t logn)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        uint64_t g01_re = g01[i], g01_im = g01[i + hn];
        uint64_t inv = sf64_div(ONE, g00[i]);
        uint64_t mu_re = sf64_mul(g01_re, inv), mu_im = sf64_mul(g01_im, inv);
        g11[i] = sf64_sub(g11[i], sf64_add(sf64_mul(mu_re, g01_re), sf64_mul(mu_im, g01_im)));
        g01[i] = mu_re;
        g01[i + hn] = sf64_neg(mu_im);
    }
}

void fndsa_fpu_split_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn)
{
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = f[1];
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        uint64_t a_re = f[2 * i], a_im = f[2 * i + hn];
        uint64_t b_re = f[2 * i + 1], b_im = f[2 * i + 1 + hn];
        f0[i] = sf64_mul(sf64_add(a_re, b_re), FNDSA_FPU_HALF);
        f0[i + qn] = sf64_mul(sf64_add(a_im, b_im), FNDSA_FPU_HALF);
        uint64_t s_re = fndsa_fpu_gm[2 * (i + hn)], s_im = sf64_neg(fndsa_fpu_gm[2 * (i + hn) + 1]);
        uint64_t d_re = sf64_sub(a_re, b_re), d_im = sf64_sub(a_im, b_im);
        uint64_t u_re = sf64_sub(sf64_mul(d_re, s_re), sf64_mul(d_im, s_im));
        uint64_t u_im = sf64_add(sf64_mul(d_re, s_im), sf64_mul(d_im, s_re));
        f1[i] = sf64_mul(u_re, FNDSA_FPU_HALF);
        f1[i + qn] = sf64_mul(u_im, FNDSA_FPU_HALF);
    }
}

void fndsa_fpu_split_selfadj_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn)
{
    if (logn == 1) {
        f0[0] = f[0];
        f1[0] = 0;
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        uint64_t a_re = f[2 * i], b_re = f[2 * i + 1];
        f0[i] = sf64_mul(sf64_add(a_re, b_re), FNDSA_FPU_HALF);
        f0[i + qn] = 0;
        uint64_t t = sf64_mul(sf64_sub(a_re, b_re), FNDSA_FPU_HALF);
        uint64_t s_re = fndsa_fpu_gm[2 * (i + hn)], s_im = sf64_neg(fndsa_fpu_gm[2 * (i + hn) + 1]);
        f1[i] = sf64_mul(t, s_re);
        f1[i + qn] = sf64_mul(t, s_im);
    }
}

void fndsa_fpu_merge_fft_emu(uint64_t *f, const uint64_t *f0, const uint64_t *f1, uint32_t logn)
{
    if (logn == 1) {
        f[0] = f0[0];
        f[1] = f1[0];
        return;
    }
    size_t hn = (size_t)1 << (logn - 1), qn = hn >> 1;
    for (size_t i = 0; i < qn; i++) {
        uint64_t a_re = f0[i], a_im = f0[i + qn];
        uint64_t s_re = fndsa_fpu_gm[2 * (i + hn)], s_im = fndsa_fpu_gm[2 * (i + hn) + 1];
        uint64_t c_re = f1[i], c_im = f1[i + qn];
        uint64_t b_re = sf64_sub(sf64_mul(c_re, s_re), sf64_mul(c_im, s_im));
        uint64_t b_im = sf64_add(sf64_mul(c_re, s_im), sf64_mul(c_im, s_re));
        f[2 * i] = sf64_add(a_re, b_re);
        f[2 * i + hn] = sf64_add(a_im, b_im);
        f[2 * i + 1] = sf64_sub(a_re, b_re);
        f[2 * i + 1 + hn] = sf64_sub(a_im, b_im);
    }
}
