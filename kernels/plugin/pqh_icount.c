/*
 * pqh_icount: a QEMU TCG plugin that counts executed guest instructions into a u64 in a shared host file, so that
 * both the host and the guest harness (which maps the same file as DDR) can read it without any round trip.
 *
 * Arguments: shm=PATH (the file backing the guest DDR), offset=N (byte offset of the counter),
 * skip_lo=A, skip_hi=B (translation blocks starting in [A, B), the harness, are not counted),
 * profile=PATH (optional: a host-owned file, never guest memory, that receives the block profile below).
 *
 * Block profile (`pqhelium cycles`): for every translated block outside the harness, its start address, instruction
 * count and executions, and for every pair of blocks run one after the other, how often. Layout of the file (all
 * little-endian, sizes fixed by PROF_* below and mirrored in guest/src/profile.rs):
 *   header   u32 magic, version, block_capacity, edge_capacity, blocks (slots used), overflow, 2 x u32 zero
 *   blocks   block_capacity x { u32 vaddr, u32 insns, u64 executions }
 *   edges    edge_capacity x { u32 from, u32 to, u64 count }: block slot + 1 (from 0: entered from the harness);
 *            an open-addressing table, an entry with to == 0 is empty
 * The host zeroes the counts and the edge table between batches (the guest then sleeps in the harness). Without
 * profile=, nothing but the inline counter is added to translated code.
 *
 * Debian ships no qemu-plugin.h; this declares the few functions of the documented plugin C API (version 1, QEMU 7.2)
 * that it uses. The counter is added inline by translated code: no callback per block.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t *counter;
static uint64_t skip_lo, skip_hi;

#define PROF_MAGIC 0x50524f46u /* "PROF" */
#define PROF_VERSION 1u
#define PROF_BLOCKS 32768u
#define PROF_EDGES 131072u /* a power of two */
#define PROF_HEADER_SIZE 32u
#define PROF_SIZE (PROF_HEADER_SIZE + 16u * (PROF_BLOCKS + PROF_EDGES))

struct prof_header {
    uint32_t magic, version, block_capacity, edge_capacity, blocks, overflow, reserved[2];
};
struct prof_block {
    uint32_t vaddr, insns;
    uint64_t executions;
};
struct prof_edge {
    uint32_t from, to;
    uint64_t count;
};

static struct prof_header *prof;
static struct prof_block *prof_blocks;
static struct prof_edge *prof_edges;
/* Slot + 1 of each (vaddr, insns) already given a slot: a private open-addressing index, twice the capacity, so
 * never more than half full. */
static uint32_t *slot_index;
/* The block that ran last (slot + 1); 0 after harness code. */
static uint32_t previous;

static uint32_t mix(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    return h ^ (h >> 15);
}

/* The slot of block (vaddr, insns), allocated on first sight; 0 when the table is full. */
static uint32_t block_slot(uint32_t vaddr, uint32_t insns)
{
    uint32_t mask = 2 * PROF_BLOCKS - 1;
    for (uint32_t i = mix(vaddr, insns) & mask;; i = (i + 1) & mask) {
        uint32_t s = slot_index[i];
        if (s == 0)
            break;
        if (prof_blocks[s - 1].vaddr == vaddr && prof_blocks[s - 1].insns == insns)
            return s;
    }
    if (prof->blocks >= PROF_BLOCKS) {
        prof->overflow = 1;
        return 0;
    }
    uint32_t s = ++prof->blocks;
    prof_blocks[s - 1] = (struct prof_block){ vaddr, insns, 0 };
    for (uint32_t i = mix(vaddr, insns) & mask;; i = (i + 1) & mask) {
        if (slot_index[i] == 0) {
            slot_index[i] = s;
            return s;
        }
    }
}

/* Runs before every profiled block: counts the transition from the block before. */
static void on_block_exec(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    uint32_t to = (uint32_t)(uintptr_t)userdata, from = previous;
    previous = to;
    uint32_t mask = PROF_EDGES - 1, start = mix(from, to) & mask;
    for (uint32_t i = start, probes = 0; probes < PROF_EDGES; i = (i + 1) & mask, probes++) {
        struct prof_edge *e = &prof_edges[i];
        if (e->to == 0) {
            *e = (struct prof_edge){ from, to, 1 };
            return;
        }
        if (e->to == to && e->from == from) {
            e->count++;
            return;
        }
    }
    prof->overflow = 1;
}

/* Runs before every harness block while profiling: the next kernel block is entered afresh. */
static void on_harness_exec(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    (void)userdata;
    previous = 0;
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    uint64_t pc = qemu_plugin_tb_vaddr(tb);
    if (pc >= skip_lo && pc < skip_hi) {
        if (prof)
            qemu_plugin_register_vcpu_tb_exec_cb(tb, on_harness_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
        return;
    }
    size_t insns = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, insns);
    if (!prof)
        return;
    uint32_t slot = block_slot((uint32_t)pc, (uint32_t)insns);
    if (slot == 0)
        return;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &prof_blocks[slot - 1].executions, 1);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)slot);
}

/* Maps the host's profile file and writes its header. */
static int open_profile(const char *path)
{
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        perror("pqh_icount: open profile");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)PROF_SIZE) {
        fprintf(stderr, "pqh_icount: the profile file must hold %u bytes\n", PROF_SIZE);
        close(fd);
        return -1;
    }
    uint8_t *map = mmap(NULL, PROF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    slot_index = calloc(2 * PROF_BLOCKS, sizeof *slot_index);
    if (map == MAP_FAILED || !slot_index) {
        perror("pqh_icount: map profile");
        return -1;
    }
    prof_blocks = (struct prof_block *)(map + PROF_HEADER_SIZE);
    prof_edges = (struct prof_edge *)(map + PROF_HEADER_SIZE + 16u * PROF_BLOCKS);
    prof = (struct prof_header *)map;
    *prof = (struct prof_header){ PROF_MAGIC, PROF_VERSION, PROF_BLOCKS, PROF_EDGES, 0, 0, { 0, 0 } };
    return 0;
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
    const char *shm = NULL, *profile = NULL;
    uint64_t offset = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = arg_value(argv[i], "shm")))
            shm = v;
        else if ((v = arg_value(argv[i], "offset")))
            offset = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "skip_lo")))
            skip_lo = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "skip_hi")))
            skip_hi = strtoull(v, NULL, 0);
        else if ((v = arg_value(argv[i], "profile")))
            profile = v;
        else {
            fprintf(stderr, "pqh_icount: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    if (!shm || offset % 8 != 0) {
        fprintf(stderr, "pqh_icount: needs shm=PATH and an 8-byte aligned offset\n");
        return -1;
    }
    int fd = open(shm, O_RDWR);
    if (fd < 0) {
        perror("pqh_icount: open shm");
        return -1;
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t base = offset - offset % (uint64_t)page;
    uint8_t *map = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
    close(fd);
    if (map == MAP_FAILED) {
        perror("pqh_icount: mmap shm");
        return -1;
    }
    counter = (uint64_t *)(map + (offset - base));
    if (profile && open_profile(profile) != 0)
        return -1;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
    return 0;
}
