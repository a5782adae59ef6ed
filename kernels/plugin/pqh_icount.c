/*
 * pqh_icount: a QEMU TCG plugin that counts executed guest instructions into a u64 in a shared host file, so that
 * both the host and the guest harness (which maps the same file as DDR) can read it without any round trip.
 *
 * Arguments: shm=PATH (the file backing the guest DDR), offset=N (byte offset of the counter),
 * skip_lo=A, skip_hi=B (translation blocks starting in [A, B), the harness, are not counted).
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

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t *counter;
static uint64_t skip_lo, skip_hi;

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    uint64_t pc = qemu_plugin_tb_vaddr(tb);
    if (pc >= skip_lo && pc < skip_hi)
        return;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, qemu_plugin_tb_n_insns(tb));
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
    const char *shm = NULL;
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
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
    return 0;
}
