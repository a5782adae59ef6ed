/*
 * A deliberately wrong x25519.cswap.mve (M55/M85 images): its mask taken from bit 1 of swap instead of bit 0, so
 * that it never swaps; a campaign of x25519.cswap.mve with this symbol must report mismatches.
 */
#include <stdint.h>

#include "../x25519/fe.h"

void pqh_selftest_x25519_cswap_mve_wrong_bit(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap)
{
    x25519_cswap_mve(a, b, (swap >> 1) & 1);
}
