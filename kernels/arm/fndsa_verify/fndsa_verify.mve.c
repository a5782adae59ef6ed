/* fndsa.verify, fndsa.verify.batch4: FN-DSA verification (fndsa_verify_impl.h) on the MVE NTT kernels
 * (fndsa_ntt.mve.c: lazy int16_t lanes, NTT domain in the transposed order) and the MVE Keccak kernels
 * (keccak_x4.mve.c: the four-way permutation, the four states of a batch in its four lanes). The M55 and M85 images. */
#include <stdint.h>

#include "../fndsa_ntt/fndsa_ntt.h"

#include "fv_keccak_mve.h"

/* The MVE kernels store NTT slot 64c + 8j + r at position 64c + 8r + j (a transpose inside every block of 64). */
#define FV_H_POSITION(slot) (((slot) & ~63u) | ((slot) & 7u) << 3 | ((slot) >> 3 & 7u))
#define FV_NTT_KERNEL(n, op) fndsa_ntt##n##_##op
#define FV_VERIFY fndsa_verify
#define FV_VERIFY_BATCH4 fndsa_verify_batch4

#include "fndsa_verify_impl.h"
