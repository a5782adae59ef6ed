/*
 * SHA3-256, SHA3-512, SHAKE128 and SHAKE256 (FIPS 202) around keccak_f1600_interleaved: the state is kept as plain
 * lanes for absorbing and squeezing bytes, and interleaved for each permutation.
 */
#include "fips202.h"

#include "keccak.h"

static void permute(struct pqh_keccak *k)
{
    uint32_t interleaved[50];
    keccak_interleave(interleaved, k->lanes);
    keccak_f1600_interleaved(interleaved);
    keccak_deinterleave(k->lanes, interleaved);
}

static uint8_t *state_bytes(struct pqh_keccak *k)
{
    return (uint8_t *)k->lanes; /* little-endian target: byte i of the state */
}

void pqh_keccak_init(struct pqh_keccak *k, uint32_t rate)
{
    for (unsigned i = 0; i < 50; i++)
        k->lanes[i] = 0;
    k->rate = rate;
    k->pos = 0;
}

void pqh_keccak_absorb(struct pqh_keccak *k, const uint8_t *in, size_t len)
{
    uint8_t *s = state_bytes(k);
    for (size_t i = 0; i < len; i++) {
        s[k->pos++] ^= in[i];
        if (k->pos == k->rate) {
            permute(k);
            k->pos = 0;
        }
    }
}

void pqh_keccak_finalize(struct pqh_keccak *k, uint8_t domain)
{
    uint8_t *s = state_bytes(k);
    s[k->pos] ^= domain;
    s[k->rate - 1] ^= 0x80u;
    permute(k);
    k->pos = 0;
}

void pqh_keccak_squeeze(struct pqh_keccak *k, uint8_t *out, size_t len)
{
    const uint8_t *s = state_bytes(k);
    for (size_t i = 0; i < len; i++) {
        if (k->pos == k->rate) {
            permute(k);
            k->pos = 0;
        }
        out[i] = s[k->pos++];
    }
}

static void sponge(uint8_t *out, size_t outlen, const uint8_t *in, size_t len, uint32_t rate, uint8_t domain)
{
    struct pqh_keccak k;
    pqh_keccak_init(&k, rate);
    pqh_keccak_absorb(&k, in, len);
    pqh_keccak_finalize(&k, domain);
    pqh_keccak_squeeze(&k, out, outlen);
}

void pqh_sha3_256(uint8_t out[32], const uint8_t *in, size_t len)
{
    sponge(out, 32, in, len, PQH_SHA3_256_RATE, PQH_SHA3_DOMAIN);
}

void pqh_sha3_512(uint8_t out[64], const uint8_t *in, size_t len)
{
    sponge(out, 64, in, len, PQH_SHA3_512_RATE, PQH_SHA3_DOMAIN);
}

void pqh_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t len)
{
    sponge(out, outlen, in, len, PQH_SHAKE256_RATE, PQH_SHAKE_DOMAIN);
}
