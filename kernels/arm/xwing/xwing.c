/*
 * X-Wing (draft-connolly-cfrg-xwing-kem-10), portable build: the portable ML-KEM-768 (mlkem768/kem.c, through its
 * deterministic cores), X25519 by the Montgomery ladder (x25519/ladder.c, also for the base point), SHAKE256 and
 * SHA3-256 on the scalar Keccak (scheme/fips202.c). Built again as the MVE build by xwing_mve/xwing_mve.mve.c.
 * Randomness as the draft's derandomised functions take it: 32 bytes (the seed) for a key pair, 64 bytes (m || ek_X)
 * for an encapsulation.
 */
#include "api.h"
#include "../mlkem768/api.h"
#include "../x25519/fe.h"
#include "fips202.h"
#include "randombytes.h"

#define SYM 32
#define PK_M_BYTES CRYPTO_PUBLICKEYBYTES
#define SK_M_BYTES CRYPTO_SECRETKEYBYTES
#define CT_M_BYTES CRYPTO_CIPHERTEXTBYTES

_Static_assert(XWING_CRYPTO_PUBLICKEYBYTES == PK_M_BYTES + SYM, "api.h");
_Static_assert(XWING_CRYPTO_CIPHERTEXTBYTES == CT_M_BYTES + SYM, "api.h");

#if !defined(PQH_XWING_FIXED_BASE) && !defined(PQH_XWING_FIXED_BASE_B8)
static const uint8_t base_point[SYM] = {9};
#endif

/* X25519(k, 9): the ladder, or the fixed-base table (x25519/base.c, constant time) in the MVE build. */
static void base_mult(uint8_t out[SYM], const uint8_t k[SYM])
{
#if defined(PQH_XWING_FIXED_BASE_B8)
    x25519_base_b8(out, k); /* the selection by secret address (selftest/xwing_b8.mve.c) */
#elif defined(PQH_XWING_FIXED_BASE)
    x25519_base(out, k);
#else
    x25519_scalarmult(out, k, base_point);
#endif
}
/* XWingLabel, last in the combiner's input. */
#ifndef PQH_LABEL_MUTANT
static const uint8_t label[6] = {0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c};
#else
static const uint8_t label[6] = {0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5d}; /* the self-test mutant's wrong byte */
#endif

/* The expanded decapsulation key: SHAKE256(seed, 96) = d || z || sk_X, the ML-KEM key pair from d || z, pk_X. */
struct expanded {
    uint8_t pk_m[PK_M_BYTES];
    uint8_t sk_m[SK_M_BYTES];
    uint8_t sk_x[SYM];
    uint8_t pk_x[SYM];
};

/* The ML-KEM key pair and sk_X; pk_X is left to the caller (decapsulation computes it beside ss_X). */
static void expand_keys(struct expanded *e, const uint8_t seed[SYM])
{
    uint8_t wide[3 * SYM];
    pqh_shake256(wide, sizeof wide, seed, SYM);
    crypto_kem_keypair_derand(e->pk_m, e->sk_m, wide);
    for (unsigned i = 0; i < SYM; i++)
        e->sk_x[i] = wide[2 * SYM + i];
}

/* (X25519(k, 9), X25519(k, u)): in the fixed-base build, the table and the ladder with their two final inversions
 * shared (x25519/base.c). */
static void base_and_shared(uint8_t base[SYM], uint8_t shared[SYM], const uint8_t k[SYM], const uint8_t u[SYM])
{
#if defined(PQH_XWING_FIXED_BASE)
    x25519_base_and_shared(base, shared, k, u);
#else
    base_mult(base, k);
    x25519_scalarmult(shared, k, u);
#endif
}

/* SHA3-256(ss_M || ss_X || ct_X || pk_X || XWingLabel). */
static void combine(uint8_t ss[SYM], const uint8_t ss_m[SYM], const uint8_t ss_x[SYM], const uint8_t ct_x[SYM],
                    const uint8_t pk_x[SYM])
{
    struct pqh_keccak h;
    pqh_keccak_init(&h, PQH_SHA3_256_RATE);
    pqh_keccak_absorb(&h, ss_m, SYM);
    pqh_keccak_absorb(&h, ss_x, SYM);
    pqh_keccak_absorb(&h, ct_x, SYM);
    pqh_keccak_absorb(&h, pk_x, SYM);
    pqh_keccak_absorb(&h, label, sizeof label);
    pqh_keccak_finalize(&h, PQH_SHA3_DOMAIN);
    pqh_keccak_squeeze(&h, ss, SYM);
}

int XWING_API(keypair_derand)(uint8_t *pk, const uint8_t *seed)
{
    struct expanded e;
    expand_keys(&e, seed);
    base_mult(e.pk_x, e.sk_x);
    for (unsigned i = 0; i < PK_M_BYTES; i++)
        pk[i] = e.pk_m[i];
    for (unsigned i = 0; i < SYM; i++)
        pk[PK_M_BYTES + i] = e.pk_x[i];
    return 0;
}

int XWING_API(crypto_kem_keypair)(uint8_t *pk, uint8_t *sk)
{
    randombytes(sk, XWING_CRYPTO_SECRETKEYBYTES);
    return XWING_API(keypair_derand)(pk, sk);
}

int XWING_API(enc_derand)(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const uint8_t *eseed)
{
    uint8_t ss_m[SYM], ss_x[SYM];
    const uint8_t *pk_x = &pk[PK_M_BYTES];
    uint8_t *ct_x = &ct[CT_M_BYTES];
    crypto_kem_enc_derand(ct, ss_m, pk, eseed);
    base_and_shared(ct_x, ss_x, &eseed[SYM], pk_x);
    combine(ss, ss_m, ss_x, ct_x, pk_x);
    return 0;
}

int XWING_API(crypto_kem_enc)(uint8_t *ct, uint8_t *ss, const uint8_t *pk)
{
    uint8_t eseed[2 * SYM]; /* m || ek_X */
    randombytes(eseed, sizeof eseed);
    return XWING_API(enc_derand)(ct, ss, pk, eseed);
}

int XWING_API(crypto_kem_dec)(uint8_t *ss, const uint8_t *ct, const uint8_t *sk)
{
    struct expanded e;
    uint8_t ss_m[SYM], ss_x[SYM];
    const uint8_t *ct_x = &ct[CT_M_BYTES];
    expand_keys(&e, sk);
    crypto_kem_dec(ss_m, ct, e.sk_m);
    base_and_shared(e.pk_x, ss_x, e.sk_x, ct_x);
    combine(ss, ss_m, ss_x, ct_x, e.pk_x);
    return 0;
}
