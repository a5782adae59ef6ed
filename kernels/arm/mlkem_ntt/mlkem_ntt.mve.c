/*
 * mlkem.ntt.fwd, mlkem.ntt.inv, mlkem.basemul, mlkem.order.to_mve, mlkem.order.from_mve: the ML-KEM NTT kernels
 * (q = 3329, n = 256) with MVE (Helium) intrinsics, 16-bit lanes. Model: pqhelium_sim::mlkem_ntt.
 *
 * Representation: int16_t, signed, any representative (not reduced), no Montgomery factor: every output is congruent
 * mod q to the FIPS 203 result. from_mve alone outputs canonical residues 0..q-1.
 *
 * Storage order "MVE order", the same in both domains: storage index s (bits s0..s7) holds FIPS-order coefficient
 *   c = s1 s0 -> c2 c1, s2 -> c0, s3 -> c4, s4 -> c5, s5 -> c3, s6 -> c6, s7 -> c7
 * i.e. c = (s0 << 1) | (s1 << 2) | s2 | (s3 << 4) | (s4 << 5) | (s5 << 3) | (s & 0xC0). So:
 * - a plain 8-lane load at 8v holds c4 c5 c3 c6 c7 = the bits of v: layers 1-5 (pair bits c7 c6 c5 c4 c3) are
 *   vector-wise with scalar twiddles: passes 1 (layers 1, 2), 2 (layers 3, 4) and 3 (layer 5), 4 vector pairs each,
 *   no spills;
 * - vld4q at 32B de-interleaves by (s0, s1) = (c1, c2), lanes (s2, s3, s4) = (c0, c4, c5), and B = (c3, c6, c7):
 *   layers 6 and 7 (pair bits c2 c1) are vector-wise with per-lane twiddle vectors (pass 4), and the basemul pairs
 *   (c0 = 0, 1) are adjacent lanes. Merging: 2 + 2 + 1 + 2 layers per load/store pass.
 *
 * Modular multiplication (Barrett, twisted constants, validated forms): mulmod(a, z) =
 *   vmlaq_n_s16(vmulq(a, z), vqrdmulhq(a, z'), -q), z' = round(z 2^15 / q), z centred:
 *   |mulmod(a, z)| <= q/2 + |a| |z' q - z 2^15| / 2^15.
 * Bounds (named in mlkem_ntt.h; worst-case interval propagation in pqhelium_sim::mlkem_ntt::bounds, with a test):
 * - fwd: in |x| <= MLKEM_FWD_IN_MAX (e.g. canonical 0..q-1 or centred); out |x| <= MLKEM_FWD_OUT_MAX (no reduction,
 *   7 layers of u +- t).
 * - inv: in any int16_t; reduce (x * 1), layers 7, 6 (pass 1), layer 5 then reduce (pass 2), layers 4, 3 (pass 3),
 *   layers 2, 1 with 128^-1 merged into the last (pass 4); out |x| <= MLKEM_INV_OUT_MAX < q. Sums are left
 *   unreduced in between.
 * - basemul: in |a|, |b| <= MLKEM_BASEMUL_IN_MAX (MVE order); out |x| <= MLKEM_BASEMUL_OUT_MAX < q; b1 * gamma by
 *   mulmod, the two sums in 32 bits (vmullb/vmullt), one 32-bit Barrett reduction each (vqrdmulhq_n_s32,
 *   vmlaq_n_s32), narrowed.
 * - to_mve: FIPS order -> MVE order, a permutation only (any int16_t, values unchanged).
 * - from_mve: MVE order -> FIPS order, in any int16_t, out canonical 0..q-1.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "mlkem_ntt.h"

/* Pass-4 twiddles, per 32-block B = (c3, c6, c7): 3 rows of (8 zetas, 8 twisted zetas), lane l = (c0, c4, c5).
 * fwd_d: row 0 layer 6; rows 1, 2 layer 7 for c2 = 0, 1. inv_d: rows 0, 1 layer 7 for c2 = 0, 1; row 2 layer 6.
 * pqh_mlkem_bm_g: per block B and vector k: the gammas of the lanes' pairs and their twisted forms. */
