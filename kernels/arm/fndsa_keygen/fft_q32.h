/* FN-DSA key generation: the fixed-point (32.32) FFT and inverse FFT, MVE (fft_q32.mve.c) and portable C
 * (fft_q32_scalar.c). Contracts in those files; registry: families/src/fndsa_keygen_fft.rs. */
#ifndef PQH_FFT_Q32_H
#define PQH_FFT_Q32_H

#include <stdint.h>

/* The twiddles, generated from pqhelium_core::fndsa::keygen::fxp::roots() by pqhelium_sim::fxp_fft (fft_q32_gm.c):
 * entry k = exp(i pi rev10(k) / 1024) in 32.32, rounded to nearest; fndsa_keygen_gm[2k] is its real part,
 * fndsa_keygen_gm[2k + 1] its imaginary part. */
extern const uint64_t fndsa_keygen_gm[2048];

/* fndsa.keygen.fft / fndsa.keygen.ifft: in place, 1 <= logn <= 10; n = 2^logn 32.32 values (real parts in f[0, n/2),
 * imaginary parts in f[n/2, n)); the iFFT includes the division by n/2. */
void fndsa_keygen_fft(uint64_t *f, uint32_t logn);
void fndsa_keygen_ifft(uint64_t *f, uint32_t logn);
/* fndsa.keygen.fft.scalar / fndsa.keygen.ifft.scalar: the same in portable C (both images). */
void fndsa_keygen_fft_scalar(uint64_t *f, uint32_t logn);
void fndsa_keygen_ifft_scalar(uint64_t *f, uint32_t logn);

#endif
