/*
 * The MVE X-Wing build with the X-Wing design's B8 fixed base (x25519_base_b8: the table entry's operands selected
 * by address from a secret digit's sign) instead of B8S: correct, and leaky on purpose. `pqhelium scheme --ct` must
 * report the leak in the key pair and the encapsulation (cli/tests/scheme.rs).
 */
#define XWING_API(name) xwing_b8_##name
#define PQH_XWING_FIXED_BASE_B8
#define crypto_kem_keypair mlkem768_mve_crypto_kem_keypair
#define crypto_kem_enc mlkem768_mve_crypto_kem_enc
#define crypto_kem_dec mlkem768_mve_crypto_kem_dec
#define crypto_kem_keypair_derand mlkem768_mve_crypto_kem_keypair_derand
#define crypto_kem_enc_derand mlkem768_mve_crypto_kem_enc_derand
#include "../xwing/xwing.c"
