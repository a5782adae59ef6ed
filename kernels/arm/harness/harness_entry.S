/* harness_entry.S: vector table, exception entry and the AAPCS call trampoline. */
#include "pqh_invoke.h"

    .syntax unified
    .thumb

    .section .vectors, "a"
    .global pqh_vectors
pqh_vectors:
    .word __stack_top
    .word pqh_reset
    .word pqh_fault_entry     /* NMI */
    .word pqh_fault_entry     /* HardFault */
    .word pqh_fault_entry     /* MemManage */
    .word pqh_fault_entry     /* BusFault */
    .word pqh_fault_entry     /* UsageFault */
    .word pqh_fault_entry     /* SecureFault */
    .word 0, 0, 0
    .word pqh_fault_entry     /* SVCall: guest code has no business calling it */
    .word pqh_fault_entry     /* DebugMonitor */
    .word 0
    .word pqh_fault_entry     /* PendSV */
    .word pqh_tick_handler    /* SysTick: wakes the idle loop */
    .rept 128
    .word pqh_irq_handler
    .endr

    .text
    .thumb_func
    .global pqh_fault_entry
pqh_fault_entry:
    tst lr, #4
    ite eq
    mrseq r0, msp
    mrsne r0, psp
    mov r1, lr
    b pqh_fault_record          /* returns with lr = EXC_RETURN intact */

/* Exception return lands here after a fault: reset the stack and report the batch as done (faulted). */
    .thumb_func
    .global pqh_fault_recover
pqh_fault_recover:
    ldr r0, =__stack_top
    mov sp, r0
    bl pqh_fault_resume

/*
 * void pqh_invoke(struct pqh_call *call): call->fn(iargs[0..8], dargs[0..8]), store r0, r1, d0, then check that the
 * callee kept the AAPCS calling convention: sp, r4-r11 and d8-d15 as it found them. They hold canaries during the
 * call (pqh_invoke.h), so the call and the caller's sp wait in pqh_invoke_state. Only a violation costs memory
 * accesses (in unicorn each costs more than a dozen instructions): the registers are compared where they are, and
 * pqh_report_violation (harness_main.c) runs only when one differs.
 *
 * The caller's r4-r11 are saved and restored; its d8-d15 are not: the one caller, pqh_run_batch, is compiled to use
 * core registers only.
 */
    .thumb_func
    .global pqh_invoke
pqh_invoke:
    push {r4-r11, ip, lr}       /* ip keeps sp 8-byte aligned */
    sub sp, sp, #16
    add r1, r0, #24
    ldm r1, {r1, r2, r3, ip}
    stm sp, {r1, r2, r3, ip}    /* iargs[4..8] go on the stack */
    ldr r1, =pqh_invoke_state
    mov r2, sp
    strd r0, r2, [r1, #PQH_STATE_CALL]
    add r1, r0, #40
    vldm r1, {d0-d7}
    .irp n, 4, 5, 6, 7, 8, 9, 10, 11
    mov.w r\n, #PQH_CORE_CANARY(\n)
    .endr
    .irp n, 8, 9, 10, 11, 12, 13, 14, 15
    mov.w r1, #PQH_FP_CANARY(\n)
    vmov d\n, r1, r1
    .endr
    ldr ip, [r0, #0]
    ldr r1, [r0, #12]
    ldr r2, [r0, #16]
    ldr r3, [r0, #20]
    ldr r0, [r0, #8]
    blx ip
    ldr r2, =pqh_invoke_state
    ldrd r3, ip, [r2, #PQH_STATE_CALL] /* ip: the caller's sp */
    str r0, [r3, #104]
    str r1, [r3, #108]
    vstr d0, [r3, #112]
    mov r0, sp
    sub r3, ip, r0              /* r3 gathers every difference: nonzero if anything moved */
    .irp n, 4, 5, 6, 7, 8, 9, 10, 11
    eor r0, r\n, #PQH_CORE_CANARY(\n)
    orr r3, r3, r0
    .endr
    .irp n, 8, 9, 10, 11, 12, 13, 14, 15
    vmov r0, r1, d\n
    eor r0, r0, #PQH_FP_CANARY(\n)
    eor r1, r1, #PQH_FP_CANARY(\n)
    orr r3, r3, r0
    orr r3, r3, r1
    .endr
    cbnz r3, 1f
    add sp, sp, #16
    pop {r4-r11, ip, pc}
1:  mov r0, sp                  /* a violation: keep what the callee left, for the report */
    str r0, [r2, #PQH_STATE_SP_AFTER]
    add r0, r2, #PQH_STATE_AFTER
    stm r0!, {r4-r11}
    vstm r0, {d8-d15}
    mov sp, ip                  /* the caller's frame again, wherever the callee left sp */
    bl pqh_report_violation
    add sp, sp, #16
    pop {r4-r11, ip, pc}
