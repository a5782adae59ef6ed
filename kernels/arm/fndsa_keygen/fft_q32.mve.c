/*
 * fndsa.keygen.fft, fndsa.keygen.ifft: the fixed-point FFT and inverse FFT of FN-DSA key generation with MVE
 * (Helium), four 32.32 values per pair of Q registers. Model: pqhelium_sim::fxp_fft (the same intrinsics, in the
 * same order). Reference: pqhelium_core::fndsa::keygen::fxp::Reference, bit for bit.
 *
 * Representation: a uint64_t holds a signed 64-bit integer x standing for x / 2^32 (32.32 fixed point). In
 * registers a vector of four values is a pair (lo, hi) of uint32x4_t: lane i of lo is the low word of value i
 * (unsigned), lane i of hi its high word (signed, kept in a uint32x4_t and reinterpreted where a signed instruction
 * reads it).
 * Storage order: the contract's, unchanged in memory: n = 2^logn values, real parts in f[0, n/2), imaginary parts
 * in f[n/2, n), each uint64_t little-endian (low word first). Loads split the words:
 *   - layers whose butterflies are at least 4 values apart: VLD2 (VLD20/VLD21) of 4 consecutive values gives lo in
 *     val[0] and hi in val[1]; VST2 stores them back. One twiddle per group, broadcast with VDUP;
 *   - the layer of distance 2: word gathers (VLDRW.U32 Qd, [Rn, Qm, UXTW #2]) from 8 consecutive values, x from
 *     values {0, 1, 4, 5} and y from {2, 3, 6, 7}, twiddles gathered per lane (groups g, g, g+1, g+1), scatters
 *     back;
 *   - the layer of distance 1: VLD4 (VLD40..VLD43) of 8 consecutive values gives x (values 0, 2, 4, 6) and y
 *     (1, 3, 5, 7) as lo/hi pairs, and VLD4 of 4 consecutive twiddle entries their real and imaginary words.
 *   logn <= 3 (fewer than four butterflies per layer) is served by the portable code of fft_q32_scalar.c.
 * Bounds: any uint64_t in, any out. Every 32-bit lane operation below either wraps on purpose (the result is the
 * residue mod 2^32 of an exact sum) or cannot overflow (halving adds and high products are exact), so the result is
 * the reference's for every input: no input bound is needed.
 *
 * Arithmetic on split words (the carry argument):
 *   add64: lo = xl + yl (mod 2^32); the carry out is bit 31 of VHADD.U32(xl, yl) = floor((xl + yl) / 2), which is
 *     exact on 33 bits, so its top bit is bit 32 of xl + yl; hi = xh + yh + carry (mod 2^32).
 *   sub64: lo = xl - yl; the borrow is bit 31 of VHSUB.U32(xl, yl) = floor((xl - yl) / 2) (negative exactly when
 *     xl < yl); hi = xh - yh - borrow.
 *   mul64: a b / 2^32 = ah bh 2^32 + ah bl + al bh + al bl / 2^32 (al, bl unsigned, ah, bh signed), so
 *     floor(a b / 2^32) mod 2^64 = (ah bh mod 2^32) 2^32 + ah bl + al bh + floor(al bl / 2^32):
 *     - floor(al bl / 2^32) = VMULH.U32(al, bl), in [0, 2^32);
 *     - ah bl (signed by unsigned, exact on 64 bits): low word VMUL.I32; high word floor(ah bl / 2^32) =
 *       VMULH.S32(ah, bl) + (ah where bl >= 2^31), because bl read as signed is bl - 2^32 [bl >= 2^31]; the true
 *       high word lies in [-2^31, 2^31), so the wrapping sum is exact. Likewise al bh;
 *     - the low word of the result sums three unsigned words: two add64 carries (each 0 or 1) go to the high word,
 *       which sums ah bh mod 2^32, the two cross high words and the carries modulo 2^32 (the reference wraps too).
 *   half(x + y) = (x + y + 1) >> 1 (the reference's fxr_div2e(., 1) of the wrapped sum): r = VRHADD.U32(xl, yl) =
 *     floor((xl + yl + 1) / 2), exact on 33 bits: its bit 31 is the carry c of xl + yl + 1 and its low 31 bits are
 *     bits 1..31 of the low word s; the high word of the sum is S = xh + yh + c; the result's low word is
 *     (S << 31) | (s >> 1) = VSLI.32(r, S, #31), its high word S >> 1 (VSHR.S32, arithmetic).
 *   half(x - y) = half(sub64(x, y) + 0), the same with a zero vector.
 * The complex product is the reference's three-multiplication form, with the twiddle as the first factor of each
 * product: z0 = sr c, z1 = si d, z2 = (sr + si)(c + d), re = z0 - z1, im = z2 - (z0 + z1); the inverse uses
 * (sr, -si). Twiddle sums and negations are formed once per group in 64-bit scalar code (broadcast layers) or with
 * add64/sub64 on the gathered twiddles.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "fft_q32.h"

/* Four 32.32 values: low words (unsigned) and high words (signed). */
typedef struct {
    uint32x4_t lo, hi;
} v64;