static const int16_t fwd_d[384] = {
    289, 289, -76, -76, 1197, 1197, -1052, -1052,
    2845, 2845, -748, -748, 11782, 11782, -10355, -10355,
    17, 17, 1637, 1637, 1409, 1409, 756, 756,
    167, 167, 16113, 16113, 13869, 13869, 7441, 7441,
    -568, -568, 723, 723, -667, -667, -1173, -1173,
    -5591, -5591, 7117, 7117, -6565, -6565, -11546, -11546,
    331, 331, -1573, -1573, -1025, -1025, -1274, -1274,
    3258, 3258, -15483, -15483, -10089, -10089, -12540, -12540,
    583, 583, -1041, -1041, -48, -48, -314, -314,
    5739, 5739, -10247, -10247, -472, -472, -3091, -3091,
    -680, -680, 1100, 1100, 233, 233, -279, -279,
    -6693, -6693, 10828, 10828, 2293, 2293, -2746, -2746,
    650, 650, -816, -816, -464, -464, 1320, 1320,
    6398, 6398, -8032, -8032, -4567, -4567, 12993, 12993,
    -1626, -1626, -1482, -1482, 939, 939, 733, 733,
    -16005, -16005, -14588, -14588, 9243, 9243, 7215, 7215,
    1651, 1651, 952, 952, -1021, -1021, -992, -992,
    16251, 16251, 9371, 9371, -10050, -10050, -9764, -9764,
    -1352, -1352, 632, 632, 33, 33, -1414, -1414,
    -13308, -13308, 6221, 6221, 325, 325, -13918, -13918,
    -540, -540, 1461, 1461, -892, -892, 268, 268,
    -5315, -5315, 14381, 14381, -8780, -8780, 2638, 2638,
    -1540, -1540, -642, -642, -941, -941, 641, 641,
    -15159, -15159, -6319, -6319, -9262, -9262, 6309, 6309,
    -1010, -1010, 807, 807, 1438, 1438, 1534, 1534,
    -9942, -9942, 7943, 7943, 14155, 14155, 15099, 15099,
    1584, 1584, 375, 375, 1063, 1063, -1230, -1230,
    15592, 15592, 3691, 3691, 10463, 10463, -12107, -12107,
    -1031, -1031, -780, -780, 319, 319, 561, 561,
    -10148, -10148, -7678, -7678, 3140, 3140, 5522, 5522,
    1435, 1435, 452, 452, -461, -461, -927, -927,
    14125, 14125, 4449, 4449, -4538, -4538, -9125, -9125,
    -1292, -1292, -1239, -1239, -556, -556, -863, -863,
    -12717, -12717, -12196, -12196, -5473, -5473, -8495, -8495,
    -109, -109, 1645, 1645, 757, 757, -735, -735,
    -1073, -1073, 16192, 16192, 7451, 7451, -7235, -7235,
    -682, -682, 1481, 1481, -855, -855, 1227, 1227,
    -6713, -6713, 14578, 14578, -8416, -8416, 12078, 12078,
    -525, -525, 1143, 1143, -1607, -1607, -1219, -1219,
    -5168, -5168, 11251, 11251, -15818, -15818, -11999, -11999,
    1092, 1092, -1179, -1179, 1212, 1212, -394, -394,
    10749, 10749, -11605, -11605, 11930, 11930, -3878, -3878,
    -712, -712, 648, 648, -219, -219, 910, 910,
    -7008, -7008, 6378, 6378, -2156, -2156, 8957, 8957,
    403, 403, -554, -554, -1455, -1455, 885, 885,
    3967, 3967, -5453, -5453, -14322, -14322, 8711, 8711,
    1026, 1026, 886, 886, 1029, 1029, -1175, -1175,
    10099, 10099, 8721, 8721, 10129, 10129, -11566, -11566,
};

