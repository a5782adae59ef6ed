/*
 * ct64.h: 64-bit masks and shifts on a 32-bit core without IT blocks, for the soft-float (softfloat.c) and the exact
 * conversions of fp64.h, whose operands are secret.
 *
 * gcc and clang recognise mask idioms (`0 - bit`, a borrow bit, a clamp) and compile them back into a comparison and
 * an IT-predicated move; clang expands a 64-bit shift by a variable amount with IT blocks on the amount. A failed IT
 * condition takes different time on the Cortex-M85 (docs/constant-time.md). So a secret bit goes through an empty
 * asm (the compiler cannot know it is 0 or 1, and keeps the arithmetic), and a variable 64-bit shift is built from
 * 32-bit register shifts, which give 0 for any amount from 32 to 255 (the core reads the amount's low byte).
 */
#ifndef PQH_CT64_H
#define PQH_CT64_H

#include <stdint.h>

/* v, unknown to the optimiser. */
static inline uint32_t ct64_opaque(uint32_t v)
{
#if defined(__arm__)
    __asm__("" : "+r"(v));
#endif
    return v;
}

/* v, unknown to the optimiser, both halves. */
static inline uint64_t ct64_opaque64(uint64_t v)
{
    return ((uint64_t)ct64_opaque((uint32_t)(v >> 32)) << 32) | ct64_opaque((uint32_t)v);
}

/* All ones if bit (0/1) is 1, else zero. */
static inline uint64_t ct64_mask(uint32_t bit)
{
    uint32_t m = ct64_opaque(0u - bit);
    return ((uint64_t)m << 32) | m;
}

/* x << n and x >> n as LSL/LSR by a register: 0 for n from 32 to 255; n's bits above the low byte are ignored. */
static inline uint32_t ct64_lsl32(uint32_t x, uint32_t n)
{
#if defined(__arm__)
    uint32_t r;
    __asm__("lsl %0, %1, %2" : "=r"(r) : "r"(x), "r"(n));
    return r;
#else /* host builds (quick checks only): not constant time */
    return (n & 0xFFu) < 32u ? x << (n & 0xFFu) : 0u;
#endif
}

static inline uint32_t ct64_lsr32(uint32_t x, uint32_t n)
{
#if defined(__arm__)
    uint32_t r;
    __asm__("lsr %0, %1, %2" : "=r"(r) : "r"(x), "r"(n));
    return r;
#else
    return (n & 0xFFu) < 32u ? x >> (n & 0xFFu) : 0u;
#endif
}

/* x << n for n < 64. Of the three terms of the high word, the ones whose amount leaves 0..31 are 0 (for n = 32 the
 * second and third are both the low word). */
static inline uint64_t ct64_shl(uint64_t x, uint32_t n)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    uint32_t rhi = ct64_lsl32(hi, n) | ct64_lsr32(lo, 32u - n) | ct64_lsl32(lo, n - 32u);
    return ((uint64_t)rhi << 32) | ct64_lsl32(lo, n);
}

/* x >> n for n < 64. */
static inline uint64_t ct64_shr(uint64_t x, uint32_t n)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    uint32_t rlo = ct64_lsr32(lo, n) | ct64_lsl32(hi, 32u - n) | ct64_lsr32(hi, n - 32u);
    return ((uint64_t)ct64_lsr32(hi, n) << 32) | rlo;
}

#endif
