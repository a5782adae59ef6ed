/*
 * A deliberately wrong fndsa.emu.f64.mul (batch of SF64_BATCH products): the soft-float's product, rounded by a
 * round_pack that drops the carry out of the significand. When rounding up turns 53 ones into 2^53, the exponent is
 * not raised and the result is half the right one (and a product rounded past the largest double is 2^1023, not
 * infinity). Only a product whose kept bits are all ones and which rounds up goes wrong: random operands almost never
 * give one; the contract's corner cases (products solved to be ties and carries, `pqhelium_sim::rounding::corners`)
 * do. Plain C for the test bench, not constant time.
 */
#include <stdint.h>

#include "../fndsa_fpu/softfloat.h"

#define FRAC_MASK 0x000FFFFFFFFFFFFFull
#define HIDDEN_BIT 0x0010000000000000ull
#define INF_BITS 0x7FF0000000000000ull

static uint64_t significand(uint64_t x)
{
    return ((x >> 52) & 0x7FFu) ? (x & FRAC_MASK) | HIDDEN_BIT : 0;
}

/* (-1)^s (m / 2^63) 2^(e - 1023), m with bit 63 set or 0, rounded to nearest, ties to even; the carry is lost. */
static uint64_t round_pack_carry_lost(uint32_t s, int32_t e, uint64_t m)
{
    uint64_t mant = m >> 11;
    uint32_t low = (uint32_t)m & 0x7FFu;
    if (low > 0x400u || (low == 0x400u && (mant & 1u))) {
        mant += 1u;
    }
    uint64_t bits;
    if (m == 0 || e < 1) {
        bits = 0;
    } else if (e > 2046) {
        bits = INF_BITS;
    } else {
        bits = ((uint64_t)(uint32_t)e << 52) | (mant & FRAC_MASK); /* the carry into bit 53 is dropped */
    }
    return bits | ((uint64_t)s << 63);
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    uint64_t ma = significand(a), mb = significand(b);
    uint32_t a0 = (uint32_t)ma, a1 = (uint32_t)(ma >> 32), b0 = (uint32_t)mb, b1 = (uint32_t)(mb >> 32);
    uint64_t p00 = (uint64_t)a0 * b0;
    uint64_t mid = (uint64_t)a0 * b1 + (uint64_t)a1 * b0 + (p00 >> 32);
    uint64_t hi = (uint64_t)a1 * b1 + (mid >> 32);
    uint64_t lo = (mid << 32) | (uint32_t)p00;
    uint64_t top = (hi << 22) | (lo >> 42);
    uint32_t t = (uint32_t)(top >> 63);
    uint64_t m = t ? top : (top << 1) | ((lo >> 41) & 1u);
    uint64_t rest = lo & (((1ull << 41) - 1u) | ((uint64_t)t << 41));
    m |= rest != 0;
    uint32_t s = (uint32_t)((a ^ b) >> 63);
    int32_t e = (int32_t)((a >> 52) & 0x7FFu) + (int32_t)((b >> 52) & 0x7FFu) - 1023 + (int32_t)t;
    return round_pack_carry_lost(s, e, m);
}

void pqh_selftest_fndsa_emu_f64_mul_carry_lost(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH],
                                                const uint64_t b[SF64_BATCH])
{
    for (unsigned i = 0; i < SF64_BATCH; i++) {
        r[i] = mul(a[i], b[i]);
    }
}
