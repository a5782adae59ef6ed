/* FN-DSA NTT kernels (q = 12289): constants, twiddle tables and entry points. Contracts in fndsa_ntt.mve.c and
 * fndsa_ntt_scalar.c. */
#ifndef PQH_FNDSA_NTT_H
#define PQH_FNDSA_NTT_H

#include <stdint.h>

/* The family's constants and bounds, by name. Defined once in pqhelium_sim::fndsa_ntt (the model and the bounds
 * proof read them there); sim/tests/kernel_constants.rs checks every value below against it. */
#define FNDSA_Q 12289
#define FNDSA_QINV (-12287)   /* q^-1 mod 2^16 */
#define FNDSA_RED_V 21844     /* round(2^28 / q): the Barrett reduction's constant */
#define FNDSA_MONT_C 4091     /* 2^16 mod q: cancels the pointwise product's Montgomery factor */
#define FNDSA_MONT_C_BR 10908 /* its Barrett companion round(w 2^15 / q) */
/* The inverse's last layer: n^-1 (applied to the sum) and zeta^-1 n^-1 (to the difference), centred, with their
 * Barrett companions. */
#define FNDSA_NINV_512 (-24)
#define FNDSA_NINV_512_BR (-64)
#define FNDSA_LAST_512 1371
#define FNDSA_LAST_512_BR 3656
#define FNDSA_NINV_1024 (-12)
#define FNDSA_NINV_1024_BR (-32)
#define FNDSA_LAST_1024 (-5459)
#define FNDSA_LAST_1024_BR (-14556)
/* Bounds of the MVE kernels (magnitudes), proved by sim/tests/fndsa_ntt_bounds.rs: */
#define FNDSA_FWD_OUT_512 32028  /* forward output, n = 512 (every int16_t in) */
#define FNDSA_FWD_OUT_1024 32065 /* forward output, n = 1024 */
#define FNDSA_INV_IN 16383       /* inverse input */
#define FNDSA_INV_OUT 8067       /* inverse output, 1/n included */
#define FNDSA_PW_IN 32767        /* pointwise inputs (-32768 excluded) */
#define FNDSA_PW_OUT 9909        /* pointwise output */
#define FNDSA_RED_OUT 6145       /* |red(a)| for every int16_t a */

extern const int16_t fndsa_zeta[1024];
extern const int16_t fndsa_zeta_br[1024];
extern const int16_t fndsa_izeta[1024];
extern const int16_t fndsa_izeta_br[1024];
/* The assembly forward kernels' tables (kernels/arm/fndsa_ntt/slothy/): scalar twiddles as words, last-pass rows. */
extern const int16_t fndsa_zeta_pairs[256];
extern const int16_t fndsa_fwd_rows_512[896], fndsa_fwd_rows_1024[1792];

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
