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

/* A sponge: 25 little-endian lanes, the rate, and the byte position in the current block. */
struct pqh_keccak {
    uint32_t lanes[50];
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
#endif
