/* ML-KEM's forward NTT (FIPS 203 order) over pqhelium's own twiddle table: `byo_zeta` is not defined here, the
 * manifest (ntt_alias.toml) makes it an alias of pqhelium's `pqh_mlkem_zeta` (zeta^BitRev7(k), centred). Plain `%`
 * reductions keep every value in (-q, q); the bench reduces the output mod q before comparing it. */
#include <stdint.h>

#define Q 3329

extern const int16_t byo_zeta[128];

void byo_ntt_fwd_alias(int16_t p[256]) {
    unsigned k = 1;
    for (unsigned len = 128; len >= 2; len >>= 1) {
        for (unsigned start = 0; start < 256; start += 2 * len) {
            int32_t z = byo_zeta[k++];
            for (unsigned j = start; j < start + len; j++) {
                int32_t t = z * p[j + len] % Q;
                int32_t u = p[j] % Q;
                p[j + len] = (int16_t)((u - t) % Q);
                p[j] = (int16_t)((u + t) % Q);
            }
        }
    }
}
