/* FN-DSA v0.4 key generation on the guest, whole (keygen.c): entry points, the fixed-point kernels it runs on, and
 * the small primes of the NTRU solver (keygen_primes.c). */
#ifndef PQH_FNDSA_KEYGEN_PAIR_H
#define PQH_FNDSA_KEYGEN_PAIR_H

#include <stdint.h>

/* Key sizes at logn 10; logn 9 writes the first 1345 (signing key) and 897 (verifying key) bytes. */
#define FNDSA_KEYGEN_MAX_SIGNING_KEY 2369u
#define FNDSA_KEYGEN_MAX_VERIFYING_KEY 1793u

/* fndsa.keygen.pair (MVE FFT, VDIV.F64 divisions; M55 and M85 images) and fndsa.keygen.pair.scalar (portable C,
 * every image): the key pair of seed at logn 9 or 10, as pqhelium_core::fndsa::keygen_from_seed then the encodings
 * of fndsa::keygen. Returns 1 after writing sk and vk, 0 (sk and vk untouched) for another logn or when no
 * candidate of 2000 gives a key. */
uint32_t fndsa_keygen_pair(uint8_t sk[FNDSA_KEYGEN_MAX_SIGNING_KEY], uint8_t vk[FNDSA_KEYGEN_MAX_VERIFYING_KEY],
                           const uint8_t *seed, uint32_t seed_len, uint32_t logn);
uint32_t fndsa_keygen_pair_scalar(uint8_t sk[FNDSA_KEYGEN_MAX_SIGNING_KEY],
                                  uint8_t vk[FNDSA_KEYGEN_MAX_VERIFYING_KEY], const uint8_t *seed, uint32_t seed_len,
                                  uint32_t logn);

/* The fixed-point kernel family (pqhelium_core::fndsa::keygen::FxpKernels) a build runs on. */
struct fndsa_fxp_kernels {
    void (*fft)(uint64_t *f, uint32_t logn);
    void (*ifft)(uint64_t *f, uint32_t logn);
    void (*div_selfadj)(uint64_t *a, const uint64_t *b, uint32_t logn);
    void (*invnorm)(uint64_t *d, const uint64_t *a, const uint64_t *b, uint32_t logn, uint32_t e);
    void (*inv_mul2e)(uint64_t *a, uint32_t logn, uint32_t e);
};

uint32_t fndsa_keygen_pair_with(const struct fndsa_fxp_kernels *kernels, uint8_t *sk, uint8_t *vk,
                                const uint8_t *seed, uint32_t seed_len, uint32_t logn);

/* One prime p = 1 mod 2048 below 2^31 with its Montgomery constants (R = 2^32): -1/p mod 2^32, 2^64 mod p, a
 * primitive 2048th root of 1 and its inverse (Montgomery form), and 1 / (product of the previous primes) mod p
 * (Montgomery form, Garner's coefficient). */
struct fndsa_small_prime {
    uint32_t p, p0i, r2, g, ig, s;
};

#define FNDSA_KEYGEN_PRIMES 308
extern const struct fndsa_small_prime fndsa_keygen_primes[FNDSA_KEYGEN_PRIMES];

#endif
