/*
 * FN-DSA v0.4 through the pqm4 signature API, on the whole-operation kernels: key generation from 32 bytes of
 * randombytes (keygen.h), signing with 40 (fndsa_sign.h), verification (fndsa_verify.h); pure FN-DSA (the message
 * itself, hash identifier 0x00) with an empty context. Compiled as it is, FN-DSA-512's portable build (prefix
 * fndsa512_portable_); compiled again by the files beside it for the other builds, which define:
 *   FP_LOGN                  9 or 10
 *   FP_NAME(f)               the namespaced name of API function f
 *   FP_KEYGEN, FP_SIGN, FP_VERIFY   the build's kernels
 *   FP_PK_BYTES, FP_SK_BYTES, FP_SIG_BYTES   the sizes (api.h)
 * Every function returns 0 on success and -1 otherwise (a message over FNDSA_PQM4_MAX_MESSAGE, a kernel's refusal,
 * a signature that does not verify); outputs are written on success only.
 */
#include <stddef.h>
#include <stdint.h>

#include "../fndsa_keygen/keygen.h"
#include "../fndsa_sign/fndsa_sign.h"
#include "../fndsa_verify/fndsa_verify.h"
#include "../scheme/randombytes.h"
#include "api.h"

#ifndef FP_LOGN
#define FP_LOGN 9u
#define FP_NAME(f) fndsa512_portable_##f
#define FP_KEYGEN fndsa_keygen_pair_scalar
#define FP_SIGN fndsa_sign_emu
#define FP_VERIFY fndsa_verify_scalar
#define FP_PK_BYTES FNDSA512_CRYPTO_PUBLICKEYBYTES
#define FP_SK_BYTES FNDSA512_CRYPTO_SECRETKEYBYTES
#define FP_SIG_BYTES FNDSA512_CRYPTO_BYTES
#endif

#define FP_SEED_BYTES 32u
#define FP_RANDOMNESS_BYTES 40u
#define FP_HASH_ID_RAW 0x00u

#define fp_request fndsa_pqm4_request
_Static_assert(FNDSA_PQM4_REQUEST_BYTES == FNDSA_SIGN_HEADER_BYTES + FNDSA_KEYGEN_MAX_VERIFYING_KEY +
                                               FNDSA_SIGN_MAX_SIGNATURE + 1u + FNDSA_PQM4_MAX_MESSAGE,
               "a verification request at logn 10 fills the buffer");
_Static_assert(FNDSA_KEYGEN_MAX_SIGNING_KEY + FP_RANDOMNESS_BYTES <=
                   FNDSA_KEYGEN_MAX_VERIFYING_KEY + FNDSA_SIGN_MAX_SIGNATURE,
               "a signing request fits the buffer");

struct fp_field {
    const uint8_t *p;
    uint32_t len;
};

static uint32_t fp_frame(const struct fp_field fields[5])
{
    uint32_t at = 4u * 5u;
    for (uint32_t i = 0; i < 5u; i++) {
        for (uint32_t b = 0; b < 4u; b++)
            fp_request[4u * i + b] = (uint8_t)(fields[i].len >> (8u * b));
        for (uint32_t k = 0; k < fields[i].len; k++)
            fp_request[at + k] = fields[i].p[k];
        at += fields[i].len;
    }
    return at;
}

static const uint8_t fp_hash_id = FP_HASH_ID_RAW;

int FP_NAME(crypto_sign_keypair)(uint8_t *pk, uint8_t *sk)
{
    uint8_t seed[FP_SEED_BYTES];
    randombytes(seed, sizeof seed);
    return FP_KEYGEN(sk, pk, seed, FP_SEED_BYTES, FP_LOGN) == 1u ? 0 : -1;
}

int FP_NAME(crypto_sign_signature)(uint8_t *sig, size_t *siglen, const uint8_t *m, size_t mlen, const uint8_t *sk)
{
    if (mlen > FNDSA_PQM4_MAX_MESSAGE)
        return -1;
    uint8_t randomness[FP_RANDOMNESS_BYTES];
    randombytes(randomness, sizeof randomness);
    const struct fp_field fields[5] = {
        {sk, FP_SK_BYTES}, {NULL, 0}, {&fp_hash_id, 1}, {m, (uint32_t)mlen}, {randomness, FP_RANDOMNESS_BYTES},
    };
    uint32_t len = fp_frame(fields);
    if (FP_SIGN(sig, fp_request, len) != FP_SIG_BYTES)
        return -1;
    *siglen = FP_SIG_BYTES;
    return 0;
}

int FP_NAME(crypto_sign_verify)(const uint8_t *sig, size_t siglen, const uint8_t *m, size_t mlen, const uint8_t *pk)
{
    if (mlen > FNDSA_PQM4_MAX_MESSAGE || siglen != FP_SIG_BYTES)
        return -1;
    const struct fp_field fields[5] = {
        {pk, FP_PK_BYTES}, {sig, FP_SIG_BYTES}, {NULL, 0}, {&fp_hash_id, 1}, {m, (uint32_t)mlen},
    };
    uint32_t len = fp_frame(fields);
    return FP_VERIFY(fp_request, len) == 1u ? 0 : -1;
}

int FP_NAME(crypto_sign)(uint8_t *sm, size_t *smlen, const uint8_t *m, size_t mlen, const uint8_t *sk)
{
    size_t siglen;
    /* The message first (sm may not overlap m in pqm4's API, and the signature goes in front of it). */
    if (mlen > FNDSA_PQM4_MAX_MESSAGE)
        return -1;
    for (size_t i = 0; i < mlen; i++)
        sm[FP_SIG_BYTES + i] = m[i];
    if (FP_NAME(crypto_sign_signature)(sm, &siglen, sm + FP_SIG_BYTES, mlen, sk) != 0)
        return -1;
    *smlen = FP_SIG_BYTES + mlen;
    return 0;
}

int FP_NAME(crypto_sign_open)(uint8_t *m, size_t *mlen, const uint8_t *sm, size_t smlen, const uint8_t *pk)
{
    if (smlen < FP_SIG_BYTES || FP_NAME(crypto_sign_verify)(sm, FP_SIG_BYTES, sm + FP_SIG_BYTES,
                                                             smlen - FP_SIG_BYTES, pk) != 0)
        return -1;
    for (size_t i = 0; i < smlen - FP_SIG_BYTES; i++)
        m[i] = sm[FP_SIG_BYTES + i];
    *mlen = smlen - FP_SIG_BYTES;
    return 0;
}
