/* One stub per MVE instruction form, for tests/mve_validation.rs (the Rust model in sim/src/mve.rs against the
 * real instruction under QEMU).
 *
 * Contract of every stub: void pqh_mve_<form>(uint8_t *out, const uint8_t *in, uint32_t n)
 *   processes n records in order; record i is in[64*i .. 64*i+64) and out[64*i .. 64*i+64).
 *   input record:  q0 = in+0, q1 = in+16, q2 = in+32 (vectors, little-endian lanes);
 *                  in+48: scalar operand (u32, low bytes used), in+52: carry in (0 or 1), in+56: predicate (u16).
 *                  Loads take the whole record as memory; gathers take offsets from q0 and the table from in+16.
 *   output record: out+0: result vector (or out+0..+64 for de-interleaving loads, stores and scatters);
 *                  out+16: carry out or predicate (u32) for the forms that produce one.
 * Bytes a stub does not write keep the host's poison. Immediates are part of the symbol (..._n_s16_3). */
#include <arm_mve.h>
#include <stdint.h>

#define REC 64

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN(f, s) CAT(CAT(f, _), s)

#define ET_s8 int8_t
#define ET_s16 int16_t
#define ET_s32 int32_t
#define ET_u8 uint8_t
#define ET_u16 uint16_t
#define ET_u32 uint32_t
#define ET(s) CAT(ET_, s)
/* Signed counterpart (vshlq shift counts), wide and narrow lane types. */
#define SG_s8 s8
#define SG_s16 s16
#define SG_s32 s32
#define SG_u8 s8
#define SG_u16 s16
#define SG_u32 s32
#define SG(s) CAT(SG_, s)
#define NA_s16 s8
#define NA_s32 s16
#define NA_u16 u8
#define NA_u32 u16
#define NA(s) CAT(NA_, s)

#define LD(s, p) FN(vld1q, s)((const ET(s) *)(p))
#define ST(s, p, v) FN(vst1q, s)((ET(s) *)(p), (v))
/* Store of any vector type (int64x2_t has no vst1q). */
#define STV(p, v)                          \
    do {                                   \
        __typeof__(v) t_ = (v);            \
        __builtin_memcpy((p), &t_, 16);    \
    } while (0)

static inline uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

static inline void wr32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }

#define SCALAR(s) ((ET(s))rd32(in + 48))
#define PRED ((mve_pred16_t)rd32(in + 56))

#define STUB(sym, body)                                                     \
    void pqh_mve_##sym(uint8_t *out, const uint8_t *in, uint32_t n);        \
    void pqh_mve_##sym(uint8_t *out, const uint8_t *in, uint32_t n) {       \
        for (uint32_t i = 0; i < n; i++, in += REC, out += REC) {           \
            body                                                            \
        }                                                                   \
    }

/* r = f(a, b) */
#define BIN(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in), LD(s, in + 16)));)
/* r = f(a, b) with b signed (shift counts) */
#define BINS(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in), LD(SG(s), in + 16)));)
/* r = f(a, scalar) */
#define BIN_N(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in), SCALAR(s)));)
/* r = f(a, b, scalar) */
#define TER_N(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in), LD(s, in + 16), SCALAR(s)));)
/* r = f(a) */
#define UN(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in)));)
/* r = f(a, imm), r = f(a, b, imm) */
#define UN_IMM(f, s, k) STUB(f##_##s##_##k, ST(s, out, FN(f, s)(LD(s, in), k));)
#define BIN_IMM(f, s, k) STUB(f##_##s##_##k, ST(s, out, FN(f, s)(LD(s, in), LD(s, in + 16), k));)
/* wide r = f(a), wide r = f(a, b) */
#define WIDEN1(f, s) STUB(f##_##s, STV(out, FN(f, s)(LD(s, in)));)
#define WIDEN2(f, s) STUB(f##_##s, STV(out, FN(f, s)(LD(s, in), LD(s, in + 16)));)
/* narrow r = f(narrow a, wide b) */
#define NARROW(f, s) STUB(f##_##s, ST(NA(s), out, FN(f, s)(LD(NA(s), in), LD(s, in + 16)));)
/* carry chain: r = f(a, b, &carry), carry in from the record (vadcq, vsbcq) or none (vadciq, vsbciq) */
#define CARRY(f, s)                                                 \
    STUB(f##_##s, unsigned c_ = rd32(in + 52);                      \
         ST(s, out, FN(f, s)(LD(s, in), LD(s, in + 16), &c_));      \
         wr32(out + 16, c_);)
