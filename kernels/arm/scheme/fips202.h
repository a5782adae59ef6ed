#ifndef PQH_FIPS202_H
#define PQH_FIPS202_H
#include <stddef.h>
#include <stdint.h>

/* FIPS 202 sponges on the scalar Keccak-f[1600] kernel (keccak_f1600.c), for the portable scheme builds. */
#define PQH_SHAKE128_RATE 168
#define PQH_SHAKE256_RATE 136
#define PQH_SHA3_256_RATE 136
#define PQH_SHA3_512_RATE 72
/* Domain separation and first padding bit (FIPS 202 section 6). */
#define PQH_SHA3_DOMAIN 0x06u
#define PQH_SHAKE_DOMAIN 0x1Fu

/* A sponge: the state in keccak_f1600_interleaved's form, the rate, and the byte position in the current block. */
struct pqh_keccak {
    uint32_t state[50];
    uint32_t rate;
    uint32_t pos;
};

/* Incremental use: init, absorb any number of times, finalize with the domain byte (0x06 SHA-3, 0x1F SHAKE), then
 * squeeze any number of times. */
void pqh_keccak_init(struct pqh_keccak *k, uint32_t rate);
void pqh_keccak_absorb(struct pqh_keccak *k, const uint8_t *in, size_t len);
void pqh_keccak_finalize(struct pqh_keccak *k, uint8_t domain);
void pqh_keccak_squeeze(struct pqh_keccak *k, uint8_t *out, size_t len);

void pqh_sha3_256(uint8_t out[32], const uint8_t *in, size_t len);
void pqh_sha3_512(uint8_t out[64], const uint8_t *in, size_t len);
void pqh_shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t len);

/*
 * pqm4's FIPS 202 API (mupq's common/fips202.h: the same names, types and context sizes) on the same sponges, so
 * that a scheme laid out as pqm4 lays it out links unchanged. The incremental contexts hold a struct pqh_keccak;
 * the non-incremental SHAKE contexts the state alone, absorbed and padded, each squeezed block permuting first.
 * Nothing is allocated, so the release functions do nothing. Not provided: cSHAKE and SHA3-384.
 */
#define SHAKE128_RATE PQH_SHAKE128_RATE
#define SHAKE256_RATE PQH_SHAKE256_RATE
#define SHA3_256_RATE PQH_SHA3_256_RATE
#define SHA3_512_RATE PQH_SHA3_512_RATE

typedef struct {
    uint64_t ctx[26];
} shake128incctx;
typedef struct {
    uint64_t ctx[25];
} shake128ctx;
typedef struct {
    uint64_t ctx[26];
} shake256incctx;
typedef struct {
    uint64_t ctx[25];
} shake256ctx;
typedef struct {
    uint64_t ctx[26];
} sha3_256incctx;
typedef struct {
    uint64_t ctx[26];
} sha3_512incctx;

void shake128_absorb(shake128ctx *state, const uint8_t *input, size_t inlen);
void shake128_squeezeblocks(uint8_t *output, size_t nblocks, shake128ctx *state);
void shake128_ctx_release(shake128ctx *state);
void shake128_ctx_clone(shake128ctx *dest, const shake128ctx *src);
void shake128_inc_init(shake128incctx *state);
void shake128_inc_absorb(shake128incctx *state, const uint8_t *input, size_t inlen);
void shake128_inc_finalize(shake128incctx *state);
void shake128_inc_squeeze(uint8_t *output, size_t outlen, shake128incctx *state);
void shake128_inc_ctx_clone(shake128incctx *dest, const shake128incctx *src);
void shake128_inc_ctx_release(shake128incctx *state);

void shake256_absorb(shake256ctx *state, const uint8_t *input, size_t inlen);
void shake256_squeezeblocks(uint8_t *output, size_t nblocks, shake256ctx *state);
void shake256_ctx_release(shake256ctx *state);
void shake256_ctx_clone(shake256ctx *dest, const shake256ctx *src);
void shake256_inc_init(shake256incctx *state);
void shake256_inc_absorb(shake256incctx *state, const uint8_t *input, size_t inlen);
void shake256_inc_finalize(shake256incctx *state);
void shake256_inc_squeeze(uint8_t *output, size_t outlen, shake256incctx *state);
void shake256_inc_ctx_clone(shake256incctx *dest, const shake256incctx *src);
void shake256_inc_ctx_release(shake256incctx *state);

void shake128(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen);
void shake256(uint8_t *output, size_t outlen, const uint8_t *input, size_t inlen);

void sha3_256_inc_init(sha3_256incctx *state);
void sha3_256_inc_absorb(sha3_256incctx *state, const uint8_t *input, size_t inlen);
void sha3_256_inc_finalize(uint8_t *output, sha3_256incctx *state);
void sha3_256_inc_ctx_clone(sha3_256incctx *dest, const sha3_256incctx *src);
void sha3_256_inc_ctx_release(sha3_256incctx *state);
void sha3_256(uint8_t *output, const uint8_t *input, size_t inlen);

void sha3_512_inc_init(sha3_512incctx *state);
void sha3_512_inc_absorb(sha3_512incctx *state, const uint8_t *input, size_t inlen);
void sha3_512_inc_finalize(uint8_t *output, sha3_512incctx *state);
void sha3_512_inc_ctx_clone(sha3_512incctx *dest, const sha3_512incctx *src);
void sha3_512_inc_ctx_release(sha3_512incctx *state);
void sha3_512(uint8_t *output, const uint8_t *input, size_t inlen);
#endif
