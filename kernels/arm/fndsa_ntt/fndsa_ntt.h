/* FN-DSA NTT kernels (q = 12289): twiddle tables and entry points. Contracts in fndsa_ntt.mve.c and
 * fndsa_ntt_scalar.c. */
#ifndef PQH_FNDSA_NTT_H
#define PQH_FNDSA_NTT_H

#include <stdint.h>

#define FNDSA_Q 12289

extern const int16_t fndsa_zeta[1024];
extern const int16_t fndsa_zeta_br[1024];
extern const int16_t fndsa_izeta[1024];
extern const int16_t fndsa_izeta_br[1024];

void fndsa_ntt512_fwd(int16_t a[512]);
void fndsa_ntt1024_fwd(int16_t a[1024]);
void fndsa_ntt512_inv(int16_t a[512]);
void fndsa_ntt1024_inv(int16_t a[1024]);
void fndsa_ntt512_pointwise(int16_t r[512], const int16_t a[512], const int16_t b[512]);
void fndsa_ntt1024_pointwise(int16_t r[1024], const int16_t a[1024], const int16_t b[1024]);

void fndsa_ntt512_fwd_scalar(int16_t a[512]);
void fndsa_ntt1024_fwd_scalar(int16_t a[1024]);
void fndsa_ntt512_inv_scalar(int16_t a[512]);
void fndsa_ntt1024_inv_scalar(int16_t a[1024]);
void fndsa_ntt512_pointwise_scalar(int16_t r[512], const int16_t a[512], const int16_t b[512]);
void fndsa_ntt1024_pointwise_scalar(int16_t r[1024], const int16_t a[1024], const int16_t b[1024]);

#endif
