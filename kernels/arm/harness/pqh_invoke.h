/*
 * pqh_invoke.h: what the call trampoline (harness_entry.S) and harness_main.c share. Safe to include from assembly.
 */
#ifndef PQH_INVOKE_H
#define PQH_INVOKE_H

/* The values pqh_invoke puts in the callee-saved registers before each call: one byte repeated, so that each is a
 * Thumb-2 modified immediate (set and checked without a memory access) and names its register in a report:
 * r4 = 0xC4C4C4C4 ... r11 = 0xCBCBCBCB, both words of d8 = 0xD8D8D8D8 ... d15 = 0xDFDFDFDF. */
#define PQH_CORE_CANARY(n) (0xC0C0C0C0 + 0x01010101 * (n))
#define PQH_FP_CANARY(n) (0xD0D0D0D0 + 0x01010101 * (n))

/* Offsets in struct pqh_invoke_state (harness_main.c checks them): the call, the caller's sp, and after a violation
 * what the callee left in sp, r4-r11 and d8-d15 (8-byte aligned for the doubles). */
#define PQH_STATE_CALL 0
#define PQH_STATE_SP_BEFORE 4
#define PQH_STATE_SP_AFTER 8
#define PQH_STATE_AFTER 16

#endif
