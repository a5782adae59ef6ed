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

/* The domain byte and the final bit of the padding, without the permutation. */
static void pad(struct pqh_keccak *k, uint8_t domain)
{
    uint8_t *s = state_bytes(k);
    s[k->pos] ^= domain;
    s[k->rate - 1] ^= 0x80u;
}

void pqh_keccak_finalize(struct pqh_keccak *k, uint8_t domain)
{
    pad(k, domain);
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

/* ---- pqm4's API (fips202.h) ---- */

_Static_assert(sizeof(shake128incctx) == sizeof(struct pqh_keccak), "an incremental context holds a sponge");
_Static_assert(sizeof(shake128ctx) == sizeof(((struct pqh_keccak *)0)->lanes), "a context holds a state");

/* The sponge in an incremental context. The context's words are only ever read and written as this sponge, and
 * copied as bytes (clone_context), never as the context's 64-bit words. */
#define SPONGE(state) ((struct pqh_keccak *)(void *)(state)->ctx)

static void clone_context(void *dest, const void *src, size_t size)
{
    uint8_t *to = dest;
    const uint8_t *from = src;
    for (size_t i = 0; i < size; i++)
        to[i] = from[i];
}

static void absorb_once(uint64_t ctx[25], uint32_t rate, const uint8_t *in, size_t len)
{
    struct pqh_keccak k;
    pqh_keccak_init(&k, rate);
    pqh_keccak_absorb(&k, in, len);
    pad(&k, PQH_SHAKE_DOMAIN);
    uint8_t *to = (uint8_t *)ctx;
    const uint8_t *from = state_bytes(&k);
    for (unsigned i = 0; i < sizeof k.lanes; i++)
        to[i] = from[i];
}

static void squeeze_blocks(uint8_t *out, size_t nblocks, uint64_t ctx[25], uint32_t rate)
{
    struct pqh_keccak k;
    uint8_t *s = state_bytes(&k), *stored = (uint8_t *)ctx;
    for (unsigned i = 0; i < sizeof k.lanes; i++)
        s[i] = stored[i];
    for (size_t b = 0; b < nblocks; b++) {
        permute(&k);
        for (uint32_t i = 0; i < rate; i++)
            out[b * rate + i] = s[i];
    }
    for (unsigned i = 0; i < sizeof k.lanes; i++)
        stored[i] = s[i];
}

/* pqm4's SHAKE128 or SHAKE256 functions, bits 128 or 256: one-shot, absorb once then squeeze blocks, incremental. */
#define SHAKE_API(bits)                                                                                               \
    void shake##bits##_absorb(shake##bits##ctx *state, const uint8_t *input, size_t inlen)                             \
    {                                                                                                                  \
        absorb_once(state->ctx, SHAKE##bits##_RATE, input, inlen);                                                     \
    }                                                                                                                  \
    void shake##bits##_squeezeblocks(uint8_t *output, size_t nblocks, shake##bits##ctx *state)                         \
    {                                                                                                                  \
        squeeze_blocks(output, nblocks, state->ctx, SHAKE##bits##_RATE);                                               \
    }                                                                                                                  \
    void shake##bits##_ctx_release(shake##bits##ctx *state)                                                            \
    {                                                                                                                  \
        (void)state;                                                                                                   \
    }                                                                                                                  \
    void shake##bits##_ctx_clone(shake##bits##ctx *dest, const shake##bits##ctx *src)                                  \
    {                                                                                                                  \
        clone_context(dest, src, sizeof *dest);                                                                        \
    }                                                                                                                  \
    void shake##bits##_inc_init(shake##bits##incctx *state)                                                            \
    {                                                                                                                  \
        pqh_keccak_init(SPONGE(state), SHAKE##bits##_RATE);                                                            \
    }                                                                                                                  \
    void shake##bits##_inc_absorb(shake##bits##incctx *state, const uint8_t *input, size_t inlen)                      \
    {                                                                                                                  \
        pqh_keccak_absorb(SPONGE(state), input, inlen);                                                                \
    }                                                                                                                  \
    void shake##bits##_inc_finalize(shake##bits##incctx *state)                                                        \
    {                                                                                                                  \
        pqh_keccak_finalize(SPONGE(state), PQH_SHAKE_DOMAIN);                                                          \
    }                                                                                                                  \
    void shake##bits##_inc_squeeze(uint8_t *output, size_t outlen, shake##bits##incctx *state)                         \
    {                                                                                                                  \
        pqh_keccak_squeeze(SPONGE(state), output, outlen);                                                             \
    }                                                                                                                  \
    void shake##bits##_inc_ctx_clone(shake##bits##incctx *dest, const shake##bits##incctx *src)                        \
    {                                                                                                                  \
        clone_context(dest, src, sizeof *dest);                                                                        \
    }                                                                                                                  \
    void shake##bits##_inc_ctx_release(shake##bits##incctx *state)                                                     \
    {                                                                                                                  \
        (void)state;                                                                                                   \
    }                                                                                                                  \
    void shake##bits(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen)                               \
    {                                                                                                                  \
        sponge(output, outlen, input, inlen, SHAKE##bits##_RATE, PQH_SHAKE_DOMAIN);                                    \
    }

/* pqm4's SHA3-256 or SHA3-512 functions, bits 256 or 512: incremental and one-shot. */
#define SHA3_API(bits)                                                                                                \
    void sha3_##bits##_inc_init(sha3_##bits##incctx *state)                                                            \
    {                                                                                                                  \
        pqh_keccak_init(SPONGE(state), SHA3_##bits##_RATE);                                                            \
    }                                                                                                                  \
    void sha3_##bits##_inc_absorb(sha3_##bits##incctx *state, const uint8_t *input, size_t inlen)                      \
    {                                                                                                                  \
        pqh_keccak_absorb(SPONGE(state), input, inlen);                                                                \
    }                                                                                                                  \
    void sha3_##bits##_inc_finalize(uint8_t *output, sha3_##bits##incctx *state)                                       \
    {                                                                                                                  \
        pqh_keccak_finalize(SPONGE(state), PQH_SHA3_DOMAIN);                                                           \
        pqh_keccak_squeeze(SPONGE(state), output, (bits) / 8);                                                         \
    }                                                                                                                  \
    void sha3_##bits##_inc_ctx_clone(sha3_##bits##incctx *dest, const sha3_##bits##incctx *src)                        \
    {                                                                                                                  \
        clone_context(dest, src, sizeof *dest);                                                                        \
    }                                                                                                                  \
    void sha3_##bits##_inc_ctx_release(sha3_##bits##incctx *state)                                                     \
    {                                                                                                                  \
        (void)state;                                                                                                   \
    }                                                                                                                  \
    void sha3_##bits(uint8_t *output, const uint8_t *input, size_t inlen)                                              \
    {                                                                                                                  \
        pqh_sha3_##bits(output, input, inlen);                                                                         \
    }

SHAKE_API(128)
SHAKE_API(256)
SHA3_API(256)
SHA3_API(512)
