#ifndef PQH_MLKEM_NTT_H
#define PQH_MLKEM_NTT_H
#include <stdint.h>

/* q = 3329, n = 256. See mlkem_ntt_scalar.c and mlkem_ntt.mve.c for the contracts.
 * The family's constants and bounds, by name. Defined once in pqhelium_sim::mlkem_ntt (the model and the bounds proof
 * read them there); sim/tests/kernel_constants.rs checks every value below against it. */
#define MLKEM_Q 3329
/* 128^-1 and zeta_1 * 128^-1 mod q, centred, with their twisted forms round(z * 2^15 / q). */
#define MLKEM_F (-26)
#define MLKEM_F_TW (-256)
#define MLKEM_ZF 1652
#define MLKEM_ZF_TW 16261
/* round(2^15 / q): twisted form of 1, for the Barrett reduction x * 1. */
#define MLKEM_ONE_TW 10
/* round(2^31 / q), for the 32-bit Barrett reduction. */
#define MLKEM_BARRETT32 645084
/* Bounds (magnitudes) of the MVE kernels and the scalar baselines, proved by sim/tests/mlkem_ntt_bounds.rs; the
 * inverse NTT takes any int16_t. */
#define MLKEM_FWD_IN_MAX 8192      /* forward input */
#define MLKEM_FWD_OUT_MAX 23588    /* forward output */
#define MLKEM_INV_OUT_MAX 1907     /* inverse output */
#define MLKEM_BASEMUL_IN_MAX 32767 /* basemul inputs */
#define MLKEM_BASEMUL_OUT_MAX 2652 /* basemul output */

/* zeta^BitRev7(k) and zeta^(2 BitRev7(k) + 1), centred in [-1664, 1664], and their twisted forms. */
extern const int16_t pqh_mlkem_zeta[128], pqh_mlkem_zeta_tw[128];
extern const int16_t pqh_mlkem_gamma[128], pqh_mlkem_gamma_tw[128];
/* MVE kernels: per 32-block B and vld4q vector k, the gammas of the lanes' pairs then their twisted forms. */
extern const int16_t pqh_mlkem_bm_g[512];
/* Pass-4 twiddle rows of the MVE NTTs (mlkem_ntt.mve.c), read by the assembly kernels too. */
extern const int16_t pqh_mlkem_fwd_d[384], pqh_mlkem_inv_d[384];
/* zeta k, then its twisted form, for k = 0..127: one 32-bit word per zeta for the assembly kernels. */
extern const int16_t pqh_mlkem_zeta_pairs[256];

void mlkem_ntt_fwd_scalar(int16_t p[256]);
void mlkem_ntt_inv_scalar(int16_t p[256]);
void mlkem_basemul_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256]);

void mlkem_ntt_fwd_mve(int16_t p[256]);
void mlkem_ntt_inv_mve(int16_t p[256]);
void mlkem_basemul_mve(int16_t out[256], const int16_t a[256], const int16_t b[256]);
void mlkem_to_mve(int16_t out[256], const int16_t in[256]);
void mlkem_from_mve(int16_t out[256], const int16_t in[256]);
#endif
