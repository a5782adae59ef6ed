/* The scalar NTT kernels (fndsa_ntt_scalar.c) at logn 9 or 10 for the whole operations that work on small
 * polynomials: signing (G from f, g and F) and key generation (h = g/f). The scalar kernels take any int16_t in and
 * return canonical residues in [0, q-1], their products too, so nothing in between needs reducing. */
#ifndef PQH_FNDSA_NTT_SMALL_H
#define PQH_FNDSA_NTT_SMALL_H

#include <stdint.h>

#include "fndsa_ntt.h"

static inline void fndsa_ntt_fwd_at(uint32_t logn, int16_t *a)
{
    if (logn == 9u)
        fndsa_ntt512_fwd_scalar(a);
    else
        fndsa_ntt1024_fwd_scalar(a);
}

static inline void fndsa_ntt_inv_at(uint32_t logn, int16_t *a)
{
    if (logn == 9u)
        fndsa_ntt512_inv_scalar(a);
    else
        fndsa_ntt1024_inv_scalar(a);
}

static inline void fndsa_ntt_mul_at(uint32_t logn, int16_t *r, const int16_t *a, const int16_t *b)
{
    if (logn == 9u)
        fndsa_ntt512_pointwise_scalar(r, a, b);
    else
        fndsa_ntt1024_pointwise_scalar(r, a, b);
}

/* The NTT of small coefficients. */
static inline void fndsa_ntt_small(uint32_t logn, int16_t *out, const int8_t *v)
{
    for (uint32_t i = 0; i < (1u << logn); i++)
        out[i] = v[i];
    fndsa_ntt_fwd_at(logn, out);
}

/* 1/f slot by slot for f in NTT form with no zero slot: f^(q-2), q - 2 = 0b10111111111111, square and multiply
 * from the second bit down, in the buffers a and b. Returns the one holding 1/f; the other is free. */
static inline int16_t *fndsa_ntt_inverse(uint32_t logn, const int16_t *f_ntt, int16_t *a, int16_t *b)
{
    int16_t *inv = a, *t = b;
    for (uint32_t i = 0; i < (1u << logn); i++)
        inv[i] = f_ntt[i];
    for (int32_t bit = 12; bit >= 0; bit--) {
        fndsa_ntt_mul_at(logn, t, inv, inv);
        if (((FNDSA_Q - 2) >> bit) & 1) {
            fndsa_ntt_mul_at(logn, inv, t, f_ntt);
        } else {
            int16_t *square = t;
            t = inv;
            inv = square;
        }
    }
    return inv;
}

#endif
