/*
 * fndsa.ntt512.fwd, fndsa.ntt1024.fwd, fndsa.ntt512.inv, fndsa.ntt1024.inv, fndsa.ntt512.pointwise,
 * fndsa.ntt1024.pointwise: the negacyclic NTT of FN-DSA over Z_q[X]/(X^n + 1), q = 12289, n = 512 and 1024,
 * with MVE (Helium), 8 signed 16-bit coefficients per Q register. Model: pqhelium_sim::fndsa_ntt.
 *
 * Representation: int16_t, signed, non-canonical: a lane x stands for x mod q. No Montgomery factor anywhere: the
 * forward and inverse transforms and the pointwise product are the plain mathematical maps mod q.
 *
 * Storage order ("NTT order"): the forward output and the inverse input are the reference order (slot j holds the
 * evaluation at g^((2 rev(j) + 1) 1024/n), as FN-DSA v0.4) transposed inside every block of 64: storage position
 * 64c + 8r + j holds reference slot 64c + 8j + r (0 <= r, j < 8). The forward input and inverse output are the
 * natural coefficient order. Pointwise multiplication works on any order (the same for a, b and r).
 *
 * Bounds (named in fndsa_ntt.h, proved by pqhelium_sim::fndsa_ntt::bounds, test sim/tests/fndsa_ntt_bounds.rs; no
 * intermediate lane ever leaves [-32767, 32767]):
 *   forward:   in  any int16_t (all of [-32768, 32767]);  out |x| <= FNDSA_FWD_OUT_512, FNDSA_FWD_OUT_1024
 *   inverse:   in  |x| <= FNDSA_INV_IN;                   out |x| <= FNDSA_INV_OUT (1/n included)
 *   pointwise: in  |a|, |b| <= FNDSA_PW_IN;               out r = a*b mod q, |r| <= FNDSA_PW_OUT
 *   The forward output is a valid pointwise input, the pointwise output a valid inverse input.
 * Arithmetic: modular multiplication by a constant w with the Barrett companion w' = round(w 2^15 / q):
 *   r = b*w - q*round(b*w'/2^15)   (vqrdmulh, vmul, vmla: 3 instructions, |r| <= q/2 + |b| |w 2^15 - w' q| / 2^15);
 * reduction red(a) = a - q*round(round(a*FNDSA_RED_V/2^15 rounded down)/2^13) (vqdmulh, vrshr, vmla),
 * |red(a)| <= FNDSA_RED_OUT for every int16_t a; the pointwise product is a 16-bit Montgomery product (vmul,
 * vqdmulh, vmul, vqdmulh, vhsub) followed by a Barrett multiplication by 2^16 mod q (FNDSA_MONT_C), which cancels
 * the Montgomery factor.
 *
 * Structure: the layers whose butterflies span whole registers are merged in passes of 2 or 3 layers (4 or 8
 * registers loaded, all layers done, stored); forward: each pass reduces what it loads, no reduction inside a pass
 * (lazy); n = 512: 3+3, n = 1024: 3+2+2, then the last three layers (distances 4, 2, 1) in one pass per 64
 * coefficients: 8 gathers load register r with coefficients 64c + 8j + r (lane j), the three layers are between
 * whole registers (r, r^4), (r, r^2), (r, r^1) with per-lane twiddles loaded by vld1/vld2/vld4 from the twiddle
 * table, and the registers are stored contiguously (hence the transposed NTT order). The inverse mirrors it
 * (Gentleman-Sande): the first pass loads contiguously, does the distances 1, 2, 4 and scatters back to the natural
 * order, then the register passes (n = 512: 3+3, n = 1024: 2+2+3); every sum is reduced, every difference is
 * multiplied by its twiddle; the last layer multiplies both outputs by n^-1 (the sum by n^-1, the difference by
 * zeta^-1 n^-1), which is the final scaling. The pass functions are inlined with constant sizes and their
 * register loops fully unrolled (GCC unroll pragmas), so the 8 registers of a pass live in Q registers where they fit.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "fndsa_ntt.h"

#define Q FNDSA_Q

/* Lane j of a transposed register: coefficient 8j (relative). */
static const uint16_t transpose_offsets[8] = {0, 8, 16, 24, 32, 40, 48, 56};

static inline int16x8_t mul_n(int16x8_t b, int16_t w, int16_t wbr)
{
    int16x8_t hi = vqrdmulhq_n_s16(b, wbr);
    int16x8_t lo = vmulq_n_s16(b, w);
    return vmlaq_n_s16(lo, hi, -Q);
}

static inline int16x8_t mul_v(int16x8_t b, int16x8_t w, int16x8_t wbr)
{
    int16x8_t hi = vqrdmulhq_s16(b, wbr);
    int16x8_t lo = vmulq_s16(b, w);
    return vmlaq_n_s16(lo, hi, -Q);
}

static inline int16x8_t red(int16x8_t a)
{
    int16x8_t t = vqdmulhq_n_s16(a, FNDSA_RED_V);
    t = vrshrq_n_s16(t, 13);
    return vmlaq_n_s16(a, t, -Q);
}

