/* Keccak-f[1600] for the MVE build of FN-DSA verification, on the standard state layout (25 little-endian 64-bit
 * lanes as 50 words), each state interleaved and deinterleaved with the MVE maps. Two to four states: the four-way
 * MVE permutation of keccak_x4.mve.c, each state moved into and out of its lane of the x4 layout (states outside the
 * mask are left untouched; their lanes carry zeros). One state (a single request): the scalar permutation of
 * keccak_f1600.c, which costs fewer cycles than a whole four-way call on both cores. */
#ifndef PQH_FV_KECCAK_MVE_H
#define PQH_FV_KECCAK_MVE_H

#include <stdint.h>

#include "keccak.h"

static void fv_keccak_permute(uint32_t lanes[50])
{
    uint32_t interleaved[50];
    keccak_interleave_mve(interleaved, lanes);
    keccak_f1600_interleaved(interleaved);
    keccak_deinterleave_mve(lanes, interleaved);
}

static void fv_keccak_permute_x4(uint32_t (*states)[50], unsigned mask)
{
    if ((mask & (mask - 1u)) == 0) { /* at most one state */
        if (mask != 0) {
            fv_keccak_permute(states[__builtin_ctz(mask)]);
        }
        return;
    }
    uint32_t x4[4u * 50u];
    uint32_t interleaved[50];
    for (unsigned j = 0; j < 4u; j++) {
        const int live = mask >> j & 1u;
        if (live) {
            keccak_interleave_mve(interleaved, states[j]);
        }
        for (unsigned w = 0; w < 50u; w++) {
            x4[KECCAK_X4_WORD(w, j)] = live ? interleaved[w] : 0;
        }
    }
    keccak_f1600x4_interleaved(x4);
    for (unsigned j = 0; j < 4u; j++) {
        if (mask >> j & 1u) {
            for (unsigned w = 0; w < 50u; w++) {
                interleaved[w] = x4[KECCAK_X4_WORD(w, j)];
            }
            keccak_deinterleave_mve(states[j], interleaved);
        }
    }
}

#endif
