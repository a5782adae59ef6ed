@ mlkem.ntt.inv in assembly, the form SLOTHY schedules (`kernels/slothy/schedule`, jobs in kernels/slothy/jobs_ntt.py):
@ the algorithm, storage order, bounds and contract of mlkem_ntt_inv_mve (mlkem_ntt.mve.c), written as four loops
@ ending in `le`, one per pass, between the labels `start` and `end`. Not built itself: the scheduled copies are
@ (mlkem_ntt_inv_slothy_m55.mve.S, mlkem_ntt_inv_slothy_m85.mve.S).
@
@ mulmod as in mlkem_ntt_fwd.s; a Gentleman-Sande butterfly (u, v) -> (u + v, mulmod(v - u, z)); reduce(a) =
@ a - q*round(a*10/2^15) (vqrdmulh by 10 = round(2^15/q), vmla by r12 = -q). Pass 1 takes its per-lane twiddles
@ from pqh_mlkem_inv_d's rows, the other passes the pqh_mlkem_zeta_pairs words; pass 4 scales by f = 128^-1 mod q
@ (-26, twisted -256) and by f times zeta 1 (1652, twisted 16261).
    .syntax unified
    .thumb
    .text
    .global mlkem_ntt_inv_asm
    .type mlkem_ntt_inv_asm, %function
    .p2align 2
mlkem_ntt_inv_asm:
    push {r4-r11, lr}
    vpush {d8-d15}
    ldr r11, =pqh_mlkem_zeta_pairs
    ldr r10, =pqh_mlkem_inv_d
start:
    mvn r12, #3328                     @ -q
    mov r6, #10                        @ round(2^15 / q)
    @ pass 1: reduce, layers 7 (vectors k, k + 1) and 6 (k, k + 2) on vld4 of each 32-block; rows of pqh_mlkem_inv_d
    mov r8, r10
    mov r7, r0
    mov lr, #8
layer76:
    vld40.16 {q4, q5, q6, q7}, [r7]
    vld41.16 {q4, q5, q6, q7}, [r7]
    vld42.16 {q4, q5, q6, q7}, [r7]
    vld43.16 {q4, q5, q6, q7}, [r7]
    vqrdmulh.s16 q0, q4, r6
    vmla.s16 q4, q0, r12
    vqrdmulh.s16 q1, q5, r6
    vmla.s16 q5, q1, r12
    vqrdmulh.s16 q2, q6, r6
    vmla.s16 q6, q2, r12
    vqrdmulh.s16 q3, q7, r6
    vmla.s16 q7, q3, r12
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vsub.i16 q2, q5, q4
    vadd.i16 q4, q4, q5
    vmul.i16 q5, q2, q0
    vqrdmulh.s16 q2, q2, q1
    vmla.s16 q5, q2, r12
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vsub.i16 q3, q7, q6
    vadd.i16 q6, q6, q7
    vmul.i16 q7, q3, q0
    vqrdmulh.s16 q3, q3, q1
    vmla.s16 q7, q3, r12
    vldrh.u16 q0, [r8], #16
    vldrh.u16 q1, [r8], #16
    vsub.i16 q2, q6, q4
    vadd.i16 q4, q4, q6
    vmul.i16 q6, q2, q0
    vqrdmulh.s16 q2, q2, q1
    vmla.s16 q6, q2, r12
    vsub.i16 q3, q7, q5
    vadd.i16 q5, q5, q7
    vmul.i16 q7, q3, q0
    vqrdmulh.s16 q3, q3, q1
    vmla.s16 q7, q3, r12
    vst40.16 {q4, q5, q6, q7}, [r7]
    vst41.16 {q4, q5, q6, q7}, [r7]
    vst42.16 {q4, q5, q6, q7}, [r7]
    vst43.16 {q4, q5, q6, q7}, [r7]!
    le lr, layer76
    @ pass 2: layer 5 (+32), then reduce; per 64-block b, vectors j = 0..3 against j + 4, zetas 31 - 4b - j
    add r8, r11, #112
    mov r7, r0
    mov lr, #4