/* Butterflies per vector, and the smallest logn whose every layer has that many. */
#define LANES 4u
#define VECTOR_LOGN_MIN 4u

/* Word offsets of the distance-2 layer inside 8 values (16 words): x = values {0, 1, 4, 5}, y = {2, 3, 6, 7}. */
static const uint32_t d2_x_lo[4] = {0, 2, 8, 10};
static const uint32_t d2_x_hi[4] = {1, 3, 9, 11};
static const uint32_t d2_y_lo[4] = {4, 6, 12, 14};
static const uint32_t d2_y_hi[4] = {5, 7, 13, 15};
/* Word offsets of the twiddles of groups g, g, g+1, g+1 from entry g: real low, real high, imaginary low, high. */
static const uint32_t d2_w_re_lo[4] = {0, 0, 4, 4};
static const uint32_t d2_w_re_hi[4] = {1, 1, 5, 5};
static const uint32_t d2_w_im_lo[4] = {2, 2, 6, 6};
static const uint32_t d2_w_im_hi[4] = {3, 3, 7, 7};

static inline uint32x4_t carry_of_add(uint32x4_t x, uint32x4_t y)
{
    return vshrq_n_u32(vhaddq_u32(x, y), 31);
}

static inline uint32x4_t borrow_of_sub(uint32x4_t x, uint32x4_t y)
{
    return vshrq_n_u32(vhsubq_u32(x, y), 31);
}

static inline v64 add64(v64 x, v64 y)
{
    v64 r;
    r.lo = vaddq_u32(x.lo, y.lo);
    r.hi = vaddq_u32(vaddq_u32(x.hi, y.hi), carry_of_add(x.lo, y.lo));
    return r;
}

static inline v64 sub64(v64 x, v64 y)
{
    v64 r;
    r.lo = vsubq_u32(x.lo, y.lo);
    r.hi = vsubq_u32(vsubq_u32(x.hi, y.hi), borrow_of_sub(x.lo, y.lo));
    return r;
}

/* floor(s u / 2^32) for a signed word s and an unsigned word u. */
static inline uint32x4_t mulh_su(uint32x4_t s, uint32x4_t u)
{
    const int32x4_t high = vmulhq_s32(vreinterpretq_s32_u32(s), vreinterpretq_s32_u32(u));
    const uint32x4_t u_top = vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(u), 31));
    return vaddq_u32(vreinterpretq_u32_s32(high), vandq_u32(s, u_top));
}

/* floor(a b / 2^32) mod 2^64, accumulated term by term (few live registers). */
static inline v64 mul64(v64 a, v64 b)
{
    v64 r;
    r.hi = vmulq_u32(a.hi, b.hi);
    r.hi = vaddq_u32(r.hi, mulh_su(a.hi, b.lo));
    r.hi = vaddq_u32(r.hi, mulh_su(b.hi, a.lo));
    const uint32x4_t low_high = vmulhq_u32(a.lo, b.lo);
    const uint32x4_t cross_a = vmulq_u32(a.hi, b.lo);
    r.hi = vaddq_u32(r.hi, carry_of_add(low_high, cross_a));
    const uint32x4_t partial = vaddq_u32(low_high, cross_a);
    const uint32x4_t cross_b = vmulq_u32(b.hi, a.lo);
    r.hi = vaddq_u32(r.hi, carry_of_add(partial, cross_b));
    r.lo = vaddq_u32(partial, cross_b);
    return r;
}

/* (s + 1) >> 1 where s = x + y, from r = VRHADD(xl, yl) and the high word of the sum. */
static inline v64 halve(uint32x4_t r, uint32x4_t sum_hi)
{
    v64 h;
    h.lo = vsliq_n_u32(r, sum_hi, 31);
    h.hi = vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(sum_hi), 1));
    return h;
}

static inline v64 half_add64(v64 x, v64 y)
{
    const uint32x4_t r = vrhaddq_u32(x.lo, y.lo);
    return halve(r, vaddq_u32(vaddq_u32(x.hi, y.hi), vshrq_n_u32(r, 31)));
}

static inline v64 half_sub64(v64 x, v64 y, uint32x4_t zero)
{
    const v64 d = sub64(x, y);
    const uint32x4_t r = vrhaddq_u32(d.lo, zero);
    return halve(r, vaddq_u32(d.hi, vshrq_n_u32(r, 31)));
}

