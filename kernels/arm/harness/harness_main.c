/*
 * Harness firmware: boot, serve call batches from the host, report faults. No newlib startup, no semihosting.
 *
 * Protocol (QEMU): the host fills the call batch in shared memory, bumps request_seq and writes one byte to UART0.
 * After a batch the guest polls request_seq as many times as the host asked (idle_polls), then sleeps in WFI. Two
 * things wake it: the UART0 RX interrupt of the host's byte, and a 1 kHz SysTick. The tick is needed because QEMU's
 * CMSDK UART does not tell the chardev layer when its receive buffer empties, so a byte can sit unread in the pipe
 * until QEMU's main loop next wakes; the tick bounds that wait to a millisecond. When the batch is done (or
 * faulted) the guest writes one byte on UART0 TX, which the host blocks on. Shared memory is the truth; the bytes
 * are only wake-ups. Neither side spins while idle.
 *
 * unicorn runs pqh_run_batch directly (no interrupts, no UART) and stops when it returns.
 */
#include "pqh_abi.h"
#include "pqh_invoke.h"

/* Core registers only: pqh_invoke does not preserve d8-d15 for its caller (it would cost every call memory accesses),
 * and the harness has no business with the FP or MVE state the kernels use. clang has no general-regs-only for Arm:
 * turning off MVE and the FP registers is its equivalent (popped at the end of the file). */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("no-mve,no-fpregs"))), apply_to = function)
#else
#pragma GCC target("general-regs-only")
#endif

#define CTRL ((struct pqh_ctrl *)PQH_CTRL_ADDR)
#define CALLS ((struct pqh_call *)PQH_CALLS_ADDR)
#define ICOUNT_LO (*(volatile uint32_t *)PQH_ICOUNT_ADDR)
#define ICOUNT_HI (*(volatile uint32_t *)(PQH_ICOUNT_ADDR + 4u))

#define REG(addr) (*(volatile uint32_t *)(addr))
#define UART0 0x49303000u
#define UART_DATA (UART0 + 0x00u)
#define UART_STATE (UART0 + 0x04u)
#define UART_CTRL (UART0 + 0x08u)
#define UART_INTSTATUS (UART0 + 0x0Cu)
#define UART_BAUDDIV (UART0 + 0x10u)
#define UART_STATE_TXFULL 1u
#define UART_STATE_RXFULL 2u
#define CPACR 0xE000ED88u
#define SYST_CSR 0xE000E010u
#define SYST_RVR 0xE000E014u
#define SYST_CVR 0xE000E018u
#define NVIC_ISER0 0xE000E100u
#define NVIC_ICER0 0xE000E180u
#define SCB_CFSR 0xE000ED28u
#define SCB_HFSR 0xE000ED2Cu
#define SCB_MMFAR 0xE000ED34u
#define SCB_BFAR 0xE000ED38u
#define SAU_SFSR 0xE000EDE4u

void pqh_invoke(struct pqh_call *call); /* harness_entry.S */
void pqh_serve_forever(void) __attribute__((noreturn));
extern uint32_t __stack_top;

static uint64_t icount(void)
{
    uint32_t hi, lo;
    do { /* the counter is 64-bit; re-read if the high word moved */
        hi = ICOUNT_HI;
        lo = ICOUNT_LO;
    } while (hi != ICOUNT_HI);
    return ((uint64_t)hi << 32) | lo;
}

/* pqh_invoke's memory during a call, and after a violation what the callee left in sp, r4-r11 and d8-d15. */
struct pqh_invoke_state {
    struct pqh_call *call;
    uint32_t sp_before, sp_after;
    uint32_t after[8 + 2 * 8] __attribute__((aligned(8))); /* r4-r11, then d8-d15 (low word first) */
};
struct pqh_invoke_state pqh_invoke_state;
_Static_assert(offsetof(struct pqh_invoke_state, call) == PQH_STATE_CALL, "pqh_invoke.h");
_Static_assert(offsetof(struct pqh_invoke_state, sp_before) == PQH_STATE_SP_BEFORE, "pqh_invoke.h");
_Static_assert(offsetof(struct pqh_invoke_state, sp_after) == PQH_STATE_SP_AFTER, "pqh_invoke.h");
_Static_assert(offsetof(struct pqh_invoke_state, after) == PQH_STATE_AFTER, "pqh_invoke.h");

