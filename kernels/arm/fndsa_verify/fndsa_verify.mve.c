/* fndsa.verify, fndsa.verify.batch4: FN-DSA verification (fndsa_verify_impl.h) on the MVE NTT kernels
 * (fndsa_ntt.mve.c: lazy int16_t lanes, NTT domain in the transposed order) and the MVE Keccak kernels
 * (keccak_x4.mve.c: the four-way permutation, the four states of a batch in its four lanes). Cortex-M55 image only. */
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt.h"

/* clang (the Cortex-M85 image) cannot build keccak_x4.mve.c (kernels/build.rs, CLANG_REFUSES): there the states
 * go through the scalar kernel one after the other. */
#if defined(__clang__)
#include "fv_keccak_scalar.h"
#else
#include "fv_keccak_mve.h"
#endif

/* The MVE kernels store NTT slot 64c + 8j + r at position 64c + 8r + j (a transpose inside every block of 64). */
#define FV_H_POSITION(slot) (((slot) & ~63u) | ((slot) & 7u) << 3 | ((slot) >> 3 & 7u))
#define FV_NTT_KERNEL(n, op) fndsa_ntt##n##_##op
#define FV_VERIFY fndsa_verify
#define FV_VERIFY_BATCH4 fndsa_verify_batch4

#include "fndsa_verify_impl.h"