static const int16_t inv_d[384] = {
    -1175, -1175, 1029, 1029, 886, 886, 1026, 1026,
    -11566, -11566, 10129, 10129, 8721, 8721, 10099, 10099,
    885, 885, -1455, -1455, -554, -554, 403, 403,
    8711, 8711, -14322, -14322, -5453, -5453, 3967, 3967,
    910, 910, -219, -219, 648, 648, -712, -712,
    8957, 8957, -2156, -2156, 6378, 6378, -7008, -7008,
    -394, -394, 1212, 1212, -1179, -1179, 1092, 1092,
    -3878, -3878, 11930, 11930, -11605, -11605, 10749, 10749,
    -1219, -1219, -1607, -1607, 1143, 1143, -525, -525,
    -11999, -11999, -15818, -15818, 11251, 11251, -5168, -5168,
    1227, 1227, -855, -855, 1481, 1481, -682, -682,
    12078, 12078, -8416, -8416, 14578, 14578, -6713, -6713,
    -735, -735, 757, 757, 1645, 1645, -109, -109,
    -7235, -7235, 7451, 7451, 16192, 16192, -1073, -1073,
    -863, -863, -556, -556, -1239, -1239, -1292, -1292,
    -8495, -8495, -5473, -5473, -12196, -12196, -12717, -12717,
    -927, -927, -461, -461, 452, 452, 1435, 1435,
    -9125, -9125, -4538, -4538, 4449, 4449, 14125, 14125,
    561, 561, 319, 319, -780, -780, -1031, -1031,
    5522, 5522, 3140, 3140, -7678, -7678, -10148, -10148,
    -1230, -1230, 1063, 1063, 375, 375, 1584, 1584,
    -12107, -12107, 10463, 10463, 3691, 3691, 15592, 15592,
    1534, 1534, 1438, 1438, 807, 807, -1010, -1010,
    15099, 15099, 14155, 14155, 7943, 7943, -9942, -9942,
    641, 641, -941, -941, -642, -642, -1540, -1540,
    6309, 6309, -9262, -9262, -6319, -6319, -15159, -15159,
    268, 268, -892, -892, 1461, 1461, -540, -540,
    2638, 2638, -8780, -8780, 14381, 14381, -5315, -5315,
    -1414, -1414, 33, 33, 632, 632, -1352, -1352,
    -13918, -13918, 325, 325, 6221, 6221, -13308, -13308,
    -992, -992, -1021, -1021, 952, 952, 1651, 1651,
    -9764, -9764, -10050, -10050, 9371, 9371, 16251, 16251,
    733, 733, 939, 939, -1482, -1482, -1626, -1626,
    7215, 7215, 9243, 9243, -14588, -14588, -16005, -16005,
    1320, 1320, -464, -464, -816, -816, 650, 650,
    12993, 12993, -4567, -4567, -8032, -8032, 6398, 6398,
    -279, -279, 233, 233, 1100, 1100, -680, -680,
    -2746, -2746, 2293, 2293, 10828, 10828, -6693, -6693,
    -314, -314, -48, -48, -1041, -1041, 583, 583,
    -3091, -3091, -472, -472, -10247, -10247, 5739, 5739,
    -1274, -1274, -1025, -1025, -1573, -1573, 331, 331,
    -12540, -12540, -10089, -10089, -15483, -15483, 3258, 3258,
    -1173, -1173, -667, -667, 723, 723, -568, -568,
    -11546, -11546, -6565, -6565, 7117, 7117, -5591, -5591,
    756, 756, 1409, 1409, 1637, 1637, 17, 17,
    7441, 7441, 13869, 13869, 16113, 16113, 167, 167,
    -1052, -1052, 1197, 1197, -76, -76, 289, 289,
    -10355, -10355, 11782, 11782, -748, -748, 2845, 2845,
};

