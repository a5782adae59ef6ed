/*
 * sampler_fp.c: the floating-point part of the FN-DSA Gaussian sampler: the leaf deviation, the per-sample centre
 * and the Bernoulli exponent of a candidate. The same operations in the same order as
 * pqhelium_core::fndsa::fpu::Reference::{leaf_sigma, sampler_centre, sampler_exponent}. Written once over fp64.h:
 * compiled as is on the FPU (VADD/VSUB/VMUL/VSQRT.F64, VCMP.F64, VCVT.F64.S32/U32), and again by sampler_fp_emu.c
 * on the soft-float. Contract in fndsa_sign_kernels.h.
 *
 * The native entry points take their scalar doubles by value (in d0-d2), the soft-float ones in an input array (no
 * FP register may carry them): only the entries differ, the computation below them is shared.
 */
#include <stdint.h>

#include "fp64.h"

/* trunc(x * 2^63) * 2, the multiplication already done: the fixed-point fraction. */
static inline uint64_t fixed63_of(fp64 scaled)
{
    return (uint64_t)fp64_trunc_to_i64(scaled) << 1;
}

static inline fp64 leaf_sigma(fp64 d, fp64 inv_sigma)
{
    return fp64_mul(fp64_sqrt(d), inv_sigma);
}

static inline void sampler_centre(struct fndsa_fpu_centre *c, fp64 mu, fp64 isigma, fp64 sigma_min)
{
    /* floor as truncation corrected downwards */
    int64_t t = fp64_trunc_to_i64(mu);
    int64_t s = (int64_t)((uint64_t)t - fp64_lt(mu, fp64_of_i64(t)));
    fp64 ccs = fp64_mul(isigma, sigma_min);
    c->s = (int32_t)(uint32_t)(uint64_t)s;
    c->pad = 0;
    c->r = fp64_bits(fp64_sub(mu, fp64_of_i64(s)));
    c->dss = fp64_bits(fp64_mul(fp64_mul(isigma, isigma), fp64_of_bits(FNDSA_FPU_HALF)));
    c->ccs_fx = fixed63_of(fp64_mul(ccs, fp64_of_bits(FNDSA_FPU_TWO63)));
}

#ifdef PQH_FP64_EMU
void fndsa_fpu_leaf_sigma_emu(uint64_t *out, const uint64_t in[2])
{
    out[0] = leaf_sigma(in[0], in[1]);
}

void fndsa_fpu_sampler_centre_emu(struct fndsa_fpu_centre *c, const uint64_t in[3])
{
    sampler_centre(c, in[0], in[1], in[2]);
}
#else
void fndsa_fpu_leaf_sigma(double *out, double d, double inv_sigma)
{
    out[0] = leaf_sigma(d, inv_sigma);
}

void fndsa_fpu_sampler_centre(struct fndsa_fpu_centre *c, double mu, double isigma, double sigma_min)
{
    sampler_centre(c, mu, isigma, sigma_min);
}
#endif

void FP64_KERNEL(fndsa_fpu_sampler_exponent)(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z,
                                             int32_t z0)
{
    fp64 d = fp64_sub(fp64_of_i32(z), fp64_of_bits(c->r));
    int32_t zz = (int32_t)((uint32_t)z0 * (uint32_t)z0);
    fp64 x = fp64_sub(fp64_mul(fp64_mul(d, d), fp64_of_bits(c->dss)),
                      fp64_mul(fp64_of_i32(zz), fp64_of_bits(FNDSA_FPU_INV_2SQRSIGMA0)));
    int64_t k = fp64_trunc_to_i64(fp64_mul(x, fp64_of_bits(FNDSA_FPU_INV_LOG2)));
    fp64 rem = fp64_sub(x, fp64_mul(fp64_of_i64(k), fp64_of_bits(FNDSA_FPU_LOG2)));
    e->k = k;
    e->rem_fx = fixed63_of(fp64_mul(rem, fp64_of_bits(FNDSA_FPU_TWO63)));
}
