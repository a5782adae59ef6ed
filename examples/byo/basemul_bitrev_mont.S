/* An ML-KEM base multiplication (FIPS 203 Algorithm 11) written as another project might write it, to show how
 * pqhelium checks a kernel it did not write: coefficients in bit-reversed order, in the Montgomery domain (each value
 * times 2^16 mod q), its arguments in an order of its own and a table of its own. Scalar Thumb-2 (Cortex-M55, -M85
 * and -M7).
 *
 *   void byo_basemul_bitrev_mont(const int16_t a[256], const int16_t b[256], int16_t out[256],
 *                                const int16_t gammas[128]);
 *
 * In bit-reversed order, the pair (2i, 2i+1) of FIPS 203 sits at (j, j + 128) with j = BitRev7(i), so its modulus
 * X^2 - zeta^(2 BitRev7(i) + 1) is X^2 - zeta^(2j + 1): gammas[j] = zeta^(2j + 1) * 2^16 mod q, centred, zeta = 17.
 * Montgomery reduction: mont(p) = (p - t q) / 2^16 with t = (int16_t)(p q^-1 mod 2^16), |mont(p)| < q for
 * |p| < 2^15 q; inputs centred (|x| <= 1664) keep every product and sum below that.
 *
 * Built with -DIN_PLACE it works in place, as byo_basemul_bitrev_mont(int16_t a[256], const int16_t b[256],
 * const int16_t gammas[128]) with the product written over a: each step reads a[j] and a[j + 128] before it writes them.
 *
 * Built with -DMUTANT, one constant of the table is wrong: the check must catch it. Built with -DLEAKY, it also reads
 * a byte of a table at an index taken from each secret coefficient a0 (the value read is not used): the results stay
 * right and `pqhelium ct` must report the secret-dependent address.
 */
    .syntax unified
    .thumb

#include "mlkem_mont.h"
    .equ HALF, 256              /* bytes from coefficient j to coefficient j + 128 */

    .text
    .global byo_basemul_bitrev_mont
    .type byo_basemul_bitrev_mont, %function
    .thumb_func
byo_basemul_bitrev_mont:
    push    {r4-r11, lr}
#ifdef IN_PLACE
    mov     r3, r2              /* gammas */
    mov     r2, r0              /* out = a */
#endif
    movw    r11, #QINV
    movw    r12, #Q
    movs    r4, #128
1:
    ldrsh.w r6, [r0, #HALF]     /* a1 */
    ldrsh   r5, [r0], #2        /* a0 */
#ifdef LEAKY
    ubfx    r9, r5, #0, #8
    ldr     r10, =byo_leak_table
    ldrb    r9, [r10, r9]       /* the address depends on a0 */
#endif
    ldrsh.w r8, [r1, #HALF]     /* b1 */
    ldrsh   r7, [r1], #2        /* b0 */
    ldrsh   lr, [r3], #2        /* gamma_j * 2^16 */
    /* c1 = a0 b1 + a1 b0 */
    mul     r9, r5, r8
    mla     r9, r6, r7, r9
    mont    r9, r10
    strh.w  r9, [r2, #HALF]
    /* c0 = a0 b0 + a1 b1 gamma */
    mul     r10, r6, r8
    mont    r10, r9
    mul     r10, r10, lr
    mla     r10, r5, r7, r10
    mont    r10, r9
    strh    r10, [r2], #2
    subs    r4, r4, #1
    bne     1b
    pop     {r4-r11, pc}
    .ltorg
    .size byo_basemul_bitrev_mont, . - byo_basemul_bitrev_mont

#ifdef LEAKY
    .section .rodata.byo_leak_table, "a"
byo_leak_table:
    .space 256
#endif

    .section .rodata.byo_gammas_mont, "a"
    .global byo_gammas_mont
    .type byo_gammas_mont, %object
    .balign 4
byo_gammas_mont:
    .hword -1103, 817, -246, -1185, 422, -1215, -1590, -108
    .hword -1251, 1322, -777, -1510, -291, -874, 418, 958
#ifdef MUTANT
    .hword 555, 604, 1159, -1278, 177, 1218, -872, 996   /* gammas[17] one too large */
#else
    .hword 555, 603, 1159, -1278, 177, 1218, -872, 996
#endif
    .hword 1550, -1465, -602, -870, 1574, -1187, -156, 1522
    .hword 430, 1097, 778, -1530, 587, -136, 644, -308
    .hword 871, -1285, 1483, -854, -460, 220, 329, -1460
    .hword 843, 610, -147, 794, -235, -1335, 349, 991
    .hword 105, 384, 1119, 478, 1653, -1659, -75, 1628
    .hword 1103, -817, 246, 1185, -422, 1215, 1590, 108
    .hword 1251, -1322, 777, 1510, 291, 874, -418, -958
    .hword -555, -603, -1159, 1278, -177, -1218, 872, -996
    .hword -1550, 1465, 602, 870, -1574, 1187, 156, -1522
    .hword -430, -1097, -778, 1530, -587, 136, -644, 308
    .hword -871, 1285, -1483, 854, 460, -220, -329, 1460
    .hword -843, -610, 147, -794, 235, 1335, -349, -991
    .hword -105, -384, -1119, -478, -1653, 1659, 75, -1628
    .size byo_gammas_mont, . - byo_gammas_mont
