/*
 * Self-test kernels that break a kernel's contract, one rule each, so that the engine's checks are shown to catch
 * every rule on both backends: read-only inputs stay unchanged, outputs stay within their declared bounds, and the
 * AAPCS calling convention holds (r4-r11, d8-d15 and sp as the caller left them). None of these is a real kernel.
 */
#include <stdint.h>

/* Copies len bytes from in to out; when at < len it also flips byte `at` of its read-only input. */
void pqh_selftest_writes_input(uint8_t *out, const uint8_t *in, uint32_t len, uint32_t at)
{
    for (uint32_t i = 0; i < len; i++)
        out[i] = in[i];
    if (at < len)
        ((uint8_t *)in)[at] ^= 0xFFu;
}

/* The ML-KEM modulus: the declared output range of pqh_selftest_breaks_bound is [0, PQH_SELFTEST_Q). */
#define PQH_SELFTEST_Q 3329u

/* Writes n coefficients in [0, q), except coefficient `at` (when at < n), which is q itself. */
void pqh_selftest_breaks_bound(uint16_t *coeffs, uint32_t n, uint32_t at)
{
    for (uint32_t i = 0; i < n; i++)
        coeffs[i] = (uint16_t)((i * 17u) % PQH_SELFTEST_Q);
    if (at < n)
        coeffs[at] = PQH_SELFTEST_Q;
}

/* Returns with r7 = value instead of the caller's r7. A naked body is assembly only (clang accepts no C statement
 * there), so the parameters are marked unused rather than cast to void. */
__attribute__((naked)) void pqh_selftest_clobbers_r7(uint32_t value __attribute__((unused)))
{
    __asm volatile("mov r7, r0\n\t"
                   "bx lr");
}

/* Returns with d9 = hi:lo instead of the caller's d9 (s18, s19). */
__attribute__((naked)) void pqh_selftest_clobbers_d9(uint32_t lo __attribute__((unused)),
                                                     uint32_t hi __attribute__((unused)))
{
    __asm volatile("vmov d9, r0, r1\n\t"
                   "bx lr");
}

/* Returns with sp 8 bytes below where the caller left it (a push without its pop). */
__attribute__((naked)) void pqh_selftest_moves_sp(void)
{
    __asm volatile("sub sp, sp, #8\n\t"
                   "bx lr");
}

/* Writes every callee-saved register and restores them, as the AAPCS allows (the compiler saves and restores what the
 * asm clobbers): returns value + 7, passed along r4 to r11, then d8 to d15. */
uint32_t pqh_selftest_uses_saved_registers(uint32_t value)
{
    uint32_t result;
    __asm volatile("mov r4, %1\n\t"
                   "add r5, r4, #1\n\t"
                   "add r6, r5, #1\n\t"
                   "add r7, r6, #1\n\t"
                   "add r8, r7, #1\n\t"
                   "add r9, r8, #1\n\t"
                   "add r10, r9, #1\n\t"
                   "add r11, r10, #1\n\t"
                   "vmov d8, r11, r11\n\t"
                   "vmov.f64 d9, d8\n\t"
                   "vmov.f64 d10, d9\n\t"
                   "vmov.f64 d11, d10\n\t"
                   "vmov.f64 d12, d11\n\t"
                   "vmov.f64 d13, d12\n\t"
                   "vmov.f64 d14, d13\n\t"
                   "vmov.f64 d15, d14\n\t"
                   "vmov %0, s30"
                   : "=r"(result)
                   : "r"(value)
                   : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "d8", "d9", "d10", "d11", "d12", "d13", "d14",
                     "d15");
    return result;
}
