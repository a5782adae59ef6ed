/*
 * A deliberately wrong mlkem.compress.du10.scalar: the rounding offset one too large ((q + 1) / 2 instead of
 * (q - 1) / 2), so the one x in 0..q-1 with 1024 x + (q + 1) / 2 a multiple of q, just below a rounding boundary of
 * Compress_10, rounds up. Same prototype, so a campaign of that contract with this symbol must report mismatches;
 * the contract's edge cases hold every value just below a boundary.
 */
#include <stdint.h>

#include "../mlkem_ntt/mlkem_poly.h"

static uint32_t compress10_rounding_up(int16_t x)
{
    int32_t t = ((int32_t)x * MLKEM_BARRETT26) >> 16;
    t = (t + 512) >> 10;
    int16_t r = (int16_t)(x - t * MLKEM_Q);
    r = (int16_t)(r + ((r >> 15) & MLKEM_Q));
    uint32_t v = ((uint32_t)r << 10) + MLKEM_COMPRESS_HALF + 1;
    return (uint32_t)(((uint64_t)v * MLKEM_COMPRESS_M32) >> 32) & 0x3FF;
}

void pqh_selftest_mlkem_compress_du10_round_up(uint8_t out[320], const int16_t p[256])
{
    for (unsigned i = 0; i < 64; i++) {
        uint32_t c0 = compress10_rounding_up(p[4 * i]), c1 = compress10_rounding_up(p[4 * i + 1]);
        uint32_t c2 = compress10_rounding_up(p[4 * i + 2]), c3 = compress10_rounding_up(p[4 * i + 3]);
        uint8_t *o = out + 5 * i;
        o[0] = (uint8_t)c0;
        o[1] = (uint8_t)((c0 >> 8) | (c1 << 2));
        o[2] = (uint8_t)((c1 >> 6) | (c2 << 4));
        o[3] = (uint8_t)((c2 >> 4) | (c3 << 6));
        o[4] = (uint8_t)(c3 >> 2);
    }
}
