/* The 32.32 fixed-point division on the FPU and the vector loops around a division, shared by div.c (the kernels),
 * div_scalar.c (the baselines, with the bit-by-bit division) and a deliberately wrong self-test variant. Model:
 * pqhelium_sim::fxp_div, the same steps in the same order. Why the steps are exact: docs/keygen.md and div.c.
 *
 * Constant time: every step is straight-line integer or FP64 arithmetic on the operands; comparisons are borrow bits
 * computed with bit operations and selections are masks, so neither branches nor addresses depend on the operands.
 * The FP64 values are integers below 2^64 and their reciprocals, never zero, subnormal or infinite. */
#ifndef PQH_FNDSA_KEYGEN_FXR_DIV_H
#define PQH_FNDSA_KEYGEN_FXR_DIV_H

#include <stddef.h>
#include <stdint.h>

#define FXR_TWO32 4294967296.0
/* Subtracted from each digit estimate (whose error is below 2^-18) so that it never exceeds the exact digit. */
#define FXR_ESTIMATE_BIAS (1.0 / 256.0)

/* v < 2^64 to binary64 with one rounding: both 32-bit halves convert exactly (VCVT.F64.U32). */
static inline double fxr_u64_to_f64(uint64_t v)
{
    return (double)(uint32_t)(v >> 32) * FXR_TWO32 + (double)(uint32_t)v;
}

/* The bit v, hidden from the optimiser: gcc turns `(w >> 63) ^ 1` into a signed compare and an IT block, unless
 * the shifted bit is opaque to it (then it cannot know the value is 0 or 1). */
static inline uint64_t fxr_opaque_bit(uint32_t v)
{
    __asm__("" : "+r"(v));
    return v;
}

/* 1 when a < b: the borrow of a - b, from bit operations. */
static inline uint64_t fxr_borrow(uint64_t a, uint64_t b)
{
    uint64_t diff = a - b;
    return fxr_opaque_bit((uint32_t)(((~a & b) | (~(a ^ b) & diff)) >> 63));
}

/* A quotient digit from its estimate: trunc(estimate - bias), VCVT.U32.F64 (toward zero; (-1, 0) gives 0). */
static inline uint64_t fxr_digit(double estimate)
{
    return (uint32_t)(estimate - FXR_ESTIMATE_BIAS);
}

/* (r, q) <- (r - den, q + 1) when r >= den. */
static inline void fxr_correct(uint64_t *r, uint64_t *q, uint64_t den)
{
    uint64_t take = fxr_borrow(*r, den) ^ 1;
    *r -= den & (0 - take);
    *q += take;
}

/* round(t 2^32 / den), ties up, for den in [1, 2^63] and a quotient below 2^64: one reciprocal, a high digit
 * floor(t / den) and a low digit floor(r1 2^32 / den), each estimated one low at most and corrected once, then the
 * rounding bit [2 r0 >= den]. low_correction is 1 in the kernel (0 only in the self-test's wrong variant). */
static inline uint64_t fxr_rounded_quotient(uint64_t t, uint64_t den, int low_correction)
{
    double inv = 1.0 / fxr_u64_to_f64(den);
    double inv32 = inv * FXR_TWO32;

    uint64_t q1 = fxr_digit(fxr_u64_to_f64(t) * inv);
    uint64_t r1 = t - q1 * den;
    fxr_correct(&r1, &q1, den);

    uint64_t q0 = fxr_digit(fxr_u64_to_f64(r1) * inv32);
    uint64_t r0 = (r1 << 32) - q0 * den;
    if (low_correction) {
        fxr_correct(&r0, &q0, den);
    }

    uint64_t round_up = fxr_borrow(r0 << 1, den) ^ 1;
    return (q1 << 32) + q0 + round_up;
}

/* x / y with the bits of the bit-by-bit division for every pair. With ax = |x|, d = |y|: the normal class
 * (ax >> 32 < d) is round(ax 2^32 / d); the overflow class (ax >> 32 >= d, d = 0 included) is
 * -round((ax - d 2^32) 2^32 / (2^63 - d)); then the sign of x y. */