#define CARRYI(f, s)                                                \
    STUB(f##_##s, unsigned c_ = 7;                                  \
         ST(s, out, FN(f, s)(LD(s, in), LD(s, in + 16), &c_));      \
         wr32(out + 16, c_);)
/* predicate = f(a, b) */
#define CMP(f, s) STUB(f##_##s, wr32(out + 16, FN(f, s)(LD(s, in), LD(s, in + 16)));)
/* r = vpselq(a, b, p); r = f_m(inactive = q2, a, b, p) */
#define PSEL(s) STUB(vpselq_##s, ST(s, out, FN(vpselq, s)(LD(s, in), LD(s, in + 16), PRED));)
#define PRED_M(f, s) STUB(f##_##s, ST(s, out, FN(f, s)(LD(s, in + 32), LD(s, in), LD(s, in + 16), PRED));)
/* r = vdupq_n(scalar) */
#define DUP(s) STUB(vdupq_n_##s, ST(s, out, FN(vdupq_n, s)(SCALAR(s)));)
/* de-interleaving loads from the record, interleaving stores of q0..q3 to the output record */
#define LD2(s)                                                      \
    STUB(vld2q_##s, __auto_type v_ = FN(vld2q, s)((const ET(s) *)in); \
         ST(s, out, v_.val[0]); ST(s, out + 16, v_.val[1]);)
#define LD4(s)                                                      \
    STUB(vld4q_##s, __auto_type v_ = FN(vld4q, s)((const ET(s) *)in); \
         ST(s, out, v_.val[0]); ST(s, out + 16, v_.val[1]);         \
         ST(s, out + 32, v_.val[2]); ST(s, out + 48, v_.val[3]);)
#define ST2(s)                                                      \
    STUB(vst2q_##s, __typeof__(FN(vld2q, s)((const ET(s) *)in)) v_; \
         v_.val[0] = LD(s, in); v_.val[1] = LD(s, in + 16);         \
         FN(vst2q, s)((ET(s) *)out, v_);)
#define ST4(s)                                                      \
    STUB(vst4q_##s, __typeof__(FN(vld4q, s)((const ET(s) *)in)) v_; \
         v_.val[0] = LD(s, in); v_.val[1] = LD(s, in + 16);         \
         v_.val[2] = LD(s, in + 32); v_.val[3] = LD(s, in + 48);    \
         FN(vst4q, s)((ET(s) *)out, v_);)

#define ALL6(M, f) M(f, s8) M(f, s16) M(f, s32) M(f, u8) M(f, u16) M(f, u32)
#define SIGNED3(M, f) M(f, s8) M(f, s16) M(f, s32)
#define UNSIGNED3(M, f) M(f, u8) M(f, u16) M(f, u32)

/* arithmetic */
ALL6(BIN, vaddq)
ALL6(BIN, vsubq)
ALL6(BIN, vqaddq)
ALL6(BIN, vqsubq)
ALL6(BIN, vmulq)
ALL6(BIN, vmulhq)
ALL6(BIN, vrmulhq)
SIGNED3(BIN, vqdmulhq)
SIGNED3(BIN, vqrdmulhq)
SIGNED3(BIN_N, vqdmulhq_n)
SIGNED3(BIN_N, vqrdmulhq_n)
SIGNED3(TER_N, vqdmlahq_n)
SIGNED3(TER_N, vqrdmlahq_n)
ALL6(TER_N, vmlaq_n)
ALL6(TER_N, vmlasq_n)