const int16_t pqh_mlkem_bm_g[512] = {
    17, 17, 1637, 1637, 1409, 1409, 756, 756,
    167, 167, 16113, 16113, 13869, 13869, 7441, 7441,
    -17, -17, -1637, -1637, -1409, -1409, -756, -756,
    -167, -167, -16113, -16113, -13869, -13869, -7441, -7441,
    -568, -568, 723, 723, -667, -667, -1173, -1173,
    -5591, -5591, 7117, 7117, -6565, -6565, -11546, -11546,
    568, 568, -723, -723, 667, 667, 1173, 1173,
    5591, 5591, -7117, -7117, 6565, 6565, 11546, 11546,
    583, 583, -1041, -1041, -48, -48, -314, -314,
    5739, 5739, -10247, -10247, -472, -472, -3091, -3091,
    -583, -583, 1041, 1041, 48, 48, 314, 314,
    -5739, -5739, 10247, 10247, 472, 472, 3091, 3091,
    -680, -680, 1100, 1100, 233, 233, -279, -279,
    -6693, -6693, 10828, 10828, 2293, 2293, -2746, -2746,
    680, 680, -1100, -1100, -233, -233, 279, 279,
    6693, 6693, -10828, -10828, -2293, -2293, 2746, 2746,
    -1626, -1626, -1482, -1482, 939, 939, 733, 733,
    -16005, -16005, -14588, -14588, 9243, 9243, 7215, 7215,
    1626, 1626, 1482, 1482, -939, -939, -733, -733,
    16005, 16005, 14588, 14588, -9243, -9243, -7215, -7215,
    1651, 1651, 952, 952, -1021, -1021, -992, -992,
    16251, 16251, 9371, 9371, -10050, -10050, -9764, -9764,
    -1651, -1651, -952, -952, 1021, 1021, 992, 992,
    -16251, -16251, -9371, -9371, 10050, 10050, 9764, 9764,
    -540, -540, 1461, 1461, -892, -892, 268, 268,
    -5315, -5315, 14381, 14381, -8780, -8780, 2638, 2638,
    540, 540, -1461, -1461, 892, 892, -268, -268,
    5315, 5315, -14381, -14381, 8780, 8780, -2638, -2638,
    -1540, -1540, -642, -642, -941, -941, 641, 641,
    -15159, -15159, -6319, -6319, -9262, -9262, 6309, 6309,
    1540, 1540, 642, 642, 941, 941, -641, -641,
    15159, 15159, 6319, 6319, 9262, 9262, -6309, -6309,
    1584, 1584, 375, 375, 1063, 1063, -1230, -1230,
    15592, 15592, 3691, 3691, 10463, 10463, -12107, -12107,
    -1584, -1584, -375, -375, -1063, -1063, 1230, 1230,
    -15592, -15592, -3691, -3691, -10463, -10463, 12107, 12107,
    -1031, -1031, -780, -780, 319, 319, 561, 561,
    -10148, -10148, -7678, -7678, 3140, 3140, 5522, 5522,
    1031, 1031, 780, 780, -319, -319, -561, -561,
    10148, 10148, 7678, 7678, -3140, -3140, -5522, -5522,
    -1292, -1292, -1239, -1239, -556, -556, -863, -863,
    -12717, -12717, -12196, -12196, -5473, -5473, -8495, -8495,
    1292, 1292, 1239, 1239, 556, 556, 863, 863,
    12717, 12717, 12196, 12196, 5473, 5473, 8495, 8495,
    -109, -109, 1645, 1645, 757, 757, -735, -735,
    -1073, -1073, 16192, 16192, 7451, 7451, -7235, -7235,
    109, 109, -1645, -1645, -757, -757, 735, 735,
    1073, 1073, -16192, -16192, -7451, -7451, 7235, 7235,
    -525, -525, 1143, 1143, -1607, -1607, -1219, -1219,
    -5168, -5168, 11251, 11251, -15818, -15818, -11999, -11999,
    525, 525, -1143, -1143, 1607, 1607, 1219, 1219,
    5168, 5168, -11251, -11251, 15818, 15818, 11999, 11999,
    1092, 1092, -1179, -1179, 1212, 1212, -394, -394,
    10749, 10749, -11605, -11605, 11930, 11930, -3878, -3878,
    -1092, -1092, 1179, 1179, -1212, -1212, 394, 394,
    -10749, -10749, 11605, 11605, -11930, -11930, 3878, 3878,
    403, 403, -554, -554, -1455, -1455, 885, 885,
    3967, 3967, -5453, -5453, -14322, -14322, 8711, 8711,
    -403, -403, 554, 554, 1455, 1455, -885, -885,
    -3967, -3967, 5453, 5453, 14322, 14322, -8711, -8711,
    1026, 1026, 886, 886, 1029, 1029, -1175, -1175,
    10099, 10099, 8721, 8721, 10129, 10129, -11566, -11566,
    -1026, -1026, -886, -886, -1029, -1029, 1175, 1175,
    -10099, -10099, -8721, -8721, -10129, -10129, 11566, 11566,
};

static inline int16x8_t mulmod_n(int16x8_t a, int16_t z, int16_t zt)
{
    return vmlaq_n_s16(vmulq_n_s16(a, z), vqrdmulhq_n_s16(a, zt), -MLKEM_Q);
}

