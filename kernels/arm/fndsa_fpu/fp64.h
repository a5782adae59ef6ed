/*
 * fp64.h: the binary64 arithmetic under the FN-DSA signing kernels, chosen once per build.
 *
 * The kernels (fft.c, ldl.c, poly.c, sampler_fp.c) are written once, against this layer, and compiled twice:
 *   - as they are: `fp64` is a double and each operation one FP64 instruction (VADD/VSUB/VMUL/VDIV/VSQRT.F64, ...);
 *   - by their `*_emu.c` twins, which define PQH_FP64_EMU first: `fp64` is a double's bit pattern (uint64_t) and each
 *     operation a call into our soft-float (softfloat.c), integer arithmetic.
 * Both builds therefore perform the same IEEE operations, on the same operands, in the same order, by construction.
 * Every operation is a function here, so an expression cannot be regrouped between them, and -ffp-contract=off
 * keeps the native build from fusing a multiplication into an addition.
 *
 * FP64_KERNEL(name) is a kernel's exported symbol: `name` natively, `name_emu` on the soft-float. Its prototype is
 * the one declared in fndsa_fpu.h or fndsa_sign_kernels.h, where `fp64` reads `double` or `uint64_t`.
 *
 * Conversions between doubles and 64-bit integers have no FP64 instruction on the Cortex-M (VCVT is 32-bit only):
 * the truncation is an exact bit manipulation shared by both builds (fp64_trunc_to_i64), with Rust's `as`
 * semantics (toward zero, saturating, NaN to 0) so that the kernels agree with the Rust reference on every input.
 */
#ifndef PQH_FP64_H
#define PQH_FP64_H

#include <stddef.h>
#include <stdint.h>

#include "ct64.h"
#include "fndsa_fpu.h"
#include "fndsa_sign_kernels.h"

/* All ones if b (0 or 1) is 1, else zero. The bits below go through ct64_opaque: both compilers otherwise turn
 * them back into comparisons and IT blocks (ct64.h). */
static inline uint64_t fp64_mask(uint64_t b)
{
    return ct64_mask((uint32_t)b);
}

/* 1 if x != 0, else 0, without a comparison. */
static inline uint64_t fp64_nonzero(uint64_t x)
{
    return ct64_opaque((uint32_t)((x | ((uint64_t)0 - x)) >> 63));
}

/* 1 if a < b (unsigned), else 0: the borrow of a - b. Operands and difference opaque: the compilers would compute
 * the high word of a difference of small values by a comparison, or see the borrow idiom as one. */
static inline uint64_t fp64_below(uint64_t a, uint64_t b)
{
    a = ct64_opaque64(a);
    b = ct64_opaque64(b);
    uint64_t diff = ct64_opaque64(a - b);
    return ct64_opaque((uint32_t)(((~a & b) | (~(a ^ b) & diff)) >> 63));
}

/* Rust's `x as i64` on a double's bit pattern: toward zero, saturating at the int64 range, NaN to 0. Exact, with
 * masks instead of branches (no data-dependent branch, like softfloat.c). */
static inline int64_t fp64_bits_to_i64(uint64_t u)
{
    uint64_t e = (u >> 52) & 0x7FFu;
    uint64_t frac = u & 0x000FFFFFFFFFFFFFull;
    uint64_t m = frac | 0x0010000000000000ull;
    /* |x| = m * 2^(e - 1075): a right shift by 1075 - e below 2^53, a left shift by e - 1075 up to 2^63 */
    uint64_t r = 1075u - e; /* wraps (huge) when e > 1075 */
    uint64_t l = e - 1075u; /* wraps (huge) when e < 1075 */
    uint64_t mag = (ct64_shr(m, (uint32_t)r & 63u) & fp64_mask(fp64_below(r, 64u))) |
                   (ct64_shl(m, (uint32_t)l & 63u) & fp64_mask(fp64_below(l - 1u, 10u))); /* 1 <= l <= 10 */
    uint64_t big = fp64_below(1085u, e);                                   /* |x| >= 2^63 */
    uint64_t neg = u >> 63;
    uint64_t val = (mag ^ fp64_mask(neg)) + neg;
    uint64_t sat = 0x7FFFFFFFFFFFFFFFull + neg; /* INT64_MAX or INT64_MIN */
    uint64_t res = (val & ~fp64_mask(big)) | (sat & fp64_mask(big));
    uint64_t nan = fp64_below(2046u, e) & fp64_nonzero(frac);
    return (int64_t)(res & ~fp64_mask(nan));
}

#ifdef PQH_FP64_EMU

#include "softfloat.h"

typedef uint64_t fp64;
#define FP64_KERNEL(name) name##_emu

static inline fp64 fp64_of_bits(uint64_t x)
{
    return x;
}

