/* An ML-KEM inverse NTT (FIPS 203 Algorithm 10) written as another project might write it: its input in a
 * transposed order (the 256 coefficients as a 16 x 16 matrix stored by columns: index i holds FIPS 203's coefficient
 * (i % 16) * 16 + i / 16), its output in natural order and not multiplied by 128^-1, so 128 times FIPS 203's.
 * Scalar Thumb-2 (Cortex-M55, -M85 and -M7). Out of place, the input left unchanged:
 *
 *   void byo_intt_transposed(int16_t out[256], const int16_t in[256], const int16_t zetas[128]);
 *
 * zetas: mlkem_zetas.S, used from k = 127 down to 1. Any int16_t input: the first layer reads each coefficient
 * through the transposition and reduces it (Barrett); each layer then keeps its sums reduced (|x| <= 1664) and its
 * differences Montgomery-multiplied (|x| < q), so |out| < q.
 * Barrett: barrett(x) = x - round(x * 20159 / 2^26) q (20159 = round(2^26 / q)), |barrett(x)| <= 1664 for
 * |x| < 2^16. Montgomery: mlkem_mont.h.
 */
    .syntax unified
    .thumb

#include "mlkem_mont.h"
    .equ BARRETT, 20159         /* round(2^26 / q) */

/* x = barrett(x), t a scratch register; r10 = BARRETT, r12 = q. */
    .macro barrett x, t
    mul     \t, \x, r10
    add     \t, \t, #(1 << 25)
    asr     \t, \t, #26
    mls     \x, \t, r12, \x
    .endm

/* Index x of the transposed input holding coefficient j: (j % 16) * 16 + j / 16. */
    .macro transposed x, j
    and     \x, \j, #15
    lsls    \x, \x, #4
    orr     \x, \x, \j, lsr #4
    .endm

/* The first layer's butterfly on coefficients j = r3 + e and j + 2, read from the input (r1), written to out (r0):
 * out[j] = a + b, out[j + 2] = zeta (b - a), zeta in r7. */
    .macro first_butterfly e
    add     r4, r3, #\e
    transposed r5, r4
    ldrsh.w r5, [r1, r5, lsl #1]
    add     r6, r4, #2
    transposed r8, r6
    ldrsh.w r6, [r1, r8, lsl #1]
    barrett r5, r8
    barrett r6, r8
    sub     r9, r6, r5
    add     r5, r5, r6
    barrett r5, r8
    mul     r9, r9, r7
    mont    r9, r8
    strh    r5, [r0, r4, lsl #1]
    add     r4, r4, #2
    strh    r9, [r0, r4, lsl #1]
    .endm

    .text
    .global byo_intt_transposed
    .type byo_intt_transposed, %function
    .thumb_func
byo_intt_transposed:
    push    {r4-r11, lr}
    movw    r10, #BARRETT
    movw    r11, #QINV
    movw    r12, #Q
    add     r2, r2, #254        /* &zetas[127] */

    /* Layer len = 2, through the transposition. */
    movs    r3, #0
1:
    ldrsh.w r7, [r2], #-2
    first_butterfly 0
    first_butterfly 1
    adds    r3, #4
    cmp     r3, #256
    bne     1b

    /* Layers len = 4 .. 128 coefficients (r9: len in bytes), in place in out. */
    mov     r9, #8
2:
    mov     r1, r0              /* the block's first coefficient */
3:
    ldrsh.w r7, [r2], #-2
    add     r3, r1, r9          /* the end of the block's first half */
4:
    ldrsh.w r4, [r1]
    ldrsh.w r5, [r1, r9]
    sub     r6, r5, r4
    add     r4, r4, r5
    barrett r4, r8
    mul     r6, r6, r7
    mont    r6, r8
    strh    r6, [r1, r9]
    strh    r4, [r1], #2
    cmp     r1, r3
    bne     4b
    add     r1, r1, r9          /* over the second half */
    add     r6, r0, #512
    cmp     r1, r6
    bne     3b
    lsls    r9, r9, #1
    cmp     r9, #512
    bne     2b
    pop     {r4-r11, pc}
    .size byo_intt_transposed, . - byo_intt_transposed
