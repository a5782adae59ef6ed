/*
 * X-Wing (draft 10), MVE build for the M55 and M85 images: xwing.c on the MVE build of ML-KEM-768
 * (mlkem768_mve/kem_mve.mve.c) and X25519's fixed-base table for both base-point multiplications (x25519/base.c, the
 * constant-time selection); the ladder for the shared secrets, its final inversion shared with the table's in
 * encapsulation and decapsulation; Keccak scalar. The pqm4 API under the prefix xwing_mve_.
 */
#define XWING_API(name) xwing_mve_##name
#define PQH_XWING_FIXED_BASE
#define crypto_kem_keypair mlkem768_mve_crypto_kem_keypair
#define crypto_kem_enc mlkem768_mve_crypto_kem_enc
#define crypto_kem_dec mlkem768_mve_crypto_kem_dec
#define crypto_kem_keypair_derand mlkem768_mve_crypto_kem_keypair_derand
#define crypto_kem_enc_derand mlkem768_mve_crypto_kem_enc_derand
#include "../xwing/xwing.c"
