/*
 * pqh_trace: a QEMU TCG plugin that builds the leakage trace of the guest code outside the harness (`pqhelium ct`):
 * every executed instruction address, every data access (address, size, load or store; MVE gathers, scatters and
 * interleaving loads arrive as their element accesses), and the operand values of the variable-latency instructions
 * of the core. The events are hashed as they happen (64-bit FNV-1a over the same words as
 * `pqhelium_analyses::ct::Event::words`) and, when the host asks, also recorded, to find the first difference.
 *
 * Arguments: trace=PATH (a host file the guest cannot see: the header below, then the recorded events), size=N (its
 * size in bytes), skip_lo=A, skip_hi=B (the harness, not traced), varlat=MASK (bit 0: UDIV/SDIV, bit 1:
 * VDIV/VSQRT, bit 2: the FP64 additions and multiplications; the classes whose timing depends on the operands on
 * the target core).
 *
 * Register values: QEMU 7.2's plugin API (version 1) has no register access. On an x86-64 host, TCG keeps the
 * guest CPU state pointer (env) in rbp, a callee-saved register, and the guest core registers and flags are in env
 * when an instruction callback runs; a trampoline passes rbp on. Nothing is trusted blindly: at the first traced
 * instruction of every call (the kernel's entry from pqh_invoke) r4-r11 must hold the harness's canaries, and the
 * d8-d15 canaries locate the FP registers; a failed check is reported in the header and the host refuses the trace.
 *
 * MVE VPT blocks: an instruction that runs while VPR's mask fields are set is predicated lane by lane; its lane
 * predicate P0 is an event (predicated-off lanes of a load or store also make no access).
 *
 * IT blocks: QEMU calls an instruction's callback whether or not its IT condition passes, so the plugin evaluates
 * the condition from the flags and leaves an instruction whose condition fails out of the trace, as unicorn does.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pqh_invoke.h"

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_RW = 3 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                                          void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The trace file: a header of u64 words, then the recorded events (EVENT_WORDS words each). Mirrored by
 * guest/src/backend/qemu_trace.rs. */
enum {
    H_HASH,     /* running FNV-1a of every event since the host's reset */
    H_EVENTS,   /* events since the reset */
    H_RECORD,   /* host: nonzero to record events too */
    H_STATUS,   /* plugin: STATUS_* bits */
    H_FROM,     /* host: the index of the first event recorded (a window of a trace longer than the file) */
    H_WORDS = 8,
    EVENT_WORDS = 3,
};
enum {
    STATUS_NO_ENV = 1,    /* the CPU state could not be found (not an x86-64 host) */
    STATUS_BAD_ENV = 2,   /* r4-r11 did not hold the canaries at a kernel's entry */
    STATUS_NO_FP = 4,     /* an FP operand was needed but the d8-d15 canaries were not found */
    STATUS_BAD_FLAGS = 8, /* the carry flag held neither 0 nor 1 */
    STATUS_BAD_VPR = 16,  /* VPR had reserved bits set */
};
enum { EV_EXECUTE, EV_LOAD, EV_STORE, EV_OPERANDS, EV_LANE_PREDICATE };
enum { CLASS_INTEGER_DIVIDE, CLASS_FLOAT_DIVIDE_SQRT, CLASS_DOUBLE_ADD_MULTIPLY };
enum { OP_NONE, OP_CORE, OP_SINGLE, OP_DOUBLE };

/* Word indices of QEMU 7.2's CPUARMState (target/arm/cpu.h): regs[16] first; CF, VF, NF, ZF after the banked
 * registers (found by experiment on Debian's 7.2 build; the CF check below catches a different layout). */
enum { ENV_CF = 130, ENV_VF = 131, ENV_NF = 132, ENV_ZF = 133 };
/* v7m.vpr: P0 in bits 0..15, the VPT block masks MASK01 and MASK23 in bits 16..23 (found by experiment likewise;
 * reserved bits set are reported). */
enum { ENV_VPR = 777 };
/* How far into env the FP canaries are searched for, in 32-bit words. */
enum { ENV_SEARCH_WORDS = 2048 };

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

struct insn {
    uint32_t pc;
    uint8_t it;         /* for an IT instruction, its firstcond:mask; else 0 */
    uint8_t class;      /* variable-latency class when op_kind[0] != OP_NONE */
    uint8_t op_kind[2]; /* operand register kinds (OP_*) */
    uint8_t op_reg[2];
};

static volatile uint64_t *header;
static uint64_t capacity;
static uint64_t skip_lo, skip_hi;
static unsigned varlat;
/* Word index of d8 in env, or -1 until found. */
static long fp_d8 = -1;
/* ITSTATE (firstcond:mask) of the instruction about to run, 0 outside an IT block. Tracked here as the instructions
 * run: in trace mode every translation block holds one instruction, so an IT block spans several blocks. */
static unsigned it_state;

