/* FN-DSA v0.4 key generation, 32.32 fixed-point kernels (the FxpKernels family of pqhelium_core): entry points.
 * A value is a uint64_t holding a signed 64-bit x that stands for x / 2^32. FFT vectors of degree n = 2^logn hold
 * n/2 complex values, real parts in [0, n/2), imaginary parts in [n/2, n). logn is in 1..10.
 *
 * The fixed-point FFT and inverse FFT (fndsa.keygen.fft, .ifft and their baselines) declare their prototypes here
 * too. */
#ifndef PQH_FNDSA_KEYGEN_H
#define PQH_FNDSA_KEYGEN_H

#include <stdint.h>

/* Operand pairs per call of the batch division entry points (fndsa.keygen.div, fndsa.keygen.div.scalar). */
#define FNDSA_KEYGEN_DIV_BATCH 64

/* x / y in 32.32, bit for bit the reference's bit-by-bit division (fxp::div) for every operand pair: VDIV.F64
 * estimate and integer corrections (div.c), and the bit-by-bit loop itself (div_scalar.c). */
uint64_t fndsa_fxr_div(uint64_t x, uint64_t y);
uint64_t fndsa_fxr_div_scalar(uint64_t x, uint64_t y);

/* q[i] = x[i] / y[i] for FNDSA_KEYGEN_DIV_BATCH pairs. */
void fndsa_keygen_div(uint64_t *q, const uint64_t *x, const uint64_t *y);
void fndsa_keygen_div_scalar(uint64_t *q, const uint64_t *x, const uint64_t *y);

/* a <- a / b in FFT form, b self-adjoint (its n/2 real parts): a[i] /= b[i], a[i + n/2] /= b[i]. */
void fndsa_keygen_div_selfadj(uint64_t *a, const uint64_t *b, uint32_t logn);
void fndsa_keygen_div_selfadj_scalar(uint64_t *a, const uint64_t *b, uint32_t logn);

/* d[i] = 2^e / (|a_i|^2 + |b_i|^2) for i < n/2, e in 0..31 (sums of squares wrap modulo 2^64 as the reference's). */
void fndsa_keygen_invnorm(uint64_t *d, const uint64_t *a, const uint64_t *b, uint32_t logn, uint32_t e);
void fndsa_keygen_invnorm_scalar(uint64_t *d, const uint64_t *a, const uint64_t *b, uint32_t logn, uint32_t e);

/* a_i <- 2^e / a_i slot by slot: (re 2^e, -im 2^e) / (re^2 + im^2), e in 0..63 (shifts wrap modulo 2^64). */
void fndsa_keygen_inv_mul2e(uint64_t *a, uint32_t logn, uint32_t e);
void fndsa_keygen_inv_mul2e_scalar(uint64_t *a, uint32_t logn, uint32_t e);

#endif
