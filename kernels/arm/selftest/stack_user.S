/*
 * void pqh_selftest_stack_use(uint32_t bytes): uses exactly `bytes` of stack (a multiple of 4, at least 4): moves sp
 * down by that much, writes the word at the new sp, and returns. What the stack probes (scheme/stack_probe.S) must
 * report for it.
 */
    .syntax unified
    .thumb

    .section .text.pqh_selftest_stack_use, "ax", %progbits
    .thumb_func
    .global pqh_selftest_stack_use
    .type pqh_selftest_stack_use, %function
pqh_selftest_stack_use:
    mov r1, sp
    sub r1, r1, r0
    str r0, [r1]
    bx lr
    .size pqh_selftest_stack_use, . - pqh_selftest_stack_use
