/* ML-DSA forward NTT for Helium (MVE, four 32-bit lanes): the butterflies of the six layers with len >= 4 on
 * vectors, the last two layers (len 2, 1) in scalar code. Same input and output as mldsa_ntt_c: natural order with
 * |a[i]| < q in, FIPS 204's bit-reversed order with |a[i]| < 9q out.
 *
 * Montgomery multiplication per lane: t = hi(b zeta) - hi(m q), m = low(b zeta q^-1): VMULH gives the high halves
 * of the signed 64-bit products, VMUL the low half.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "mldsa_zetas.h"

void mldsa_ntt_mve(int32_t a[256]) {
    const int32x4_t q = vdupq_n_s32(MLDSA_Q);
    unsigned k = 0;
    unsigned len = 128;
    for (; len >= 4; len >>= 1) {
        for (unsigned start = 0; start < 256; start += 2 * len) {
            int32_t zeta = mldsa_zetas[++k];
            int32x4_t z = vdupq_n_s32(zeta);
            int32x4_t zq = vdupq_n_s32((int32_t)((uint32_t)zeta * MLDSA_QINV));
            for (unsigned j = start; j < start + len; j += 4) {
                int32x4_t x = vld1q_s32(&a[j]);
                int32x4_t y = vld1q_s32(&a[j + len]);
                int32x4_t m = vmulq_s32(y, zq);
                int32x4_t t = vsubq_s32(vmulhq_s32(y, z), vmulhq_s32(m, q));
                vst1q_s32(&a[j + len], vsubq_s32(x, t));
                vst1q_s32(&a[j], vaddq_s32(x, t));
            }
        }
    }
    for (; len >= 1; len >>= 1) {
        for (unsigned start = 0; start < 256; start += 2 * len) {
            int32_t zeta = mldsa_zetas[++k];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = mldsa_montmul(a[j + len], zeta);
                a[j + len] = a[j] - t;
                a[j] = a[j] + t;
            }
        }
    }
}
