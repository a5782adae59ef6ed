/* FN-DSA-1024 through the pqm4 API (sign.c), the portable build: the portable FFT and bit-by-bit divisions, soft-
 * float signing, scalar verification. Prefix fndsa1024_portable_. */
#define FP_LOGN 10u
#define FP_NAME(f) fndsa1024_portable_##f
#define FP_KEYGEN fndsa_keygen_pair_scalar
#define FP_SIGN fndsa_sign_emu
#define FP_VERIFY fndsa_verify_scalar
#define FP_PK_BYTES FNDSA1024_CRYPTO_PUBLICKEYBYTES
#define FP_SK_BYTES FNDSA1024_CRYPTO_SECRETKEYBYTES
#define FP_SIG_BYTES FNDSA1024_CRYPTO_BYTES
#include "sign.c"
