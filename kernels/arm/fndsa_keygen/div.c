/*
 * fndsa.keygen.div, fndsa.keygen.div_selfadj, fndsa.keygen.invnorm, fndsa.keygen.inv_mul2e: the 32.32 fixed-point
 * divisions of FN-DSA v0.4 key generation with one VDIV.F64 per division instead of the reference's 64-step
 * bit-by-bit loop, bit for bit equal to it (pqhelium_core::fndsa::keygen::fxp::div) for EVERY operand pair,
 * overflowing and zero denominators included. Model: pqhelium_sim::fxp_div. Steps: fxr_div.h.
 *
 * Representation: uint64_t holding a signed 32.32 value (x stands for x / 2^32); FFT vectors with real parts in
 * [0, n/2) and imaginary parts in [n/2, n), n = 2^logn, logn in 1..10. Bounds: none on the values (every 64-bit
 * pattern is an operand, every result a 64-bit pattern); e in 0..31 (invnorm), 0..63 (inv_mul2e).
 *
 * Why it is exact (docs/keygen.md has the full argument). With ax = |x|, d = |y| (at most 2^63) and N = ax 2^32,
 * the bit loop is:
 *   - normal, N < 2^64 d: its window stays below 2d <= 2^64, so its signed test is exact and it is a restoring
 *     division: q = floor(N/d) + [2r >= d], r = N mod d;
 *   - overflow, N >= 2^64 d (so d <= 2^31; d = 0 is here): the window stays at least d, and z = window - 2d follows
 *     z <- (2z + bit) mod (2^64 - 2d) with quotient digit 1 - b: the loop divides 2(N - 2^64 d) by 2(2^63 - d) and
 *     keeps the complemented digits, so q = -(floor(N'/E) + [2r' >= E]) with E = 2^63 - d, N' = N - 2^64 d.
 * Either is round(T 2^32 / den) with T < 2^64 and den in [1, 2^63], selected by a mask before the division and the
 * negation folded into the sign. Conversions of 32-bit halves are exact, so each digit estimate (a quotient Z below
 * 2^32) carries four roundings: |estimate - Z| < 2^32 * 4.01 * 2^-53 < 2^-19. Minus the bias 2^-8 it lies in
 * (Z - 1, Z): truncated it is floor(Z) or floor(Z) - 1, and one conditional subtraction of den per digit (remainder
 * below 2 den <= 2^64) makes it exact. The last remainder r0 < den <= 2^63 gives the rounding bit without overflow.
 *
 * Constant time: no operand-dependent branch, IT block, conditional instruction or address (borrow bits and masks;
 * cli/tests/fndsa_keygen.rs scans the disassembly). VDIV.F64 sees normal operands only.
 */
#include <stdint.h>

#include "fndsa_keygen.h"
#include "fxr_div.h"

uint64_t fndsa_fxr_div(uint64_t x, uint64_t y)
{
    return fxr_div_fpu(x, y, 1);
}

FXR_DIVISION_KERNELS(, fndsa_fxr_div)
