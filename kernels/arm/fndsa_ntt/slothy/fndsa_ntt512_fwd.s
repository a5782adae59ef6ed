@ fndsa.ntt512.fwd in assembly, the form SLOTHY schedules (`kernels/slothy/schedule`, jobs in
@ kernels/slothy/jobs_fndsa_ntt.py): the values, storage order, bounds and contract of fndsa_ntt512_fwd
@ (fndsa_ntt.mve.c), written as `le` loops between the labels `start` and `end` (the macros too: `equiv` takes the
@ region alone). Not built itself: the scheduled copies are (fndsa_ntt512_fwd_slothy_m55.mve.S, ..._m85.mve.S).
@
@ Same arithmetic as the C kernel, lane for lane: red() on every coefficient a pass loads, then Cooley-Tukey butterflies
@ (u, v) -> (u + t, u - t), t = v*w - q*round(v*w'/2^15) (vmul, vqrdmulh, vmla by r12 = -q). A C pass of 3 layers holds
@ 8 vectors and a butterfly needs a ninth register (MVE has 8), so it is two loops here: its first layer (with the
@ reduction), then the other two on 4 vectors at a time, through the array. The last three layers gather each 64-block's
@ vectors (lane j of vector k: coefficient 8j + k), reduce them and do distance 4 into the scratch r9 (n int16_t on the
@ stack), then distances 2 and 1 from there into the array, stored contiguously (the transposed NTT order). Scalar
@ twiddles: words of fndsa_zeta_pairs (r11); per-lane twiddles: rows of fndsa_fwd_rows_512 (r10).
    .syntax unified
    .thumb
    .text

    .global fndsa_ntt512_fwd_asm
    .type fndsa_ntt512_fwd_asm, %function
    .p2align 2
fndsa_ntt512_fwd_asm:
    push {r4-r11, lr}
    vpush {d8-d15}
    sub sp, sp, #1024
    mov r9, sp
    ldr r11, =fndsa_zeta_pairs
    ldr r10, =fndsa_fwd_rows_512
start:
    @ x <- red(x) = x - q*round(round(x*RED_V/2^15 rounded down)/2^13), RED_V in r8; t is a temporary.
.macro red x, t
    vqdmulh.s16 \t, \x, r8
    vrshr.s16 \t, \t, #13
    vmla.s16 \x, \t, r12
.endm

    @ (x, y) <- (x + t, x - t), t = y*w - q*round(y*wb/2^15); w, wb scalars (low 16 bits) or vectors (per lane).
.macro ct x, y, t, w, wb
    vmul.i16 \t, \y, \w
    vqrdmulh.s16 \y, \y, \wb
    vmla.s16 \t, \y, r12
    vsub.i16 \y, \x, \t
    vadd.i16 \x, \x, \t
.endm
    mvn r12, #12288                    @ -q
    @ pass 1, layer 0 (distance 256), every coefficient reduced: zeta 1; 4 vector pairs per iteration
    movw r8, #21844                    @ RED_V
    ldr r1, [r11, #4]
    lsr r2, r1, #16
    mov r7, r0
    add r6, r0, #512
    mov lr, #8
layer0:
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r6]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, r1, r2
    vldrw.u32 q3, [r7, #16]
    vldrw.u32 q4, [r6, #16]
    red q3, q5
    red q4, q5
    ct q3, q4, q5, r1, r2
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r6]
    vstrw.u32 q3, [r7, #16]
    vstrw.u32 q4, [r6, #16]
    vldrw.u32 q0, [r7, #32]
    vldrw.u32 q1, [r6, #32]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, r1, r2
    vldrw.u32 q3, [r7, #48]
    vldrw.u32 q4, [r6, #48]
    red q3, q5
    red q4, q5
    ct q3, q4, q5, r1, r2
    vstrw.u32 q0, [r7, #32]
    vstrw.u32 q1, [r6, #32]
    vstrw.u32 q3, [r7, #48]
    vstrw.u32 q4, [r6, #48]
    add r7, r7, #64
    add r6, r6, #64
    le lr, layer0
    @ pass 1, layers 1 and 2 (distances 128, 64) on the lower half: zetas 2, then 4 and 5
    ldr r1, [r11, #8]
    lsr r2, r1, #16
    ldrd r3, r5, [r11, #16]
    lsr r4, r3, #16
    lsr r6, r5, #16
    mov r7, r0
    mov lr, #8
layer12_low:
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #128]
    vldrw.u32 q2, [r7, #256]
    vldrw.u32 q3, [r7, #384]
    ct q0, q2, q4, r1, r2
    ct q1, q3, q4, r1, r2
    ct q0, q1, q4, r3, r4
    ct q2, q3, q4, r5, r6
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #128]
    vstrw.u32 q2, [r7, #256]
    vstrw.u32 q3, [r7, #384]
    add r7, r7, #16
    le lr, layer12_low
    @ the upper half: zetas 3, then 6 and 7
    ldr r1, [r11, #12]
    lsr r2, r1, #16
    ldrd r3, r5, [r11, #24]
    lsr r4, r3, #16
    lsr r6, r5, #16
    add r7, r0, #512
    mov lr, #8
layer12_high:
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #128]
    vldrw.u32 q2, [r7, #256]
    vldrw.u32 q3, [r7, #384]
    ct q0, q2, q4, r1, r2
    ct q1, q3, q4, r1, r2
    ct q0, q1, q4, r3, r4
    ct q2, q3, q4, r5, r6
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #128]
    vstrw.u32 q2, [r7, #256]
    vstrw.u32 q3, [r7, #384]
    add r7, r7, #16
    le lr, layer12_high
    @ pass 2, layer 3 (distance 32), every coefficient reduced: 64-block g, zeta 8 + g
    movw r8, #21844
    add r5, r11, #32
    mov r7, r0
    mov lr, #8
layer3:
    ldr r1, [r5], #4
    lsr r2, r1, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #64]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, r1, r2
    vldrw.u32 q3, [r7, #16]
    vldrw.u32 q4, [r7, #80]
    red q3, q5
    red q4, q5
    ct q3, q4, q5, r1, r2
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #64]
    vstrw.u32 q3, [r7, #16]
    vstrw.u32 q4, [r7, #80]
    vldrw.u32 q0, [r7, #32]
    vldrw.u32 q1, [r7, #96]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, r1, r2
    vldrw.u32 q3, [r7, #48]
    vldrw.u32 q4, [r7, #112]
    red q3, q5
    red q4, q5
    ct q3, q4, q5, r1, r2
    vstrw.u32 q0, [r7, #32]
    vstrw.u32 q1, [r7, #96]
    vstrw.u32 q3, [r7, #48]
    vstrw.u32 q4, [r7, #112]
    add r7, r7, #128
    le lr, layer3
    @ pass 2, layers 4 and 5 (distances 16, 8) on 32-block i: zetas 16 + i, then 32 + 2i and 33 + 2i
    add r4, r11, #64
    add r5, r11, #128
    mov r7, r0
    mov lr, #16
layer45:
    ldr r1, [r4], #4
    lsr r2, r1, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #16]
    vldrw.u32 q2, [r7, #32]
    vldrw.u32 q3, [r7, #48]
    ct q0, q2, q4, r1, r2
    ct q1, q3, q4, r1, r2
    ldrd r3, r6, [r5], #8
    lsr r1, r3, #16
    lsr r2, r6, #16
    ct q0, q1, q4, r3, r1
    ct q2, q3, q4, r6, r2
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #16]
    vstrw.u32 q2, [r7, #32]
    vstrw.u32 q3, [r7, #48]
    add r7, r7, #64
    le lr, layer45
    @ pass 3, layer 6 (distance 4) on 64-block c, every coefficient reduced: vector k gathered (lane j: 64c + 8j + k),
    @ per-lane twiddles in rows 0 and 1 of the block's 7 row pairs; into the scratch, vector k at 16k
    movw r8, #21844
    mov r2, #0
    vidup.u16 q7, r2, #8               @ lane j: 8j
    mov r7, r0
    mov r6, r9
    mov r5, r10
    mov lr, #8
last_dist4:
    vldrw.u32 q5, [r5]
    vldrw.u32 q6, [r5, #16]
    add r5, r5, #224
    vldrh.u16 q0, [r7, q7, UXTW #1]
    add r1, r7, #8
    vldrh.u16 q1, [r1, q7, UXTW #1]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, q5, q6
    vstrw.u32 q0, [r6]
    vstrw.u32 q1, [r6, #64]
    add r2, r7, #2
    vldrh.u16 q0, [r2, q7, UXTW #1]
    add r3, r7, #10
    vldrh.u16 q1, [r3, q7, UXTW #1]
    red q0, q2
    red q1, q2
    ct q0, q1, q2, q5, q6
    vstrw.u32 q0, [r6, #16]
    vstrw.u32 q1, [r6, #80]
    add r1, r7, #4
    vldrh.u16 q3, [r1, q7, UXTW #1]
    add r2, r7, #12
    vldrh.u16 q4, [r2, q7, UXTW #1]
    red q3, q2
    red q4, q2
    ct q3, q4, q2, q5, q6
    vstrw.u32 q3, [r6, #32]
    vstrw.u32 q4, [r6, #96]
    add r3, r7, #6
    vldrh.u16 q3, [r3, q7, UXTW #1]
    add r1, r7, #14
    vldrh.u16 q4, [r1, q7, UXTW #1]
    red q3, q2
    red q4, q2
    ct q3, q4, q2, q5, q6
    vstrw.u32 q3, [r6, #48]
    vstrw.u32 q4, [r6, #112]
    add r7, r7, #128
    add r6, r6, #128
    le lr, last_dist4
    @ pass 3, layers 7 and 8 (distances 2, 1) from the scratch into the array: vectors 0-3 with rows 2, 6, 8,
    @ vectors 4-7 with rows 4, 10, 12
    mov r7, r0
    mov r6, r9
    add r5, r10, #32
    mov lr, #8
last_dist21:
    vldrw.u32 q0, [r6]
    vldrw.u32 q1, [r6, #16]
    vldrw.u32 q2, [r6, #32]
    vldrw.u32 q3, [r6, #48]
    vldrw.u32 q4, [r5]
    vldrw.u32 q5, [r5, #16]
    ct q0, q2, q6, q4, q5
    ct q1, q3, q6, q4, q5
    vldrw.u32 q4, [r5, #64]
    vldrw.u32 q5, [r5, #80]
    ct q0, q1, q6, q4, q5
    vldrw.u32 q4, [r5, #96]
    vldrw.u32 q5, [r5, #112]
    ct q2, q3, q6, q4, q5
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #16]
    vstrw.u32 q2, [r7, #32]
    vstrw.u32 q3, [r7, #48]
    vldrw.u32 q0, [r6, #64]
    vldrw.u32 q1, [r6, #80]
    vldrw.u32 q2, [r6, #96]
    vldrw.u32 q3, [r6, #112]
    vldrw.u32 q4, [r5, #32]
    vldrw.u32 q5, [r5, #48]
    ct q0, q2, q6, q4, q5
    ct q1, q3, q6, q4, q5
    vldrw.u32 q4, [r5, #128]
    vldrw.u32 q5, [r5, #144]
    ct q0, q1, q6, q4, q5
    vldrw.u32 q4, [r5, #160]
    vldrw.u32 q5, [r5, #176]
    ct q2, q3, q6, q4, q5
    vstrw.u32 q0, [r7, #64]
    vstrw.u32 q1, [r7, #80]
    vstrw.u32 q2, [r7, #96]
    vstrw.u32 q3, [r7, #112]
    add r5, r5, #224
    add r6, r6, #128
    add r7, r7, #128
    le lr, last_dist21
end:
    add sp, sp, #1024
    vpop {d8-d15}
    pop {r4-r11, pc}
    .size fndsa_ntt512_fwd_asm, . - fndsa_ntt512_fwd_asm