static inline void emit(uint64_t w0, uint64_t w1, uint64_t w2)
{
    uint64_t hash = header[H_HASH];
    hash = (hash ^ w0) * FNV_PRIME;
    hash = (hash ^ w1) * FNV_PRIME;
    hash = (hash ^ w2) * FNV_PRIME;
    header[H_HASH] = hash;
    uint64_t n = header[H_EVENTS], from = header[H_FROM];
    if (header[H_RECORD] && n >= from && n - from < capacity) {
        volatile uint64_t *slot = header + H_WORDS + (n - from) * EVENT_WORDS;
        slot[0] = w0;
        slot[1] = w1;
        slot[2] = w2;
    }
    header[H_EVENTS] = n + 1;
}

/* The kernel's entry: check that env is the guest CPU state, and find the FP registers. */
static void check_entry(const uint32_t *env)
{
    for (uint32_t n = 4; n <= 11; n++) {
        if (env[n] != (uint32_t)PQH_CORE_CANARY(n)) {
            header[H_STATUS] |= STATUS_BAD_ENV;
            return;
        }
    }
    if (fp_d8 >= 0)
        return;
    for (long at = 16; at + 16 <= ENV_SEARCH_WORDS; at++) {
        bool all = true;
        for (uint32_t n = 8; n <= 15 && all; n++) {
            uint32_t c = (uint32_t)PQH_FP_CANARY(n);
            all = env[at + 2 * (n - 8)] == c && env[at + 2 * (n - 8) + 1] == c;
        }
        if (all) {
            fp_d8 = at;
            return;
        }
    }
}

static bool condition_passes(const uint32_t *env, unsigned cond)
{
    uint32_t cf = env[ENV_CF];
    if (cf > 1)
        header[H_STATUS] |= STATUS_BAD_FLAGS;
    bool n = env[ENV_NF] >> 31, z = env[ENV_ZF] == 0, c = cf != 0, v = env[ENV_VF] >> 31;
    bool result;
    switch (cond >> 1) {
    case 0: result = z; break;
    case 1: result = c; break;
    case 2: result = n; break;
    case 3: result = v; break;
    case 4: result = c && !z; break;
    case 5: result = n == v; break;
    case 6: result = n == v && !z; break;
    default: return true; /* AL */
    }
    return (cond & 1) && cond != 15 ? !result : result;
}

static uint64_t operand(const uint32_t *env, unsigned kind, unsigned reg)
{
    switch (kind) {
    case OP_CORE:
        return env[reg];
    case OP_SINGLE:
    case OP_DOUBLE:
        if (fp_d8 < 0) {
            header[H_STATUS] |= STATUS_NO_FP;
            return 0;
        }
        if (kind == OP_SINGLE)
            return env[fp_d8 - 16 + reg];
        return env[fp_d8 + 2 * ((long)reg - 8)] | (uint64_t)env[fp_d8 + 2 * ((long)reg - 8) + 1] << 32;
    default:
        return 0;
    }
}

/* Every traced instruction, before it runs; `env` is the guest CPU state or NULL. */
__attribute__((used)) static void on_insn_env(unsigned int vcpu, void *userdata, const uint32_t *env)
{
    (void)vcpu;
    const struct insn *insn = userdata;
    if (header[H_EVENTS] == 0) {
        it_state = 0;
        if (env)
            check_entry(env);
        else
            header[H_STATUS] |= STATUS_NO_ENV;
    }
    unsigned cond = 14; /* AL */
    if (it_state & 0xF) {
        cond = it_state >> 4;
        it_state = (it_state & 0xE0) | ((it_state << 1) & 0x1F);
        if (!(it_state & 0xF))
            it_state = 0;
    }
    if (insn->it)
        it_state = insn->it;
    if (cond != 14) {
        if (!env) {
            header[H_STATUS] |= STATUS_NO_ENV;
            return;
        }
        if (!condition_passes(env, cond))
            return;
    }
    emit((uint64_t)insn->pc << 8 | EV_EXECUTE, 0, 0);
    if (env) {
        /* Inside a VPT block (a mask field set) the instruction runs with the lane predicate P0. */
        uint32_t vpr = env[ENV_VPR];
        if (vpr >> 24)
            header[H_STATUS] |= STATUS_BAD_VPR;
        else if (vpr >> 16)
            emit((uint64_t)insn->pc << 8 | EV_LANE_PREDICATE, vpr & 0xFFFF, 0);
    }
    if (insn->op_kind[0] != OP_NONE && env) {
        uint64_t a = operand(env, insn->op_kind[0], insn->op_reg[0]);
        uint64_t b = operand(env, insn->op_kind[1], insn->op_reg[1]);
        emit((uint64_t)insn->pc << 8 | EV_OPERANDS | (uint64_t)insn->class << 4, a, b);
    }
}

#if defined(__x86_64__)
/* TCG's env register (TCG_AREG0) on x86-64 is rbp: pass it on as the third argument. */
__attribute__((naked)) static void on_insn(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    (void)userdata;
    __asm__ volatile("mov %rbp, %rdx\n\tjmp on_insn_env");
}
#else
static void on_insn(unsigned int vcpu, void *userdata)
{
    on_insn_env(vcpu, userdata, NULL);
}
#endif

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)vcpu;
    const struct insn *insn = userdata;
    uint64_t kind = qemu_plugin_mem_is_store(info) ? EV_STORE : EV_LOAD;
    uint64_t size = 1u << qemu_plugin_mem_size_shift(info);
    emit((uint64_t)insn->pc << 8 | kind, (vaddr & 0xFFFFFFFFu) << 8 | size, 0);
}

