/*
 * A deliberately wrong x25519.fe.mul: the reduction folds the carry of t[0..8] + 38 t[8..16] once (r + 38 c) and
 * leaves out the second fold, the 38 owed when r + 38 c itself passes 2^256. That happens only when limbs 1..7 of
 * r are all ones and limb 0 is within 38 c of the top: the reduction's extreme. Random operands (even with long
 * runs of all-ones limbs) almost never reach it; the edge pairs near 2^256 and the contract's corner pairs
 * (pqhelium_sim::corner_search::x25519_fold_corners, the wrapped value at both ends of [0, 38 c)) do. Otherwise
 * fe.c's multiplication, limb for limb.
 */
#include <stdint.h>

#include "../x25519/fe.h"

#define N X25519_FE_LIMBS

void pqh_selftest_x25519_fe_mul_second_fold_dropped(uint32_t r[N], const uint32_t a[N], const uint32_t b[N])
{
    uint32_t t[2 * N];
    x25519_fe_product(t, a, b);
    uint32_t c = 0;
    for (int i = 0; i < N; i++) {
        const uint64_t s = (uint64_t)t[N + i] * 38u + t[i] + c;
        r[i] = (uint32_t)s;
        c = (uint32_t)(s >> 32);
    }
    uint64_t s = (uint64_t)r[0] + (uint64_t)38u * c;
    r[0] = (uint32_t)s;
    for (int i = 1; i < N; i++) {
        s = (uint64_t)r[i] + (uint32_t)(s >> 32);
        r[i] = (uint32_t)s;
    }
}
