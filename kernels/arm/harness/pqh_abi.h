/*
 * pqh_abi.h: the contract between the host (testbench) and the harness firmware.
 *
 * Everything the host and the guest exchange lives in the DDR window at 0x60000000, which the QEMU backend backs
 * with a host file (shared memory) and the unicorn backend maps as guest RAM. The layout is mirrored in
 * kernels/src/abi.rs; PQH_ABI_VERSION is checked by the host at boot, so a mismatch is an error, not garbage.
 */
#ifndef PQH_ABI_H
#define PQH_ABI_H

#include <stddef.h>
#include <stdint.h>

#define PQH_ABI_VERSION 5u
#define PQH_MAGIC 0x50514845u /* "PQHE" */

#define PQH_DDR_BASE 0x60000000u
/* u64 count of guest instructions executed outside the harness: kept by the QEMU TCG plugin (which maps the same
 * host file) or by the unicorn backend (an MMIO page). The harness reads it around each call. */
#define PQH_ICOUNT_ADDR (PQH_DDR_BASE + 0x0000u)
#define PQH_CTRL_ADDR (PQH_DDR_BASE + 0x1000u)
#define PQH_CALLS_ADDR (PQH_DDR_BASE + 0x2000u)
#define PQH_MAX_CALLS 256u
#define PQH_ARENA_ADDR (PQH_DDR_BASE + 0x10000u)
#define PQH_ARENA_SIZE (16u << 20)

/* PQH_CONVENTION: the call returned without preserving sp or a callee-saved register (AAPCS: r4-r11, d8-d15). */
enum pqh_status { PQH_OK = 0, PQH_FAULT = 1, PQH_CONVENTION = 2 };

/* Register codes in pqh_ctrl.violation_reg: core registers by number (r4-r11, sp = 13), d<n> as PQH_REG_D0 + n. */
#define PQH_REG_SP 13u
#define PQH_REG_D0 32u

/* One call: fn(iargs[0..8], dargs[0..8]) in AAPCS hard-float order, `repeat` times. 128 bytes. */
struct pqh_call {
    uint32_t fn;       /* Thumb address (odd) */
    uint32_t repeat;   /* >= 1; > 1 only for in-guest loops (benchmarks) */
    uint32_t iargs[8]; /* r0-r3, then the stack */
    double dargs[8];   /* d0-d7 */
    uint32_t r0, r1;   /* returned core registers */
    double d0;         /* returned d0 */
    uint64_t icount;   /* instructions executed by all repeats of this call */
};

/* Control block: the host fills calls[0..ncalls), then bumps request_seq; the guest runs them in order and sets
 * done_seq = request_seq. A fault or a calling-convention violation stops the batch at call current_call. */
struct pqh_ctrl {
    uint32_t magic;
    uint32_t abi_version;
    volatile uint32_t request_seq;
    volatile uint32_t done_seq;
    uint32_t ncalls;
    uint32_t status;
    uint32_t current_call;
    uint32_t fault_exc; /* exception number (3 = HardFault, ...) */
    uint32_t fault_pc, fault_lr, fault_xpsr;
    uint32_t cfsr, hfsr, mmfar, bfar, sfsr;
    /* 1 while the guest sleeps in WFI waiting for work: the host rings the UART doorbell only then, so unread
     * doorbell bytes cannot pile up in QEMU's input pipe while the guest finds its work by polling. */
    volatile uint32_t asleep;
    /* With status PQH_CONVENTION: the first register found not preserved (sp first, then r4-r11, d8-d15), with its
     * value before the call (the caller's sp, or the canary the harness loaded) and after it. */
    uint32_t violation_reg;
    uint64_t violation_before, violation_after;
    /* The seal (below) of the results of every call completed in this batch, in order; PQH_SEAL_INIT before the
     * first. The host recomputes it from the call slots, so a kernel that wrote over another call's results is
     * caught. No defence against a guest that recomputes it: kernels run with the harness's privileges. */
    uint32_t results_seal;
    /* How many times the guest looks for the next batch after finishing one before it sleeps: the host's choice,
     * written with each batch, at most PQH_IDLE_POLLS_MAX. */
    uint32_t idle_polls;
    uint32_t reserved[8];
};

/* A few hundred microseconds of emulated time: a host that answers at once finds the guest awake. */
#define PQH_IDLE_POLLS_MAX 20000u

/* The seal: 32-bit FNV-1a over words, fed the call's index, r0, r1, d0 (low word first) and icount (likewise).
 * Any single changed word changes it. */
#define PQH_SEAL_INIT 0x811C9DC5u
#define PQH_SEAL_PRIME 0x01000193u

_Static_assert(sizeof(struct pqh_call) == 128, "pqh_call layout");
_Static_assert(sizeof(struct pqh_ctrl) == 128, "pqh_ctrl layout");
_Static_assert(offsetof(struct pqh_ctrl, violation_before) == 72, "pqh_ctrl layout (kernels/src/abi.rs)");
_Static_assert(offsetof(struct pqh_ctrl, results_seal) == 88, "pqh_ctrl layout (kernels/src/abi.rs)");
_Static_assert(offsetof(struct pqh_ctrl, idle_polls) == 92, "pqh_ctrl layout (kernels/src/abi.rs)");

#endif
