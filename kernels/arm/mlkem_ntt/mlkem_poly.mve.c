/*
 * mlkem.compress.{du10,dv4,d1}.mve, mlkem.decompress.{du10,dv4,d1}.mve, mlkem.poly.{encode12,decode12}.mve,
 * mlkem.poly.{add,sub,reduce}.mve, mlkem.dot.k3.mve, mlkem.matvec.k3.mve: the ML-KEM-768 polynomial kernels with MVE
 * intrinsics, on polynomials in the MVE NTT's storage order (mlkem_ntt.mve.c), so that no order conversion runs
 * between them and the NTTs. Same arithmetic and bounds as the portable baselines (mlkem_poly_scalar.c). Model:
 * pqhelium_sim::mlkem_poly.
 *
 * Why no permutation is needed: a plain 8-lane vector at 8v of the MVE order holds the eight consecutive FIPS
 * coefficients base(v) .. base(v) + 7, base(v) = 8 (v with bits c4 c5 c3 c6 c7 in place), in lane order
 * LANE_COEFF = {0, 2, 4, 6, 1, 3, 5, 7}. Every encoding packs runs of eight consecutive coefficients into d bytes at
 * d base(v) / 8, so each kernel packs (or unpacks) one vector at the byte offset of its run, with per-lane shifts:
 * the permutation is folded into the shift amounts and the byte offsets.
 * - vmovlbq/vmovltq split a vector into 32-bit lanes holding the coefficients +0 +4 +1 +5 and +2 +6 +3 +7; the bit
 *   fields of one 32-bit output word are summed across the lanes selected by an and-mask (vaddvq; disjoint fields:
 *   sum = or). Masks rather than predicated vaddvq_p: the same count of instructions, no VPR set-up per word.
 * - decompress and decode12 build the same 32-bit lanes from the loaded words and narrow them back (vmovnbq,
 *   vmovntq) into the lane order above.
 * - dot_k3 loads the vld4q vectors of the NTT's basemul as stride-4 gathers (same lanes), accumulates the 32-bit
 *   products of the three pairs, then reduces once.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "mlkem_poly.h"

static const uint16_t lane_coeff[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/* base(v): the first FIPS coefficient of the plain vector at 8v. v bits: c4, c5, c3, c6, c7. */
static inline unsigned base_of_vector(unsigned v)
{
    return ((v & 1u) << 4) | ((v & 2u) << 4) | ((v & 4u) << 1) | ((v & 24u) << 3);
}

/* Per-lane shifts of the 32-bit halves (coefficients +0 +4 +1 +5 and +2 +6 +3 +7) for d = 4: 4 (coefficient). */
static const int32_t dv4_even_shift[4] = {0, 16, 4, 20};
static const int32_t dv4_odd_shift[4] = {8, 24, 12, 28};
/* d = 10, two 40-bit groups of four: lanes +0 +4 +1 +5 at bits 0 0 10 10, lanes +2 +6 +3 +7 at 20 20 30 30. */
static const int32_t du10_even_shift[4] = {0, 0, 10, 10};
static const int32_t du10_odd_shift[4] = {20, 20, 30, 30};
/* Decompression: the high byte of each group (c3 >> 8, c7 >> 8) into lanes +3 +7; shifts of 10 fall outside the
 * mask. */
static const int32_t du10_high_shift[4] = {10, 10, 2, 2};
/* d = 12, three 32-bit words: +0 +4 +1 +5 at bits 0 (w0) 16 (w1) 12 (w0) 28 (w1); +2 +6 +3 +7 at 24 (w0) 8 (w2)
 * 4 (w1) 20 (w2). */
static const int32_t d12_even_shift[4] = {0, 16, 12, 28};
static const int32_t d12_odd_shift[4] = {24, 8, 4, 20};
/* Decoding: the bits a lane still needs from the next word, shifted into place (shifts of 12 fall outside the
 * mask): c5 from w2, c2 from w1. */
static const int32_t d12_next_even[4] = {12, 12, 12, 4};
static const int32_t d12_next_odd[4] = {8, 12, 12, 12};
/* Lane selections for the sums across lanes, as and-masks (lanes 0 and 2, 1 and 3, 0, 2). */
static const uint32_t lanes_02[4] = {~0u, 0, ~0u, 0};
static const uint32_t lanes_13[4] = {0, ~0u, 0, ~0u};
static const uint32_t lane_0[4] = {~0u, 0, 0, 0};
static const uint32_t lane_2[4] = {0, 0, ~0u, 0};

