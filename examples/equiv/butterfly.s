// Two Montgomery-style butterflies on 32-bit lanes, one after the other: the input form a scheduler interleaves.
// r0, r1: the two pairs of vectors; r2, r3, r12: the twiddle's constants. Outputs: q0-q7 and memory.
        .syntax unified
        .thumb
start:
        vldrw.u32 q0, [r0]
        vldrw.u32 q1, [r0, #16]
        vqrdmulh.s32 q2, q1, r2
        vmul.u32 q1, q1, r3
        vqrdmlah.s32 q1, q2, r12
        vsub.u32 q3, q0, q1
        vadd.u32 q0, q0, q1
        vstrw.u32 q0, [r0]
        vstrw.u32 q3, [r0, #16]
        vldrw.u32 q4, [r1]
        vldrw.u32 q5, [r1, #16]
        vqrdmulh.s32 q6, q5, r2
        vmul.u32 q5, q5, r3
        vqrdmlah.s32 q5, q6, r12
        vsub.u32 q7, q4, q5
        vadd.u32 q4, q4, q5
        vstrw.u32 q4, [r1]
        vstrw.u32 q7, [r1, #16]
end:
