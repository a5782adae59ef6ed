/* FN-DSA v0.4 signing on the guest (fndsa_sign.c): request layout and entry points. */
#ifndef PQH_FNDSA_SIGN_H
#define PQH_FNDSA_SIGN_H

#include <stdint.h>

/* A request: five little-endian uint32_t lengths (signing key, context, hash identifier, hashed value, randomness),
 * then those five byte strings back to back, in that order. */
#define FNDSA_SIGN_FIELDS 5u
#define FNDSA_SIGN_HEADER_BYTES (4u * FNDSA_SIGN_FIELDS)
/* The signature of logn 10; logn 9 writes its first 666 bytes. */
#define FNDSA_SIGN_MAX_SIGNATURE 1280u

/* fndsa.sign (the FP64 kernels on the FPU) and fndsa.sign.emu (on the soft-float): the signature's length, 0 on
 * error. */
uint32_t fndsa_sign(uint8_t sig[FNDSA_SIGN_MAX_SIGNATURE], const uint8_t *request, uint32_t request_len);
uint32_t fndsa_sign_emu(uint8_t sig[FNDSA_SIGN_MAX_SIGNATURE], const uint8_t *request, uint32_t request_len);

#endif
