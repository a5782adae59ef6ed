#ifndef PQH_KECCAK_H
#define PQH_KECCAK_H
#include <stdint.h>

/* Iota round constants split into (even bits, odd bits), for the interleaved representation (keccak_f1600.c). */
extern const uint32_t keccak_round_constants_interleaved[24][2];

/* Gathers the even-numbered bits of x into its low half. */
static inline uint32_t keccak_compress_even(uint32_t x)
{
    x &= 0x55555555u;
    x = (x | (x >> 1)) & 0x33333333u;
    x = (x | (x >> 2)) & 0x0F0F0F0Fu;
    x = (x | (x >> 4)) & 0x00FF00FFu;
    x = (x | (x >> 8)) & 0x0000FFFFu;
    return x;
}

/* Spreads the low half of x onto the even-numbered bits (inverse of keccak_compress_even). */
static inline uint32_t keccak_spread_even(uint32_t x)
{
    x &= 0x0000FFFFu;
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    x = (x | (x << 1)) & 0x55555555u;
    return x;
}

/* One lane from its little-endian words (lo, hi) to the interleaved words (even bits, odd bits), and back. */
static inline void keccak_interleave_lane(uint32_t out[2], uint32_t lo, uint32_t hi)
{
    out[0] = keccak_compress_even(lo) | (keccak_compress_even(hi) << 16);
    out[1] = keccak_compress_even(lo >> 1) | (keccak_compress_even(hi >> 1) << 16);
}

static inline void keccak_deinterleave_lane(uint32_t lanes[2], uint32_t even, uint32_t odd)
{
    lanes[0] = keccak_spread_even(even) | (keccak_spread_even(odd) << 1);
    lanes[1] = keccak_spread_even(even >> 16) | (keccak_spread_even(odd >> 16) << 1);
}

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
