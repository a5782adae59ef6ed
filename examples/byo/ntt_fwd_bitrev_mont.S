/* An ML-KEM forward NTT (FIPS 203 Algorithm 9) written as another project might write it: natural-order input,
 * output in bit-reversed order (index s holds FIPS 203's coefficient BitRev8(s)) and in the Montgomery domain (each
 * value times 2^16 mod q). Scalar Thumb-2 (Cortex-M55, -M85 and -M7). In place:
 *
 *   void byo_ntt_fwd_bitrev_mont(int16_t p[256], const int16_t zetas[128]);    zetas: mlkem_zetas.S
 *
 * Any int16_t input: a first pass multiplies each coefficient by 2^32 mod q in Montgomery arithmetic, which gives
 * x * 2^16 mod q with |x| < q. Each of the seven layers adds less than q to the magnitude, so |out| < 8q = 26632.
 * Montgomery reduction: mont(p) = (p - t q) / 2^16 with t = (int16_t)(p q^-1 mod 2^16), |mont(p)| < q for
 * |p| < 2^15 q.
 *
 * Built with -DNARROW, the first pass saturates its input to 15 bits: right on the contract's domain (|x| <= 8192),
 * wrong beyond |x| = 16384, which a check over the wider domain the manifest declares must catch.
 */
    .syntax unified
    .thumb

#include "mlkem_mont.h"
    .equ R2, 1353               /* 2^32 mod q */

    .text
    .global byo_ntt_fwd_bitrev_mont
    .type byo_ntt_fwd_bitrev_mont, %function
    .thumb_func
byo_ntt_fwd_bitrev_mont:
    push    {r4-r11, lr}
    movw    r11, #QINV
    movw    r12, #Q

    /* Into the Montgomery domain: p[i] = mont(p[i] * (2^32 mod q)). */
    movw    r10, #R2
    mov     r2, r0
    mov     r3, #256
1:
    ldrsh.w r4, [r2]
#ifdef NARROW
    ssat    r4, #15, r4
#endif
    mul     r4, r4, r10
    mont    r4, r5
    strh    r4, [r2], #2
    subs    r3, #1
    bne     1b

    /* Seven layers of Cooley-Tukey butterflies, len = 128 .. 2 coefficients (r9: len in bytes), zetas from k = 1:
     * t = mont(zeta_k * p[j + len]), p[j + len] = p[j] - t, p[j] = p[j] + t. */
    adds    r1, #2
    mov     r9, #256
2:
    mov     r2, r0              /* the block's first coefficient */
    add     r8, r0, #512        /* the polynomial's end */
3:
    ldrsh.w r7, [r1], #2        /* zeta_k */
    add     r6, r2, r9          /* the end of the block's first half */
4:
    ldrsh.w r4, [r2]
    ldrsh.w r5, [r2, r9]
    mul     r5, r5, r7
    mont    r5, r3
    sub     r3, r4, r5
    add     r4, r4, r5
    strh    r3, [r2, r9]
    strh    r4, [r2], #2
    cmp     r2, r6
    bne     4b
    add     r2, r2, r9          /* over the second half */
    cmp     r2, r8
    bne     3b
    lsrs    r9, r9, #1
    cmp     r9, #2
    bne     2b

    /* Bit-reversed order: swap p[s] and p[BitRev8(s)] once for each pair. */
    movs    r2, #0
5:
    rbit    r3, r2
    lsrs    r3, r3, #24
    cmp     r2, r3
    bge     6f
    ldrh    r4, [r0, r2, lsl #1]
    ldrh    r5, [r0, r3, lsl #1]
    strh    r5, [r0, r2, lsl #1]
    strh    r4, [r0, r3, lsl #1]
6:
    adds    r2, #1
    cmp     r2, #256
    bne     5b
    pop     {r4-r11, pc}
    .size byo_ntt_fwd_bitrev_mont, . - byo_ntt_fwd_bitrev_mont
