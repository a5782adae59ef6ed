/* FN-DSA v0.4 signature verification on the guest: request layout, constants and entry points. The contract is in
 * fndsa_verify_impl.h; the builds are fndsa_verify.mve.c (MVE NTT) and fndsa_verify_scalar.c (portable baselines). */
#ifndef PQH_FNDSA_VERIFY_H
#define PQH_FNDSA_VERIFY_H

#include <stdint.h>

/* A request: five little-endian uint32_t lengths (verifying key, signature, context, hash identifier, hashed value),
 * then those five byte strings back to back, in that order. A batch is four requests back to back. */
#define FNDSA_VERIFY_FIELDS 5u
#define FNDSA_VERIFY_HEADER_BYTES (4u * FNDSA_VERIFY_FIELDS)
#define FNDSA_VERIFY_BATCH 4u

uint32_t fndsa_verify(const uint8_t *request, uint32_t request_len);
void fndsa_verify_batch4(uint8_t verdicts[4], const uint8_t *requests, uint32_t requests_len, uint32_t logn);
uint32_t fndsa_verify_scalar(const uint8_t *request, uint32_t request_len);
void fndsa_verify_batch4_scalar(uint8_t verdicts[4], const uint8_t *requests, uint32_t requests_len, uint32_t logn);

#endif