/* shifts: immediates 1, mid, max for each lane size */
#define SHL3(f, s, a, b, c) UN_IMM(f, s, a) UN_IMM(f, s, b) UN_IMM(f, s, c)
#define SHL_ALL(f)                                                                                      \
    SHL3(f, s8, 1, 5, 7) SHL3(f, u8, 1, 5, 7) SHL3(f, s16, 1, 9, 15) SHL3(f, u16, 1, 9, 15)             \
    SHL3(f, s32, 1, 17, 31) SHL3(f, u32, 1, 17, 31)
#define SHR_ALL(f)                                                                                      \
    SHL3(f, s8, 1, 3, 8) SHL3(f, u8, 1, 3, 8) SHL3(f, s16, 1, 7, 16) SHL3(f, u16, 1, 7, 16)             \
    SHL3(f, s32, 1, 15, 32) SHL3(f, u32, 1, 15, 32)
SHL_ALL(vshlq_n)
SHL_ALL(vqshlq_n)
SHR_ALL(vshrq_n)
SHR_ALL(vrshrq_n)
#define INS3(f, s, a, b, c) BIN_IMM(f, s, a) BIN_IMM(f, s, b) BIN_IMM(f, s, c)
INS3(vsliq_n, s8, 0, 5, 7)
INS3(vsliq_n, u8, 0, 5, 7)
INS3(vsliq_n, s16, 0, 9, 15)
INS3(vsliq_n, u16, 0, 9, 15)
INS3(vsliq_n, s32, 0, 17, 31)
INS3(vsliq_n, u32, 0, 17, 31)
INS3(vsriq_n, s8, 1, 3, 8)
INS3(vsriq_n, u8, 1, 3, 8)
INS3(vsriq_n, s16, 1, 7, 16)
INS3(vsriq_n, u16, 1, 7, 16)
INS3(vsriq_n, s32, 1, 15, 32)
INS3(vsriq_n, u32, 1, 15, 32)
ALL6(BINS, vshlq)

/* logic */
ALL6(BIN, vandq)
ALL6(BIN, vorrq)
ALL6(BIN, veorq)
ALL6(BIN, vbicq)
ALL6(UN, vmvnq)

/* widening and narrowing */
#define NARROW4(M, f) M(f, s8) M(f, s16) M(f, u8) M(f, u16)
NARROW4(WIDEN1, vmovlbq)
NARROW4(WIDEN1, vmovltq)
#define WIDE4(M, f) M(f, s16) M(f, s32) M(f, u16) M(f, u32)
WIDE4(NARROW, vmovnbq)
WIDE4(NARROW, vmovntq)
ALL6(WIDEN2, vmullbq_int)
ALL6(WIDEN2, vmulltq_int)

/* carry chains */
CARRY(vadcq, s32)
CARRY(vadcq, u32)
CARRY(vsbcq, s32)
CARRY(vsbcq, u32)
CARRYI(vadciq, s32)
CARRYI(vadciq, u32)
CARRYI(vsbciq, s32)
CARRYI(vsbciq, u32)

/* moves and permutations */
DUP(s8)
DUP(s16)
DUP(s32)
DUP(u8)
DUP(u16)
DUP(u32)
UN(vrev32q, s8)
UN(vrev32q, s16)
UN(vrev32q, u8)
UN(vrev32q, u16)
ALL6(UN, vrev64q)

