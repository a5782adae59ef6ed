/*
 * fndsa.keygen.pair: whole FN-DSA v0.4 key generation (keygen.c) on the optimised kernels: the MVE fixed-point FFT
 * and inverse FFT (fft_q32.mve.c) and the VDIV.F64 divisions (div.c). M55 and M85 images.
 */
#include <stdint.h>

#include "fft_q32.h"
#include "fndsa_keygen.h"
#include "keygen.h"

uint32_t fndsa_keygen_pair(uint8_t sk[FNDSA_KEYGEN_MAX_SIGNING_KEY], uint8_t vk[FNDSA_KEYGEN_MAX_VERIFYING_KEY],
                           const uint8_t *seed, uint32_t seed_len, uint32_t logn)
{
    static const struct fndsa_fxp_kernels optimised = {
        fndsa_keygen_fft, fndsa_keygen_ifft, fndsa_keygen_div_selfadj, fndsa_keygen_invnorm, fndsa_keygen_inv_mul2e,
    };
    return fndsa_keygen_pair_with(&optimised, sk, vk, seed, seed_len, logn);
}
