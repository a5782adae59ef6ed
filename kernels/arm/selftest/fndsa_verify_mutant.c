/*
 * A deliberately wrong fndsa.verify.batch4: the portable batch verification of kernels/arm/fndsa_verify/ that then
 * hands request 2 the verdict of request 1. It has fndsa_verify_batch4's prototype, so a campaign of that contract
 * with this symbol must report mismatches wherever the two requests' verdicts differ.
 */
#include <stdint.h>

#include "../fndsa_verify/fndsa_verify.h"

void pqh_selftest_fndsa_verify_batch4_second_copies_first(uint8_t verdicts[4], const uint8_t *requests,
                                                          uint32_t requests_len, uint32_t logn)
{
    fndsa_verify_batch4_scalar(verdicts, requests, requests_len, logn);
    verdicts[1] = verdicts[0];
}
