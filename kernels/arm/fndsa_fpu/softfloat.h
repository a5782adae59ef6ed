/*
 * softfloat.h: IEEE 754 binary64 emulated in integer arithmetic (our own code), the `.emu` baseline of the FN-DSA
 * signing floating point, as the reference signer does on cores without an FP64 unit.
 *
 * A double is its bit pattern in a uint64_t. Every operation rounds to nearest, ties to even (roundTiesToEven).
 *
 * Domain (exact agreement with IEEE binary64, bit for bit, signed zeros included):
 *   - every operand is zero or normal (|x| in [2^-1022, 2^1024)), and
 *   - the exact result is zero, or its magnitude is at least 2^-1022 (normal after rounding, or overflowing).
 * A result that overflows rounds to +-infinity, as in IEEE. Outside the domain the results are deterministic and
 * never fault, but they are not IEEE:
 *   - subnormal operands are read as zero of the same sign (denormals-are-zero);
 *   - an exact result of magnitude < 2^-1022 (IEEE: subnormal, or underflow to zero) becomes a zero of the result's
 *     sign (flush to zero);
 *   - infinities and NaNs as operands, division by zero and the square root of a negative non-zero number give
 *     unspecified values (NaN is never produced).
 * Conversions to int64_t: exact for |x| < 2^63 and for x = -2^63; other values (and infinities, NaNs) unspecified.
 * The FN-DSA signer keeps its non-zero values in [2^-476, ~2^79], well inside the domain.
 *
 * Timing: no data-dependent branches or table look-ups in the C source; every loop has a fixed trip count (division:
 * 55 steps, square root: 55 steps). Selections are done with masks, and the masks and 64-bit shifts by a variable
 * amount go through ct64.h, so that neither compiler turns them into IT-predicated instructions (`pqhelium ct` finds
 * none on the three images). The only instruction used for normalisation is CLZ, whose timing does not depend on its
 * operand.
 */
#ifndef PQH_SOFTFLOAT_H
#define PQH_SOFTFLOAT_H

#include <stdint.h>

uint64_t sf64_add(uint64_t a, uint64_t b);
uint64_t sf64_sub(uint64_t a, uint64_t b);
uint64_t sf64_mul(uint64_t a, uint64_t b);
uint64_t sf64_div(uint64_t a, uint64_t b);
uint64_t sf64_sqrt(uint64_t a);
uint64_t sf64_neg(uint64_t a);
/* Integral value of a double, as a double: floor, toward zero, to nearest with ties to even. Signed zeros as IEEE
 * (trunc(-0.5) = -0, rint(-0.5) = -0, floor(-0.5) = -1). */
uint64_t sf64_floor(uint64_t a);
uint64_t sf64_trunc(uint64_t a);
uint64_t sf64_rint(uint64_t a);
/* int64_t -> double, rounded to nearest, ties to even (every int64_t is in the domain). */
uint64_t sf64_from_i64(int64_t x);
/* double -> int64_t: toward zero, to nearest with ties to even, toward -infinity. */
int64_t sf64_to_i64_trunc(uint64_t a);
int64_t sf64_to_i64_round(uint64_t a);
int64_t sf64_to_i64_floor(uint64_t a);

/* Batch entry points of the test bench: r[i] = op(a[i], b[i]) for i < SF64_BATCH. */
#define SF64_BATCH 256
void fndsa_emu_f64_add(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH], const uint64_t b[SF64_BATCH]);
void fndsa_emu_f64_sub(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH], const uint64_t b[SF64_BATCH]);
void fndsa_emu_f64_mul(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH], const uint64_t b[SF64_BATCH]);
void fndsa_emu_f64_div(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH], const uint64_t b[SF64_BATCH]);
void fndsa_emu_f64_sqrt(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_neg(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_floor(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_trunc(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_rint(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_from_i64(uint64_t r[SF64_BATCH], const int64_t a[SF64_BATCH]);
void fndsa_emu_f64_to_i64_trunc(int64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_to_i64_round(int64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);
void fndsa_emu_f64_to_i64_floor(int64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH]);

#endif
