/* harness_entry.S: vector table, exception entry and the AAPCS call trampoline. */
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

/* void pqh_invoke(struct pqh_call *call): call->fn(iargs[0..8], dargs[0..8]), store r0, r1, d0. */
    .thumb_func
    .global pqh_invoke
pqh_invoke:
    push {r4, r5, r6, lr}
    mov r4, r0
    sub sp, sp, #16             /* iargs[4..8] go on the stack; sp stays 8-byte aligned */
    ldr r0, [r4, #24]
    str r0, [sp, #0]
    ldr r0, [r4, #28]
    str r0, [sp, #4]
    ldr r0, [r4, #32]
    str r0, [sp, #8]
    ldr r0, [r4, #36]
    str r0, [sp, #12]
    add r0, r4, #40
    vldm r0, {d0-d7}
    ldr r5, [r4, #0]
    ldr r0, [r4, #8]
    ldr r1, [r4, #12]
    ldr r2, [r4, #16]
    ldr r3, [r4, #20]
    blx r5
    str r0, [r4, #104]
    str r1, [r4, #108]
    vstr d0, [r4, #112]
    add sp, sp, #16
    pop {r4, r5, r6, pc}
