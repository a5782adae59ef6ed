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

/* The full 512-bit product a * b in 16 limbs (the multiplication before its reduction). */
void x25519_fe_product(uint32_t t[2 * X25519_FE_LIMBS], const uint32_t a[X25519_FE_LIMBS],
                       const uint32_t b[X25519_FE_LIMBS]);

/* The ladder (ladder.c): a conditional swap (swap in {0, 1}) and one step on state = x2 || z2 || x3 || z3. */
void x25519_cswap(uint32_t a[X25519_FE_LIMBS], uint32_t b[X25519_FE_LIMBS], uint32_t swap);
void x25519_ladder_step(uint32_t state[4 * X25519_FE_LIMBS], const uint32_t x1[X25519_FE_LIMBS]);

#endif
