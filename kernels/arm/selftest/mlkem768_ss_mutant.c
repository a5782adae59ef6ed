/*
 * A planted mutant of the portable ML-KEM-768 build (mlkem768/kem.c): one wrong byte in the shared secret that
 * encapsulation returns. The KAT on the guest must fail on it (schemes/tests/on_guest.rs).
 */
#define crypto_kem_keypair mlkem768_ss_mutant_crypto_kem_keypair
#define crypto_kem_enc mlkem768_ss_mutant_crypto_kem_enc
#define crypto_kem_dec mlkem768_ss_mutant_crypto_kem_dec
#define crypto_kem_keypair_derand mlkem768_ss_mutant_crypto_kem_keypair_derand
#define crypto_kem_enc_derand mlkem768_ss_mutant_crypto_kem_enc_derand
#define PQH_SS_MUTANT
#include "../mlkem768/kem.c"
