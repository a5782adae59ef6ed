/*
 * sampler_fp.c: the floating-point part of the FN-DSA Gaussian sampler on the FPU (VADD/VSUB/VMUL.F64, VSQRT.F64,
 * VCMP.F64, VCVT.F64.S32/U32): the leaf deviation, the per-sample centre and the Bernoulli exponent of a candidate.
 * The same operations in the same order as pqhelium_core::fndsa::fpu::Reference::{leaf_sigma, sampler_centre,
 * sampler_exponent}. Built with -ffp-contract=off: no fused multiply-add. Contract in fndsa_sign_kernels.h.
 */
#include <stdint.h>

#include "fndsa_fpu.h"
#include "fndsa_sign_kernels.h"

/* Rust's `v as f64` (roundTiesToEven): hi * 2^32 and lo are exact, so the one addition rounds the exact sum once. */
static inline double i64_to_double(int64_t v)
{
    int32_t hi = (int32_t)(v >> 32);
    uint32_t lo = (uint32_t)v;
    return (double)hi * 4294967296.0 + (double)lo;
}

void fndsa_fpu_leaf_sigma(double *out, double d, double inv_sigma)
{
    double r;
    __asm__("vsqrt.f64 %P0, %P1" : "=w"(r) : "w"(d));
    out[0] = r * inv_sigma;
}

void fndsa_fpu_sampler_centre(struct fndsa_fpu_centre *c, double mu, double isigma, double sigma_min)
{
    /* floor as truncation corrected downwards */
    int64_t t = fndsa_fpu_bits_to_i64(fndsa_fpu_dbits(mu));
    int64_t s = (int64_t)((uint64_t)t - (uint64_t)(mu < i64_to_double(t)));
    double ccs = isigma * sigma_min;
    c->s = (int32_t)(uint32_t)(uint64_t)s;
    c->pad = 0;
    c->r = fndsa_fpu_dbits(mu - i64_to_double(s));
    c->dss = fndsa_fpu_dbits(isigma * isigma * 0.5);
    c->ccs_fx = fndsa_fpu_fixed63_of(fndsa_fpu_dbits(ccs * fndsa_fpu_dval(FNDSA_FPU_TWO63)));
}

void fndsa_fpu_sampler_exponent(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z, int32_t z0)
{
    double d = (double)z - fndsa_fpu_dval(c->r);
    int32_t zz = (int32_t)((uint32_t)z0 * (uint32_t)z0);
    double x = d * d * fndsa_fpu_dval(c->dss) - (double)zz * fndsa_fpu_dval(FNDSA_FPU_INV_2SQRSIGMA0);
    int64_t k = fndsa_fpu_bits_to_i64(fndsa_fpu_dbits(x * fndsa_fpu_dval(FNDSA_FPU_INV_LOG2)));
    double rem = x - i64_to_double(k) * fndsa_fpu_dval(FNDSA_FPU_LOG2);
    e->k = k;
    e->rem_fx = fndsa_fpu_fixed63_of(fndsa_fpu_dbits(rem * fndsa_fpu_dval(FNDSA_FPU_TWO63)));
}
