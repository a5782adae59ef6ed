/*
 * ML-KEM-768 (FIPS 203), MVE build for the M55 and M85 images: kem.c on the MVE kernels (mlkem_ntt.mve.c,
 * mlkem_poly.mve.c), the polynomials in the MVE storage order from sampling to encoding; the matrix and the noise
 * sampled four at a time on the four-way MVE Keccak (keccak_x4.mve.c), the other hashes on the scalar Keccak
 * (fips202.c). The pqm4 API under the prefix mlkem768_mve_.
 */
#define PQH_MLKEM768_MVE
#define crypto_kem_keypair mlkem768_mve_crypto_kem_keypair
#define crypto_kem_enc mlkem768_mve_crypto_kem_enc
#define crypto_kem_dec mlkem768_mve_crypto_kem_dec
#define crypto_kem_keypair_derand mlkem768_mve_crypto_kem_keypair_derand
#define crypto_kem_enc_derand mlkem768_mve_crypto_kem_enc_derand
#include "../mlkem768/kem.c"
