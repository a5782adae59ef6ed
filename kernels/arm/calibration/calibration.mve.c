/*
 * Calibration kernels for `pqhelium cycles`: short loops whose cycle counts on Cortex-M55/M85 are published
 * (measurements on a board, or Arm's own pipeline descriptions), written here from those descriptions. Each takes
 * the iteration count n >= 1 (and a 64-byte buffer for the memory ones) and returns 0; the sequences are inline
 * assembly so that neither compiler changes them. Predicted against published: docs/cycles.md.
 *
 * Contract: n in [1, 2^16]; buf (when present) 64 bytes, 16-byte aligned, contents irrelevant and overwritten.
 */
#include <stdint.h>

#define REPEAT2(x) x x
#define REPEAT4(x) REPEAT2(x) REPEAT2(x)
#define REPEAT8(x) REPEAT4(x) REPEAT4(x)
#define REPEAT16(x) REPEAT8(x) REPEAT8(x)

/* Twenty pairs of independent 16-bit register moves per iteration, ended by `le`: on the Cortex-M85 two 16-bit ALU
 * instructions issue per cycle and a predicted branch issues beside the two before it, so an iteration takes 20
 * cycles (measured on an RA8D1: 20,001 cycles for 1,000 iterations of 40 16-bit instructions and a branch, jnk0le/
 * random `pipeline cycle test`, whose template names `le` as the alternative to its `bne`). */
uint32_t cal_alu_pairs(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT16("mov r2, r2\n mov r3, r3\n") REPEAT2("mov r2, r2\n mov r3, r3\n")
                         "mov r2, r2\n mov r3, r3\n"
                         "mov r2, r2\n mov r3, r3\n"
                         "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "r2", "r3", "lr", "memory");
    return 0;
}

/* A chain of dependent FP64 additions, eight per iteration: each waits for the one before, so an iteration takes
 * eight FP64 add latencies (Cortex-M55 15 cycles, Cortex-M85 6: docs/cycles.md for the sources). */
uint32_t cal_fp64_add_chain(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "vmov.f64 d0, #1.0\n"
                     "vmov.f64 d1, #0.5\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT8("vadd.f64 d0, d0, d1\n") "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "d0", "d1", "lr", "memory");
    return 0;
}

/* The same with multiplications (latency: Cortex-M55 21 cycles, Cortex-M85 8). */
uint32_t cal_fp64_mul_chain(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "vmov.f64 d0, #1.0\n"
                     "vmov.f64 d1, #1.0\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT8("vmul.f64 d0, d0, d1\n") "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "d0", "d1", "lr", "memory");
    return 0;
}

/* The same with divisions (latency: Cortex-M55 30 cycles, Cortex-M85 29). */
uint32_t cal_fp64_div_chain(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "vmov.f64 d0, #1.0\n"
                     "vmov.f64 d1, #1.0\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT8("vdiv.f64 d0, d0, d1\n") "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "d0", "d1", "lr", "memory");
    return 0;
}

/* Six independent FP64 additions per iteration (each writes its own register from the same two operands): a
 * pipelined unit would start one a cycle; the Cortex-M55's FP64 unit is not pipelined, so each waits for the one
 * before to finish: 6 x 15 = 90 cycles an iteration (docs/cycles.md, "FP64 on the Cortex-M55"). */
uint32_t cal_fp64_add_independent(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "vmov.f64 d6, #1.0\n"
                     "vmov.f64 d7, #0.5\n"
                     "dls lr, %0\n"
                     "1:\n"
                     "vadd.f64 d0, d6, d7\n vadd.f64 d1, d6, d7\n vadd.f64 d2, d6, d7\n"
                     "vadd.f64 d3, d6, d7\n vadd.f64 d4, d6, d7\n vadd.f64 d5, d6, d7\n"
                     "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "lr", "memory");
    return 0;
}

/* Three independent pairs of an FP64 multiplication and an addition per iteration: on the Cortex-M55
 * 3 x (21 + 15) = 108 cycles, one operation after the other. */
uint32_t cal_fp64_mul_add_independent(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "vmov.f64 d6, #1.0\n"
                     "vmov.f64 d7, #0.5\n"
                     "dls lr, %0\n"
                     "1:\n"
                     "vmul.f64 d0, d6, d7\n vadd.f64 d1, d6, d7\n vmul.f64 d2, d6, d7\n"
                     "vadd.f64 d3, d6, d7\n vmul.f64 d4, d6, d7\n vadd.f64 d5, d6, d7\n"
                     "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "lr", "memory");
    return 0;
}