static inline int16x8_t mulmod_v(int16x8_t a, const int16_t *row)
{
    return vmlaq_n_s16(vmulq_s16(a, vld1q_s16(row)), vqrdmulhq_s16(a, vld1q_s16(row + 8)), -MLKEM_Q);
}

static inline int16x8_t reduce1(int16x8_t a)
{
    return vmlaq_n_s16(a, vqrdmulhq_n_s16(a, MLKEM_ONE_TW), -MLKEM_Q);
}

/* Cooley-Tukey butterfly: (u, v) -> (u + t, u - t), t = v * zeta. */
#define CT_N(u, v, k)                                                                       \
    do {                                                                                    \
        int16x8_t t_ = mulmod_n((v), pqh_mlkem_zeta[(k)], pqh_mlkem_zeta_tw[(k)]);         \
        (v) = vsubq_s16((u), t_);                                                           \
        (u) = vaddq_s16((u), t_);                                                           \
    } while (0)
#define CT_V(u, v, row)                                                                     \
    do {                                                                                    \
        int16x8_t t_ = mulmod_v((v), (row));                                                \
        (v) = vsubq_s16((u), t_);                                                           \
        (u) = vaddq_s16((u), t_);                                                           \
    } while (0)
/* Gentleman-Sande butterfly: (u, v) -> (u + v, (v - u) * zeta). */
#define GS_N(u, v, k)                                                                       \
    do {                                                                                    \
        int16x8_t d_ = vsubq_s16((v), (u));                                                 \
        (u) = vaddq_s16((u), (v));                                                          \
        (v) = mulmod_n(d_, pqh_mlkem_zeta[(k)], pqh_mlkem_zeta_tw[(k)]);                   \
    } while (0)
#define GS_V(u, v, row)                                                                     \
    do {                                                                                    \
        int16x8_t d_ = vsubq_s16((v), (u));                                                 \
        (u) = vaddq_s16((u), (v));                                                          \
        (v) = mulmod_v(d_, (row));                                                          \
    } while (0)

/* vld4q_s16 / vst4q_s16 (VLD40-VLD43, VST40-VST43) on four vectors fixed in q4-q7: gcc 12 moves an int16x8x4_t
 * through the stack, so the four instructions are written out, with the same semantics as the intrinsics. */
#define VLD4_Q4_Q7(r, a0, a1, a2, a3)                                                              \
    register int16x8_t a0 __asm__("q4"), a1 __asm__("q5"), a2 __asm__("q6"), a3 __asm__("q7");   \
    __asm__ volatile("vld40.16 {q4, q5, q6, q7}, [%4]\n\tvld41.16 {q4, q5, q6, q7}, [%4]\n\t"        \
                     "vld42.16 {q4, q5, q6, q7}, [%4]\n\tvld43.16 {q4, q5, q6, q7}, [%4]"              \
                     : "=w"(a0), "=w"(a1), "=w"(a2), "=w"(a3)                                    \
                     : "r"(r)                                                                    \
                     : "memory")
#define VST4_Q4_Q7(r, a0, a1, a2, a3)                                                              \
    __asm__ volatile("vst40.16 {q4, q5, q6, q7}, [%4]\n\tvst41.16 {q4, q5, q6, q7}, [%4]\n\t"        \
                     "vst42.16 {q4, q5, q6, q7}, [%4]\n\tvst43.16 {q4, q5, q6, q7}, [%4]"              \
                     :                                                                           \
                     : "w"(a0), "w"(a1), "w"(a2), "w"(a3), "r"(r)                                \
                     : "memory")

