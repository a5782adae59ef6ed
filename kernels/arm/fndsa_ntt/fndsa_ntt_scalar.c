/*
 * fndsa.ntt512.fwd.scalar, fndsa.ntt1024.fwd.scalar, fndsa.ntt512.inv.scalar, fndsa.ntt1024.inv.scalar,
 * fndsa.ntt512.pointwise.scalar, fndsa.ntt1024.pointwise.scalar: portable C baselines of the MVE kernels of
 * fndsa_ntt.mve.c (same functions, no intrinsics), built into both images. Model: pqhelium_sim::fndsa_ntt::scalar.
 *
 * Representation: int16_t in, canonical residues in [0, q-1] out (q = 12289), no Montgomery factor.
 * Storage order: natural coefficient order for the forward input and inverse output; the reference NTT order
 * (FN-DSA v0.4: slot j = evaluation at g^((2 rev(j) + 1) 1024/n)) for the forward output and inverse input.
 * Bounds: every int16_t is a valid input (reduced mod q first); outputs in [0, q-1].
 * Forward: Cooley-Tukey; inverse: Gentleman-Sande, then multiplication by n^-1; pointwise: a*b mod q.
 * Products are at most (q-1)^2 < 2^28 in 32-bit unsigned arithmetic, reduced with %.
 */
#include <stdint.h>

#include "fndsa_ntt.h"

#define Q ((uint32_t)FNDSA_Q)

/* The sign of the remainder becomes a mask: `r < 0 ? r + q : r` compiles to an IT block with a secret condition
 * (pqhelium ct), which a Cortex-M85 executes in different time when the condition fails. */
static uint32_t canon(int32_t x)
{
    int32_t r = x % (int32_t)Q;
    uint32_t negative = (uint32_t)r >> 31;
    __asm__("" : "+r"(negative)); /* keeps the compiler from turning the mask back into a condition */
    return (uint32_t)r + (Q & (0u - negative));
}

static uint32_t tw(int16_t z)
{
    return canon(z);
}

static void fwd(int16_t *a, unsigned logn)
{
    const unsigned n = 1u << logn;
    for (unsigned i = 0; i < n; i++) {
        a[i] = (int16_t)canon(a[i]);
    }
    for (unsigned m = 1, t = n; m < n; m *= 2) {
        const unsigned ht = t / 2;
        for (unsigned i = 0; i < m; i++) {
            const uint32_t w = tw(fndsa_zeta[m + i]);
            for (unsigned j = i * t; j < i * t + ht; j++) {
                const uint32_t x = (uint32_t)a[j], y = (uint32_t)a[j + ht] * w % Q;
                a[j] = (int16_t)((x + y) % Q);
                a[j + ht] = (int16_t)((x + Q - y) % Q);
            }
        }
        t = ht;
    }
}

static void inv(int16_t *a, unsigned logn, uint32_t ninv)
{
    const unsigned n = 1u << logn;
    for (unsigned i = 0; i < n; i++) {
        a[i] = (int16_t)canon(a[i]);
    }
    for (unsigned m = n / 2, t = 1; m >= 1; m /= 2) {
        for (unsigned i = 0; i < m; i++) {
            const uint32_t w = tw(fndsa_izeta[m + i]);
            for (unsigned j = 2 * i * t; j < 2 * i * t + t; j++) {
                const uint32_t x = (uint32_t)a[j], y = (uint32_t)a[j + t];
                a[j] = (int16_t)((x + y) % Q);
                a[j + t] = (int16_t)((x + Q - y) * w % Q);
            }
        }
        t *= 2;
    }
    for (unsigned i = 0; i < n; i++) {
        a[i] = (int16_t)((uint32_t)a[i] * ninv % Q);
    }
}

static void pointwise(int16_t *r, const int16_t *a, const int16_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        r[i] = (int16_t)(canon(a[i]) * canon(b[i]) % Q);
    }
}

void fndsa_ntt512_fwd_scalar(int16_t a[512])
{
    fwd(a, 9);
}

void fndsa_ntt1024_fwd_scalar(int16_t a[1024])
{
    fwd(a, 10);
}

void fndsa_ntt512_inv_scalar(int16_t a[512])
{
    inv(a, 9, (uint32_t)(FNDSA_Q + FNDSA_NINV_512)); /* 512^-1 mod q, canonical */
}

void fndsa_ntt1024_inv_scalar(int16_t a[1024])
{
    inv(a, 10, (uint32_t)(FNDSA_Q + FNDSA_NINV_1024)); /* 1024^-1 mod q, canonical */
}

void fndsa_ntt512_pointwise_scalar(int16_t r[512], const int16_t a[512], const int16_t b[512])
{
    pointwise(r, a, b, 512);
}

void fndsa_ntt1024_pointwise_scalar(int16_t r[1024], const int16_t a[1024], const int16_t b[1024])
{
    pointwise(r, a, b, 1024);
}
