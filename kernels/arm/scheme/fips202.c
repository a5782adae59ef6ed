/*
 * SHA3-256, SHA3-512, SHAKE128 and SHAKE256 (FIPS 202) on keccak_f1600_interleaved. The state stays bit-interleaved
 * from one permutation to the next: the bytes absorbed or squeezed go through their lane's conversion, a whole lane
 * at a time where they cover one, so that no permutation pays for converting the whole state.
 */
#include "fips202.h"

#include "keccak.h"

static void permute(struct pqh_keccak *k)
{
    keccak_f1600_interleaved(k->state);
}

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void store32(uint8_t *p, uint32_t x)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

/* XORs the little-endian lane (lo, hi) into lane `lane` of the state. */
static void xor_lane(struct pqh_keccak *k, uint32_t lane, uint32_t lo, uint32_t hi)
{
    uint32_t w[2];
    keccak_interleave_lane(w, lo, hi);
    k->state[2 * lane] ^= w[0];
    k->state[2 * lane + 1] ^= w[1];
}

/* XORs b into byte `pos` of the state, numbered as in the standard lanes. */
static void xor_byte(struct pqh_keccak *k, uint32_t pos, uint8_t b)
{
    uint32_t word = (uint32_t)b << (8 * (pos % 4));
    xor_lane(k, pos / 8, pos % 8 < 4 ? word : 0, pos % 8 < 4 ? 0 : word);
}

/* Lane `lane` of the state as little-endian words. */
static void lane_words(const struct pqh_keccak *k, uint32_t lane, uint32_t words[2])
{
    keccak_deinterleave_lane(words, k->state[2 * lane], k->state[2 * lane + 1]);
}

void pqh_keccak_init(struct pqh_keccak *k, uint32_t rate)
{
    for (unsigned i = 0; i < 50; i++)
        k->state[i] = 0;
    k->rate = rate;
    k->pos = 0;
}

void pqh_keccak_absorb(struct pqh_keccak *k, const uint8_t *in, size_t len)
{
    while (len > 0) {
        if (k->pos % 8 == 0 && len >= 8) {
            xor_lane(k, k->pos / 8, load32(in), load32(in + 4));
            k->pos += 8;
            in += 8;
            len -= 8;
        } else {
            xor_byte(k, k->pos++, *in++);
            len--;
        }
        if (k->pos == k->rate) {
            permute(k);
            k->pos = 0;
        }
    }
}

/* The domain byte and the final bit of the padding, without the permutation. */
static void pad(struct pqh_keccak *k, uint8_t domain)
{
    xor_byte(k, k->pos, domain);
    xor_byte(k, k->rate - 1, 0x80u);
}

void pqh_keccak_finalize(struct pqh_keccak *k, uint8_t domain)
{
    pad(k, domain);
    permute(k);
    k->pos = 0;
}

void pqh_keccak_squeeze(struct pqh_keccak *k, uint8_t *out, size_t len)
{
    while (len > 0) {
        if (k->pos == k->rate) {
            permute(k);
            k->pos = 0;
        }
        uint32_t words[2];
        lane_words(k, k->pos / 8, words);
        if (k->pos % 8 == 0 && len >= 8) {
            store32(out, words[0]);
            store32(out + 4, words[1]);
            k->pos += 8;
            out += 8;
            len -= 8;
        } else {
            *out++ = (uint8_t)(words[k->pos % 8 / 4] >> (8 * (k->pos % 4)));
            k->pos++;
            len--;
        }
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
_Static_assert(sizeof(shake128ctx) == sizeof(((struct pqh_keccak *)0)->state), "a context holds a state");

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

/* A non-incremental SHAKE context holds the sponge's state alone, absorbed and padded. */
static void absorb_once(uint64_t ctx[25], uint32_t rate, const uint8_t *in, size_t len)
{
    struct pqh_keccak k;
    pqh_keccak_init(&k, rate);
    pqh_keccak_absorb(&k, in, len);
    pad(&k, PQH_SHAKE_DOMAIN);
    clone_context(ctx, k.state, sizeof k.state);
}

static void squeeze_blocks(uint8_t *out, size_t nblocks, uint64_t ctx[25], uint32_t rate)
{
    struct pqh_keccak k;
    clone_context(k.state, ctx, sizeof k.state);
    for (size_t b = 0; b < nblocks; b++, out += rate) {
        permute(&k);
        for (uint32_t lane = 0; lane < rate / 8; lane++) {
            uint32_t words[2];
            lane_words(&k, lane, words);
            store32(out + 8 * lane, words[0]);
            store32(out + 8 * lane + 4, words[1]);
        }
    }
    clone_context(ctx, k.state, sizeof k.state);
}

/* The incremental functions pqm4's SHAKE and SHA3 families share: name##incctx holds a sponge of that rate. */
#define INCREMENTAL_API(name, rate)                                                                                    \
    void name##_inc_init(name##incctx *state)                                                                          \
    {                                                                                                                  \
        pqh_keccak_init(SPONGE(state), (rate));                                                                        \
    }                                                                                                                  \
    void name##_inc_absorb(name##incctx *state, const uint8_t *input, size_t inlen)                                    \
    {                                                                                                                  \
        pqh_keccak_absorb(SPONGE(state), input, inlen);                                                                \
    }                                                                                                                  \
    void name##_inc_ctx_clone(name##incctx *dest, const name##incctx *src)                                             \
    {                                                                                                                  \
        clone_context(dest, src, sizeof *dest);                                                                        \
    }                                                                                                                  \
    void name##_inc_ctx_release(name##incctx *state)                                                                   \
    {                                                                                                                  \
        (void)state;                                                                                                   \
    }

/* pqm4's SHAKE128 or SHAKE256 functions, bits 128 or 256: one-shot, absorb once then squeeze blocks, incremental. */
#define SHAKE_API(bits)                                                                                                \
    INCREMENTAL_API(shake##bits, SHAKE##bits##_RATE)                                                                   \
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
    void shake##bits##_inc_finalize(shake##bits##incctx *state)                                                        \
    {                                                                                                                  \
        pqh_keccak_finalize(SPONGE(state), PQH_SHAKE_DOMAIN);                                                          \
    }                                                                                                                  \
    void shake##bits##_inc_squeeze(uint8_t *output, size_t outlen, shake##bits##incctx *state)                         \
    {                                                                                                                  \
        pqh_keccak_squeeze(SPONGE(state), output, outlen);                                                             \
    }                                                                                                                  \
    void shake##bits(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen)                               \
    {                                                                                                                  \
        sponge(output, outlen, input, inlen, SHAKE##bits##_RATE, PQH_SHAKE_DOMAIN);                                    \
    }

/* pqm4's SHA3-256 or SHA3-512 functions, bits 256 or 512: incremental and one-shot. */
#define SHA3_API(bits)                                                                                                 \
    INCREMENTAL_API(sha3_##bits, SHA3_##bits##_RATE)                                                                   \
    void sha3_##bits##_inc_finalize(uint8_t *output, sha3_##bits##incctx *state)                                       \
    {                                                                                                                  \
        pqh_keccak_finalize(SPONGE(state), PQH_SHA3_DOMAIN);                                                           \
        pqh_keccak_squeeze(SPONGE(state), output, (bits) / 8);                                                         \
    }                                                                                                                  \
    void sha3_##bits(uint8_t *output, const uint8_t *input, size_t inlen)                                              \
    {                                                                                                                  \
        pqh_sha3_##bits(output, input, inlen);                                                                         \
    }

SHAKE_API(128)
SHAKE_API(256)
SHA3_API(256)
SHA3_API(512)