/* Any int16_t -> canonical 0..q-1: floor((floor(x m / 2^16) + 2^9) / 2^10) = floor((x m + 2^25) / 2^26). */
static inline int16x8_t canonical(int16x8_t x)
{
    int16x8_t t = vrshrq_n_s16(vmulhq_s16(x, vdupq_n_s16(MLKEM_BARRETT26)), 10);
    int16x8_t r = vmlaq_n_s16(x, t, -MLKEM_Q);
    return vaddq_s16(r, vandq_s16(vshrq_n_s16(r, 15), vdupq_n_s16(MLKEM_Q)));
}

/* Compress_d for d = 1, 4 of canonical lanes. */
static inline uint16x8_t compress16(int16x8_t x, unsigned d)
{
    uint16x8_t t = vaddq_n_u16(vshlq_u16(vreinterpretq_u16_s16(x), vdupq_n_s16((int16_t)d)), MLKEM_COMPRESS_HALF);
    t = vshrq_n_u16(vmulhq_u16(t, vdupq_n_u16(MLKEM_COMPRESS_M16)), 4);
    return vandq_u16(t, vdupq_n_u16((uint16_t)((1u << d) - 1)));
}

/* Compress_10 of canonical 32-bit lanes. */
static inline uint32x4_t compress10(uint32x4_t x)
{
    uint32x4_t t = vaddq_n_u32(vshlq_n_u32(x, 10), MLKEM_COMPRESS_HALF);
    return vandq_u32(vmulhq_u32(t, vdupq_n_u32(MLKEM_COMPRESS_M32)), vdupq_n_u32(0x3FF));
}

/* Unaligned 32-bit words (Armv8.1-M loads and stores them with ldr/str). */
struct __attribute__((packed)) word {
    uint32_t w;
};

static inline uint32_t load32(const uint8_t *p)
{
    return ((const struct word *)p)->w;
}

static inline void store32(uint8_t *p, uint32_t w)
{
    ((struct word *)p)->w = w;
}

/* The 32-bit lane halves back into one vector in LANE_COEFF order. */
static inline uint16x8_t join(uint32x4_t even, uint32x4_t odd)
{
    return vmovntq_u32(vmovnbq_u32(vreinterpretq_u16_u32(even), even), odd);
}

void mlkem_compress_du10_mve(uint8_t out[320], const int16_t p[256])
{
    int32x4_t se = vld1q_s32(du10_even_shift), so = vld1q_s32(du10_odd_shift);
    uint32x4_t m02 = vld1q_u32(lanes_02), m13 = vld1q_u32(lanes_13);
    for (unsigned v = 0; v < 32; v++) {
        uint16x8_t x = vreinterpretq_u16_s16(canonical(vld1q_s16(p + 8 * v)));
        uint32x4_t ce = compress10(vmovlbq_u16(x)), co = compress10(vmovltq_u16(x));
        uint32x4_t t = vorrq_u32(vshlq_u32(ce, se), vshlq_u32(co, so));
        uint8_t *o = out + 10 * (base_of_vector(v) >> 3);
        store32(o, vaddvq_u32(vandq_u32(t, m02)));
        o[4] = (uint8_t)(vgetq_lane_u32(co, 2) >> 2);
        store32(o + 5, vaddvq_u32(vandq_u32(t, m13)));
        o[9] = (uint8_t)(vgetq_lane_u32(co, 3) >> 2);
    }
}

void mlkem_decompress_du10_mve(int16_t p[256], const uint8_t in[320])
{
    int32x4_t se = vnegq_s32(vld1q_s32(du10_even_shift)), so = vnegq_s32(vld1q_s32(du10_odd_shift));
    int32x4_t high_shift = vld1q_s32(du10_high_shift);
    uint32x4_t mask = vdupq_n_u32(0x3FF);
    for (unsigned v = 0; v < 32; v++) {
        const uint8_t *b = in + 10 * (base_of_vector(v) >> 3);
        uint64_t low = load32(b) | ((uint64_t)load32(b + 5) << 32), high = b[4] | ((uint64_t)b[9] << 32);
        uint32x4_t l = vcreateq_u32(low, low), h = vcreateq_u32(high, high);
        uint32x4_t e = vandq_u32(vshlq_u32(l, se), mask);
        uint32x4_t o = vandq_u32(vorrq_u32(vshlq_u32(l, so), vshlq_u32(h, high_shift)), mask);
        uint16x8_t y = vrmulhq_u16(vshlq_n_u16(join(e, o), 6), vdupq_n_u16(MLKEM_Q));
        vst1q_s16(p + 8 * v, vreinterpretq_s16_u16(y));
    }
}

