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

void shake128_absorb(shake128ctx *state, const uint8_t *input, size_t inlen)
{
    absorb_once(state->ctx, SHAKE128_RATE, input, inlen);
}

void shake128_squeezeblocks(uint8_t *output, size_t nblocks, shake128ctx *state)
{
    squeeze_blocks(output, nblocks, state->ctx, SHAKE128_RATE);
}

void shake128_ctx_release(shake128ctx *state)
{
    (void)state;
}

void shake128_ctx_clone(shake128ctx *dest, const shake128ctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void shake128_inc_init(shake128incctx *state)
{
    pqh_keccak_init(SPONGE(state), SHAKE128_RATE);
}

void shake128_inc_absorb(shake128incctx *state, const uint8_t *input, size_t inlen)
{
    pqh_keccak_absorb(SPONGE(state), input, inlen);
}

void shake128_inc_finalize(shake128incctx *state)
{
    pqh_keccak_finalize(SPONGE(state), PQH_SHAKE_DOMAIN);
}

void shake128_inc_squeeze(uint8_t *output, size_t outlen, shake128incctx *state)
{
    pqh_keccak_squeeze(SPONGE(state), output, outlen);
}

void shake128_inc_ctx_clone(shake128incctx *dest, const shake128incctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void shake128_inc_ctx_release(shake128incctx *state)
{
    (void)state;
}

void shake256_absorb(shake256ctx *state, const uint8_t *input, size_t inlen)
{
    absorb_once(state->ctx, SHAKE256_RATE, input, inlen);
}

void shake256_squeezeblocks(uint8_t *output, size_t nblocks, shake256ctx *state)
{
    squeeze_blocks(output, nblocks, state->ctx, SHAKE256_RATE);
}

void shake256_ctx_release(shake256ctx *state)
{
    (void)state;
}

void shake256_ctx_clone(shake256ctx *dest, const shake256ctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void shake256_inc_init(shake256incctx *state)
{
    pqh_keccak_init(SPONGE(state), SHAKE256_RATE);
}

void shake256_inc_absorb(shake256incctx *state, const uint8_t *input, size_t inlen)
{
    pqh_keccak_absorb(SPONGE(state), input, inlen);
}

void shake256_inc_finalize(shake256incctx *state)
{
    pqh_keccak_finalize(SPONGE(state), PQH_SHAKE_DOMAIN);
}

void shake256_inc_squeeze(uint8_t *output, size_t outlen, shake256incctx *state)
{
    pqh_keccak_squeeze(SPONGE(state), output, outlen);
}

void shake256_inc_ctx_clone(shake256incctx *dest, const shake256incctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void shake256_inc_ctx_release(shake256incctx *state)
{
    (void)state;
}

void shake128(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen)
{
    sponge(output, outlen, input, inlen, SHAKE128_RATE, PQH_SHAKE_DOMAIN);
}

void shake256(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen)
{
    sponge(output, outlen, input, inlen, SHAKE256_RATE, PQH_SHAKE_DOMAIN);
}

void sha3_256_inc_init(sha3_256incctx *state)
{
    pqh_keccak_init(SPONGE(state), SHA3_256_RATE);
}

void sha3_256_inc_absorb(sha3_256incctx *state, const uint8_t *input, size_t inlen)
{
    pqh_keccak_absorb(SPONGE(state), input, inlen);
}

void sha3_256_inc_finalize(uint8_t *output, sha3_256incctx *state)
{
    pqh_keccak_finalize(SPONGE(state), PQH_SHA3_DOMAIN);
    pqh_keccak_squeeze(SPONGE(state), output, 32);
}

void sha3_256_inc_ctx_clone(sha3_256incctx *dest, const sha3_256incctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void sha3_256_inc_ctx_release(sha3_256incctx *state)
{
    (void)state;
}

void sha3_256(uint8_t *output, const uint8_t *input, size_t inlen)
{
    pqh_sha3_256(output, input, inlen);
}

void sha3_512_inc_init(sha3_512incctx *state)
{
    pqh_keccak_init(SPONGE(state), SHA3_512_RATE);
}

void sha3_512_inc_absorb(sha3_512incctx *state, const uint8_t *input, size_t inlen)
{
    pqh_keccak_absorb(SPONGE(state), input, inlen);
}

void sha3_512_inc_finalize(uint8_t *output, sha3_512incctx *state)
{
    pqh_keccak_finalize(SPONGE(state), PQH_SHA3_DOMAIN);
    pqh_keccak_squeeze(SPONGE(state), output, 64);
}

void sha3_512_inc_ctx_clone(sha3_512incctx *dest, const sha3_512incctx *src)
{
    clone_context(dest, src, sizeof *dest);
}

void sha3_512_inc_ctx_release(sha3_512incctx *state)
{
    (void)state;
}

void sha3_512(uint8_t *output, const uint8_t *input, size_t inlen)
{
    pqh_sha3_512(output, input, inlen);
}
