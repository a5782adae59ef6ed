#ifndef PQH_KECCAK_H
#define PQH_KECCAK_H
#include <stdint.h>

/* Iota round constants split into (even bits, odd bits), for the interleaved representation (keccak_f1600.c). */
extern const uint32_t keccak_round_constants_interleaved[24][2];

/* keccak.f1600: in place on the interleaved state (see keccak_f1600.c). */
void keccak_f1600_interleaved(uint32_t s[50]);
/* keccak.interleave: 25 little-endian 64-bit lanes (as 50 words, low word first) -> interleaved state. */
void keccak_interleave(uint32_t out[50], const uint32_t lanes[50]);
/* keccak.deinterleave: interleaved state -> 25 little-endian 64-bit lanes. */
void keccak_deinterleave(uint32_t lanes[50], const uint32_t in[50]);

/* MVE (Cortex-M55/M85 image only), keccak_x4.mve.c. */

/* keccak.interleave.mve, keccak.deinterleave.mve: the same maps as keccak_interleave and keccak_deinterleave, four
 * lanes per step on MVE; out and in may be the same buffer. */
void keccak_interleave_mve(uint32_t out[50], const uint32_t lanes[50]);
void keccak_deinterleave_mve(uint32_t lanes[50], const uint32_t in[50]);

/* keccak.f1600x4.mve: four independent interleaved states, in place, in the x4 layout: word w (0..49, the index of
 * keccak_f1600_interleaved's layout) of state j (0..3) is s[KECCAK_X4_WORD(w, j)], so that vector w holds word w of
 * the four states, state j in lane j. */
#define KECCAK_X4_WORD(w, j) (4u * (w) + (j))
void keccak_f1600x4_interleaved(uint32_t s[200]);
#endif
