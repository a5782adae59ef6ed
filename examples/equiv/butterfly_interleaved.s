// butterfly.s with its two butterflies interleaved by hand, registers unchanged: equivalent to it.
        .syntax unified
        .thumb
start:
        vldrw.u32 q1, [r0, #16]
        vldrw.u32 q5, [r1, #16]
        vqrdmulh.s32 q2, q1, r2
        vmul.u32 q1, q1, r3
        vqrdmulh.s32 q6, q5, r2
        vmul.u32 q5, q5, r3
        vldrw.u32 q0, [r0]
        vqrdmlah.s32 q1, q2, r12
        vldrw.u32 q4, [r1]
        vqrdmlah.s32 q5, q6, r12
        vsub.u32 q3, q0, q1
        vadd.u32 q0, q0, q1
        vsub.u32 q7, q4, q5
        vadd.u32 q4, q4, q5
        vstrw.u32 q0, [r0]
        vstrw.u32 q3, [r0, #16]
        vstrw.u32 q4, [r1]
        vstrw.u32 q7, [r1, #16]
end:
