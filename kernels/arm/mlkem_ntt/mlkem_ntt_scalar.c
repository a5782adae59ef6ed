/*
 * mlkem.ntt.fwd.scalar, mlkem.ntt.inv.scalar, mlkem.basemul.scalar: portable C baselines of the ML-KEM NTT kernels
 * (q = 3329, n = 256), with exactly the arithmetic of the MVE kernels (mlkem_ntt.mve.c), coefficient by coefficient.
 *
 * Representation: int16_t, signed, any representative (not reduced); values are congruent mod q to the FIPS 203
 * results, with no Montgomery factor. Storage order: FIPS 203 (coefficient i at index i; in the NTT domain the
 * bit-reversed order of Algorithm 9, the pair (2i, 2i+1) being the residue mod X^2 - gamma_i).
 * Modular multiplication (Barrett with a twisted constant): mulmod(a, z) = a*z - q*round(a*z'/2^15) with
 * z' = round(z*2^15/q), z centred; |mulmod(a, z)| <= q/2 + |a|*|z'q - z 2^15| / 2^15 < q for |a| < 2^15.
 * Bounds (named in mlkem_ntt.h, proved by pqhelium_sim::mlkem_ntt::bounds):
 * - fwd: in |x| <= MLKEM_FWD_IN_MAX; out |x| <= MLKEM_FWD_OUT_MAX. Layers: u + t, u - t, t = mulmod(v, z).
 * - inv: in any int16_t; the input is Barrett-reduced, layers 7, 6, 5 (len 2, 4, 8), reduce, layers 4, 3, 2, then layer
 *   1 merged with the scaling by 128^-1; out |x| <= MLKEM_INV_OUT_MAX < q.
 * - basemul: in |a|, |b| <= MLKEM_BASEMUL_IN_MAX; 32-bit products, one 32-bit Barrett reduction per output;
 *   out |x| <= MLKEM_BASEMUL_OUT_MAX < q.
 */
#include <stdint.h>

#include "mlkem_ntt.h"

const int16_t pqh_mlkem_zeta[128] = {
    1, -1600, -749, -40, -687, 630, -1432, 848, 1062, -1410, 193, 797, -543, -69, 569, -1583,
    296, -882, 1339, 1476, -283, 56, -1089, 1333, 1426, -1235, 535, -447, -936, -450, -1355, 821,
    289, 331, -76, -1573, 1197, -1025, -1052, -1274, 650, -1352, -816, 632, -464, 33, 1320, -1414,
    -1010, 1435, 807, 452, 1438, -461, 1534, -927, -682, -712, 1481, 648, -855, -219, 1227, 910,
    17, -568, 583, -680, 1637, 723, -1041, 1100, 1409, -667, -48, 233, 756, -1173, -314, -279,
    -1626, 1651, -540, -1540, -1482, 952, 1461, -642, 939, -1021, -892, -941, 733, -992, 268, 641,
    1584, -1031, -1292, -109, 375, -780, -1239, 1645, 1063, 319, -556, 757, -1230, 561, -863, -735,
    -525, 1092, 403, 1026, 1143, -1179, -554, 886, -1607, 1212, -1455, 1029, -1219, -394, 885, -1175,
};

const int16_t pqh_mlkem_zeta_tw[128] = {
    10, -15749, -7373, -394, -6762, 6201, -14095, 8347, 10453, -13879, 1900, 7845, -5345, -679, 5601, -15582,
    2914, -8682, 13180, 14529, -2786, 551, -10719, 13121, 14036, -12156, 5266, -4400, -9213, -4429, -13338, 8081,
    2845, 3258, -748, -15483, 11782, -10089, -10355, -12540, 6398, -13308, -8032, 6221, -4567, 325, 12993, -13918,
    -9942, 14125, 7943, 4449, 14155, -4538, 15099, -9125, -6713, -7008, 14578, 6378, -8416, -2156, 12078, 8957,
    167, -5591, 5739, -6693, 16113, 7117, -10247, 10828, 13869, -6565, -472, 2293, 7441, -11546, -3091, -2746,
    -16005, 16251, -5315, -15159, -14588, 9371, 14381, -6319, 9243, -10050, -8780, -9262, 7215, -9764, 2638, 6309,
    15592, -10148, -12717, -1073, 3691, -7678, -12196, 16192, 10463, 3140, -5473, 7451, -12107, 5522, -8495, -7235,
    -5168, 10749, 3967, 10099, 11251, -11605, -5453, 8721, -15818, 11930, -14322, 10129, -11999, -3878, 8711, -11566,
};

const int16_t pqh_mlkem_gamma[128] = {
    17, -17, -568, 568, 583, -583, -680, 680, 1637, -1637, 723, -723, -1041, 1041, 1100, -1100,
    1409, -1409, -667, 667, -48, 48, 233, -233, 756, -756, -1173, 1173, -314, 314, -279, 279,
    -1626, 1626, 1651, -1651, -540, 540, -1540, 1540, -1482, 1482, 952, -952, 1461, -1461, -642, 642,
    939, -939, -1021, 1021, -892, 892, -941, 941, 733, -733, -992, 992, 268, -268, 641, -641,
    1584, -1584, -1031, 1031, -1292, 1292, -109, 109, 375, -375, -780, 780, -1239, 1239, 1645, -1645,
    1063, -1063, 319, -319, -556, 556, 757, -757, -1230, 1230, 561, -561, -863, 863, -735, 735,
    -525, 525, 1092, -1092, 403, -403, 1026, -1026, 1143, -1143, -1179, 1179, -554, 554, 886, -886,
    -1607, 1607, 1212, -1212, -1455, 1455, 1029, -1029, -1219, 1219, -394, 394, 885, -885, -1175, 1175,
};

