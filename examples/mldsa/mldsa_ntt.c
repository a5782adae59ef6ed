/* ML-DSA forward NTT, portable C (FIPS 204, Algorithm 41), Montgomery butterflies.
 * In: 256 coefficients, |a[i]| < q, natural order. Out: the NTT in FIPS 204's (bit-reversed) order, |a[i]| < 9q:
 * each of the 8 layers adds less than q to the bound.
 */
#include <stdint.h>

#include "mldsa_zetas.h"

void mldsa_ntt_c(int32_t a[256]) {
    unsigned k = 0;
    for (unsigned len = 128; len >= 1; len >>= 1) {
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
