/*
 * keccak.f1600, keccak.interleave, keccak.deinterleave: Keccak-f[1600] for 32-bit Arm in the bit-interleaved
 * representation, so that every 64-bit lane rotation becomes two 32-bit rotations (or a swap and two rotations).
 *
 * Representation: uint32_t s[50]; lane i = x + 5*y occupies s[2i] (its even-numbered bits: bit k = lane bit 2k) and
 * s[2i+1] (its odd-numbered bits: bit k = lane bit 2k+1). Standard layout: uint64_t lanes[25], little-endian.
 * Bounds: none (every 1600-bit state is valid). Model: pqhelium_sim::keccak.
 */
#include <stdint.h>

#include "keccak.h"

/* Round constants, each split into (even bits, odd bits) of the standard 64-bit constant (shared with the MVE
 * kernels, keccak.h). */
const uint32_t keccak_round_constants_interleaved[24][2] = {
    {0x00000001u, 0x00000000u}, {0x00000000u, 0x00000089u}, {0x00000000u, 0x8000008bu}, {0x00000000u, 0x80008080u},
    {0x00000001u, 0x0000008bu}, {0x00000001u, 0x00008000u}, {0x00000001u, 0x80008088u}, {0x00000001u, 0x80000082u},
    {0x00000000u, 0x0000000bu}, {0x00000000u, 0x0000000au}, {0x00000001u, 0x00008082u}, {0x00000000u, 0x00008003u},
    {0x00000001u, 0x0000808bu}, {0x00000001u, 0x8000000bu}, {0x00000001u, 0x8000008au}, {0x00000001u, 0x80000081u},
    {0x00000000u, 0x80000081u}, {0x00000000u, 0x80000008u}, {0x00000000u, 0x00000083u}, {0x00000000u, 0x80008003u},
    {0x00000001u, 0x80008088u}, {0x00000000u, 0x80000088u}, {0x00000001u, 0x00008000u}, {0x00000000u, 0x80008082u},
};

/* rho offsets r[x + 5y] of the 64-bit lanes. */
static const uint8_t rho[25] = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static inline uint32_t rotl32(uint32_t x, unsigned k)
{
    k &= 31u;
    return k ? (x << k) | (x >> (32u - k)) : x;
}

/* Rotates the interleaved lane (e, o) left by r as a 64-bit lane. */
static inline void rotl_lane(uint32_t *e, uint32_t *o, unsigned r)
{
    uint32_t even = *e, odd = *o;
    if (r & 1u) { /* odd rotation: bits change parity */
        *e = rotl32(odd, r / 2u + 1u);
        *o = rotl32(even, r / 2u);
    } else {
        *e = rotl32(even, r / 2u);
        *o = rotl32(odd, r / 2u);
    }
}

void keccak_f1600_interleaved(uint32_t s[50])
{
    uint32_t b[50];
    for (unsigned round = 0; round < 24u; round++) {
        /* theta */
        uint32_t c[10], d[10];
        for (unsigned x = 0; x < 5u; x++) {
            c[2 * x] = s[2 * x] ^ s[2 * (x + 5)] ^ s[2 * (x + 10)] ^ s[2 * (x + 15)] ^ s[2 * (x + 20)];
            c[2 * x + 1] = s[2 * x + 1] ^ s[2 * (x + 5) + 1] ^ s[2 * (x + 10) + 1] ^ s[2 * (x + 15) + 1] ^
                           s[2 * (x + 20) + 1];
        }
        for (unsigned x = 0; x < 5u; x++) {
            unsigned prev = (x + 4u) % 5u, next = (x + 1u) % 5u;
            /* D[x] = C[x-1] ^ rotl64(C[x+1], 1) */
            d[2 * x] = c[2 * prev] ^ rotl32(c[2 * next + 1], 1);
            d[2 * x + 1] = c[2 * prev + 1] ^ c[2 * next];
        }
        for (unsigned i = 0; i < 25u; i++) {
            s[2 * i] ^= d[2 * (i % 5u)];
            s[2 * i + 1] ^= d[2 * (i % 5u) + 1];
        }
        /* rho and pi: B[y, 2x+3y] = rotl(A[x, y], rho[x, y]) */
        for (unsigned y = 0; y < 5u; y++) {
            for (unsigned x = 0; x < 5u; x++) {
                unsigned from = x + 5u * y, to = y + 5u * ((2u * x + 3u * y) % 5u);
                uint32_t e = s[2 * from], o = s[2 * from + 1];
                rotl_lane(&e, &o, rho[from]);
                b[2 * to] = e;
                b[2 * to + 1] = o;
            }
        }
        /* chi */
        for (unsigned y = 0; y < 5u; y++) {
            for (unsigned x = 0; x < 5u; x++) {
                unsigned i = x + 5u * y, i1 = (x + 1u) % 5u + 5u * y, i2 = (x + 2u) % 5u + 5u * y;
                s[2 * i] = b[2 * i] ^ (~b[2 * i1] & b[2 * i2]);
                s[2 * i + 1] = b[2 * i + 1] ^ (~b[2 * i1 + 1] & b[2 * i2 + 1]);
            }
        }
        /* iota */
        s[0] ^= keccak_round_constants_interleaved[round][0];
        s[1] ^= keccak_round_constants_interleaved[round][1];
    }
}

/* Gathers the even-numbered bits of x into its low half. */
static inline uint32_t compress_even(uint32_t x)
{
    x &= 0x55555555u;
    x = (x | (x >> 1)) & 0x33333333u;
    x = (x | (x >> 2)) & 0x0F0F0F0Fu;
    x = (x | (x >> 4)) & 0x00FF00FFu;
    x = (x | (x >> 8)) & 0x0000FFFFu;
    return x;
}

/* Spreads the low half of x onto the even-numbered bits (inverse of compress_even). */
static inline uint32_t spread_even(uint32_t x)
{
    x &= 0x0000FFFFu;
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    x = (x | (x << 1)) & 0x55555555u;
    return x;
}

void keccak_interleave(uint32_t out[50], const uint32_t lanes[50])
{
    for (unsigned i = 0; i < 25u; i++) {
        uint32_t lo = lanes[2 * i], hi = lanes[2 * i + 1];
        out[2 * i] = compress_even(lo) | (compress_even(hi) << 16);
        out[2 * i + 1] = compress_even(lo >> 1) | (compress_even(hi >> 1) << 16);
    }
}

void keccak_deinterleave(uint32_t lanes[50], const uint32_t in[50])
{
    for (unsigned i = 0; i < 25u; i++) {
        uint32_t even = in[2 * i], odd = in[2 * i + 1];
        lanes[2 * i] = spread_even(even) | (spread_even(odd) << 1);
        lanes[2 * i + 1] = spread_even(even >> 16) | (spread_even(odd >> 16) << 1);
    }
}