static inline uint64_t fp64_bits(fp64 x)
{
    return x;
}

static inline fp64 fp64_add(fp64 a, fp64 b)
{
    return sf64_add(a, b);
}

static inline fp64 fp64_sub(fp64 a, fp64 b)
{
    return sf64_sub(a, b);
}

static inline fp64 fp64_mul(fp64 a, fp64 b)
{
    return sf64_mul(a, b);
}

static inline fp64 fp64_div(fp64 a, fp64 b)
{
    return sf64_div(a, b);
}

static inline fp64 fp64_neg(fp64 a)
{
    return sf64_neg(a);
}

static inline fp64 fp64_sqrt(fp64 a)
{
    return sf64_sqrt(a);
}

/* Round to nearest, ties to even. */
static inline fp64 fp64_rint(fp64 a)
{
    return sf64_rint(a);
}

static inline fp64 fp64_of_i32(int32_t x)
{
    return sf64_from_i64((int64_t)x);
}

static inline fp64 fp64_of_i64(int64_t x)
{
    return sf64_from_i64(x);
}

/* 1 if a < b, else 0, for a and b not NaN (-0 and +0 compare equal): VCMP on the bit patterns. */
static inline uint64_t fp64_lt(fp64 a, fp64 b)
{
    uint64_t sign = (uint64_t)1 << 63;
    /* order-preserving keys: negative values complemented, positive ones with the sign bit set */
    uint64_t ka = a ^ (fp64_mask(a >> 63) | sign);
    uint64_t kb = b ^ (fp64_mask(b >> 63) | sign);
    uint64_t both_zero = fp64_nonzero((a | b) << 1) ^ 1u;
    return fp64_below(ka, kb) & (both_zero ^ 1u);
}

/* Past this point no floating-point type may appear: the soft-float kernels compute on bit patterns only. */
#pragma GCC poison double float

#else /* native FP64 */

typedef double fp64;
#define FP64_KERNEL(name) name

/* A double and its bit pattern, for the exact conversions between them. */
union fp64_pun {
    double d;
    uint64_t u;
};

static inline fp64 fp64_of_bits(uint64_t x)
{
    return (union fp64_pun){.u = x}.d;
}

static inline uint64_t fp64_bits(fp64 x)
{
    return (union fp64_pun){.d = x}.u;
}

static inline fp64 fp64_add(fp64 a, fp64 b)
{
    return a + b;
}

static inline fp64 fp64_sub(fp64 a, fp64 b)
{
    return a - b;
}

static inline fp64 fp64_mul(fp64 a, fp64 b)
{
    return a * b;
}

static inline fp64 fp64_div(fp64 a, fp64 b)
{
    return a / b;
}

static inline fp64 fp64_neg(fp64 a)
{
    return -a;
}

/* VSQRT.F64 itself: sqrt() keeps a call into the C library for errno on negative operands, and the image has none. */
static inline fp64 fp64_sqrt(fp64 a)
{
    double r;
    __asm__("vsqrt.f64 %P0, %P1" : "=w"(r) : "w"(a));
    return r;
}

/* Round to nearest, ties to even, whatever the FPSCR rounding mode (VRINTN.F64). */
static inline fp64 fp64_rint(fp64 a)
{
    double r;
    __asm__("vrintn.f64 %P0, %P1" : "=w"(r) : "w"(a));
    return r;
}

/* VCVT.F64.S32: exact. */
static inline fp64 fp64_of_i32(int32_t x)
{
    return (double)x;
}

/* Rust's `x as f64` (roundTiesToEven): hi * 2^32 and lo are exact, so the one addition rounds the exact sum once. */
static inline fp64 fp64_of_i64(int64_t x)
{
    int32_t hi = (int32_t)(x >> 32);
    uint32_t lo = (uint32_t)x;
    return (double)hi * 4294967296.0 + (double)lo;
}

/* 1 if a < b, else 0 (0 when unordered, as in C): VCMP.F64 sets FPSCR.N exactly when a < b, read as a bit (in C,
 * both compilers make `a < b` an IT block on the flags). */
static inline uint64_t fp64_lt(fp64 a, fp64 b)
{
    uint32_t fpscr;
    __asm__("vcmp.f64 %P1, %P2\n\tvmrs %0, fpscr" : "=r"(fpscr) : "w"(a), "w"(b));
    return fpscr >> 31;
}

#endif

/* Rust's `x as i64`: toward zero, saturating, NaN to 0. */
static inline int64_t fp64_trunc_to_i64(fp64 x)
{
    return fp64_bits_to_i64(fp64_bits(x));
}

/* Twiddle i of fndsa_fpu_gm. */
static inline fp64 fp64_twiddle(size_t i)
{
    return fp64_of_bits(fndsa_fpu_gm[i]);
}

#endif
