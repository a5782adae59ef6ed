/* FN-DSA v0.4 (pure, empty context) through the pqm4 signature API: sizes and entry points of the four builds of
 * sign.c, each namespaced as pqm4 and PQClean namespace a scheme (fndsa512_portable_, fndsa512_mve_,
 * fndsa1024_portable_, fndsa1024_mve_). A signature is CRYPTO_BYTES long (v0.4 pads it); a signed message is the
 * signature followed by the message. */
#ifndef PQH_FNDSA_PQM4_API_H
#define PQH_FNDSA_PQM4_API_H

#include <stddef.h>
#include <stdint.h>

#define FNDSA512_CRYPTO_PUBLICKEYBYTES 897
#define FNDSA512_CRYPTO_SECRETKEYBYTES 1345
#define FNDSA512_CRYPTO_BYTES 666
#define FNDSA1024_CRYPTO_PUBLICKEYBYTES 1793
#define FNDSA1024_CRYPTO_SECRETKEYBYTES 2369
#define FNDSA1024_CRYPTO_BYTES 1280
/* The longest message the builds sign or verify (a request is framed in a static buffer): the NIST KAT
 * procedure's longest is 3,300 bytes. */
#define FNDSA_PQM4_MAX_MESSAGE 4096

/* The builds frame a kernel's request here (request.c): five fields, the largest a verification's at logn 10 (key,
 * signature, no context, the identifier, the message); a signing request (key, identifier, message, 40 bytes of
 * randomness) is shorter. */
#define FNDSA_PQM4_REQUEST_BYTES (4 * 5 + 1793 + 1280 + 1 + FNDSA_PQM4_MAX_MESSAGE)
extern uint8_t fndsa_pqm4_request[FNDSA_PQM4_REQUEST_BYTES];

#define FNDSA_PQM4_DECLARE(prefix)                                                                                \
    int prefix##crypto_sign_keypair(uint8_t *pk, uint8_t *sk);                                                    \
    int prefix##crypto_sign_signature(uint8_t *sig, size_t *siglen, const uint8_t *m, size_t mlen,                \
                                      const uint8_t *sk);                                                         \
    int prefix##crypto_sign_verify(const uint8_t *sig, size_t siglen, const uint8_t *m, size_t mlen,              \
                                   const uint8_t *pk);                                                            \
    int prefix##crypto_sign(uint8_t *sm, size_t *smlen, const uint8_t *m, size_t mlen, const uint8_t *sk);        \
    int prefix##crypto_sign_open(uint8_t *m, size_t *mlen, const uint8_t *sm, size_t smlen, const uint8_t *pk);

FNDSA_PQM4_DECLARE(fndsa512_portable_)
FNDSA_PQM4_DECLARE(fndsa1024_portable_)
FNDSA_PQM4_DECLARE(fndsa512_mve_)
FNDSA_PQM4_DECLARE(fndsa1024_mve_)

#endif