/* predication */
ALL6(CMP, vcmpeqq)
ALL6(CMP, vcmpneq)
SIGNED3(CMP, vcmpgtq)
SIGNED3(CMP, vcmpgeq)
SIGNED3(CMP, vcmpltq)
SIGNED3(CMP, vcmpleq)
UNSIGNED3(CMP, vcmphiq)
UNSIGNED3(CMP, vcmpcsq)
PSEL(s8)
PSEL(s16)
PSEL(s32)
PSEL(u8)
PSEL(u16)
PSEL(u32)
ALL6(PRED_M, vaddq_m)
ALL6(PRED_M, vsubq_m)

/* interleaving loads and stores */
/* plain 16-bit load from the record's second vector, plain store of q0 to the output's second vector */
STUB(vld1q_s16, ST(s16, out, vld1q_s16((const int16_t *)(in + 16)));)
STUB(vst1q_s16, vst1q_s16((int16_t *)(out + 16), LD(s16, in));)
/* plain 32-bit load from the record's second vector */
STUB(vld1q_s32, ST(s32, out, vld1q_s32((const int32_t *)(in + 16)));)
LD2(s8)
LD2(s16)
LD2(s32)
LD4(s8)
LD4(s16)
LD4(s32)
ST2(s8)
ST2(s16)
ST2(s32)
ST4(s8)
ST4(s16)
ST4(s32)

/* gather and scatter: offsets in q0, table at in+16 (24 halfwords or 12 words); scatter into the output record */
STUB(vldrhq_gather_shifted_offset_s16,
     ST(s16, out, vldrhq_gather_shifted_offset_s16((const int16_t *)(in + 16), LD(u16, in)));)
STUB(vldrwq_gather_shifted_offset_s32,
     ST(s32, out, vldrwq_gather_shifted_offset_s32((const int32_t *)(in + 16), LD(u32, in)));)
STUB(vstrhq_scatter_shifted_offset_s16,
     vstrhq_scatter_shifted_offset_s16((int16_t *)out, LD(u16, in), LD(s16, in + 16));)
STUB(vstrwq_scatter_shifted_offset_s32,
     vstrwq_scatter_shifted_offset_s32((int32_t *)out, LD(u32, in), LD(s32, in + 16));)

/* by-scalar arithmetic */
ALL6(BIN_N, vaddq_n)
ALL6(BIN_N, vsubq_n)
ALL6(BIN_N, vmulq_n)
SIGNED3(TER_N, vqdmlashq_n)
SIGNED3(TER_N, vqrdmlashq_n)

/* halving, min/max, absolute value, negation */
ALL6(BIN, vhaddq)
ALL6(BIN, vrhaddq)
ALL6(BIN, vhsubq)
ALL6(BIN, vminq)
ALL6(BIN, vmaxq)
SIGNED3(UN, vabsq)
SIGNED3(UN, vqabsq)
SIGNED3(UN, vnegq)
SIGNED3(UN, vqnegq)

/* saturating widening and narrowing */
WIDEN2(vqdmullbq, s16)
WIDEN2(vqdmullbq, s32)
WIDEN2(vqdmulltq, s16)
WIDEN2(vqdmulltq, s32)
WIDE4(NARROW, vqmovnbq)
WIDE4(NARROW, vqmovntq)

/* reductions to a 32-bit scalar, written at out+16 */
#define REDUCE1(f, s) STUB(f##_##s, wr32(out + 16, (uint32_t)FN(f, s)(LD(s, in)));)
#define REDUCE2(f, s) STUB(f##_##s, wr32(out + 16, (uint32_t)FN(f, s)(LD(s, in), LD(s, in + 16)));)
ALL6(REDUCE1, vaddvq)
ALL6(REDUCE2, vmladavq)

/* tail predicates from the scalar; more predicated forms */
#define CTP(b) STUB(vctp##b##q, wr32(out + 16, vctp##b##q(rd32(in + 48)));)
CTP(8)
CTP(16)
CTP(32)
ALL6(PRED_M, vmulq_m)
SIGNED3(PRED_M, vqdmulhq_m)
SIGNED3(PRED_M, vqrdmulhq_m)

