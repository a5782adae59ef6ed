/*
 * fndsa_sign_kernels.h: the FN-DSA signing floating-point kernels other than the (i)FFT (fndsa_fpu.h), native FP64
 * (poly.c, ldl.c, sampler_fp.c: VADD/VSUB/VMUL/VDIV/VSQRT.F64) and on our soft-float (poly_emu.c, ldl_emu.c,
 * sampler_fp_emu.c: binary64 bit patterns in uint64_t, integer instructions only).
 *
 * Each kernel performs exactly the IEEE-754 operations of pqhelium_core::fndsa::fpu::Reference (the fn-dsa 0.4.0
 * sequence), in the same order, rounded to nearest-even, no fused multiply-add (-ffp-contract=off).
 *
 * Layout: n = 2^logn doubles hold n/2 complex values, real parts in [0, n/2), imaginary parts in [n/2, n); a
 * self-adjoint polynomial uses only [0, n/2). 1 <= logn <= 10. The `_emu` variant of a kernel takes the same
 * arguments with every double replaced by its bit pattern (a uint64_t); scalar doubles of the emu sampler and leaf
 * kernels come in an input array.
 *
 * Conversions between doubles and 64-bit integers have no FP64 instruction on the Cortex-M (only 32-bit VCVT): they
 * are exact bit manipulations here (shared by both variants), with Rust's `as` semantics (toward zero, saturating)
 * so that the kernels agree with the Rust reference on every finite input.
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

/* poly.c / poly_emu.c. a, b: n values; d (round): n int64_t; s (set_small): n int32_t. */
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

/* ldl.c / ldl_emu.c. g00, g01, g11, f: n values; f0, f1: n/2 values each. */
void fndsa_fpu_ldl_fft(const double *g00, double *g01, double *g11, uint32_t logn);
void fndsa_fpu_split_fft(double *f0, double *f1, const double *f, uint32_t logn);
void fndsa_fpu_split_selfadj_fft(double *f0, double *f1, const double *f, uint32_t logn);
void fndsa_fpu_merge_fft(double *f, const double *f0, const double *f1, uint32_t logn);

void fndsa_fpu_ldl_fft_emu(const uint64_t *g00, uint64_t *g01, uint64_t *g11, uint32_t logn);
void fndsa_fpu_split_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn);
void fndsa_fpu_split_selfadj_fft_emu(uint64_t *f0, uint64_t *f1, const uint64_t *f, uint32_t logn);
void fndsa_fpu_merge_fft_emu(uint64_t *f, const uint64_t *f0, const uint64_t *f1, uint32_t logn);

/* sampler_fp.c / sampler_fp_emu.c. Emu inputs: leaf_sigma in = {d, inv_sigma}; sampler_centre in = {mu, isigma,
 * sigma_min}. Domain: |mu| < 2^63 (signing: |mu| far below 2^31); d >= 0. */
void fndsa_fpu_leaf_sigma(double *out, double d, double inv_sigma);
void fndsa_fpu_sampler_centre(struct fndsa_fpu_centre *c, double mu, double isigma, double sigma_min);
void fndsa_fpu_sampler_exponent(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z, int32_t z0);

void fndsa_fpu_leaf_sigma_emu(uint64_t *out, const uint64_t in[2]);
void fndsa_fpu_sampler_centre_emu(struct fndsa_fpu_centre *c, const uint64_t in[3]);
void fndsa_fpu_sampler_exponent_emu(struct fndsa_fpu_ber *e, const struct fndsa_fpu_centre *c, int32_t z,
                                    int32_t z0);

/* All ones if b (0 or 1) is 1, else zero. */
static inline uint64_t fndsa_fpu_mask(uint64_t b)
{
    return (uint64_t)0 - b;
}

/* 1 if x != 0, else 0, without a comparison. */
static inline uint64_t fndsa_fpu_nonzero(uint64_t x)
{
    return (x | ((uint64_t)0 - x)) >> 63;
}

/* 1 if a < b (unsigned), else 0: the borrow of a - b. */
static inline uint64_t fndsa_fpu_below(uint64_t a, uint64_t b)
{
    return ((~a & b) | (~(a ^ b) & (a - b))) >> 63;
}

/* Rust's `x as i64` on a double's bit pattern: toward zero, saturating at the int64 range, NaN to 0. Exact, with
 * masks instead of branches (no data-dependent branch, like softfloat.c). */
static inline int64_t fndsa_fpu_bits_to_i64(uint64_t u)
{
    uint64_t e = (u >> 52) & 0x7FFu;
    uint64_t frac = u & 0x000FFFFFFFFFFFFFull;
    uint64_t m = frac | 0x0010000000000000ull;
    /* |x| = m * 2^(e - 1075): a right shift by 1075 - e below 2^53, a left shift by e - 1075 up to 2^63 */
    uint64_t r = 1075u - e; /* wraps (huge) when e > 1075 */
    uint64_t l = e - 1075u; /* wraps (huge) when e < 1075 */
    uint64_t mag = ((m >> (r & 63u)) & fndsa_fpu_mask(fndsa_fpu_below(r, 64u))) |
                   ((m << (l & 63u)) & fndsa_fpu_mask(fndsa_fpu_below(l - 1u, 10u))); /* 1 <= l <= 10 */
    uint64_t big = fndsa_fpu_below(1085u, e);                                         /* |x| >= 2^63 */
    uint64_t neg = u >> 63;
    uint64_t val = (mag ^ fndsa_fpu_mask(neg)) + neg;
    uint64_t sat = 0x7FFFFFFFFFFFFFFFull + neg; /* INT64_MAX or INT64_MIN */
    uint64_t res = (val & ~fndsa_fpu_mask(big)) | (sat & fndsa_fpu_mask(big));
    uint64_t nan = fndsa_fpu_below(2046u, e) & fndsa_fpu_nonzero(frac);
    return (int64_t)(res & ~fndsa_fpu_mask(nan));
}

/* trunc(x * 2^63) * 2, x as a double's bits (the multiplication already done): the fixed-point fraction. */
static inline uint64_t fndsa_fpu_fixed63_of(uint64_t scaled)
{
    return (uint64_t)fndsa_fpu_bits_to_i64(scaled) << 1;
}

/* Constants as bit patterns (Rust fpu.rs: INV_2SQRSIGMA0, LOG2, INV_LOG2), and 2^63, 0.5, 1.0. */
#define FNDSA_FPU_INV_2SQRSIGMA0 0x3FC34F8BC183BBC2ull
#define FNDSA_FPU_LOG2 0x3FE62E42FEFA39EFull
#define FNDSA_FPU_INV_LOG2 0x3FF71547652B82FEull
#define FNDSA_FPU_TWO63 0x43E0000000000000ull
#define FNDSA_FPU_HALF 0x3FE0000000000000ull

#endif
