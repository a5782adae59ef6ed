/*
 * X-Wing (draft-connolly-cfrg-xwing-kem-10: ML-KEM-768, X25519 and the SHA3-256 combiner), portable build: the pqm4
 * API under the build's prefix, as mlkem768/api.h. The decapsulation key is the 32-byte seed; decapsulation expands
 * it on every call, as the draft specifies.
 */
#ifndef PQH_XWING_API_H
#define PQH_XWING_API_H
#include <stdint.h>

/* Namespaced as PQClean namespaces its sizes: xwing.c also includes ML-KEM-768's api.h, whose CRYPTO_* are its own. */
#define XWING_CRYPTO_ALGNAME "X-Wing"
#define XWING_CRYPTO_PUBLICKEYBYTES 1216  /* pk_M || pk_X */
#define XWING_CRYPTO_SECRETKEYBYTES 32    /* the seed */
#define XWING_CRYPTO_CIPHERTEXTBYTES 1120 /* ct_M || ct_X */
#define XWING_CRYPTO_BYTES 32

#ifndef XWING_API /* another build of these sources names its own (xwing_mve/, selftest/xwing_label_mutant.c) */
#define XWING_API(name) xwing_portable_##name
#endif

int XWING_API(crypto_kem_keypair)(uint8_t *pk, uint8_t *sk);
int XWING_API(crypto_kem_enc)(uint8_t *ct, uint8_t *ss, const uint8_t *pk);
int XWING_API(crypto_kem_dec)(uint8_t *ss, const uint8_t *ct, const uint8_t *sk);
/* The draft's GenerateKeyPairDerand(seed) and EncapsulateDerand(pk, eseed): what its test vectors call. */
int XWING_API(keypair_derand)(uint8_t *pk, const uint8_t *seed);
int XWING_API(enc_derand)(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const uint8_t *eseed);
#endif