/* A twiddle (or any 64-bit constant) in all four lanes. */
static inline v64 dup64(uint64_t w)
{
    v64 r;
    r.lo = vdupq_n_u32((uint32_t)w);
    r.hi = vdupq_n_u32((uint32_t)(w >> 32));
    return r;
}

/* The twiddle (sr, si) and sr + si of a complex product, one per lane. */
typedef struct {
    v64 re, im, sum;
} twiddle;

/* (zr, zi) = (sr, si) (c, d), three multiplications. */
static inline __attribute__((always_inline)) void cmul(v64 *zr, v64 *zi, const twiddle *s, v64 c, v64 d)
{
    const v64 z0 = mul64(s->re, c), z1 = mul64(s->im, d), z2 = mul64(s->sum, add64(c, d));
    *zr = sub64(z0, z1);
    *zi = sub64(z2, add64(z0, z1));
}

static inline void fwd_butterfly(v64 *xr, v64 *xi, v64 *yr, v64 *yi, const twiddle *s)
{
    v64 zr, zi;
    cmul(&zr, &zi, s, *yr, *yi);
    *yr = sub64(*xr, zr);
    *yi = sub64(*xi, zi);
    *xr = add64(*xr, zr);
    *xi = add64(*xi, zi);
}

/* s must hold the conjugated twiddle (sr, -si) and sr - si. */
static inline void inv_butterfly(v64 *xr, v64 *xi, v64 *yr, v64 *yi, const twiddle *s, uint32x4_t zero)
{
    const v64 dr = half_sub64(*xr, *yr, zero), di = half_sub64(*xi, *yi, zero);
    *xr = half_add64(*xr, *yr);
    *xi = half_add64(*xi, *yi);
    cmul(yr, yi, s, dr, di);
}

/* Broadcast twiddle of group entry k, conjugated for the inverse. */
static inline twiddle twiddle_dup(unsigned k, int inverse)
{
    const uint64_t sr = fndsa_keygen_gm[2 * k], si = inverse ? -fndsa_keygen_gm[2 * k + 1] : fndsa_keygen_gm[2 * k + 1];
    twiddle s;
    s.re = dup64(sr);
    s.im = dup64(si);
    s.sum = dup64(sr + si);
    return s;
}

/* Per-lane twiddles (real and imaginary parts as loaded), conjugated for the inverse. */
static inline twiddle twiddle_lanes(v64 re, v64 im, int inverse, uint32x4_t zero)
{
    twiddle s;
    s.re = re;
    if (inverse) {
        const v64 z = {zero, zero};
        s.im = sub64(z, im);
    } else {
        s.im = im;
    }
    s.sum = add64(s.re, s.im);
    return s;
}

/* GCC 12 folds the address arithmetic of a VLD2/VLD4 into a register post-increment, an addressing mode these
 * instructions do not have (the assembler rejects it): an empty asm hides the address from that folding. */
static inline const uint32_t *opaque(const void *p)
{
    const uint32_t *q = (const uint32_t *)p;
    __asm__("" : "+r"(q));
    return q;
}

static inline v64 load2(const uint64_t *p)
{
    const uint32x4x2_t w = vld2q_u32(opaque(p));
    v64 r = {w.val[0], w.val[1]};
    return r;
}

static inline void store2(uint64_t *p, v64 v)
{
    uint32x4x2_t w;
    w.val[0] = v.lo;
    w.val[1] = v.hi;
    vst2q_u32((uint32_t *)p, w);
}

static inline uint32x4_t gather(const uint64_t *p, const uint32_t *offsets)
{
    return vldrwq_gather_shifted_offset_u32((const uint32_t *)p, vld1q_u32(offsets));
}

static inline void scatter(uint64_t *p, const uint32_t *offsets, uint32x4_t v)
{
    vstrwq_scatter_shifted_offset_u32((uint32_t *)p, vld1q_u32(offsets), v);
}

/* A layer whose butterflies are ht >= 4 values apart: groups of t = 2 ht values with twiddle entry m + i. */
static inline __attribute__((always_inline)) void layer_wide(uint64_t *f, unsigned hn, unsigned m, unsigned ht,
                                                             int inverse)
{
    const uint32x4_t zero = vdupq_n_u32(0);
    for (unsigned i = 0; i < m / 2; i++) {
        const twiddle s = twiddle_dup(m + i, inverse);
        for (unsigned j = 2 * i * ht; j < 2 * i * ht + ht; j += LANES) {
            v64 xr = load2(f + j), xi = load2(f + j + hn), yr = load2(f + j + ht), yi = load2(f + j + ht + hn);
            if (inverse) {
                inv_butterfly(&xr, &xi, &yr, &yi, &s, zero);
            } else {
                fwd_butterfly(&xr, &xi, &yr, &yi, &s);
            }
            store2(f + j, xr);
            store2(f + j + hn, xi);
            store2(f + j + ht, yr);
            store2(f + j + ht + hn, yi);
        }
    }
}