void mlkem_ntt_fwd_mve(int16_t p[256])
{
    /* pass 1: layers 1 (c7, +128) and 2 (c6, +64) */
    for (unsigned j = 0; j < 8; j++) {
        int16_t *r = p + 8 * j;
        int16x8_t x0 = vld1q_s16(r), x1 = vld1q_s16(r + 64), x2 = vld1q_s16(r + 128), x3 = vld1q_s16(r + 192);
        CT_N(x0, x2, 1);
        CT_N(x1, x3, 1);
        CT_N(x0, x1, 2);
        CT_N(x2, x3, 3);
        vst1q_s16(r, x0);
        vst1q_s16(r + 64, x1);
        vst1q_s16(r + 128, x2);
        vst1q_s16(r + 192, x3);
    }
    /* pass 2: layers 3 (c5, +16) and 4 (c4, +8); group g = (c3, c6, c7) */
    for (unsigned g = 0; g < 8; g++) {
        int16_t *r = p + 32 * g;
        unsigned m = g >> 1;
        int16x8_t x0 = vld1q_s16(r), x1 = vld1q_s16(r + 8), x2 = vld1q_s16(r + 16), x3 = vld1q_s16(r + 24);
        CT_N(x0, x2, 4 + m);
        CT_N(x1, x3, 4 + m);
        CT_N(x0, x1, 8 + 2 * m);
        CT_N(x2, x3, 9 + 2 * m);
        vst1q_s16(r, x0);
        vst1q_s16(r + 8, x1);
        vst1q_s16(r + 16, x2);
        vst1q_s16(r + 24, x3);
    }
    /* pass 3: layer 5 (c3, +32): vector i = (c4, c5, c6, c7) of the lower half of each 64-block, zeta 16 + i */
    for (unsigned i = 0; i < 16; i++) {
        int16_t *r = p + 64 * (i >> 2) + 8 * (i & 3);
        int16x8_t x = vld1q_s16(r), y = vld1q_s16(r + 32);
        CT_N(x, y, 16 + i);
        vst1q_s16(r, x);
        vst1q_s16(r + 32, y);
    }
    /* pass 4: layers 6 (c2: vectors k, k + 2) and 7 (c1: k, k + 1) on vld4q of each 32-block */
    for (unsigned blk = 0; blk < 8; blk++) {
        int16_t *r = p + 32 * blk;
        const int16_t *z = fwd_d + 48 * blk;
        VLD4_Q4_Q7(r, a0, a1, a2, a3);
        CT_V(a0, a2, z);
        CT_V(a1, a3, z);
        CT_V(a0, a1, z + 16);
        CT_V(a2, a3, z + 32);
        VST4_Q4_Q7(r, a0, a1, a2, a3);
    }
}

void mlkem_ntt_inv_mve(int16_t p[256])
{
    /* pass 1: reduce, layers 7 (c1: vectors k, k + 1) and 6 (c2: k, k + 2) on vld4q of each 32-block */
    for (unsigned blk = 0; blk < 8; blk++) {
        int16_t *r = p + 32 * blk;
        const int16_t *z = inv_d + 48 * blk;
        VLD4_Q4_Q7(r, a0, a1, a2, a3);
        a0 = reduce1(a0);
        a1 = reduce1(a1);
        a2 = reduce1(a2);
        a3 = reduce1(a3);
        GS_V(a0, a1, z);
        GS_V(a2, a3, z + 16);
        GS_V(a0, a2, z + 32);
        GS_V(a1, a3, z + 32);
        VST4_Q4_Q7(r, a0, a1, a2, a3);
    }
    /* pass 2: layer 5 (c3, +32), then reduce: vector i = (c4, c5, c6, c7), zeta 31 - i */
    for (unsigned i = 0; i < 16; i++) {
        int16_t *r = p + 64 * (i >> 2) + 8 * (i & 3);
        int16x8_t x = vld1q_s16(r), y = vld1q_s16(r + 32);
        GS_N(x, y, 31 - i);
        vst1q_s16(r, reduce1(x));
        vst1q_s16(r + 32, reduce1(y));
    }
    /* pass 3: layers 4 (c4, +8) and 3 (c5, +16) */
    for (unsigned g = 0; g < 8; g++) {
        int16_t *r = p + 32 * g;
        unsigned m = g >> 1;
        int16x8_t x0 = vld1q_s16(r), x1 = vld1q_s16(r + 8), x2 = vld1q_s16(r + 16), x3 = vld1q_s16(r + 24);
        GS_N(x0, x1, 15 - 2 * m);
        GS_N(x2, x3, 14 - 2 * m);
        GS_N(x0, x2, 7 - m);
        GS_N(x1, x3, 7 - m);
        vst1q_s16(r, x0);
        vst1q_s16(r + 8, x1);
        vst1q_s16(r + 16, x2);
        vst1q_s16(r + 24, x3);
    }
    /* pass 4: layer 2 (c6, +64), layer 1 (c7, +128) with the scaling by 128^-1 */
    for (unsigned j = 0; j < 8; j++) {
        int16_t *r = p + 8 * j;
        int16x8_t x0 = vld1q_s16(r), x1 = vld1q_s16(r + 64), x2 = vld1q_s16(r + 128), x3 = vld1q_s16(r + 192);
        GS_N(x0, x1, 3);
        GS_N(x2, x3, 2);
        int16x8_t d0 = vsubq_s16(x2, x0), d1 = vsubq_s16(x3, x1);
        x0 = mulmod_n(vaddq_s16(x0, x2), MLKEM_F, MLKEM_F_TW);
        x1 = mulmod_n(vaddq_s16(x1, x3), MLKEM_F, MLKEM_F_TW);
        x2 = mulmod_n(d0, MLKEM_ZF, MLKEM_ZF_TW);
        x3 = mulmod_n(d1, MLKEM_ZF, MLKEM_ZF_TW);
        vst1q_s16(r, x0);
        vst1q_s16(r + 64, x1);
        vst1q_s16(r + 128, x2);
        vst1q_s16(r + 192, x3);
    }
}