layer5:
    ldr r1, [r8, #12]
    lsr r2, r1, #16
    ldr r3, [r8, #8]
    lsr r4, r3, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #64]
    vsub.i16 q2, q1, q0
    vadd.i16 q0, q0, q1
    vmul.i16 q1, q2, r1
    vqrdmulh.s16 q2, q2, r2
    vmla.s16 q1, q2, r12
    vqrdmulh.s16 q2, q0, r6
    vmla.s16 q0, q2, r12
    vqrdmulh.s16 q2, q1, r6
    vmla.s16 q1, q2, r12
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #64]
    vldrw.u32 q3, [r7, #16]
    vldrw.u32 q4, [r7, #80]
    vsub.i16 q5, q4, q3
    vadd.i16 q3, q3, q4
    vmul.i16 q4, q5, r3
    vqrdmulh.s16 q5, q5, r4
    vmla.s16 q4, q5, r12
    vqrdmulh.s16 q5, q3, r6
    vmla.s16 q3, q5, r12
    vqrdmulh.s16 q5, q4, r6
    vmla.s16 q4, q5, r12
    vstrw.u32 q3, [r7, #16]
    vstrw.u32 q4, [r7, #80]
    ldr r5, [r8, #4]
    lsr r9, r5, #16
    ldr r1, [r8, #0]
    lsr r2, r1, #16
    vldrw.u32 q0, [r7, #32]
    vldrw.u32 q1, [r7, #96]
    vsub.i16 q2, q1, q0
    vadd.i16 q0, q0, q1
    vmul.i16 q1, q2, r5
    vqrdmulh.s16 q2, q2, r9
    vmla.s16 q1, q2, r12
    vqrdmulh.s16 q2, q0, r6
    vmla.s16 q0, q2, r12
    vqrdmulh.s16 q2, q1, r6
    vmla.s16 q1, q2, r12
    vstrw.u32 q0, [r7, #32]
    vstrw.u32 q1, [r7, #96]
    vldrw.u32 q3, [r7, #48]
    vldrw.u32 q4, [r7, #112]
    vsub.i16 q5, q4, q3
    vadd.i16 q3, q3, q4
    vmul.i16 q4, q5, r1
    vqrdmulh.s16 q5, q5, r2
    vmla.s16 q4, q5, r12
    vqrdmulh.s16 q5, q3, r6
    vmla.s16 q3, q5, r12
    vqrdmulh.s16 q5, q4, r6
    vmla.s16 q4, q5, r12
    vstrw.u32 q3, [r7, #48]
    vstrw.u32 q4, [r7, #112]
    sub r8, r8, #16
    add r7, r7, #128
    le lr, layer5
    @ pass 3: layers 4 (+8) and 3 (+16); groups 2m and 2m + 1 (32 coefficients each) share zetas 15 - 2m,
    @ 14 - 2m, 7 - m
    add r8, r11, #28
    add r9, r11, #56
    mov r7, r0
    mov lr, #4
layer43:
    ldr r1, [r8, #0]
    lsr r2, r1, #16
    ldrd r5, r3, [r9]
    lsr r4, r3, #16
    lsr r6, r5, #16
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #16]
    vldrw.u32 q2, [r7, #32]
    vldrw.u32 q3, [r7, #48]
    vsub.i16 q4, q1, q0
    vadd.i16 q0, q0, q1
    vmul.i16 q1, q4, r3
    vqrdmulh.s16 q4, q4, r4
    vmla.s16 q1, q4, r12
    vsub.i16 q5, q3, q2
    vadd.i16 q2, q2, q3
    vmul.i16 q3, q5, r5
    vqrdmulh.s16 q5, q5, r6
    vmla.s16 q3, q5, r12
    vsub.i16 q4, q2, q0
    vadd.i16 q0, q0, q2
    vmul.i16 q2, q4, r1
    vqrdmulh.s16 q4, q4, r2
    vmla.s16 q2, q4, r12
    vsub.i16 q5, q3, q1
    vadd.i16 q1, q1, q3
    vmul.i16 q3, q5, r1
    vqrdmulh.s16 q5, q5, r2
    vmla.s16 q3, q5, r12
    vstrw.u32 q0, [r7]
    vstrw.u32 q1, [r7, #16]
    vstrw.u32 q2, [r7, #32]
    vstrw.u32 q3, [r7, #48]
    vldrw.u32 q0, [r7, #64]
    vldrw.u32 q1, [r7, #80]
    vldrw.u32 q2, [r7, #96]
    vldrw.u32 q3, [r7, #112]
    vsub.i16 q4, q1, q0
    vadd.i16 q0, q0, q1
    vmul.i16 q1, q4, r3
    vqrdmulh.s16 q4, q4, r4
    vmla.s16 q1, q4, r12
    vsub.i16 q5, q3, q2
    vadd.i16 q2, q2, q3
    vmul.i16 q3, q5, r5
    vqrdmulh.s16 q5, q5, r6
    vmla.s16 q3, q5, r12
    vsub.i16 q4, q2, q0
    vadd.i16 q0, q0, q2
    vmul.i16 q2, q4, r1
    vqrdmulh.s16 q4, q4, r2
    vmla.s16 q2, q4, r12
    vsub.i16 q5, q3, q1
    vadd.i16 q1, q1, q3
    vmul.i16 q3, q5, r1
    vqrdmulh.s16 q5, q5, r2
    vmla.s16 q3, q5, r12
    vstrw.u32 q0, [r7, #64]
    vstrw.u32 q1, [r7, #80]
    vstrw.u32 q2, [r7, #96]
    vstrw.u32 q3, [r7, #112]
    sub r8, r8, #4
    sub r9, r9, #8
    add r7, r7, #128
    le lr, layer43
    @ pass 4: layer 2 (+64), zetas 3 and 2; layer 1 (+128) with the scaling: the sums by f, the differences by
    @ f zeta 1; vector j = p + 8j
    ldr r1, [r11, #12]
    lsr r2, r1, #16
    ldr r3, [r11, #8]
    lsr r4, r3, #16
    mvn r5, #25                        @ f = -26
    mvn r6, #255                       @ its twisted form, -256
    movw r8, #1652                     @ f zeta 1
    movw r9, #16261                    @ its twisted form
    mov r7, r0
    mov lr, #8
layer21:
    vldrw.u32 q0, [r7]
    vldrw.u32 q1, [r7, #128]
    vldrw.u32 q2, [r7, #256]
    vldrw.u32 q3, [r7, #384]
    vsub.i16 q4, q1, q0
    vadd.i16 q0, q0, q1
    vmul.i16 q1, q4, r1
    vqrdmulh.s16 q4, q4, r2
    vmla.s16 q1, q4, r12
    vsub.i16 q5, q3, q2
    vadd.i16 q2, q2, q3
    vmul.i16 q3, q5, r3
    vqrdmulh.s16 q5, q5, r4
    vmla.s16 q3, q5, r12
    vsub.i16 q4, q2, q0
    vadd.i16 q0, q0, q2
    vmul.i16 q2, q4, r8
    vqrdmulh.s16 q4, q4, r9
    vmla.s16 q2, q4, r12
    vsub.i16 q5, q3, q1
    vadd.i16 q1, q1, q3
    vmul.i16 q3, q5, r8
    vqrdmulh.s16 q5, q5, r9
    vmla.s16 q3, q5, r12
    vmul.i16 q4, q0, r5
    vqrdmulh.s16 q0, q0, r6
    vmla.s16 q4, q0, r12
    vmul.i16 q5, q1, r5
    vqrdmulh.s16 q1, q1, r6
    vmla.s16 q5, q1, r12
    vstrw.u32 q4, [r7]
    vstrw.u32 q5, [r7, #128]
    vstrw.u32 q2, [r7, #256]
    vstrw.u32 q3, [r7, #384]
    add r7, r7, #16
    le lr, layer21
end:
    vpop {d8-d15}
    pop {r4-r11, pc}
    .size mlkem_ntt_inv_asm, . - mlkem_ntt_inv_asm