static void report(uint32_t reg, uint64_t before, uint64_t after)
{
    CTRL->violation_reg = reg;
    CTRL->violation_before = before;
    CTRL->violation_after = after;
    CTRL->status = PQH_CONVENTION;
}

/* Called by pqh_invoke (sp restored) when the callee did not preserve sp, r4-r11 or d8-d15: reports the first of
 * them in that order. With a repeated call, the first violating repetition is the one reported. */
void pqh_report_violation(void)
{
    const struct pqh_invoke_state *s = &pqh_invoke_state;
    if (CTRL->status != PQH_OK)
        return;
    if (s->sp_after != s->sp_before) {
        report(PQH_REG_SP, s->sp_before, s->sp_after);
        return;
    }
    for (uint32_t n = 4; n <= 11u; n++) {
        uint32_t after = s->after[n - 4u];
        if (after != PQH_CORE_CANARY(n)) {
            report(n, PQH_CORE_CANARY(n), after);
            return;
        }
    }
    for (uint32_t n = 8; n <= 15u; n++) {
        const uint32_t *words = &s->after[8u + 2u * (n - 8u)];
        uint64_t before = (uint64_t)PQH_FP_CANARY(n) << 32 | PQH_FP_CANARY(n);
        uint64_t after = (uint64_t)words[1] << 32 | words[0];
        if (after != before) {
            report(PQH_REG_D0 + n, before, after);
            return;
        }
    }
}

static uint32_t seal_word(uint32_t seal, uint32_t word)
{
    return (seal ^ word) * PQH_SEAL_PRIME;
}

/* Adds call i's results to the seal. d0 is read as words (pqh_invoke stored it; this code has no FP registers). */
static uint32_t seal_call(uint32_t seal, uint32_t i, const struct pqh_call *call, uint64_t count)
{
    const volatile uint32_t *d0 = (const volatile uint32_t *)&call->d0;
    const uint32_t words[] = {i, call->r0, call->r1, d0[0], d0[1], (uint32_t)count, (uint32_t)(count >> 32)};
    for (uint32_t k = 0; k < sizeof words / sizeof words[0]; k++)
        seal = seal_word(seal, words[k]);
    return seal;
}

/* Runs calls[0..ncalls). Shared by both backends; unicorn enters here directly. A call that breaks the calling
 * convention ends the batch there, as a fault does. */
void pqh_run_batch(void)
{
    uint32_t n = CTRL->ncalls;
    uint32_t seal = PQH_SEAL_INIT;
    CTRL->status = PQH_OK;
    CTRL->results_seal = seal;
    for (uint32_t i = 0; i < n && i < PQH_MAX_CALLS; i++) {
        struct pqh_call *call = &CALLS[i];
        CTRL->current_call = i;
        uint64_t start = icount();
        for (uint32_t r = 0; r < call->repeat; r++)
            pqh_invoke(call);
        uint64_t count = icount() - start;
        call->icount = count;
        seal = seal_call(seal, i, call, count);
        CTRL->results_seal = seal;
        if (CTRL->status != PQH_OK)
            return;
    }
}

static void uart_putc(uint8_t c)
{
    while (REG(UART_STATE) & UART_STATE_TXFULL) {
    }
    REG(UART_DATA) = c;
}

static void finish_batch(void)
{
    __asm volatile("dsb" ::: "memory");
    CTRL->done_seq = CTRL->request_seq;
    __asm volatile("dsb" ::: "memory");
    uart_putc('D');
}

/* SysTick reload: 1 ms at the 32 MHz core clock of the AN547 model. */
#define TICK_RELOAD 31999u

static int work_pending(void)
{
    return CTRL->request_seq != CTRL->done_seq;
}

