/*
 * Stack high-water mark of one call, as pqm4's `stack` program measures it: pqh_stack_paint fills the stack below the
 * caller's sp with a pattern, the measured function runs as the next call, and pqh_stack_scan finds the lowest word
 * it changed. The harness calls every function with the same sp (pqh_invoke), so the three calls see one stack top.
 * Assembly so that the probes use no stack themselves.
 *
 * uint32_t pqh_stack_paint(uint32_t bytes): paints min(bytes, sp - __stack_limit) bytes (rounded down to words)
 * below sp; returns the bytes painted.
 * uint32_t pqh_stack_scan(void): the bytes between sp and the lowest word of the painted window that no longer holds
 * the pattern (0 if none changed; the whole window if its lowest word changed, which may mean more was used).
 */
#define PQH_STACK_PATTERN 0x5AC3A55A

    .syntax unified
    .thumb

/* reg = a 32-bit constant or address, without a literal pool */
    .macro mov32 reg, value
    movw \reg, #:lower16:\value
    movt \reg, #:upper16:\value
    .endm

    .bss
    .align 2
pqh_stack_window:               /* lowest painted address */
    .space 4

    .section .text.pqh_stack_paint, "ax", %progbits
    .thumb_func
    .global pqh_stack_paint
    .type pqh_stack_paint, %function
pqh_stack_paint:
    bic r0, r0, #3
    mov r1, sp
    mov32 r2, __stack_limit
    subs r3, r1, r2             /* the stack there is */
    it lo
    movlo r3, #0
    cmp r0, r3
    it hi
    movhi r0, r3
    subs r2, r1, r0             /* window base */
    mov32 r3, pqh_stack_window
    str r2, [r3]
    mov32 r3, PQH_STACK_PATTERN
1:  cmp r2, r1
    bhs 2f
    str r3, [r2], #4
    b 1b
2:  bx lr
    .size pqh_stack_paint, . - pqh_stack_paint

    .section .text.pqh_stack_scan, "ax", %progbits
    .thumb_func
    .global pqh_stack_scan
    .type pqh_stack_scan, %function
pqh_stack_scan:
    mov r1, sp
    mov32 r2, pqh_stack_window
    ldr r2, [r2]
    mov32 r3, PQH_STACK_PATTERN
1:  cmp r2, r1
    bhs 2f
    ldr r0, [r2]
    cmp r0, r3
    bne 2f
    adds r2, r2, #4
    b 1b
2:  subs r0, r1, r2
    bx lr
    .size pqh_stack_scan, . - pqh_stack_scan
