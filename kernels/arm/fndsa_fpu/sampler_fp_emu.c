/*
 * sampler_fp_emu.c: sampler_fp.c on binary64 bit patterns with our soft-float (softfloat.c): the `.emu` baseline,
 * integer instructions only, the same operations in the same order. Contract in fndsa_sign_kernels.h.
 */
#include <stdint.h>

#include "fndsa_sign_kernels.h"
#include "softfloat.h"

/* a < b for doubles that are not NaN (-0 and +0 compare equal), on the bit patterns: the VCMP of sampler_fp.c. */
static inline uint64_t sf64_lt(uint64_t a, uint64_t b)
{
    uint64_t sign = (uint64_t)1 << 63;
    /* order-preserving keys: negative values complemented, positive ones with the sign bit set */
    uint64_t ka = a ^ (fndsa_fpu_mask(a >> 63) | sign);
    uint64_t kb = b ^ (fndsa_fpu_mask(b >> 63) | sign);
    uint64_t both_zero = fndsa_fpu_nonzero((a | b) << 1) ^ 1u;
    return fndsa_fpu_below(ka, kb) & (both_zero ^ 1u);
}

void fndsa_fpu_leaf_sigma_emu(uint64_t *out, const uint64_t in[2])
{
    out[0] = sf64_mul(sf64_sqrt(in[0]), in[1]);
}

void fndsa_fpu_sampler_centre_emu(struct fndsa_fpu_centre *c, const uint64_t in[3])
{
    uint64_t mu = in[0], isigma = in[1], sigma_min = in[2];
    int64_t t = fndsa_fpu_bits_to_i64(mu);
    int64_t s = (int64_t)((uint64_t)t - sf64_lt(mu, sf64_from_i64(t)));
    uint64_t ccs = sf64_mul(isigma, sigma_min);
    c->s = (int32_t)(uint32_t)(uint64_t)s;
    c->pad = 0;
    c->r = sf64_sub(mu, sf64_from_i64(s));
    c->dss = sf64_mul(sf64_mul(isigma, isigma), FNDSA_FPU_HALF);
    c->ccs_fx = fndsa_fpu_fixed63_of(sf64_mul(ccs, FNDSA_FPU_TWO63));
}

void fndsa_fpu_sampler_exponent_emu(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z,
                                    int32_t z0)
{
    uint64_t d = sf64_sub(sf64_from_i64((int64_t)z), c->r);
    int32_t zz = (int32_t)((uint32_t)z0 * (uint32_t)z0);
    uint64_t x = sf64_sub(sf64_mul(sf64_mul(d, d), c->dss), sf64_mul(sf64_from_i64((int64_t)zz),
                                                                       FNDSA_FPU_INV_2SQRSIGMA0));
    int64_t k = fndsa_fpu_bits_to_i64(sf64_mul(x, FNDSA_FPU_INV_LOG2));
    uint64_t rem = sf64_sub(x, sf64_mul(sf64_from_i64(k), FNDSA_FPU_LOG2));
    e->k = k;
    e->rem_fx = fndsa_fpu_fixed63_of(sf64_mul(rem, FNDSA_FPU_TWO63));
}