/* The layer of distance 2 (m = hn / 2 twiddles): 8 values, two groups, per step. */
static inline __attribute__((always_inline)) void layer_d2(uint64_t *f, unsigned hn, int inverse)
{
    const uint32x4_t zero = vdupq_n_u32(0);
    const unsigned m = hn / 2;
    for (unsigned j = 0; j < hn; j += 2 * LANES) {
        const uint64_t *w = fndsa_keygen_gm + 2 * (m + j / 4);
        const v64 re = {gather(w, d2_w_re_lo), gather(w, d2_w_re_hi)};
        const v64 im = {gather(w, d2_w_im_lo), gather(w, d2_w_im_hi)};
        const twiddle s = twiddle_lanes(re, im, inverse, zero);
        uint64_t *pr = f + j, *pi = f + j + hn;
        v64 xr = {gather(pr, d2_x_lo), gather(pr, d2_x_hi)}, yr = {gather(pr, d2_y_lo), gather(pr, d2_y_hi)};
        v64 xi = {gather(pi, d2_x_lo), gather(pi, d2_x_hi)}, yi = {gather(pi, d2_y_lo), gather(pi, d2_y_hi)};
        if (inverse) {
            inv_butterfly(&xr, &xi, &yr, &yi, &s, zero);
        } else {
            fwd_butterfly(&xr, &xi, &yr, &yi, &s);
        }
        scatter(pr, d2_x_lo, xr.lo);
        scatter(pr, d2_x_hi, xr.hi);
        scatter(pr, d2_y_lo, yr.lo);
        scatter(pr, d2_y_hi, yr.hi);
        scatter(pi, d2_x_lo, xi.lo);
        scatter(pi, d2_x_hi, xi.hi);
        scatter(pi, d2_y_lo, yi.lo);
        scatter(pi, d2_y_hi, yi.hi);
    }
}

/* The layer of distance 1 (m = hn twiddles): 8 values, four groups, per step. */
static inline __attribute__((always_inline)) void layer_d1(uint64_t *f, unsigned hn, int inverse)
{
    const uint32x4_t zero = vdupq_n_u32(0);
    const unsigned m = hn;
    for (unsigned j = 0; j < hn; j += 2 * LANES) {
        const uint32x4x4_t w = vld4q_u32(opaque(fndsa_keygen_gm + 2 * (m + j / 2)));
        const v64 re = {w.val[0], w.val[1]}, im = {w.val[2], w.val[3]};
        const twiddle s = twiddle_lanes(re, im, inverse, zero);
        uint32x4x4_t r = vld4q_u32(opaque(f + j)), i = vld4q_u32(opaque(f + j + hn));
        v64 xr = {r.val[0], r.val[1]}, yr = {r.val[2], r.val[3]};
        v64 xi = {i.val[0], i.val[1]}, yi = {i.val[2], i.val[3]};
        if (inverse) {
            inv_butterfly(&xr, &xi, &yr, &yi, &s, zero);
        } else {
            fwd_butterfly(&xr, &xi, &yr, &yi, &s);
        }
        r.val[0] = xr.lo;
        r.val[1] = xr.hi;
        r.val[2] = yr.lo;
        r.val[3] = yr.hi;
        i.val[0] = xi.lo;
        i.val[1] = xi.hi;
        i.val[2] = yi.lo;
        i.val[3] = yi.hi;
        vst4q_u32((uint32_t *)(f + j), r);
        vst4q_u32((uint32_t *)(f + j + hn), i);
    }
}

void fndsa_keygen_fft(uint64_t *f, uint32_t logn)
{
    if (logn < VECTOR_LOGN_MIN) {
        fndsa_keygen_fft_scalar(f, logn);
        return;
    }
    const unsigned hn = 1u << (logn - 1);
    /* Layer lm has m = 2^lm twiddles and butterflies ht = hn / m values apart. */
    for (unsigned lm = 1; lm + 2 < logn; lm++) {
        layer_wide(f, hn, 1u << lm, hn >> lm, 0);
    }
    layer_d2(f, hn, 0);
    layer_d1(f, hn, 0);
}

void fndsa_keygen_ifft(uint64_t *f, uint32_t logn)
{
    if (logn < VECTOR_LOGN_MIN) {
        fndsa_keygen_ifft_scalar(f, logn);
        return;
    }
    const unsigned hn = 1u << (logn - 1);
    layer_d1(f, hn, 1);
    layer_d2(f, hn, 1);
    for (unsigned lm = logn - 3; lm >= 1; lm--) {
        layer_wide(f, hn, 1u << lm, hn >> lm, 1);
    }
}
