#ifndef PQH_RANDOMBYTES_H
#define PQH_RANDOMBYTES_H
#include <stddef.h>
#include <stdint.h>

/* The NIST PQC AES-256-CTR DRBG (NIST's rng.c, the randomness of the PQCgenKAT_kem/sign KAT files), with the pqm4
 * names: randombytes_init(entropy_input[48], personalization_string or NULL, security_strength) seeds it;
 * randombytes(out, n) draws n bytes (whole AES blocks of the counter, then an update). Returns 0. */
#define PQH_DRBG_SEED_BYTES 48
void randombytes_init(const uint8_t *entropy_input, const uint8_t *personalization_string, int security_strength);
int randombytes(uint8_t *out, size_t n);
/* The DRBG state (key || V) out and back in: the host carries it from one batch of calls to the next, since a
 * backend may restore guest memory between batches (unicorn does). */
#define PQH_DRBG_STATE_BYTES 48
void pqh_randombytes_save(uint8_t state[PQH_DRBG_STATE_BYTES]);
void pqh_randombytes_restore(const uint8_t state[PQH_DRBG_STATE_BYTES]);
/* Constant-time traces of an implementation that draws its randomness from randombytes (pqhelium scheme --manifest
 * --ct-pairs): op runs with randombytes handing out `bytes` (then zeros) instead of the DRBG's output, so that the
 * two runs of a pair differ only in those bytes. For the pqm4 API's two operations that draw randomness. */
int pqh_with_randomness2(const uint8_t *bytes, size_t n, int (*op)(uint8_t *, uint8_t *), uint8_t *a, uint8_t *b);
int pqh_with_randomness3(const uint8_t *bytes, size_t n, int (*op)(uint8_t *, uint8_t *, const uint8_t *), uint8_t *a,
                         uint8_t *b, const uint8_t *c);
#endif
