@ mlkem.ntt.fwd in assembly, the form SLOTHY schedules (`kernels/slothy/schedule`, jobs in kernels/slothy/jobs_ntt.py):
@ the algorithm, storage order, bounds and contract of mlkem_ntt_fwd_mve (mlkem_ntt.mve.c), written as four loops
@ ending in `le`, one per pass, between the labels `start` and `end`. Not built itself: the scheduled copies are
@ (mlkem_ntt_fwd_slothy_m55.mve.S, mlkem_ntt_fwd_slothy_m85.mve.S).
@
@ mulmod(v, z) = v*z - q*round(v*z'/2^15) (vmul, vqrdmulh, vmla by r12 = -q), z' = round(z 2^15 / q); a
@ Cooley-Tukey butterfly (u, v) -> (u + t, u - t), t = mulmod(v, z). Scalar twiddles are pqh_mlkem_zeta_pairs
@ words (z in the low half, z' in the high half: vector-by-scalar instructions read the low 16 bits of the register);
@ pass 4's per-lane twiddles are pqh_mlkem_fwd_d's rows. p must be 4-byte aligned (vldrw/vstrw; the harness aligns
@ every buffer to 16 bytes).
    .syntax unified
    .thumb
    .text
    .global mlkem_ntt_fwd_asm
    .type mlkem_ntt_fwd_asm, %function
    .p2align 2
mlkem_ntt_fwd_asm:
    push {r4-r11, lr}
    vpush {d8-d15}
    ldr r11, =pqh_mlkem_zeta_pairs
    ldr r10, =pqh_mlkem_fwd_d
start:
    mvn r12, #3328                     @ -q
    @ pass 1: layers 1 (+128) and 2 (+64), zetas 1, 2, 3; vector j = p + 8j
    ldr r1, [r11, #4]
    lsr r2, r1, #16
    ldr r3, [r11, #8]
    lsr r4, r3, #16
    ldr r5, [r11, #12]
    lsr r6, r5, #16
    mov r7, r0
    mov lr, #8
layer12:
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #128]
    vldrw.u32 q2, [r7, #256]
    vldrw.u32 q3, [r7, #384]
    vmul.i16 q4, q2, r1
    vqrdmulh.s16 q2, q2, r2
    vmla.s16 q4, q2, r12
    vsub.i16 q2, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r1
    vqrdmulh.s16 q3, q3, r2
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q1, q5
    vadd.i16 q1, q1, q5
    vmul.i16 q4, q1, r3
    vqrdmulh.s16 q1, q1, r4
    vmla.s16 q4, q1, r12
    vsub.i16 q1, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r5
    vqrdmulh.s16 q3, q3, r6
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q2, q5
    vadd.i16 q2, q2, q5
    vstrw.u32 q1, [r7, #128]
    vstrw.u32 q2, [r7, #256]
    vstrw.u32 q3, [r7, #384]
    vstrw.u32 q0, [r7], #16
    le lr, layer12
    @ pass 2: layers 3 (+16) and 4 (+8); groups 2m and 2m + 1 (32 coefficients each) share zetas 4 + m, 8 + 2m,
    @ 9 + 2m
    add r8, r11, #16
    add r9, r11, #32
    mov r7, r0
    mov lr, #4
layer34:
    ldr r1, [r8], #4
    lsr r2, r1, #16
    ldrd r3, r5, [r9], #8
    lsr r4, r3, #16
    lsr r6, r5, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #16]
    vldrw.u32 q2, [r7, #32]
    vldrw.u32 q3, [r7, #48]
    vmul.i16 q4, q2, r1
    vqrdmulh.s16 q2, q2, r2
    vmla.s16 q4, q2, r12
    vsub.i16 q2, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r1
    vqrdmulh.s16 q3, q3, r2
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q1, q5
    vadd.i16 q1, q1, q5
    vmul.i16 q4, q1, r3
    vqrdmulh.s16 q1, q1, r4
    vmla.s16 q4, q1, r12
    vsub.i16 q1, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r5
    vqrdmulh.s16 q3, q3, r6
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q2, q5
    vadd.i16 q2, q2, q5
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #16]
    vstrw.u32 q2, [r7, #32]
    vstrw.u32 q3, [r7, #48]
    vldrw.u32 q0, [r7, #64]
    vldrw.u32 q1, [r7, #80]
    vldrw.u32 q2, [r7, #96]
    vldrw.u32 q3, [r7, #112]
    vmul.i16 q4, q2, r1
    vqrdmulh.s16 q2, q2, r2
    vmla.s16 q4, q2, r12
    vsub.i16 q2, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r1
    vqrdmulh.s16 q3, q3, r2
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q1, q5
    vadd.i16 q1, q1, q5
    vmul.i16 q4, q1, r3
    vqrdmulh.s16 q1, q1, r4
    vmla.s16 q4, q1, r12
    vsub.i16 q1, q0, q4
    vadd.i16 q0, q0, q4
    vmul.i16 q5, q3, r5
    vqrdmulh.s16 q3, q3, r6
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q2, q5
    vadd.i16 q2, q2, q5
    vstrw.u32 q0, [r7, #64]
    vstrw.u32 q1, [r7, #80]
    vstrw.u32 q2, [r7, #96]
    vstrw.u32 q3, [r7, #112]
    add r7, r7, #128
    le lr, layer34
    @ pass 3: layer 5 (+32); per 64-block, vectors j = 0..3 against j + 4, zetas 16 + 4b + j
    add r8, r11, #64
    mov r7, r0
    mov lr, #4
layer5:
    ldrd r1, r3, [r8], #8
    lsr r2, r1, #16
    lsr r4, r3, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #64]
    vmul.i16 q4, q1, r1
    vqrdmulh.s16 q1, q1, r2
    vmla.s16 q4, q1, r12
    vsub.i16 q1, q0, q4
    vadd.i16 q0, q0, q4
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #64]
    vldrw.u32 q2, [r7, #16]
    vldrw.u32 q3, [r7, #80]
    vmul.i16 q5, q3, r3
    vqrdmulh.s16 q3, q3, r4
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q2, q5
    vadd.i16 q2, q2, q5
    vstrw.u32 q2, [r7, #16]
    vstrw.u32 q3, [r7, #80]
    ldrd r5, r9, [r8], #8
    lsr r6, r5, #16
    lsr r1, r9, #16
    vldrw.u32 q0, [r7, #32]
    vldrw.u32 q1, [r7, #96]
    vmul.i16 q4, q1, r5
    vqrdmulh.s16 q1, q1, r6
    vmla.s16 q4, q1, r12
    vsub.i16 q1, q0, q4
    vadd.i16 q0, q0, q4
    vstrw.u32 q0, [r7, #32]
    vstrw.u32 q1, [r7, #96]
    vldrw.u32 q2, [r7, #48]
    vldrw.u32 q3, [r7, #112]
    vmul.i16 q5, q3, r9
    vqrdmulh.s16 q3, q3, r1
    vmla.s16 q5, q3, r12
    vsub.i16 q3, q2, q5
    vadd.i16 q2, q2, q5
    vstrw.u32 q2, [r7, #48]
    vstrw.u32 q3, [r7, #112]
    add r7, r7, #128
    le lr, layer5
    @ pass 4: layers 6 (vectors k, k + 2) and 7 (k, k + 1) on vld4 of each 32-block; rows of pqh_mlkem_fwd_d
    mov r8, r10
    mov r7, r0
    mov lr, #8
layer67:
    vld40.16 {q4, q5, q6, q7}, [r7]
    vld41.16 {q4, q5, q6, q7}, [r7]
    vld42.16 {q4, q5, q6, q7}, [r7]
    vld43.16 {q4, q5, q6, q7}, [r7]
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vmul.i16 q2, q6, q0
    vqrdmulh.s16 q6, q6, q1
    vmla.s16 q2, q6, r12
    vsub.i16 q6, q4, q2
    vadd.i16 q4, q4, q2
    vmul.i16 q3, q7, q0
    vqrdmulh.s16 q7, q7, q1
    vmla.s16 q3, q7, r12
    vsub.i16 q7, q5, q3
    vadd.i16 q5, q5, q3
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vmul.i16 q2, q5, q0
    vqrdmulh.s16 q5, q5, q1
    vmla.s16 q2, q5, r12
    vsub.i16 q5, q4, q2
    vadd.i16 q4, q4, q2
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vmul.i16 q3, q7, q0
    vqrdmulh.s16 q7, q7, q1
    vmla.s16 q3, q7, r12
    vsub.i16 q7, q6, q3
    vadd.i16 q6, q6, q3
    vst40.16 {q4, q5, q6, q7}, [r7]
    vst41.16 {q4, q5, q6, q7}, [r7]
    vst42.16 {q4, q5, q6, q7}, [r7]
    vst43.16 {q4, q5, q6, q7}, [r7]!
    le lr, layer67
end:
    vpop {d8-d15}
    pop {r4-r11, pc}
    .size mlkem_ntt_fwd_asm, . - mlkem_ntt_fwd_asm