/* Forward layers l0 .. l0+nl-1 (layer l: distance n >> (l+1), twiddle index 2^l + block), nl in {2, 3}. */
static inline __attribute__((always_inline)) void fwd_pass(int16_t *a, unsigned logn, unsigned l0, unsigned nl)
{
    const unsigned n = 1u << logn;
    const unsigned group = n >> l0, d = n >> (l0 + nl), nr = 1u << nl;
    for (unsigned g = 0; g < (1u << l0); g++) {
        for (unsigned col = 0; col < d; col += 8) {
            int16_t *base = a + g * group + col;
            int16x8_t r[8];
            _Pragma("GCC unroll 8")
            for (unsigned k = 0; k < nr; k++) {
                r[k] = red(vld1q_s16(base + k * d));
            }
            _Pragma("GCC unroll 8")
            for (unsigned s = 0; s < nl; s++) {
                const unsigned dist = 1u << (nl - 1 - s);
                _Pragma("GCC unroll 8")
                for (unsigned k = 0; k < nr; k++) {
                    if (k & dist) {
                        continue;
                    }
                    const unsigned z = (1u << (l0 + s)) + (g << s) + (k >> (nl - s));
                    int16x8_t t = mul_n(r[k + dist], fndsa_zeta[z], fndsa_zeta_br[z]);
                    r[k + dist] = vsubq_s16(r[k], t);
                    r[k] = vaddq_s16(r[k], t);
                }
            }
            _Pragma("GCC unroll 8")
            for (unsigned k = 0; k < nr; k++) {
                vst1q_s16(base + k * d, r[k]);
            }
        }
    }
}

static inline void ct_v(int16x8_t *x, int16x8_t *y, int16x8_t w, int16x8_t wbr)
{
    int16x8_t t = mul_v(*y, w, wbr);
    *y = vsubq_s16(*x, t);
    *x = vaddq_s16(*x, t);
}

/* Forward layers logn-3 .. logn-1 (distances 4, 2, 1), 64 coefficients at a time, stored transposed. */
static inline __attribute__((always_inline)) void fwd_last(int16_t *a, unsigned logn)
{
    const unsigned n = 1u << logn;
    const uint16x8_t off = vld1q_u16(transpose_offsets);
    for (unsigned c = 0; c < n / 64; c++) {
        int16_t *base = a + 64 * c;
        int16x8_t r[8];
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            r[k] = red(vldrhq_gather_shifted_offset_s16(base + k, off));
        }
        /* distance 4: lane j is block 8c + j */
        int16x8_t w = vld1q_s16(fndsa_zeta + n / 8 + 8 * c), wb = vld1q_s16(fndsa_zeta_br + n / 8 + 8 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 4; k++) {
            ct_v(&r[k], &r[k + 4], w, wb);
        }
        /* distance 2: lane j of half h is block 16c + 2j + h */
        int16x8x2_t w2 = vld2q_s16(fndsa_zeta + n / 4 + 16 * c), wb2 = vld2q_s16(fndsa_zeta_br + n / 4 + 16 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            if (!(k & 2)) {
                ct_v(&r[k], &r[k + 2], w2.val[k >> 2], wb2.val[k >> 2]);
            }
        }
        /* distance 1: lane j of quarter h is block 32c + 4j + h */
        int16x8x4_t w4 = vld4q_s16(fndsa_zeta + n / 2 + 32 * c), wb4 = vld4q_s16(fndsa_zeta_br + n / 2 + 32 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k += 2) {
            ct_v(&r[k], &r[k + 1], w4.val[k >> 1], wb4.val[k >> 1]);
        }
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            vst1q_s16(base + 8 * k, r[k]);
        }
    }
}

static inline void gs_v(int16x8_t *x, int16x8_t *y, int16x8_t w, int16x8_t wbr)
{
    int16x8_t s = vaddq_s16(*x, *y);
    int16x8_t d = vsubq_s16(*x, *y);
    *x = red(s);
    *y = mul_v(d, w, wbr);
}

/* Inverse layers logn-1 .. logn-3 (distances 1, 2, 4) from the transposed order, scattered to the natural order. */
static inline __attribute__((always_inline)) void inv_first(int16_t *a, unsigned logn)
{
    const unsigned n = 1u << logn;
    const uint16x8_t off = vld1q_u16(transpose_offsets);
    for (unsigned c = 0; c < n / 64; c++) {
        int16_t *base = a + 64 * c;
        int16x8_t r[8];
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            r[k] = vld1q_s16(base + 8 * k);
        }
        int16x8x4_t w4 = vld4q_s16(fndsa_izeta + n / 2 + 32 * c), wb4 = vld4q_s16(fndsa_izeta_br + n / 2 + 32 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k += 2) {
            gs_v(&r[k], &r[k + 1], w4.val[k >> 1], wb4.val[k >> 1]);
        }
        int16x8x2_t w2 = vld2q_s16(fndsa_izeta + n / 4 + 16 * c), wb2 = vld2q_s16(fndsa_izeta_br + n / 4 + 16 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            if (!(k & 2)) {
                gs_v(&r[k], &r[k + 2], w2.val[k >> 2], wb2.val[k >> 2]);
            }
        }
        int16x8_t w = vld1q_s16(fndsa_izeta + n / 8 + 8 * c), wb = vld1q_s16(fndsa_izeta_br + n / 8 + 8 * c);
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 4; k++) {
            gs_v(&r[k], &r[k + 4], w, wb);
        }
        _Pragma("GCC unroll 8")
        for (unsigned k = 0; k < 8; k++) {
            vstrhq_scatter_shifted_offset_s16(base + k, off, r[k]);
        }
    }
}