void mlkem_compress_dv4_mve(uint8_t out[128], const int16_t p[256])
{
    int32x4_t se = vld1q_s32(dv4_even_shift), so = vld1q_s32(dv4_odd_shift);
    for (unsigned v = 0; v < 32; v++) {
        uint16x8_t c = compress16(canonical(vld1q_s16(p + 8 * v)), 4);
        uint32x4_t t = vorrq_u32(vshlq_u32(vmovlbq_u16(c), se), vshlq_u32(vmovltq_u16(c), so));
        store32(out + (base_of_vector(v) >> 1), vaddvq_u32(t));
    }
}

void mlkem_decompress_dv4_mve(int16_t p[256], const uint8_t in[128])
{
    int32x4_t se = vnegq_s32(vld1q_s32(dv4_even_shift)), so = vnegq_s32(vld1q_s32(dv4_odd_shift));
    uint32x4_t mask = vdupq_n_u32(15);
    for (unsigned v = 0; v < 32; v++) {
        uint32x4_t w = vdupq_n_u32(load32(in + (base_of_vector(v) >> 1)));
        uint32x4_t e = vandq_u32(vshlq_u32(w, se), mask), o = vandq_u32(vshlq_u32(w, so), mask);
        uint16x8_t y = vrmulhq_u16(vshlq_n_u16(join(e, o), 12), vdupq_n_u16(MLKEM_Q));
        vst1q_s16(p + 8 * v, vreinterpretq_s16_u16(y));
    }
}

void mlkem_compress_d1_mve(uint8_t out[32], const int16_t p[256])
{
    int16x8_t shift = vreinterpretq_s16_u16(vld1q_u16(lane_coeff));
    for (unsigned v = 0; v < 32; v++) {
        uint16x8_t c = compress16(canonical(vld1q_s16(p + 8 * v)), 1);
        out[base_of_vector(v) >> 3] = (uint8_t)vaddvq_u16(vshlq_u16(c, shift));
    }
}

void mlkem_decompress_d1_mve(int16_t p[256], const uint8_t in[32])
{
    int16x8_t shift = vnegq_s16(vreinterpretq_s16_u16(vld1q_u16(lane_coeff)));
    for (unsigned v = 0; v < 32; v++) {
        uint16x8_t bits = vandq_u16(vshlq_u16(vdupq_n_u16(in[base_of_vector(v) >> 3]), shift), vdupq_n_u16(1));
        vst1q_s16(p + 8 * v, vreinterpretq_s16_u16(vmulq_n_u16(bits, (MLKEM_Q + 1) / 2)));
    }
}

void mlkem_encode12_mve(uint8_t out[384], const int16_t p[256])
{
    int32x4_t se = vld1q_s32(d12_even_shift), so = vld1q_s32(d12_odd_shift);
    uint32x4_t m02 = vld1q_u32(lanes_02), m13 = vld1q_u32(lanes_13);
    uint32x4_t m0 = vld1q_u32(lane_0), m2 = vld1q_u32(lane_2);
    for (unsigned v = 0; v < 32; v++) {
        uint16x8_t x = vreinterpretq_u16_s16(vld1q_s16(p + 8 * v));
        uint32x4_t e = vmovlbq_u16(x), o = vmovltq_u16(x);
        uint32x4_t te = vshlq_u32(e, se), to = vshlq_u32(o, so);
        uint8_t *b = out + 12 * (base_of_vector(v) >> 3);
        store32(b, vaddvaq_u32(vaddvq_u32(vandq_u32(te, m02)), vandq_u32(to, m0)));
        uint32_t w1 = vaddvaq_u32(vgetq_lane_u32(o, 0) >> 8, vandq_u32(te, m13));
        store32(b + 4, vaddvaq_u32(w1, vandq_u32(to, m2)));
        store32(b + 8, vaddvaq_u32(vgetq_lane_u32(e, 3) >> 4, vandq_u32(to, m13)));
    }
}

