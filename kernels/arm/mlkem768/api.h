/*
 * ML-KEM-768 (FIPS 203), portable build: the pqm4 API. Our images hold several schemes, so the three functions carry
 * the build's name as a prefix (pqm4 and PQClean namespace theirs the same way); the host calls them by that name.
 */
#ifndef PQH_MLKEM768_API_H
#define PQH_MLKEM768_API_H
#include <stdint.h>

#define CRYPTO_ALGNAME "ML-KEM-768"
#define CRYPTO_PUBLICKEYBYTES 1184
#define CRYPTO_SECRETKEYBYTES 2400
#define CRYPTO_CIPHERTEXTBYTES 1088
#define CRYPTO_BYTES 32

/* another build of these sources names its own (mlkem768_mve/, selftest/mlkem768_ss_mutant.c) */
#ifndef crypto_kem_keypair
#define crypto_kem_keypair mlkem768_portable_crypto_kem_keypair
#define crypto_kem_enc mlkem768_portable_crypto_kem_enc
#define crypto_kem_dec mlkem768_portable_crypto_kem_dec
#define crypto_kem_keypair_derand mlkem768_portable_crypto_kem_keypair_derand
#define crypto_kem_enc_derand mlkem768_portable_crypto_kem_enc_derand
#endif

int crypto_kem_keypair(uint8_t *pk, uint8_t *sk);
int crypto_kem_enc(uint8_t *ct, uint8_t *ss, const uint8_t *pk);
int crypto_kem_dec(uint8_t *ss, const uint8_t *ct, const uint8_t *sk);
/* The deterministic cores (FIPS 203's KeyGen_internal and Encaps_internal): coins = d || z (64 bytes), m (32
 * bytes). What a combined KEM (X-Wing) calls with randomness of its own. */
int crypto_kem_keypair_derand(uint8_t *pk, uint8_t *sk, const uint8_t *coins);
int crypto_kem_enc_derand(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const uint8_t *m);
#endif
