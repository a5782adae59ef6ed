#ifndef PQH_X25519_FE_H
#define PQH_X25519_FE_H
#include <stdint.h>

/* Arithmetic modulo p = 2^255 - 19 for the X25519 kernels (see fe.c for the contract).
 * A field element is 8 little-endian 32-bit limbs, radix 2^32: any value in [0, 2^256), congruent to the element
 * mod p, not necessarily reduced. Every function takes any such value and returns one. */
#define X25519_FE_LIMBS 8

void x25519_fe_mul(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS], const uint32_t b[X25519_FE_LIMBS]);
void x25519_fe_sqr(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS]);
void x25519_fe_add(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS], const uint32_t b[X25519_FE_LIMBS]);
void x25519_fe_sub(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS], const uint32_t b[X25519_FE_LIMBS]);
void x25519_fe_mul121666(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS]);
void x25519_fe_inv(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS]);
/* a^((p-5)/8), the exponent of a square root candidate. */
void x25519_fe_pow22523(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS]);
/* The canonical residue in [0, p-1], in the same limbs (constant time). */
void x25519_fe_canonical(uint32_t r[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS]);

/* The full 512-bit product a * b in 16 limbs (the multiplication before its reduction). */
void x25519_fe_product(uint32_t t[2 * X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS],
                       const uint32_t b[X25519_FE_LIMBS]);

/* The ladder (ladder.c): a conditional swap (swap in {0, 1}) and one step on state = x2 || z2 || x3 || z3. */
void x25519_cswap(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap);
void x25519_ladder_step(uint32_t state[4 * X25519_FE_LIMBS], const uint32_t x1[X25519_FE_LIMBS]);

/* The zero-safe paired inversion: r1 = a^-1, r2 = b^-1 (0 for 0) with one inversion and three multiplications. */
void x25519_inv2(uint32_t r1[X25519_FE_LIMBS], uint32_t r2[X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS],
                 const uint32_t b[X25519_FE_LIMBS]);
/* x z^-1 as its canonical 32-byte little-endian encoding. */
void x25519_fe_encode_ratio(uint8_t out[32], const uint32_t x[X25519_FE_LIMBS], const uint32_t z[X25519_FE_LIMBS]);
/* canonical(a b) as its 32-byte little-endian encoding. */
void x25519_fe_encode_product(uint8_t out[32], const uint32_t a[X25519_FE_LIMBS], const uint32_t b[X25519_FE_LIMBS]);
/* X25519(k, u) of RFC 7748: the scalar clamped, bit 255 of u ignored, the output canonical. */
void x25519_scalarmult(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]);
/* Its ladder without the final inversion: xz = X || Z with X Z^-1 = X25519(k, u). */
void x25519_ladder(uint32_t xz[2 * X25519_FE_LIMBS], const uint8_t k[32], const uint8_t u[32]);
/* The MVE conditional swap (cswap.mve.c, M55/M85 images). */
void x25519_cswap_mve(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap);
/* X25519(k, 9) through the signed-window table (base.c); the _b8 variant selects by address (flawed on purpose). */
void x25519_base(uint8_t out[32], const uint8_t k[32]);
void x25519_base_b8(uint8_t out[32], const uint8_t k[32]);
/* (X25519(k, 9), X25519(k, u)): the table for the first, the ladder for the second, their two final inversions shared
 * (x25519_inv2): X-Wing's encapsulation (ct_X, ss_X). */
void x25519_base_and_shared(uint8_t base[32], uint8_t shared[32], const uint8_t k[32], const uint8_t u[32]);

#endif