static inline int16x8_t barrett32_pair(int32x4_t even, int32x4_t odd, int16x8_t inactive)
{
    int32x4_t re = vmlaq_n_s32(even, vqrdmulhq_n_s32(even, MLKEM_BARRETT32), -MLKEM_Q);
    int32x4_t ro = vmlaq_n_s32(odd, vqrdmulhq_n_s32(odd, MLKEM_BARRETT32), -MLKEM_Q);
    return vmovntq_s32(vmovnbq_s32(inactive, re), ro);
}

void mlkem_basemul_mve(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned blk = 0; blk < 8; blk++) {
        int16x8x4_t x = vld4q_s16(a + 32 * blk), y = vld4q_s16(b + 32 * blk), o;
        const int16_t *g = pqh_mlkem_bm_g + 64 * blk;
        for (unsigned k = 0; k < 4; k++) {
            int16x8_t bg = mulmod_v(y.val[k], g + 16 * k);
            int16x8_t bs = vrev32q_s16(y.val[k]);
            int32x4_t even = vaddq_s32(vmullbq_int_s16(x.val[k], y.val[k]), vmulltq_int_s16(x.val[k], bg));
            int32x4_t odd = vaddq_s32(vmullbq_int_s16(x.val[k], bs), vmulltq_int_s16(x.val[k], bs));
            o.val[k] = barrett32_pair(even, odd, bg);
        }
        vst4q_s16(out + 32 * blk, o);
    }
}

/* Lane l of a plain vector at 8v holds coefficient coeff(8v) + lane_coeff[l]. */
static const int16_t lane_coeff[8] = {0, 2, 4, 6, 1, 3, 5, 7};

static inline uint16_t coeff_of_vector(unsigned v)
{
    /* v bits: c4, c5, c3, c6, c7 */
    return (uint16_t)(((v & 1u) << 4) | ((v & 2u) << 4) | ((v & 4u) << 1) | ((v & 24u) << 3));
}

void mlkem_to_mve(int16_t out[256], const int16_t in[256])
{
    uint16x8_t base = vreinterpretq_u16_s16(vld1q_s16(lane_coeff));
    for (unsigned v = 0; v < 32; v++)
        vst1q_s16(out + 8 * v, vldrhq_gather_shifted_offset_s16(in, vaddq_n_u16(base, coeff_of_vector(v))));
}

void mlkem_from_mve(int16_t out[256], const int16_t in[256])
{
    uint16x8_t base = vreinterpretq_u16_s16(vld1q_s16(lane_coeff));
    int16x8_t q = vdupq_n_s16(MLKEM_Q);
    for (unsigned v = 0; v < 32; v++) {
        int16x8_t x = reduce1(vld1q_s16(in + 8 * v));
        x = vaddq_s16(x, vandq_s16(vshrq_n_s16(x, 16), q));
        vstrhq_scatter_shifted_offset_s16(out, vaddq_n_u16(base, coeff_of_vector(v)), x);
    }
}
