/* Keccak-f[1600] for the MVE build of FN-DSA verification, on the standard state layout (25 little-endian 64-bit
 * lanes as 50 words): the four-way MVE permutation of keccak_x4.mve.c, each state interleaved and deinterleaved
 * with the MVE maps and moved into and out of its lane of the x4 layout. One state (a single request) takes one
 * lane of the four-way permutation, which still costs fewer instructions than the scalar kernel; states outside
 * the mask are left untouched (their lanes carry zeros). */
#ifndef PQH_FV_KECCAK_MVE_H
#define PQH_FV_KECCAK_MVE_H

#include <stdint.h>

#include "keccak.h"

static void fv_keccak_permute_x4(uint32_t (*states)[50], unsigned mask)
{
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

static void fv_keccak_permute(uint32_t lanes[50])
{
    fv_keccak_permute_x4((uint32_t(*)[50])lanes, 1u);
}

#endif
