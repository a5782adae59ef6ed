/*
 * ct.fixture.select.vpt: the branch fixture's map (fixtures.c) with MVE: lanes whose word is odd take
 * in[i] * 0x9E3779B1, the others keep in[i] ^ 0x5A5A5A5A. The multiply runs in a VPT block whose lane predicate is
 * the secret bit (leaks it on purpose). Written as inline assembly: the predicated-multiply intrinsic crashes gcc 12.
 * MVE images only. Model: families/src/ct_fixture.rs (`model_word`).
 */
#include <arm_mve.h>

#include "fixtures.h"

void ct_fixture_select_vpt(uint32_t out[CT_FIXTURE_N], const uint32_t in[CT_FIXTURE_N])
{
    for (int i = 0; i < CT_FIXTURE_N; i += 4) {
        uint32x4_t x = vld1q_u32(in + i);
        uint32x4_t bit = vandq_u32(x, vdupq_n_u32(1));
        uint32x4_t r = veorq_u32(x, vdupq_n_u32(CT_FIXTURE_EVEN_PATTERN));
        uint32_t factor = CT_FIXTURE_ODD_FACTOR;
        __asm__("vpt.i32 ne, %q[bit], zr\n\t" /* the leak */
                "vmult.i32 %q[r], %q[x], %[factor]"
                : [r] "+w"(r)
                : [bit] "w"(bit), [x] "w"(x), [factor] "r"(factor));
        vst1q_u32(out + i, r);
    }
}
