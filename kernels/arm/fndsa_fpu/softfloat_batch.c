/*
 * softfloat_batch.c: test-bench entry points of the binary64 soft-float (ids fndsa.emu.f64.*): each call applies
 * one operation to SF64_BATCH operands (or operand pairs), r[i] = op(a[i], b[i]). Contract in softfloat.h.
 */
#include <stdint.h>

#include "softfloat.h"

#define BINARY(name, op)                                                                                              \
    void name(uint64_t r[SF64_BATCH], const uint64_t a[SF64_BATCH], const uint64_t b[SF64_BATCH])                    \
    {                                                                                                                  \
        for (unsigned i = 0; i < SF64_BATCH; i++) {                                                                    \
            r[i] = op(a[i], b[i]);                                                                                     \
        }                                                                                                              \
    }

#define UNARY(name, out_t, in_t, op)                                                                                  \
    void name(out_t r[SF64_BATCH], const in_t a[SF64_BATCH])                                                           \
    {                                                                                                                  \
        for (unsigned i = 0; i < SF64_BATCH; i++) {                                                                    \
            r[i] = op(a[i]);                                                                                           \
        }                                                                                                              \
    }

BINARY(fndsa_emu_f64_add, sf64_add)
BINARY(fndsa_emu_f64_sub, sf64_sub)
BINARY(fndsa_emu_f64_mul, sf64_mul)
BINARY(fndsa_emu_f64_div, sf64_div)
UNARY(fndsa_emu_f64_sqrt, uint64_t, uint64_t, sf64_sqrt)
UNARY(fndsa_emu_f64_neg, uint64_t, uint64_t, sf64_neg)
UNARY(fndsa_emu_f64_floor, uint64_t, uint64_t, sf64_floor)
UNARY(fndsa_emu_f64_trunc, uint64_t, uint64_t, sf64_trunc)
UNARY(fndsa_emu_f64_rint, uint64_t, uint64_t, sf64_rint)
UNARY(fndsa_emu_f64_from_i64, uint64_t, int64_t, sf64_from_i64)
UNARY(fndsa_emu_f64_to_i64_trunc, int64_t, uint64_t, sf64_to_i64_trunc)
UNARY(fndsa_emu_f64_to_i64_round, int64_t, uint64_t, sf64_to_i64_round)
UNARY(fndsa_emu_f64_to_i64_floor, int64_t, uint64_t, sf64_to_i64_floor)
