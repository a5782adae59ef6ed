/*
 * A deliberately wrong fndsa.keygen.div: the FPU division of kernels/arm/fndsa_keygen/ with its last integer
 * correction step (the low quotient digit's) left out. Its batch entry point has fndsa_keygen_div's prototype, so a
 * campaign of that contract with this symbol must report mismatches.
 */
#include <stdint.h>

#include "../fndsa_keygen/fndsa_keygen.h"
#include "../fndsa_keygen/fxr_div.h"

static uint64_t div_one_correction_fewer(uint64_t x, uint64_t y)
{
    return fxr_div_fpu(x, y, 0);
}

void pqh_selftest_keygen_div_one_correction_fewer(uint64_t *q, const uint64_t *x, const uint64_t *y)
{
    fxr_div_batch(q, x, y, FNDSA_KEYGEN_DIV_BATCH, div_one_correction_fewer);
}