/* the sign and carry extractions of the keygen FFT's split-word arithmetic: shifts right by 31 */
UN_IMM(vshrq_n, s32, 31)
UN_IMM(vshrq_n, u32, 31)

/* the MVE Keccak kernels (keccak_x4.mve.c): rotations by every amount (VSHL #k, VSRI #(32 - k)), the delta swaps'
 * shifts (#1, #2, #4, #8) and the half-word joins (#16); word stores */
UN_IMM(vshlq_n, u32, 2)
UN_IMM(vshlq_n, u32, 3)
UN_IMM(vshlq_n, u32, 4)
UN_IMM(vshlq_n, u32, 5)
UN_IMM(vshlq_n, u32, 6)
UN_IMM(vshlq_n, u32, 7)
UN_IMM(vshlq_n, u32, 8)
UN_IMM(vshlq_n, u32, 9)
UN_IMM(vshlq_n, u32, 10)
UN_IMM(vshlq_n, u32, 11)
UN_IMM(vshlq_n, u32, 12)
UN_IMM(vshlq_n, u32, 13)
UN_IMM(vshlq_n, u32, 14)
UN_IMM(vshlq_n, u32, 15)
UN_IMM(vshlq_n, u32, 16)
UN_IMM(vshlq_n, u32, 18)
UN_IMM(vshlq_n, u32, 19)
UN_IMM(vshlq_n, u32, 20)
UN_IMM(vshlq_n, u32, 21)
UN_IMM(vshlq_n, u32, 22)
UN_IMM(vshlq_n, u32, 23)
UN_IMM(vshlq_n, u32, 24)
UN_IMM(vshlq_n, u32, 25)
UN_IMM(vshlq_n, u32, 26)
UN_IMM(vshlq_n, u32, 27)
UN_IMM(vshlq_n, u32, 28)
UN_IMM(vshlq_n, u32, 29)
UN_IMM(vshlq_n, u32, 30)
BIN_IMM(vsriq_n, u32, 2)
BIN_IMM(vsriq_n, u32, 3)
BIN_IMM(vsriq_n, u32, 4)
BIN_IMM(vsriq_n, u32, 5)
BIN_IMM(vsriq_n, u32, 6)
BIN_IMM(vsriq_n, u32, 7)
BIN_IMM(vsriq_n, u32, 8)
BIN_IMM(vsriq_n, u32, 9)
BIN_IMM(vsriq_n, u32, 10)
BIN_IMM(vsriq_n, u32, 11)
BIN_IMM(vsriq_n, u32, 12)
BIN_IMM(vsriq_n, u32, 13)
BIN_IMM(vsriq_n, u32, 14)
BIN_IMM(vsriq_n, u32, 16)
BIN_IMM(vsriq_n, u32, 17)
BIN_IMM(vsriq_n, u32, 18)
BIN_IMM(vsriq_n, u32, 19)
BIN_IMM(vsriq_n, u32, 20)
BIN_IMM(vsriq_n, u32, 21)
BIN_IMM(vsriq_n, u32, 22)
BIN_IMM(vsriq_n, u32, 23)
BIN_IMM(vsriq_n, u32, 24)
BIN_IMM(vsriq_n, u32, 25)
BIN_IMM(vsriq_n, u32, 26)
BIN_IMM(vsriq_n, u32, 27)
BIN_IMM(vsriq_n, u32, 28)
BIN_IMM(vsriq_n, u32, 29)
BIN_IMM(vsriq_n, u32, 30)
BIN_IMM(vsriq_n, u32, 31)
UN_IMM(vshrq_n, u32, 2)
UN_IMM(vshrq_n, u32, 4)
UN_IMM(vshrq_n, u32, 8)
BIN_IMM(vsliq_n, u32, 16)
/* plain 32-bit store of q0 to the output's second vector */
STUB(vst1q_s32, vst1q_s32((int32_t *)(out + 16), LD(s32, in));)