const int16_t pqh_mlkem_gamma_tw[128] = {
    167, -167, -5591, 5591, 5739, -5739, -6693, 6693, 16113, -16113, 7117, -7117, -10247, 10247, 10828, -10828,
    13869, -13869, -6565, 6565, -472, 472, 2293, -2293, 7441, -7441, -11546, 11546, -3091, 3091, -2746, 2746,
    -16005, 16005, 16251, -16251, -5315, 5315, -15159, 15159, -14588, 14588, 9371, -9371, 14381, -14381, -6319, 6319,
    9243, -9243, -10050, 10050, -8780, 8780, -9262, 9262, 7215, -7215, -9764, 9764, 2638, -2638, 6309, -6309,
    15592, -15592, -10148, 10148, -12717, 12717, -1073, 1073, 3691, -3691, -7678, 7678, -12196, 12196, 16192, -16192,
    10463, -10463, 3140, -3140, -5473, 5473, 7451, -7451, -12107, 12107, 5522, -5522, -8495, 8495, -7235, 7235,
    -5168, 5168, 10749, -10749, 3967, -3967, 10099, -10099, 11251, -11251, -11605, 11605, -5453, 5453, 8721, -8721,
    -15818, 15818, 11930, -11930, -14322, 14322, 10129, -10129, -11999, 11999, -3878, 3878, 8711, -8711, -11566, 11566,
};

/* Barrett multiplication by z with its twisted form zt: a z - q round(a zt / 2^15). */
static inline int16_t mulmod(int16_t a, int16_t z, int16_t zt)
{
    int32_t t = ((int32_t)a * zt + (1 << 14)) >> 15;
    return (int16_t)((int32_t)a * z - t * MLKEM_Q);
}

static inline int16_t reduce1(int16_t a)
{
    return mulmod(a, 1, MLKEM_ONE_TW);
}

static inline int16_t barrett32(int32_t x)
{
    int32_t t = (int32_t)(((int64_t)x * MLKEM_BARRETT32 + (1 << 30)) >> 31);
    return (int16_t)(x - t * MLKEM_Q);
}

void mlkem_ntt_fwd_scalar(int16_t p[256])
{
    unsigned k = 1;
    for (unsigned len = 128; len >= 2; len >>= 1) {
        for (unsigned start = 0; start < 256; start += 2 * len) {
            int16_t z = pqh_mlkem_zeta[k], zt = pqh_mlkem_zeta_tw[k];
            k++;
            for (unsigned j = start; j < start + len; j++) {
                int16_t t = mulmod(p[j + len], z, zt);
                int16_t u = p[j];
                p[j + len] = (int16_t)(u - t);
                p[j] = (int16_t)(u + t);
            }
        }
    }
}

/* One Gentleman-Sande layer: (u, v) -> (u + v, zeta * (v - u)). */
static void inv_layer(int16_t p[256], unsigned len)
{
    unsigned k = 256 / len - 1;
    for (unsigned start = 0; start < 256; start += 2 * len, k--) {
        int16_t z = pqh_mlkem_zeta[k], zt = pqh_mlkem_zeta_tw[k];
        for (unsigned j = start; j < start + len; j++) {
            int16_t u = p[j], v = p[j + len];
            p[j] = (int16_t)(u + v);
            p[j + len] = mulmod((int16_t)(v - u), z, zt);
        }
    }
}

void mlkem_ntt_inv_scalar(int16_t p[256])
{
    for (unsigned i = 0; i < 256; i++)
        p[i] = reduce1(p[i]);
    inv_layer(p, 2);
    inv_layer(p, 4);
    inv_layer(p, 8);
    for (unsigned i = 0; i < 256; i++)
        p[i] = reduce1(p[i]);
    inv_layer(p, 16);
    inv_layer(p, 32);
    inv_layer(p, 64);
    for (unsigned j = 0; j < 128; j++) {
        int16_t u = p[j], v = p[j + 128];
        p[j] = mulmod((int16_t)(u + v), MLKEM_F, MLKEM_F_TW);
        p[j + 128] = mulmod((int16_t)(v - u), MLKEM_ZF, MLKEM_ZF_TW);
    }
}

void mlkem_basemul_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256])
{
    for (unsigned i = 0; i < 128; i++) {
        int32_t a0 = a[2 * i], a1 = a[2 * i + 1], b0 = b[2 * i], b1 = b[2 * i + 1];
        int32_t bg = mulmod((int16_t)b1, pqh_mlkem_gamma[i], pqh_mlkem_gamma_tw[i]);
        out[2 * i] = barrett32(a0 * b0 + a1 * bg);
        out[2 * i + 1] = barrett32(a0 * b1 + a1 * b0);
    }
}
