/*
 * A deliberately wrong fndsa.fpu.sampler_exponent (native FP64): k = trunc(x / ln2) by a division instead of the
 * reference's x * (1/ln2). The two quotients differ by an ulp or so, so k differs only when x / ln2 lies within
 * about an ulp of an integer: the truncation's boundary. Random candidates almost never land there; the contract's
 * corner cases (pqhelium_sim::corner_search::sampler_exponent_corners) put it at an integer or one ulp beside one.
 */
#include <stdint.h>

#include "../fndsa_fpu/fp64.h"

void pqh_selftest_fndsa_fpu_sampler_exponent_divided(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c,
                                                      int32_t z, int32_t z0)
{
    fp64 d = fp64_sub(fp64_of_i32(z), fp64_of_bits(c->r));
    int32_t zz = (int32_t)((uint32_t)z0 * (uint32_t)z0);
    fp64 x = fp64_sub(fp64_mul(fp64_mul(d, d), fp64_of_bits(c->dss)),
                      fp64_mul(fp64_of_i32(zz), fp64_of_bits(FNDSA_FPU_INV_2SQRSIGMA0)));
    int64_t k = fp64_trunc_to_i64(fp64_div(x, fp64_of_bits(FNDSA_FPU_LOG2)));
    fp64 rem = fp64_sub(x, fp64_mul(fp64_of_i64(k), fp64_of_bits(FNDSA_FPU_LOG2)));
    e->k = k;
    e->rem_fx = (uint64_t)fp64_trunc_to_i64(fp64_mul(rem, fp64_of_bits(FNDSA_FPU_TWO63))) << 1;
}
