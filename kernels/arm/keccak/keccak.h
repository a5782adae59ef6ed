#ifndef PQH_KECCAK_H
#define PQH_KECCAK_H
#include <stdint.h>

/* keccak.f1600: in place on the interleaved state (see keccak_f1600.c). */
void keccak_f1600_interleaved(uint32_t s[50]);
/* keccak.interleave: 25 little-endian 64-bit lanes (as 50 words, low word first) -> interleaved state. */
void keccak_interleave(uint32_t out[50], const uint32_t lanes[50]);
/* keccak.deinterleave: interleaved state -> 25 little-endian 64-bit lanes. */
void keccak_deinterleave(uint32_t lanes[50], const uint32_t in[50]);
#endif
