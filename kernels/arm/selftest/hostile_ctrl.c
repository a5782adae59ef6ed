/*
 * A hostile guest that writes over the memory the host shares with the harness (pqh_abi.h): the control block, the
 * instruction counter and the call slots. `variant` picks what it writes; `value` is what it writes there. Like an
 * honest function it returns value + 1, so that a write the host never reads back shows as an ordinary result.
 * The host must answer each write with a typed error naming the field, or, where it reads nothing back from it,
 * with exactly that result; and blame only the call that wrote.
 */
#include "pqh_abi.h"

#define CTRL ((volatile struct pqh_ctrl *)PQH_CTRL_ADDR)
#define CALLS ((volatile struct pqh_call *)PQH_CALLS_ADDR)
#define ICOUNT (*(volatile uint64_t *)PQH_ICOUNT_ADDR)

/* Mirrored in cli/tests/hostile_control_block.rs. */
enum hostile_ctrl_variant {
    HOSTILE_HONEST = 0,
    HOSTILE_MAGIC = 1,
    HOSTILE_ABI_VERSION = 2,
    HOSTILE_NCALLS = 3,
    HOSTILE_STATUS = 4,
    HOSTILE_CURRENT_CALL_THEN_FAULT = 5, /* claims to be call `value`, then executes an undefined instruction */
    HOSTILE_FAULT_FIELDS = 6,            /* every fault field, status left OK */
    HOSTILE_FAKE_FAULT = 7,              /* a fault report with exception `value` at pc 0xFFFFFFFF, no fault */
    HOSTILE_VIOLATION_REG = 8,           /* a calling-convention report naming register code `value` */
    HOSTILE_VIOLATION_BEFORE = 9,        /* a report that r7 held `value` before the call */
    HOSTILE_VIOLATION_SP_AFTER = 10,     /* a report that sp was `value` << 32 after the call */
    HOSTILE_REQUEST_SEQ = 11,            /* adds `value` to the host's request number */
    HOSTILE_DONE_SEQ_EARLY = 12,         /* reports the batch done while it still runs */
    HOSTILE_DONE_SEQ_FOREVER = 13,       /* writes `value` to done_seq, for ever */
    HOSTILE_ICOUNT_COUNTER = 14,         /* sets the instruction counter to `value` */
    HOSTILE_PREVIOUS_RESULTS = 15,       /* writes over the results of the call before it */
    HOSTILE_OWN_ARGUMENTS = 16,          /* writes `value` over its own third integer argument */
    HOSTILE_NEXT_FUNCTION = 17,          /* points the next call at address `value` */
    HOSTILE_RESERVED = 18,               /* fills the control block's reserved words */
    HOSTILE_ASLEEP = 19,                 /* claims the harness sleeps */
    HOSTILE_JUMP_TO_LAST_ADDRESS = 20,   /* a real fault: fetches from 0xFFFFFFFE, the last halfword */
};

static void write_fault_fields(uint32_t exception)
{
    CTRL->fault_exc = exception;
    CTRL->fault_pc = 0xFFFFFFFFu;
    CTRL->fault_lr = 0xFFFFFFFFu;
    CTRL->fault_xpsr = 0xFFFFFFFFu;
    CTRL->cfsr = 0xFFFFFFFFu;
    CTRL->hfsr = 0xFFFFFFFFu;
    CTRL->mmfar = 0xFFFFFFFFu;
    CTRL->bfar = 0xFFFFFFFFu;
    CTRL->sfsr = 0xFFFFFFFFu;
}

static void report_violation(uint32_t reg, uint64_t before, uint64_t after)
{
    CTRL->violation_reg = reg;
    CTRL->violation_before = before;
    CTRL->violation_after = after;
    CTRL->status = PQH_CONVENTION;
}

uint32_t pqh_selftest_hostile_ctrl(uint32_t variant, uint32_t value)
{
    uint32_t me = CTRL->current_call;
    switch (variant) {
    case HOSTILE_MAGIC:
        CTRL->magic = value;
        break;
    case HOSTILE_ABI_VERSION:
        CTRL->abi_version = value;
        break;
    case HOSTILE_NCALLS:
        CTRL->ncalls = value;
        break;
    case HOSTILE_STATUS:
        CTRL->status = value;
        break;
    case HOSTILE_CURRENT_CALL_THEN_FAULT:
        CTRL->current_call = value;
        __asm volatile("udf #0x43");
        break;
    case HOSTILE_FAULT_FIELDS:
        write_fault_fields(value);
        break;
    case HOSTILE_FAKE_FAULT:
        write_fault_fields(value);
        CTRL->status = PQH_FAULT;
        break;
    case HOSTILE_VIOLATION_REG:
        report_violation(value, 0, 0);
        break;
    case HOSTILE_VIOLATION_BEFORE:
        report_violation(7u, value, 0);
        break;
    case HOSTILE_VIOLATION_SP_AFTER:
        report_violation(PQH_REG_SP, 0x20070000u, (uint64_t)value << 32);
        break;
    case HOSTILE_REQUEST_SEQ:
        CTRL->request_seq += value;
        break;
    case HOSTILE_DONE_SEQ_EARLY:
        CTRL->done_seq = CTRL->request_seq;
        break;
    case HOSTILE_DONE_SEQ_FOREVER:
        for (;;)
            CTRL->done_seq = value;
    case HOSTILE_ICOUNT_COUNTER:
        ICOUNT = value;
        break;
    case HOSTILE_PREVIOUS_RESULTS:
        if (me > 0 && me <= PQH_MAX_CALLS) {
            CALLS[me - 1u].r0 = value;
            CALLS[me - 1u].r1 = value;
            CALLS[me - 1u].icount = value;
        }
        break;
    case HOSTILE_OWN_ARGUMENTS:
        if (me < PQH_MAX_CALLS)
            CALLS[me].iargs[2] = value;
        break;
    case HOSTILE_NEXT_FUNCTION:
        if (me + 1u < PQH_MAX_CALLS)
            CALLS[me + 1u].fn = value;
        break;
    case HOSTILE_RESERVED:
        for (uint32_t i = 0; i < sizeof CTRL->reserved / sizeof CTRL->reserved[0]; i++)
            CTRL->reserved[i] = value;
        break;
    case HOSTILE_ASLEEP:
        CTRL->asleep = value;
        break;
    case HOSTILE_JUMP_TO_LAST_ADDRESS:
        ((void (*)(void))0xFFFFFFFFu)();
        break;
    default:
        break;
    }
    return value + 1u;
}
