/*
 * A deliberately wrong keccak.f1600x4.mve: the four states of the x4 layout permuted one by one by the scalar kernel,
 * with states 1 and 2 written back into each other's lanes. It has keccak_f1600x4_interleaved's prototype, so a
 * campaign of that contract with this symbol must report mismatches on every case whose lanes 1 and 2 differ.
 */
#include <stdint.h>

#include "../keccak/keccak.h"

#define STATES 4u
#define STATE_WORDS 50u

void pqh_selftest_keccak_f1600x4_lanes_swapped(uint32_t s[200]);

void pqh_selftest_keccak_f1600x4_lanes_swapped(uint32_t s[200])
{
    static const unsigned written_to[STATES] = {0u, 2u, 1u, 3u};
    uint32_t states[STATES][STATE_WORDS];
    for (unsigned j = 0; j < STATES; j++) {
        for (unsigned w = 0; w < STATE_WORDS; w++) {
            states[j][w] = s[KECCAK_X4_WORD(w, j)];
        }
        keccak_f1600_interleaved(states[j]);
    }
    for (unsigned j = 0; j < STATES; j++) {
        for (unsigned w = 0; w < STATE_WORDS; w++) {
            s[KECCAK_X4_WORD(w, written_to[j])] = states[j][w];
        }
    }
}
