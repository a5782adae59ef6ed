/* fndsa.verify.scalar, fndsa.verify.batch4.scalar: the reference-style build of FN-DSA verification
 * (fndsa_verify_impl.h) from the portable baselines: the scalar NTT (fndsa_ntt_scalar.c: canonical values, the
 * reference NTT order) and the scalar Keccak-f[1600] (keccak_f1600.c), four states one after the other for a batch.
 * Both images. */
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt.h"
#include "fv_keccak_scalar.h"

#define FV_H_POSITION(slot) (slot)
#define FV_VERIFY fndsa_verify_scalar
#define FV_VERIFY_BATCH4 fndsa_verify_batch4_scalar

static void fv_ntt_fwd(uint32_t logn, int16_t *a)
{
    if (logn == 9u) {
        fndsa_ntt512_fwd_scalar(a);
    } else {
        fndsa_ntt1024_fwd_scalar(a);
    }
}

static void fv_ntt_pointwise(uint32_t logn, int16_t *r, const int16_t *a, const int16_t *b)
{
    if (logn == 9u) {
        fndsa_ntt512_pointwise_scalar(r, a, b);
    } else {
        fndsa_ntt1024_pointwise_scalar(r, a, b);
    }
}

static void fv_ntt_inv(uint32_t logn, int16_t *a)
{
    if (logn == 9u) {
        fndsa_ntt512_inv_scalar(a);
    } else {
        fndsa_ntt1024_inv_scalar(a);
    }
}

#include "fndsa_verify_impl.h"
