/*
 * Self-test kernels: misbehaving and hostile guest code, so that every error path of the backends has a test.
 * None of these is a real kernel; they exist in both images so that the error tests run on both backends.
 */
#include <stdint.h>

/* Sums n words: a well-behaved kernel with a scalar return, used to check argument passing. */
uint32_t pqh_selftest_sum(const uint32_t *words, uint32_t n, uint32_t a2, uint32_t a3, uint32_t a4, uint32_t a5)
{
    uint32_t sum = a2 + 3u * a3 + 5u * a4 + 7u * a5;
    for (uint32_t i = 0; i < n; i++)
        sum += words[i];
    return sum;
}

/* Returns a*x + y from d0..d2 in d0: checks the hard-float argument and return registers. */
double pqh_selftest_fma_free(double a, double x, double y)
{
    return a * x + y; /* built with -ffp-contract=off: a rounded multiply, then a rounded add */
}

/* Loads from an address where nothing is mapped (vendor system space: no device there on either backend). */
uint32_t pqh_selftest_bad_load(void)
{
    return *(volatile uint32_t *)0xF0000000u;
}

/* Executes a permanently undefined instruction. */
void pqh_selftest_undefined(void)
{
    __asm volatile("udf #0x42");
}

/* Never returns. */
void pqh_selftest_endless_loop(void)
{
    for (;;)
        __asm volatile("" ::: "memory");
}

/* A hostile guest: semihosting SYS_SYSTEM (0x12) with the given shell command. With semihosting on, QEMU would run
 * it on the host; pqhelium must turn it into a fault. */
uint32_t pqh_selftest_semihost_system(const char *cmd, uint32_t len)
{
    uint32_t block[2] = {(uint32_t)cmd, len};
    register uint32_t r0 __asm("r0") = 0x12u;
    register uint32_t r1 __asm("r1") = (uint32_t)block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* A hostile guest: semihosting SYS_OPEN (0x01) of a host path for writing ("w" = mode 4). */
uint32_t pqh_selftest_semihost_open(const char *path, uint32_t len)
{
    uint32_t block[3] = {(uint32_t)path, 4u, len};
    register uint32_t r0 __asm("r0") = 0x01u;
    register uint32_t r1 __asm("r1") = (uint32_t)block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* Writes one byte past the end of its buffer: the guard bytes around buffers must catch it. */
void pqh_selftest_overrun(uint8_t *buf, uint32_t len)
{
    for (uint32_t i = 0; i <= len; i++)
        buf[i] = (uint8_t)i;
}

/* Raises external interrupt 95 by software (NVIC set-pending) and returns whether it was still pending afterwards,
 * that is, not taken inside the kernel; withdraws it before returning. QEMU only: the M7 image's emulator has no
 * NVIC. */
uint32_t pqh_selftest_interrupt_held(void)
{
    volatile uint32_t *const set_pending = (volatile uint32_t *)0xE000E208u; /* NVIC_ISPR2: interrupts 64-95 */
    volatile uint32_t *const clear_pending = (volatile uint32_t *)0xE000E288u;
    const uint32_t bit = 1u << 31;
    *set_pending = bit;
    __asm volatile("dsb\n\tisb" ::: "memory");
    uint32_t held = (*set_pending & bit) != 0u;
    *clear_pending = bit;
    return held;
}
