/* FN-DSA-1024 through the pqm4 API (sign.c), the MVE build (M55, M85 images): the MVE FFT and VDIV divisions in key
 * generation, native FP64 signing, MVE verification. Prefix fndsa1024_mve_. */
#define FP_LOGN 10u
#define FP_NAME(f) fndsa1024_mve_##f
#define FP_KEYGEN fndsa_keygen_pair
#define FP_SIGN fndsa_sign
#define FP_VERIFY fndsa_verify
#define FP_PK_BYTES FNDSA1024_CRYPTO_PUBLICKEYBYTES
#define FP_SK_BYTES FNDSA1024_CRYPTO_SECRETKEYBYTES
#define FP_SIG_BYTES FNDSA1024_CRYPTO_BYTES
#include "sign.c"