/* Arm's description of the Cortex-M55 MVE pipeline (LLVM ARMScheduleM55.td): in VLDR; VADD; VMUL; VSTR each
 * instruction's second beat overlaps the next one's first beat on another pipe, 5 cycles in all. The next sequence's
 * VLDR cannot overlap the VSTR (same load/store pipe): 5 cycles per sequence, four per iteration here. */
uint32_t cal_mve_overlap(uint32_t n, uint8_t *buf)
{
    __asm__ volatile(".syntax unified\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT4("vldrw.u32 q0, [%1]\n"
                                    "vadd.i32 q1, q0, q0\n"
                                    "vmul.i32 q2, q1, q1\n"
                                    "vstrw.32 q2, [%1, #16]\n") "le lr, 1b\n"
                     :
                     : "r"(n), "r"(buf)
                     : "q0", "q1", "q2", "lr", "memory");
    return 0;
}

/* The same description's counter-example: two loads in a row (VLDR; VLDRB; VADD; VSTR) cannot overlap: 6 cycles
 * per sequence. */
uint32_t cal_mve_no_overlap(uint32_t n, uint8_t *buf)
{
    __asm__ volatile(".syntax unified\n"
                     "dls lr, %0\n"
                     "1:\n" REPEAT4("vldrw.u32 q0, [%1]\n"
                                    "vldrb.u8 q1, [%1, #32]\n"
                                    "vadd.i32 q2, q1, q0\n"
                                    "vstrw.32 q2, [%1, #16]\n") "le lr, 1b\n"
                     :
                     : "r"(n), "r"(buf)
                     : "q0", "q1", "q2", "lr", "memory");
    return 0;
}

/* A loop closed by a compare-and-branch instead of `le`: four 32-bit additions, `subs.w` and `bne.w` per iteration
 * (32-bit encodings, which the Cortex-M55 never dual-issues), one cycle each, and the taken branch's refill (3
 * cycles: `MispredictPenalty` of Arm's ARMScheduleM55.td): 6 + 3 = 9 cycles an iteration on the Cortex-M55. */
uint32_t cal_branch_loop(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "1:\n" REPEAT4("add.w r2, r2, #1\n") "subs.w %0, %0, #1\n"
                     "bne.w 1b\n"
                     : "+r"(n)
                     :
                     : "r2", "cc", "memory");
    return 0;
}

/* An outer loop (`subs.w`/`bne.w`) around an inner low-overhead loop that runs once: per outer iteration `mov.w`,
 * `dls`, one `add.w`, the inner loop's only `le` (it falls through), `subs.w` and `bne.w`, one cycle each, and the
 * outer branch's refill: 6 + 3 = 9 cycles on the Cortex-M55 (a first `le` executes; later ones of a run come from
 * the loop cache). */
uint32_t cal_loop_once_nested(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "1:\n"
                     "mov.w r3, #1\n"
                     "dls lr, r3\n"
                     "2:\n"
                     "add.w r2, r2, #1\n"
                     "le lr, 2b\n"
                     "subs.w %0, %0, #1\n"
                     "bne.w 1b\n"
                     : "+r"(n)
                     :
                     : "r2", "r3", "lr", "cc", "memory");
    return 0;
}

/* On the Cortex-M85, an outer `le` loop around an inner loop of two iterations closed by `bne`, each inner iteration
 * five dual-issued pairs of 16-bit instructions (5 cycles, as in cal_alu_pairs; the flags are set at the start, so
 * the branch does not wait for them). jnk0le measured an inner loop's branch in such a nest at 3-4 cycles of
 * misprediction per run of the inner loop (RA8D1, `pipeline cycle test/doc/cortex_m85.md`): 2 x 5 + 3.5 and the
 * `movs` (half a cycle, paired) = 14 cycles per outer iteration. */
uint32_t cal_branch_nested(uint32_t n)
{
    __asm__ volatile(".syntax unified\n"
                     "dls lr, %0\n"
                     "1:\n"
                     "movs r3, #2\n"
                     "2:\n"
                     "subs r3, #1\n"
                     "mov r2, r2\n" REPEAT4("mov r2, r2\n mov r1, r1\n") "bne 2b\n"
                     "le lr, 1b\n"
                     :
                     : "r"(n)
                     : "r1", "r2", "r3", "lr", "cc", "memory");
    return 0;
}