/* Inverse layers l0+nl-1 down to l0; when l0 == 0 the last one (distance n/2) also scales by n^-1. */
static inline __attribute__((always_inline)) void inv_pass(int16_t *a, unsigned logn, unsigned l0, unsigned nl,
                                                          int16_t ninv, int16_t ninv_br, int16_t last, int16_t last_br)
{
    const unsigned n = 1u << logn;
    const unsigned group = n >> l0, d = n >> (l0 + nl), nr = 1u << nl;
    for (unsigned g = 0; g < (1u << l0); g++) {
        for (unsigned col = 0; col < d; col += 8) {
            int16_t *base = a + g * group + col;
            int16x8_t r[8];
            _Pragma("GCC unroll 8")
            for (unsigned k = 0; k < nr; k++) {
                r[k] = vld1q_s16(base + k * d);
            }
            _Pragma("GCC unroll 8")
            for (unsigned u = 0; u < nl; u++) {
                const unsigned s = nl - 1 - u, dist = 1u << u;
                _Pragma("GCC unroll 8")
                for (unsigned k = 0; k < nr; k++) {
                    if (k & dist) {
                        continue;
                    }
                    int16x8_t sum = vaddq_s16(r[k], r[k + dist]);
                    int16x8_t dif = vsubq_s16(r[k], r[k + dist]);
                    if (l0 + s == 0) {
                        r[k] = mul_n(sum, ninv, ninv_br);
                        r[k + dist] = mul_n(dif, last, last_br);
                    } else {
                        const unsigned z = (1u << (l0 + s)) + (g << s) + (k >> (nl - s));
                        r[k] = red(sum);
                        r[k + dist] = mul_n(dif, fndsa_izeta[z], fndsa_izeta_br[z]);
                    }
                }
            }
            _Pragma("GCC unroll 8")
            for (unsigned k = 0; k < nr; k++) {
                vst1q_s16(base + k * d, r[k]);
            }
        }
    }
}

static inline __attribute__((always_inline)) void pointwise(int16_t *r, const int16_t *a, const int16_t *b,
                                                           unsigned n)
{
    for (unsigned i = 0; i < n; i += 8) {
        int16x8_t x = vld1q_s16(a + i), y = vld1q_s16(b + i);
        int16x8_t lo = vmulq_s16(x, y);
        int16x8_t hi = vqdmulhq_s16(x, y);
        int16x8_t m = vmulq_n_s16(lo, FNDSA_QINV);
        int16x8_t t = vqdmulhq_n_s16(m, Q);
        int16x8_t p = vhsubq_s16(hi, t); /* x*y / 2^16 mod q */
        vst1q_s16(r + i, mul_n(p, FNDSA_MONT_C, FNDSA_MONT_C_BR));
    }
}

void fndsa_ntt512_fwd(int16_t a[512])
{
    fwd_pass(a, 9, 0, 3);
    fwd_pass(a, 9, 3, 3);
    fwd_last(a, 9);
}

void fndsa_ntt1024_fwd(int16_t a[1024])
{
    fwd_pass(a, 10, 0, 3);
    fwd_pass(a, 10, 3, 2);
    fwd_pass(a, 10, 5, 2);
    fwd_last(a, 10);
}

void fndsa_ntt512_inv(int16_t a[512])
{
    inv_first(a, 9);
    inv_pass(a, 9, 3, 3, 0, 0, 0, 0);
    inv_pass(a, 9, 0, 3, FNDSA_NINV_512, FNDSA_NINV_512_BR, FNDSA_LAST_512, FNDSA_LAST_512_BR);
}

void fndsa_ntt1024_inv(int16_t a[1024])
{
    inv_first(a, 10);
    inv_pass(a, 10, 5, 2, 0, 0, 0, 0);
    inv_pass(a, 10, 3, 2, 0, 0, 0, 0);
    inv_pass(a, 10, 0, 3, FNDSA_NINV_1024, FNDSA_NINV_1024_BR, FNDSA_LAST_1024, FNDSA_LAST_1024_BR);
}

void fndsa_ntt512_pointwise(int16_t r[512], const int16_t a[512], const int16_t b[512])
{
    pointwise(r, a, b, 512);
}

void fndsa_ntt1024_pointwise(int16_t r[1024], const int16_t a[1024], const int16_t b[1024])
{
    pointwise(r, a, b, 1024);
}
