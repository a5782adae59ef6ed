@ Encodings the architecture calls UNDEFINED or UNPREDICTABLE, which QEMU executes without complaint: each one must
@ be refused by `pqhelium lint` with its symbol+offset and rule. Raw encodings (.inst) where an assembler would refuse
@ the instruction itself.
    .syntax unified
    .thumb
    .text

    .global lint_writeback
    .type lint_writeback, %function
lint_writeback:
    .inst.w 0xe8f00102      @ +0x0  ldrd r0, r1, [r0], #8: writeback into a destination (the scheduled-NTT bug)
    .inst.w 0xe9d12200      @ +0x4  ldrd r2, r2, [r1]: equal destinations
    .inst.w 0xf8533b04      @ +0x8  ldr r3, [r3], #4: writeback into the destination
    .inst.w 0xe8b00003      @ +0xc  ldm r0!, {r0, r1}: written-back base in the list
    bx lr                   @ +0x10 (clean)
    .size lint_writeback, . - lint_writeback

    .global lint_mve
    .type lint_mve, %function
lint_mve:
    vadd.i16 q0, q1, q2     @ +0x0  (clean)
    .inst.w 0xee210e02      @ +0x4  vmullb.s32 q0, q0, q1: a 32-bit long multiply over its own source
    .inst.w 0xfc90df01      @ +0x8  vld40.32 {q6..q9}: registers beyond q7
    it eq
    .inst.w 0xef000140      @ +0xe  an MVE instruction in an IT block
    bx lr
    .size lint_mve, . - lint_mve

    .global lint_clean
    .type lint_clean, %function
lint_clean:
    push {r4, lr}
    ldrd r2, r3, [r0], #8
    vldrw.u32 q0, [r1], #16
    ldr r0, =0x12345678
    pop {r4, pc}
    .size lint_clean, . - lint_clean
