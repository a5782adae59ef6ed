/*
 * keccak.interleave.mve, keccak.deinterleave.mve, keccak.f1600x4.mve: the bit-interleaved Keccak of keccak_f1600.c
 * on MVE (Helium), 32-bit lanes. Model: pqhelium_sim::keccak_x4.
 *
 * Interleaving: the same representations and maps as keccak_interleave / keccak_deinterleave (keccak_f1600.c): lane
 * i = x + 5y of the standard state is words 2i (low) and 2i+1 (high) of `lanes`, and words 2i (its even-numbered
 * bits) and 2i+1 (its odd-numbered bits) of the interleaved state. VLD2 puts the low words of four lanes in one
 * register and their high words in another; four delta swaps per register gather each word's even bits into its low
 * half and its odd bits into its high half, and one shift-insert per output word joins the halves (VSLI, VSRI).
 * Deinterleaving runs the same steps backwards. 25 lanes: six groups of four, then the last lane alone through a
 * zero-padded group in a local buffer, so that `out` may be `in`. Bounds: none.
 *
 * Four permutations: s[200] holds four interleaved states in the x4 layout (keccak.h, KECCAK_X4_WORD): vector w =
 * s[4w .. 4w+4) is word w of the four states, state j in lane j. Every step is lane-wise, so the four states never
 * mix. Per round: theta's column parities C and D (10 vectors each), then for each output row and each half (even
 * or odd words) rho, pi and chi together: the five B words of the row half are loaded from their source lanes,
 * xored with D and rotated (VSHL + VSRI; an odd rotation takes the other half of the source, see rotl_lane in
 * keccak_f1600.c), and chi writes the row half to the other buffer; iota on lane 0. The rounds alternate between
 * `s` and a local buffer, 24 rounds ending in `s`. Bounds: none (every state is valid).
 */
#include <arm_mve.h>
#include <stdint.h>

#include "keccak.h"

#define LANES_PER_GROUP 4u

/* Shift counts are immediates: the helpers are macros, so that they are constant expressions (ACLE), not the
 * parameters of inline functions. */

/* Swaps the bits of every lane of x selected by mask with the bits `shift` places above (x ^ t ^ (t << shift)). */
#define DELTA_SWAP(x, mask, shift)                                                                    \
    do {                                                                                              \
        uint32x4_t t_ = vandq_u32(veorq_u32(vshrq_n_u32((x), (shift)), (x)), vdupq_n_u32(mask));     \
        (x) = veorq_u32(veorq_u32((x), t_), vshlq_n_u32(t_, (shift)));                                \
    } while (0)

/* Even bits of every lane to its low half, odd bits to its high half, in order (one level per swap). */
#define UNZIP(x)                             \
    do {                                     \
        DELTA_SWAP(x, 0x22222222u, 1);       \
        DELTA_SWAP(x, 0x0C0C0C0Cu, 2);       \
        DELTA_SWAP(x, 0x00F000F0u, 4);       \
        DELTA_SWAP(x, 0x0000FF00u, 8);       \
    } while (0)

/* The inverse of UNZIP: the same swaps (each its own inverse) in reverse order. */
#define ZIP(x)                               \
    do {                                     \
        DELTA_SWAP(x, 0x0000FF00u, 8);       \
        DELTA_SWAP(x, 0x00F000F0u, 4);       \
        DELTA_SWAP(x, 0x0C0C0C0Cu, 2);       \
        DELTA_SWAP(x, 0x22222222u, 1);       \
    } while (0)

/* Four lanes: words (low, high) of each at in[0..8) -> (even, odd) words at out[0..8). */
static inline void interleave_group(uint32_t *out, const uint32_t *in)
{
    uint32x4x2_t v = vld2q_u32(in);
    uint32x4_t lo = v.val[0], hi = v.val[1];
    UNZIP(lo);
    UNZIP(hi);
    /* even = low half of lo | low half of hi << 16; odd = high half of lo >> 16 | high half of hi */
    uint32x4x2_t r = {{vsliq_n_u32(lo, hi, 16), vsriq_n_u32(hi, lo, 16)}};
    vst2q_u32(out, r);
}

/* Four lanes: (even, odd) words at in[0..8) -> (low, high) words at out[0..8). */
static inline void deinterleave_group(uint32_t *out, const uint32_t *in)
{
    uint32x4x2_t v = vld2q_u32(in);
    uint32x4_t even = v.val[0], odd = v.val[1];
    uint32x4_t lo = vsliq_n_u32(even, odd, 16), hi = vsriq_n_u32(odd, even, 16);
    ZIP(lo);
    ZIP(hi);
    uint32x4x2_t r = {{lo, hi}};
    vst2q_u32(out, r);
}

/* The 25th lane (words 48, 49) through a zero-padded group. */
#define LAST_LANE_WORD 48u

void keccak_interleave_mve(uint32_t out[50], const uint32_t lanes[50])
{
    for (unsigned w = 0; w < LAST_LANE_WORD; w += 2u * LANES_PER_GROUP) {
        interleave_group(out + w, lanes + w);
    }
    uint32_t tail[2u * LANES_PER_GROUP] = {lanes[LAST_LANE_WORD], lanes[LAST_LANE_WORD + 1u]};
    interleave_group(tail, tail);
    out[LAST_LANE_WORD] = tail[0];
    out[LAST_LANE_WORD + 1u] = tail[1];
}