void mlkem_decode12_mve(int16_t p[256], const uint8_t in[384])
{
    int32x4_t se = vnegq_s32(vld1q_s32(d12_even_shift)), so = vnegq_s32(vld1q_s32(d12_odd_shift));
    int32x4_t next_e = vld1q_s32(d12_next_even), next_o = vld1q_s32(d12_next_odd);
    uint32x4_t mask = vdupq_n_u32(0xFFF);
    for (unsigned v = 0; v < 32; v++) {
        const uint8_t *b = in + 12 * (base_of_vector(v) >> 3);
        uint32_t w0 = load32(b), w1 = load32(b + 4), w2 = load32(b + 8);
        uint64_t w01 = w0 | ((uint64_t)w1 << 32);
        uint32x4_t e = vshlq_u32(vcreateq_u32(w01, w01), se);
        e = vandq_u32(vorrq_u32(e, vshlq_u32(vdupq_n_u32(w2), next_e)), mask);
        uint32x4_t o = vsetq_lane_u32(w1, vsetq_lane_u32(w0, vdupq_n_u32(w2), 0), 2);
        o = vshlq_u32(o, so);
        o = vandq_u32(vorrq_u32(o, vshlq_u32(vdupq_n_u32(w1), next_o)), mask);
        uint16x8_t x = join(e, o);
        vst1q_s16(p + 8 * v, vreinterpretq_s16_u16(vminq_u16(x, vsubq_n_u16(x, MLKEM_Q))));
    }
}

void mlkem_poly_add_mve(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned v = 0; v < 32; v++)
        vst1q_s16(out + 8 * v, vaddq_s16(vld1q_s16(a + 8 * v), vld1q_s16(b + 8 * v)));
}

void mlkem_poly_sub_mve(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned v = 0; v < 32; v++)
        vst1q_s16(out + 8 * v, vsubq_s16(vld1q_s16(a + 8 * v), vld1q_s16(b + 8 * v)));
}

void mlkem_poly_reduce_mve(int16_t p[256])
{
    for (unsigned v = 0; v < 32; v++)
        vst1q_s16(p + 8 * v, canonical(vld1q_s16(p + 8 * v)));
}

static inline int16x8_t mulmod_v(int16x8_t a, const int16_t *row)
{
    return vmlaq_n_s16(vmulq_s16(a, vld1q_s16(row)), vqrdmulhq_s16(a, vld1q_s16(row + 8)), -MLKEM_Q);
}

/* The even and odd 32-bit sums of one product pair, added to the accumulators. */
#define BASEMUL_ACC(even, odd, x, y, g)                                                                    \
    do {                                                                                                   \
        int16x8_t bg_ = mulmod_v((y), (g)), bs_ = vrev32q_s16(y);                                          \
        (even) = vaddq_s32((even), vaddq_s32(vmullbq_int_s16((x), (y)), vmulltq_int_s16((x), bg_)));       \
        (odd) = vaddq_s32((odd), vaddq_s32(vmullbq_int_s16((x), bs_), vmulltq_int_s16((x), bs_)));         \
    } while (0)

void mlkem_dot_k3_mve(int16_t out[256], const int16_t a[768], const int16_t b[768])
{
    /* Lanes 4i + k of a 32-block: vld4q's vector k, as one gather. */
    uint16x8_t stride4 = vmulq_n_u16(vidupq_n_u16(0, 1), 4);
    for (unsigned blk = 0; blk < 8; blk++) {
        for (unsigned k = 0; k < 4; k++) {
            const int16_t *g = pqh_mlkem_bm_g + 64 * blk + 16 * k;
            uint16x8_t lanes = vaddq_n_u16(stride4, (uint16_t)(32 * blk + k));
            int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
            for (unsigned j = 0; j < MLKEM_K; j++) {
                int16x8_t x = vldrhq_gather_shifted_offset_s16(a + 256 * j, lanes);
                int16x8_t y = vldrhq_gather_shifted_offset_s16(b + 256 * j, lanes);
                BASEMUL_ACC(even, odd, x, y, g);
            }
            int32x4_t re = vmlaq_n_s32(even, vqrdmulhq_n_s32(even, MLKEM_BARRETT32), -MLKEM_Q);
            int32x4_t ro = vmlaq_n_s32(odd, vqrdmulhq_n_s32(odd, MLKEM_BARRETT32), -MLKEM_Q);
            int16x8_t o = vmovntq_s32(vmovnbq_s32(vreinterpretq_s16_s32(re), re), ro);
            vstrhq_scatter_shifted_offset_s16(out, lanes, o);
        }
    }
}

void mlkem_matvec_k3_mve(int16_t out[768], const int16_t a[2304], const int16_t s[768])
{
    for (unsigned i = 0; i < MLKEM_K; i++)
        mlkem_dot_k3_mve(out + 256 * i, a + 768 * i, s);
}
