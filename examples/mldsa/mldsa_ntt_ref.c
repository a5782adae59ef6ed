/* ML-DSA forward NTT for the host, as FIPS 204 defines it (Algorithm 41) on residues mod q, with its zetas computed
 * from their definition: zetas[k] = 1753^brv8(k) mod q. The reference of examples/mldsa/mldsa.toml.
 * In: any representatives mod q. Out: canonical residues in [0, q), FIPS 204's (bit-reversed) order.
 */
#include <stdint.h>

#define Q 8380417
#define ZETA 1753

static int64_t power(int64_t base, unsigned e) {
    int64_t r = 1;
    for (; e; e >>= 1, base = base * base % Q) {
        if (e & 1) {
            r = r * base % Q;
        }
    }
    return r;
}

static unsigned brv8(unsigned k) {
    unsigned r = 0;
    for (int i = 0; i < 8; i++) {
        r |= ((k >> i) & 1u) << (7 - i);
    }
    return r;
}

void mldsa_ntt_ref(int32_t w[256]) {
    int64_t a[256];
    for (int i = 0; i < 256; i++) {
        a[i] = ((int64_t)w[i] % Q + Q) % Q;
    }
    unsigned m = 0;
    for (unsigned len = 128; len >= 1; len /= 2) {
        for (unsigned start = 0; start < 256; start += 2 * len) {
            int64_t z = power(ZETA, brv8(++m));
            for (unsigned j = start; j < start + len; j++) {
                int64_t t = z * a[j + len] % Q;
                a[j + len] = (a[j] - t + Q) % Q;
                a[j] = (a[j] + t) % Q;
            }
        }
    }
    for (int i = 0; i < 256; i++) {
        w[i] = (int32_t)a[i];
    }
}
