/*
 * fndsa_fpu.h: FN-DSA signing FFT and inverse FFT, native FP64 (fft.c) and on our soft-float (fft_emu.c: fft.c
 * compiled again over the soft-float, see fp64.h).
 * Layout: n = 2^logn doubles hold n/2 complex values, real parts in f[0, n/2), imaginary parts in f[n/2, n).
 * Order of operations: exactly pqhelium_core::fndsa::fpu::Reference (the fn-dsa 0.4.0 sequence), no FMA.
 */
#ifndef PQH_FNDSA_FPU_H
#define PQH_FNDSA_FPU_H

#include <stddef.h>
#include <stdint.h>

/* cos/sin twiddles as bit patterns (fndsa_fpu_gm.c). */
extern const uint64_t fndsa_fpu_gm[2048];

/* fndsa.fpu.fft / fndsa.fpu.ifft: in place, 1 <= logn <= 10; the iFFT includes the division by n/2. */
void fndsa_fpu_fft(double *f, uint32_t logn);
void fndsa_fpu_ifft(double *f, uint32_t logn);
/* fndsa.fpu.fft.emu / fndsa.fpu.ifft.emu: the same on binary64 bit patterns, with the soft-float. */
void fndsa_fpu_fft_emu(uint64_t *f, uint32_t logn);
void fndsa_fpu_ifft_emu(uint64_t *f, uint32_t logn);

#endif
