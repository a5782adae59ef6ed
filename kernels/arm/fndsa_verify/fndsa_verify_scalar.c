/* fndsa.verify.scalar, fndsa.verify.batch4.scalar: the reference-style build of FN-DSA verification
 * (fndsa_verify_impl.h) from the portable baselines: the scalar NTT (fndsa_ntt_scalar.c: canonical values, the
 * reference NTT order) and the scalar Keccak-f[1600] (keccak_f1600.c), four states one after the other for a batch.
 * Both images. */
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt.h"
#include "fv_keccak_scalar.h"

#define FV_H_POSITION(slot) (slot)
#define FV_NTT_KERNEL(n, op) fndsa_ntt##n##_##op##_scalar
#define FV_VERIFY fndsa_verify_scalar
#define FV_VERIFY_BATCH4 fndsa_verify_batch4_scalar

#include "fndsa_verify_impl.h"
