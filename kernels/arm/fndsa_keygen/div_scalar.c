/*
 * fndsa.keygen.div.scalar, fndsa.keygen.div_selfadj.scalar, fndsa.keygen.invnorm.scalar,
 * fndsa.keygen.inv_mul2e.scalar: portable C baselines of div.c with the reference's bit-by-bit division
 * (pqhelium_core::fndsa::keygen::fxp::div), step for step, overflowing operands included. Model:
 * pqhelium_sim::fxp_div (the FPU algorithm: both must give the same bits). Representation and bounds as div.c.
 *
 * The loop's trip count is fixed and its body branch-free; the kernels' loops depend on logn only.
 */
#include <stdint.h>

#include "fndsa_keygen.h"
#include "fxr_div.h"

/* 1 when num - d is non-negative as a signed 64-bit value. */
static inline uint64_t step_bit(uint64_t num, uint64_t d)
{
    return fxr_opaque_bit((uint32_t)((num - d) >> 63)) ^ 1;
}

uint64_t fndsa_fxr_div_scalar(uint64_t x, uint64_t y)
{
    uint64_t sx = (uint64_t)((int64_t)x >> 63);
    uint64_t sy = (uint64_t)((int64_t)y >> 63);
    uint64_t ax = (x ^ sx) - sx;
    uint64_t ay = (y ^ sy) - sy;
    /* The window starts at ax >> 31; quotient bits 63..33 shift in bits 30..0 of ax (from the top of `rest`),
     * bits 32..0 shift in zeros. */
    uint64_t num = ax >> 31;
    uint64_t rest = ax << 33;
    uint64_t q = 0;
    for (int i = 63; i >= 0; i--) {
        uint64_t b = step_bit(num, ay);
        q = (q << 1) | b;
        num = ((num - (ay & (0 - b))) << 1) | (rest >> 63);
        rest <<= 1;
    }
    q += step_bit(num, ay);
    uint64_t s = sx ^ sy;
    return (q ^ s) - s;
}

FXR_DIVISION_KERNELS(_scalar, fndsa_fxr_div_scalar)