static inline uint64_t fxr_div_fpu(uint64_t x, uint64_t y, int low_correction)
{
    uint64_t sx = (uint64_t)((int64_t)x >> 63);
    uint64_t sy = (uint64_t)((int64_t)y >> 63);
    uint64_t ax = (x ^ sx) - sx;
    uint64_t ay = (y ^ sy) - sy;
    uint64_t overflow = fxr_borrow(ax >> 32, ay) ^ 1;
    uint64_t mask = 0 - overflow;
    uint64_t t = ax - ((ay << 32) & mask);
    uint64_t den = (ay & ~mask) | ((((uint64_t)1 << 63) - ay) & mask);
    uint64_t q = fxr_rounded_quotient(t, den, low_correction);
    uint64_t s = sx ^ sy ^ mask;
    return (q ^ s) - s;
}

/* floor(a^2 / 2^32) mod 2^64 (fxp::sqr) in 32-bit pieces: a = h 2^32 + l with h signed gives
 * a^2 / 2^32 = h^2 2^32 + 2 h l + l^2 / 2^32. */
static inline uint64_t fxr_sqr(uint64_t a)
{
    int32_t h = (int32_t)(uint32_t)(a >> 32);
    uint32_t l = (uint32_t)a;
    uint64_t hh = (uint64_t)((uint32_t)h * (uint32_t)h) << 32;
    uint64_t hl = (uint64_t)((int64_t)h * (int64_t)l);
    return hh + (hl << 1) + (((uint64_t)l * l) >> 32);
}

typedef uint64_t (*fxr_div_fn)(uint64_t x, uint64_t y);

static inline void fxr_div_batch(uint64_t *q, const uint64_t *x, const uint64_t *y, size_t count, fxr_div_fn div)
{
    for (size_t i = 0; i < count; i++) {
        q[i] = div(x[i], y[i]);
    }
}

static inline void fxr_div_selfadj(uint64_t *a, const uint64_t *b, uint32_t logn, fxr_div_fn div)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        a[i] = div(a[i], b[i]);
        a[i + hn] = div(a[i + hn], b[i]);
    }
}

static inline void fxr_invnorm(uint64_t *d, const uint64_t *a, const uint64_t *b, uint32_t logn, uint32_t e,
                               fxr_div_fn div)
{
    size_t hn = (size_t)1 << (logn - 1);
    uint64_t numerator = (uint64_t)(1u << e) << 32;
    for (size_t i = 0; i < hn; i++) {
        uint64_t norm = fxr_sqr(a[i]) + fxr_sqr(a[i + hn]) + fxr_sqr(b[i]) + fxr_sqr(b[i + hn]);
        d[i] = div(numerator, norm);
    }
}

static inline void fxr_inv_mul2e(uint64_t *a, uint32_t logn, uint32_t e, fxr_div_fn div)
{
    size_t hn = (size_t)1 << (logn - 1);
    for (size_t i = 0; i < hn; i++) {
        uint64_t re = a[i], im = a[i + hn];
        uint64_t norm = fxr_sqr(re) + fxr_sqr(im);
        a[i] = div(re << e, norm);
        a[i + hn] = div((0 - im) << e, norm);
    }
}

/* The four entry points of fndsa_keygen.h over the division `div`: fndsa_keygen_div<suffix>,
 * fndsa_keygen_div_selfadj<suffix>, fndsa_keygen_invnorm<suffix>, fndsa_keygen_inv_mul2e<suffix>. */
#define FXR_DIVISION_KERNELS(suffix, div)                                                                             \
    void fndsa_keygen_div##suffix(uint64_t *q, const uint64_t *x, const uint64_t *y)                                   \
    {                                                                                                                  \
        fxr_div_batch(q, x, y, FNDSA_KEYGEN_DIV_BATCH, div);                                                           \
    }                                                                                                                  \
    void fndsa_keygen_div_selfadj##suffix(uint64_t *a, const uint64_t *b, uint32_t logn)                              \
    {                                                                                                                  \
        fxr_div_selfadj(a, b, logn, div);                                                                              \
    }                                                                                                                  \
    void fndsa_keygen_invnorm##suffix(uint64_t *d, const uint64_t *a, const uint64_t *b, uint32_t logn, uint32_t e)   \
    {                                                                                                                  \
        fxr_invnorm(d, a, b, logn, e, div);                                                                            \
    }                                                                                                                  \
    void fndsa_keygen_inv_mul2e##suffix(uint64_t *a, uint32_t logn, uint32_t e)                                       \
    {                                                                                                                  \
        fxr_inv_mul2e(a, logn, e, div);                                                                                \
    }

#endif
