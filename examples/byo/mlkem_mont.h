/* ML-KEM's modulus and the Montgomery reduction shared by the assembly examples (included by the C preprocessor:
 * the sources are .S files).
 *
 * mont(p) = (p - t q) / 2^16 with t = (int16_t)(p q^-1 mod 2^16): p 2^-16 mod q, |mont(p)| < q for |p| < 2^15 q.
 */
    .equ Q, 3329
    .equ QINV, 62209            /* q^-1 mod 2^16 */

/* x = mont(x), t a scratch register; r11 = q^-1 mod 2^16, r12 = q. */
    .macro mont x, t
    mul     \t, \x, r11
    sxth    \t, \t
    mls     \x, \t, r12, \x
    asr     \x, \x, #16
    .endm