void keccak_deinterleave_mve(uint32_t lanes[50], const uint32_t in[50])
{
    for (unsigned w = 0; w < LAST_LANE_WORD; w += 2u * LANES_PER_GROUP) {
        deinterleave_group(lanes + w, in + w);
    }
    uint32_t tail[2u * LANES_PER_GROUP] = {in[LAST_LANE_WORD], in[LAST_LANE_WORD + 1u]};
    deinterleave_group(tail, tail);
    lanes[LAST_LANE_WORD] = tail[0];
    lanes[LAST_LANE_WORD + 1u] = tail[1];
}

/* Vector w of an x4 state (word w of the four states). */
#define VEC(st, w) ((st) + KECCAK_X4_WORD(w, 0))

/* Every lane of x rotated left by k (0..31, a constant); x is evaluated more than once. */
#define ROTL(x, k) ((k) == 0 ? (x) : vsriq_n_u32(vshlq_n_u32((x), (k)), (x), 32 - (k)))

/* Half h (0 even, 1 odd) of lane `from` after theta (xor D of its column) and rho (rotation r of the 64-bit lane):
 * an even r keeps the halves and turns each by r/2; an odd r moves bits across halves, so the even half comes from
 * the odd half turned by r/2 + 1 and the odd half from the even half turned by r/2. Declares `var`. */
#define SRC_HALF(r, h) (((r) & 1) ? 1 - (h) : (h))
#define ROT_HALF(r, h) (((r) & 1) && (h) == 0 ? (r) / 2 + 1 : (r) / 2)
#define THETA_RHO(var, from, r, h)                                                                          \
    uint32x4_t var =                                                                                        \
        veorq_u32(vld1q_u32(VEC(in, 2 * (from) + SRC_HALF(r, h))), d[2 * ((from) % 5) + SRC_HALF(r, h)]); \
    var = ROTL(var, ROT_HALF(r, h))

/* Half h of output row y: B[x, y] = rotl(A[x + 3y mod 5, x], rho) for x = 0..4 (pi), given as (source lane, rho),
 * then chi along the row, and iota on lane 0. */
#define ROW_HALF(y, h, f0, r0, f1, r1, f2, r2, f3, r3, f4, r4)                                       \
    do {                                                                                         \
        THETA_RHO(b0, f0, r0, h);                                                                \
        THETA_RHO(b1, f1, r1, h);                                                                \
        THETA_RHO(b2, f2, r2, h);                                                                \
        THETA_RHO(b3, f3, r3, h);                                                                \
        THETA_RHO(b4, f4, r4, h);                                                                \
        uint32x4_t lane0 = veorq_u32(b0, vbicq_u32(b2, b1));                                     \
        if ((y) == 0) {                                                                          \
            lane0 = veorq_u32(lane0, vdupq_n_u32(keccak_round_constants_interleaved[round][h])); \
        }                                                                                        \
        vst1q_u32(VEC(out, 2 * (5 * (y) + 0) + (h)), lane0);                                     \
        vst1q_u32(VEC(out, 2 * (5 * (y) + 1) + (h)), veorq_u32(b1, vbicq_u32(b3, b2)));          \
        vst1q_u32(VEC(out, 2 * (5 * (y) + 2) + (h)), veorq_u32(b2, vbicq_u32(b4, b3)));          \
        vst1q_u32(VEC(out, 2 * (5 * (y) + 3) + (h)), veorq_u32(b3, vbicq_u32(b0, b4)));          \
        vst1q_u32(VEC(out, 2 * (5 * (y) + 4) + (h)), veorq_u32(b4, vbicq_u32(b1, b0)));          \
    } while (0)

#define ROW(y, ...)                  \
    do {                             \
        ROW_HALF(y, 0, __VA_ARGS__); \
        ROW_HALF(y, 1, __VA_ARGS__); \
    } while (0)

/* One round from `in` to `out` (distinct buffers). */
static void round_x4(uint32_t *out, const uint32_t *in, unsigned round)
{
    uint32x4_t c[10], d[10];
#pragma GCC unroll 5
    for (unsigned x = 0; x < 5u; x++) {
#pragma GCC unroll 2
        for (unsigned h = 0; h < 2u; h++) {
            uint32x4_t parity = vld1q_u32(VEC(in, 2 * x + h));
#pragma GCC unroll 4
            for (unsigned y = 1; y < 5u; y++) {
                parity = veorq_u32(parity, vld1q_u32(VEC(in, 2 * (x + 5 * y) + h)));
            }
            c[2 * x + h] = parity;
        }
    }
#pragma GCC unroll 5
    for (unsigned x = 0; x < 5u; x++) {
        unsigned prev = (x + 4u) % 5u, next = (x + 1u) % 5u;
        /* D[x] = C[x-1] ^ rotl64(C[x+1], 1): the odd rotation swaps halves */
        d[2 * x] = veorq_u32(c[2 * prev], ROTL(c[2 * next + 1], 1));
        d[2 * x + 1] = veorq_u32(c[2 * prev + 1], c[2 * next]);
    }
    ROW(0, 0, 0, 6, 44, 12, 43, 18, 21, 24, 14);
    ROW(1, 3, 28, 9, 20, 10, 3, 16, 45, 22, 61);
    ROW(2, 1, 1, 7, 6, 13, 25, 19, 8, 20, 18);
    ROW(3, 4, 27, 5, 36, 11, 10, 17, 15, 23, 56);
    ROW(4, 2, 62, 8, 55, 14, 39, 15, 41, 21, 2);
}

#define ROUNDS 24u

void keccak_f1600x4_interleaved(uint32_t s[200])
{
    uint32_t t[200];
    for (unsigned round = 0; round < ROUNDS; round += 2u) {
        round_x4(t, s, round);
        round_x4(s, t, round + 1u);
    }
}
