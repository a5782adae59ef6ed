/*
 * fndsa_sign_kernels.h: the FN-DSA signing floating-point kernels other than the (i)FFT (fndsa_fpu.h), native FP64
 * (poly.c, ldl.c, sampler_fp.c: VADD/VSUB/VMUL/VDIV/VSQRT.F64) and on our soft-float (poly_emu.c, ldl_emu.c,
 * sampler_fp_emu.c: the same sources compiled again over the soft-float, see fp64.h; binary64 bit patterns in
 * uint64_t, integer arithmetic).
 *
 * Each kernel performs exactly the IEEE-754 operations of pqhelium_core::fndsa::fpu::Reference (the fn-dsa 0.4.0
 * sequence), in the same order, rounded to nearest-even, no fused multiply-add (-ffp-contract=off).
 *
 * Layout: n = 2^logn doubles hold n/2 complex values, real parts in [0, n/2), imaginary parts in [n/2, n); a
 * self-adjoint polynomial uses only [0, n/2). 1 <= logn <= 10. The `_emu` variant of a kernel takes the same
 * arguments with every double replaced by its bit pattern (a uint64_t); scalar doubles of the emu sampler and leaf
 * kernels come in an input array.
 */
#ifndef PQH_FNDSA_SIGN_KERNELS_H
#define PQH_FNDSA_SIGN_KERNELS_H

#include <stdint.h>

/* The per-sample set-up of the Gaussian sampler (Rust: fpu::SamplerCentre), 32 bytes. */
struct fndsa_fpu_centre {
    int32_t s;       /* floor(mu), low 32 bits */
    uint32_t pad;    /* written as 0 */
    uint64_t r;      /* mu - floor(mu) (a double's bits) */
    uint64_t dss;    /* isigma^2 / 2 (a double's bits) */
    uint64_t ccs_fx; /* trunc(isigma * sigma_min * 2^63) * 2 */
};

/* The Bernoulli exponent of one candidate (Rust: fpu::BerExponent), 16 bytes. */
struct fndsa_fpu_ber {
    int64_t k;       /* trunc(x / ln2) */
    uint64_t rem_fx; /* trunc((x - k ln2) * 2^63) * 2 */
};

/* poly.c / poly_emu.c: fndsa.fpu.{set_small,round,add,sub,neg,mulconst,mul,muladj,mulownadj}{,.emu} (native, then
 * on the soft-float). a, b: n values; d (round): n int64_t; s (set_small): n int32_t. */
void fndsa_fpu_set_small(double *d, const int32_t *s, uint32_t logn);
void fndsa_fpu_round(int64_t *d, const double *f, uint32_t logn);
void fndsa_fpu_add(double *a, const double *b, uint32_t logn);
void fndsa_fpu_sub(double *a, const double *b, uint32_t logn);
void fndsa_fpu_neg(double *a, uint32_t logn);
void fndsa_fpu_mulconst(double *a, uint32_t logn, double c);
void fndsa_fpu_mul_fft(double *a, const double *b, uint32_t logn);
void fndsa_fpu_muladj_fft(double *a, const double *b, uint32_t logn);
void fndsa_fpu_mulownadj_fft(double *a, uint32_t logn);

void fndsa_fpu_set_small_emu(uint64_t *d, const int32_t *s, uint32_t logn);
void fndsa_fpu_round_emu(int64_t *d, const uint64_t *f, uint32_t logn);
void fndsa_fpu_add_emu(uint64_t *a, const uint64_t *b, uint32_t logn);
void fndsa_fpu_sub_emu(uint64_t *a, const uint64_t *b, uint32_t logn);
void fndsa_fpu_neg_emu(uint64_t *a, uint32_t logn);
void fndsa_fpu_mulconst_emu(uint64_t *a, uint32_t logn, uint64_t c);
void fndsa_fpu_mul_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn);
void fndsa_fpu_muladj_fft_emu(uint64_t *a, const uint64_t *b, uint32_t logn);
void fndsa_fpu_mulownadj_fft_emu(uint64_t *a, uint32_t logn);

/* ldl.c / ldl_emu.c: fndsa.fpu.{ldl,split,split_selfadj,merge}{,.emu}. g00, g01, g11, f: n values;
 * f0, f1: n/2 values each. */
void fndsa_fpu_ldl_fft(const double *g00, double *g01, double *g11, uint32_t logn);
void fndsa_fpu_split_fft(double *f0, double *f1, const double *f, uint32_t logn);
void fndsa_fpu_split_selfadj_fft(double *f0, double *f1, const double *f, uint32_t logn);
void fndsa_fpu_merge_fft(double *f, const double *f0, const double *f1, uint32_t logn);

void fndsa_fpu_ldl_fft_emu(const uint64_t *g00, uint64_t *g01, uint64_t *g11, uint32_t logn);
void fndsa_fpu_split_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn);
void fndsa_fpu_split_selfadj_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn);
void fndsa_fpu_merge_fft_emu(uint64_t *f, const uint64_t *f0, const uint64_t *f1, uint32_t logn);

/* sampler_fp.c / sampler_fp_emu.c: fndsa.fpu.{leaf_sigma,sampler_centre,sampler_exponent}{,.emu}.
 * Emu inputs: leaf_sigma in = {d, inv_sigma}; sampler_centre in = {mu, isigma,
 * sigma_min}. Domain: |mu| < 2^63 (signing: |mu| far below 2^31); d >= 0. */
void fndsa_fpu_leaf_sigma(double *out, double d, double inv_sigma);
void fndsa_fpu_sampler_centre(struct fndsa_fpu_centre *c, double mu, double isigma, double sigma_min);
void fndsa_fpu_sampler_exponent(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z, int32_t z0);

void fndsa_fpu_leaf_sigma_emu(uint64_t *out, const uint64_t in[2]);
void fndsa_fpu_sampler_centre_emu(struct fndsa_fpu_centre *c, const uint64_t in[3]);
void fndsa_fpu_sampler_exponent_emu(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z,
                                    int32_t z0);

/* Constants as bit patterns (Rust fpu.rs: INV_2SQRSIGMA0, LOG2, INV_LOG2), and 2^63, 0.5, 1.0. */
#define FNDSA_FPU_INV_2SQRSIGMA0 0x3FC34F8BC183BBC2ull
#define FNDSA_FPU_LOG2 0x3FE62E42FEFA39EFull
#define FNDSA_FPU_INV_LOG2 0x3FF71547652B82FEull
#define FNDSA_FPU_TWO63 0x43E0000000000000ull
#define FNDSA_FPU_HALF 0x3FE0000000000000ull
#define FNDSA_FPU_ONE 0x3FF0000000000000ull

#endif
