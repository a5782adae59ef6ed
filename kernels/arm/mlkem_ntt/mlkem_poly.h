#ifndef PQH_MLKEM_POLY_H
#define PQH_MLKEM_POLY_H
#include <stdint.h>

#include "mlkem_ntt.h"

/* The ML-KEM-768 polynomial kernels around the NTT: compression with encoding, 12-bit encoding, add/sub/reduce and
 * the k = 3 products with accumulation. See mlkem_poly_scalar.c and mlkem_poly.mve.c for the contracts. Constants
 * and bounds are defined once in pqhelium_sim::mlkem_poly; sim/tests/kernel_constants.rs checks every value below. */
#define MLKEM_K 3
/* round(2^26 / q): Barrett reduction of any int16_t to (-q/2, q/2). */
#define MLKEM_BARRETT26 20159
/* Compress_d(x) = floor(((x << d) + (q-1)/2) * M / 2^s), exact for 0 <= x < q:
 * M = ceil(2^20 / q) for d = 1, 4 (16-bit lanes), M = ceil(2^32 / q) for d = 10 (32-bit lanes). */
#define MLKEM_COMPRESS_HALF 1664
#define MLKEM_COMPRESS_M16 315
#define MLKEM_COMPRESS_M32 1290168
/* add: |a| <= MLKEM_ADD_A_MAX, |b| <= MLKEM_ADD_B_MAX, so |a + b| <= 32767 (sub likewise). */
#define MLKEM_ADD_A_MAX 8191
#define MLKEM_ADD_B_MAX 24576
/* dot/matvec: |a| <= MLKEM_DOT_A_MAX (12-bit values), b any int16_t; out |x| <= MLKEM_DOT_OUT_MAX < q. */
#define MLKEM_DOT_A_MAX 4095
#define MLKEM_DOT_OUT_MAX 2034

void mlkem_compress_du10_scalar(uint8_t out[320], const int16_t p[256]);
void mlkem_decompress_du10_scalar(int16_t p[256], const uint8_t in[320]);
void mlkem_compress_dv4_scalar(uint8_t out[128], const int16_t p[256]);
void mlkem_decompress_dv4_scalar(int16_t p[256], const uint8_t in[128]);
void mlkem_compress_d1_scalar(uint8_t out[32], const int16_t p[256]);
void mlkem_decompress_d1_scalar(int16_t p[256], const uint8_t in[32]);
void mlkem_encode12_scalar(uint8_t out[384], const int16_t p[256]);
void mlkem_decode12_scalar(int16_t p[256], const uint8_t in[384]);
void mlkem_poly_add_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256]);
void mlkem_poly_sub_scalar(int16_t out[256], const int16_t a[256], const int16_t b[256]);
void mlkem_poly_reduce_scalar(int16_t p[256]);
void mlkem_dot_k3_scalar(int16_t out[256], const int16_t a[768], const int16_t b[768]);
void mlkem_matvec_k3_scalar(int16_t out[768], const int16_t a[2304], const int16_t s[768]);

void mlkem_compress_du10_mve(uint8_t out[320], const int16_t p[256]);
void mlkem_decompress_du10_mve(int16_t p[256], const uint8_t in[320]);
void mlkem_compress_dv4_mve(uint8_t out[128], const int16_t p[256]);
void mlkem_decompress_dv4_mve(int16_t p[256], const uint8_t in[128]);
void mlkem_compress_d1_mve(uint8_t out[32], const int16_t p[256]);
void mlkem_decompress_d1_mve(int16_t p[256], const uint8_t in[32]);
void mlkem_encode12_mve(uint8_t out[384], const int16_t p[256]);
void mlkem_decode12_mve(int16_t p[256], const uint8_t in[384]);
void mlkem_poly_add_mve(int16_t out[256], const int16_t a[256], const int16_t b[256]);
void mlkem_poly_sub_mve(int16_t out[256], const int16_t a[256], const int16_t b[256]);
void mlkem_poly_reduce_mve(int16_t p[256]);
void mlkem_dot_k3_mve(int16_t out[256], const int16_t a[768], const int16_t b[768]);
void mlkem_matvec_k3_mve(int16_t out[768], const int16_t a[2304], const int16_t s[768]);
#endif