/* The variable-latency class and operands of a Thumb-2 instruction (the encodings of
 * pqhelium_analyses::ct::decode_variable_latency), if its class is traced for this core. */
static void decode_variable_latency(struct insn *insn, uint16_t first, uint16_t second)
{
    if (((first & 0xFFF0) == 0xFB90 || (first & 0xFFF0) == 0xFBB0) && (second & 0xF0F0) == 0xF0F0) {
        if (!(varlat & (1u << CLASS_INTEGER_DIVIDE)))
            return;
        insn->class = CLASS_INTEGER_DIVIDE;
        insn->op_kind[0] = insn->op_kind[1] = OP_CORE;
        insn->op_reg[0] = first & 0xF;
        insn->op_reg[1] = second & 0xF;
        return;
    }
    bool dbl = second & 0x0100;
    unsigned kind = dbl ? OP_DOUBLE : OP_SINGLE;
    unsigned m = dbl ? ((second >> 5 & 1) << 4 | (second & 0xF)) : ((second & 0xF) << 1 | (second >> 5 & 1));
    bool is_div = (first & 0xFFB0) == 0xEE80 && (second & 0x0E50) == 0x0A00;
    bool is_sqrt = (first & 0xFFBF) == 0xEEB1 && (second & 0x0ED0) == 0x0AC0;
    unsigned opc1 = first & 0xFFB0;
    bool is_add_mul = (opc1 == 0xEE00 || opc1 == 0xEE10 || opc1 == 0xEE20 || opc1 == 0xEE30 || opc1 == 0xEE90 ||
                       opc1 == 0xEEA0) &&
                      (second & 0x0F10) == 0x0B00;
    if (is_add_mul) {
        if (!(varlat & (1u << CLASS_DOUBLE_ADD_MULTIPLY)))
            return;
        insn->class = CLASS_DOUBLE_ADD_MULTIPLY;
    } else if ((is_div || is_sqrt) && (varlat & (1u << CLASS_FLOAT_DIVIDE_SQRT))) {
        insn->class = CLASS_FLOAT_DIVIDE_SQRT;
    } else {
        return;
    }
    if (!is_sqrt) {
        unsigned n = dbl ? ((second >> 7 & 1) << 4 | (first & 0xF)) : ((first & 0xF) << 1 | (second >> 7 & 1));
        insn->op_kind[0] = insn->op_kind[1] = kind;
        insn->op_reg[0] = n;
        insn->op_reg[1] = m;
    } else {
        insn->op_kind[0] = kind;
        insn->op_reg[0] = m;
    }
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(qi);
        const uint8_t *data = qemu_plugin_insn_data(qi);
        size_t size = qemu_plugin_insn_size(qi);
        uint16_t first = size >= 2 ? (uint16_t)(data[0] | data[1] << 8) : 0;
        uint16_t second = size >= 4 ? (uint16_t)(data[2] | data[3] << 8) : 0;
        if (pc >= skip_lo && pc < skip_hi)
            continue;
        /* Kept for the life of the translation; QEMU 7.2 has no callback when a block is dropped. */
        struct insn *insn = calloc(1, sizeof *insn);
        if (!insn)
            abort();
        insn->pc = (uint32_t)pc;
        if (size == 2 && (first & 0xFF00) == 0xBF00 && (first & 0xF))
            insn->it = first & 0xFF;
        if (size == 4)
            decode_variable_latency(insn, first, second);
        qemu_plugin_register_vcpu_insn_exec_cb(qi, on_insn, QEMU_PLUGIN_CB_NO_REGS, insn);
        qemu_plugin_register_vcpu_mem_cb(qi, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, insn);
    }
}

static const char *arg_value(const char *arg, const char *key)
{
    size_t n = strlen(key);
    return strncmp(arg, key, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv)
{
    (void)info;
    const char *path = NULL;
    uint64_t size = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = arg_value(argv[i], "trace")))
            path = v;
        else if ((v = arg_value(argv[i], "size")))
            size = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "skip_lo")))
            skip_lo = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "skip_hi")))
            skip_hi = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "varlat")))
            varlat = (unsigned)strtoul(v, NULL, 0);
        else {
            fprintf(stderr, "pqh_trace: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    if (!path || size < H_WORDS * 8) {
        fprintf(stderr, "pqh_trace: needs trace=PATH and size=N (at least %d)\n", H_WORDS * 8);
        return -1;
    }
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        perror("pqh_trace: open trace");
        return -1;
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        perror("pqh_trace: mmap trace");
        return -1;
    }
    header = map;
    capacity = (size / 8 - H_WORDS) / EVENT_WORDS;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
    return 0;
}
