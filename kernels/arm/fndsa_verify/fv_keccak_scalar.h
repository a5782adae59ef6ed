/* Keccak-f[1600] for the FN-DSA verification builds, on the standard state layout (25 little-endian 64-bit lanes as
 * 50 words): the bit-interleaved kernel of keccak_f1600.c between an interleave and a deinterleave. The four-state
 * form permutes the states in mask one after the other (the portable fallback of a four-way permutation). */
#ifndef PQH_FV_KECCAK_SCALAR_H
#define PQH_FV_KECCAK_SCALAR_H

#include <stdint.h>

#include "keccak.h"

static void fv_keccak_permute(uint32_t lanes[50])
{
    uint32_t interleaved[50];
    keccak_interleave(interleaved, lanes);
    keccak_f1600_interleaved(interleaved);
    keccak_deinterleave(lanes, interleaved);
}

static void fv_keccak_permute_x4(uint32_t (*states)[50], unsigned mask)
{
    for (unsigned i = 0; i < 4u; i++) {
        if (mask >> i & 1u) {
            fv_keccak_permute(states[i]);
        }
    }
}

#endif