static void wait_for_work(void)
{
    uint32_t polls = CTRL->idle_polls;
    if (polls > PQH_IDLE_POLLS_MAX)
        polls = PQH_IDLE_POLLS_MAX;
    for (uint32_t i = 0; i < polls; i++)
        if (work_pending())
            return;
    REG(SYST_RVR) = TICK_RELOAD;
    REG(SYST_CVR) = 0;
    REG(SYST_CSR) = 0x7u; /* enable, interrupt, core clock */
    /* Interrupts are masked (pqh_reset) except for a moment after each WFI, so that a wake-up between the check and
     * WFI still ends the WFI. The host reads `asleep` after bumping request_seq: either it sees the flag and rings,
     * or we see the work (the tick covers the rare store/load overlap QEMU allows). */
    CTRL->asleep = 1u;
    __asm volatile("dmb" ::: "memory");
    while (!work_pending()) {
        __asm volatile("wfi");
        __asm volatile("cpsie i\n\tisb\n\tcpsid i" ::: "memory");
    }
    CTRL->asleep = 0u;
    REG(SYST_CSR) = 0; /* no ticks while kernels run */
}

void pqh_serve_forever(void)
{
    for (;;) {
        wait_for_work();
        pqh_run_batch();
        finish_batch();
    }
}

void pqh_tick_handler(void)
{
    (void)REG(SYST_CSR); /* clears COUNTFLAG; the wake-up is all we need */
}

/* Any external interrupt: UART0 RX is the doorbell; anything else is silenced so it cannot storm. */
void pqh_irq_handler(void)
{
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    if (REG(UART_STATE) & UART_STATE_RXFULL) {
        (void)REG(UART_DATA);
        REG(UART_INTSTATUS) = 0xFu;
    } else {
        uint32_t irq = ipsr - 16u;
        REG(NVIC_ICER0 + 4u * (irq / 32u)) = 1u << (irq % 32u);
    }
}

/* Called from pqh_fault_entry with the stacked exception frame. Records the fault, then makes the exception
 * return land in pqh_fault_recover (thread mode, fresh stack) instead of the faulting code. */
void pqh_fault_record(uint32_t *frame, uint32_t exc_return)
{
    (void)exc_return;
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    CTRL->status = PQH_FAULT;
    CTRL->fault_exc = ipsr & 0x1FFu;
    CTRL->fault_lr = frame[5];
    CTRL->fault_pc = frame[6];
    CTRL->fault_xpsr = frame[7];
    CTRL->cfsr = REG(SCB_CFSR);
    CTRL->hfsr = REG(SCB_HFSR);
    CTRL->mmfar = REG(SCB_MMFAR);
    CTRL->bfar = REG(SCB_BFAR);
    CTRL->sfsr = REG(SAU_SFSR);
    REG(SCB_CFSR) = 0xFFFFFFFFu; /* write-one-to-clear, ready for the next fault */
    REG(SCB_HFSR) = 0xFFFFFFFFu;
    REG(SAU_SFSR) = 0xFFFFFFFFu;
    extern void pqh_fault_recover(void);
    frame[6] = (uint32_t)&pqh_fault_recover & ~1u;
    frame[7] = 0x01000000u; /* Thumb bit only */
}

void pqh_fault_resume(void) __attribute__((noreturn));
void pqh_fault_resume(void)
{
    finish_batch();
    pqh_serve_forever();
}

void pqh_reset(void) __attribute__((noreturn));
void pqh_reset(void)
{
    /* Masked for good: an interrupt taken inside a kernel would change its block profile (a doorbell byte can arrive
     * after the guest, woken by the tick, found the batch itself). Faults still reach HardFault. */
    __asm volatile("cpsid i" ::: "memory");
    REG(CPACR) |= 0xFu << 20; /* CP10, CP11: FPU and MVE */
    __asm volatile("dsb\n\tisb" ::: "memory");
    REG(UART_BAUDDIV) = 16u;
    REG(UART_CTRL) = 0x1u | 0x2u | 0x8u; /* TX, RX, RX interrupt */
    (void)REG(UART_DATA);                /* a DATA read makes QEMU poll the host side for input again */
    for (uint32_t i = 0; i < 4u; i++)
        REG(NVIC_ISER0 + 4u * i) = 0xFFFFFFFFu;
    CTRL->abi_version = PQH_ABI_VERSION;
    CTRL->done_seq = CTRL->request_seq;
    CTRL->magic = PQH_MAGIC;
    __asm volatile("dsb" ::: "memory");
    uart_putc('R');
    pqh_serve_forever();
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
