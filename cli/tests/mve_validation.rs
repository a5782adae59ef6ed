//! The MVE model (`pqhelium_sim::mve`) against the real instructions: every form in [`forms`] runs on QEMU's
//! Cortex-M55 through its guest stub (`kernels/arm/mve_validate/mve_validate.mve.c`) and in the model, on edge operands
//! first, then on 10,000 seeded random operand sets; the results must agree bit for bit, carry and predicate included.
//!
//! Each stub processes `n` 64-byte input records into 64-byte output records (layout in the C file), so one guest call
//! validates many cases and one `run_batch` carries many calls. QEMU is required: without it these tests fail.

use std::fmt::Write as _;
use std::time::Instant;

use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::{Arg, Backend, Call, Limits, POISON};
use pqhelium_kernels::M55_IMAGE;
use pqhelium_sim::mve::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x4D56_4531;
const RANDOM_CASES: usize = 10_000;
/// Mixed-lane edge cases per form: each lane drawn from the edge values independently.
const MIXED_EDGE_CASES: usize = 500;
const RECORD: usize = 64;
const RECORDS_PER_CALL: usize = 128;
const CALLS_PER_BATCH: usize = 256;

/// One input record: q0 = a, q1 = b, q2 = c, q3 = d; the scalar, carry and predicate overlay d (bytes 48, 52, 56).
struct In([u8; RECORD]);

impl In {
    fn vec(&self, k: usize) -> Q {
        Q(self.0[16 * k..16 * k + 16].try_into().unwrap())
    }
    fn a(&self) -> Q {
        self.vec(0)
    }
    fn b(&self) -> Q {
        self.vec(1)
    }
    fn c(&self) -> Q {
        self.vec(2)
    }
    fn d(&self) -> Q {
        self.vec(3)
    }
    fn word(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.0[at..at + 4].try_into().unwrap())
    }
    fn s8(&self) -> i8 {
        self.word(48) as i8
    }
    fn s16(&self) -> i16 {
        self.word(48) as i16
    }
    fn s32(&self) -> i32 {
        self.word(48) as i32
    }
    fn u8(&self) -> u8 {
        self.word(48) as u8
    }
    fn u16(&self) -> u16 {
        self.word(48) as u16
    }
    fn u32(&self) -> u32 {
        self.word(48)
    }
    fn carry(&self) -> u32 {
        self.word(52)
    }
    fn pred(&self) -> u16 {
        self.word(56) as u16
    }
    fn mem_i8(&self) -> [i8; 64] {
        self.0.map(|b| b as i8)
    }
    fn mem_i16(&self) -> [i16; 32] {
        core::array::from_fn(|i| i16::from_le_bytes([self.0[2 * i], self.0[2 * i + 1]]))
    }
    fn mem_i32(&self) -> [i32; 16] {
        core::array::from_fn(|i| self.word(4 * i) as i32)
    }
    /// The gather table: bytes 16..64.
    fn table_i16(&self) -> [i16; 24] {
        core::array::from_fn(|i| self.mem_i16()[8 + i])
    }
    fn table_i32(&self) -> [i32; 12] {
        core::array::from_fn(|i| self.mem_i32()[4 + i])
    }
}

// What the stub leaves in its output record, from its start: a vector; a vector and a carry; a predicate (after the
// untouched poisoned vector slot); several vectors; a memory image.
fn q(r: Q) -> Vec<u8> {
    r.0.to_vec()
}
fn qc((r, carry): (Q, u32)) -> Vec<u8> {
    [&r.0[..], &carry.to_le_bytes()].concat()
}
fn pred(p: u16) -> Vec<u8> {
    [&[POISON; 16][..], &(p as u32).to_le_bytes()].concat()
}
fn word(w: u32) -> Vec<u8> {
    [&[POISON; 16][..], &w.to_le_bytes()].concat()
}
fn qs(v: &[Q]) -> Vec<u8> {
    v.iter().flat_map(|r| r.0).collect()
}
fn mem_i8(m: &[i8]) -> Vec<u8> {
    m.iter().map(|&b| b as u8).collect()
}
fn mem_i16(m: &[i16]) -> Vec<u8> {
    m.iter().flat_map(|v| v.to_le_bytes()).collect()
}
fn mem_i32(m: &[i32]) -> Vec<u8> {
    m.iter().flat_map(|v| v.to_le_bytes()).collect()
}
/// A scatter into the (poisoned) output record, offsets from q0 and values from q1.
fn scatter<T: Copy + FromPoison, const N: usize>(store: fn(&mut [T], Q, Q), x: &In) -> [T; N] {
    let mut mem = [T::POISONED; N];
    store(&mut mem, x.a(), x.b());
    mem
}
trait FromPoison {
    const POISONED: Self;
}
impl FromPoison for i16 {
    const POISONED: i16 = i16::from_le_bytes([POISON; 2]);
}
impl FromPoison for i32 {
    const POISONED: i32 = i32::from_le_bytes([POISON; 4]);
}

/// What a form's operands are, for generating them. `q[k]` is the lane width (bits) whose edge values (0, 1, -1,
/// minimum, maximum) vector `k` gets, 0 when the vector is not an operand; `scalar` likewise for the scalar.
#[derive(Clone, Copy, Debug)]
struct Ops {
    q: [u32; 4],
    scalar: u32,
    extra: Extra,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Extra {
    None,
    /// Carry in (0 or 1) at byte 52.
    Carry,
    /// Predicate (any 16 bits) at byte 56.
    Pred,
    /// q1 holds shift counts: mostly small signed values around the lane width.
    Counts,
    /// The scalar is a small count (0..=20) in random cases.
    SmallScalar,
    /// q0 holds element offsets of this many bits, each below `max`.
    Offsets {
        bits: u32,
        max: u32,
    },
}

const fn ops(q: [u32; 4], scalar: u32, extra: Extra) -> Ops {
    Ops { q, scalar, extra }
}

macro_rules! shapes {
    ($($b:literal: $v1:ident $v2:ident $n0:ident $n1:ident $n2:ident $sh:ident $p2:ident $p3:ident $m:ident;)+) => {
        $(
            /// One vector operand.
            const $v1: Ops = ops([$b, 0, 0, 0], 0, Extra::None);
            /// Two vector operands.
            const $v2: Ops = ops([$b, $b, 0, 0], 0, Extra::None);
            /// A scalar only.
            const $n0: Ops = ops([0, 0, 0, 0], $b, Extra::None);
            /// A vector and a scalar.
            const $n1: Ops = ops([$b, 0, 0, 0], $b, Extra::None);
            /// Two vectors and a scalar.
            const $n2: Ops = ops([$b, $b, 0, 0], $b, Extra::None);
            /// A vector and a vector of shift counts.
            const $sh: Ops = ops([$b, $b, 0, 0], 0, Extra::Counts);
            /// Two vectors and a predicate.
            const $p2: Ops = ops([$b, $b, 0, 0], 0, Extra::Pred);
            /// Three vectors (a, b, inactive) and a predicate.
            const $p3: Ops = ops([$b, $b, $b, 0], 0, Extra::Pred);
            /// The whole record as memory or as four vectors.
            const $m: Ops = ops([$b, $b, $b, $b], 0, Extra::None);
        )+
    };
}

shapes! {
    8: V1_8 V2_8 N0_8 N1_8 N2_8 SH_8 P2_8 P3_8 M_8;
    16: V1_16 V2_16 N0_16 N1_16 N2_16 SH_16 P2_16 P3_16 M_16;
    32: V1_32 V2_32 N0_32 N1_32 N2_32 SH_32 P2_32 P3_32 M_32;
}
/// Narrowing moves: a narrow vector and a wide one.
const NB_16: Ops = ops([8, 16, 0, 0], 0, Extra::None);
const NB_32: Ops = ops([16, 32, 0, 0], 0, Extra::None);
/// Two 32-bit vectors and a carry in.
const C_32: Ops = ops([32, 32, 0, 0], 0, Extra::Carry);
/// A lane count for `VCTP`.
const CTP: Ops = ops([0, 0, 0, 0], 32, Extra::SmallScalar);
/// Gathers: offsets in q0 index the table in q1..q3 (24 halfwords or 12 words).
const G_16: Ops = ops([0, 16, 16, 16], 0, Extra::Offsets { bits: 16, max: 24 });
const G_32: Ops = ops([0, 32, 32, 32], 0, Extra::Offsets { bits: 32, max: 12 });
/// Scatters: offsets in q0 index the 64-byte output record, values in q1.
const SC_16: Ops = ops([0, 16, 0, 0], 0, Extra::Offsets { bits: 16, max: 32 });
const SC_32: Ops = ops([0, 32, 0, 0], 0, Extra::Offsets { bits: 32, max: 16 });

/// One instruction form: its name (the intrinsic, plus `_<imm>` for immediates), the guest symbol
/// (`pqh_mve_<name>`), what its operands are, and the model's expected output record prefix.
#[derive(Clone, Copy)]
struct Form {
    name: &'static str,
    symbol: &'static str,
    ops: Ops,
    model: fn(&In) -> Vec<u8>,
}

macro_rules! forms {
    ($($name:ident: $ops:ident => |$x:ident| $body:expr;)+) => {
        vec![$(
            Form {
                name: stringify!($name),
                symbol: concat!("pqh_mve_", stringify!($name)),
                ops: $ops,
                model: |$x: &In| $body,
            },
        )+]
    };
}

/// Every validated form, one per line: `name: operands => |x| model`.
#[rustfmt::skip]
fn forms() -> Vec<Form> {
    forms! {
    vaddq_s8: V2_8 => |x| q(vaddq_s8(x.a(), x.b()));
    vaddq_s16: V2_16 => |x| q(vaddq_s16(x.a(), x.b()));
    vaddq_s32: V2_32 => |x| q(vaddq_s32(x.a(), x.b()));
    vaddq_u8: V2_8 => |x| q(vaddq_u8(x.a(), x.b()));
    vaddq_u16: V2_16 => |x| q(vaddq_u16(x.a(), x.b()));
    vaddq_u32: V2_32 => |x| q(vaddq_u32(x.a(), x.b()));
    vsubq_s8: V2_8 => |x| q(vsubq_s8(x.a(), x.b()));
    vsubq_s16: V2_16 => |x| q(vsubq_s16(x.a(), x.b()));
    vsubq_s32: V2_32 => |x| q(vsubq_s32(x.a(), x.b()));
    vsubq_u8: V2_8 => |x| q(vsubq_u8(x.a(), x.b()));
    vsubq_u16: V2_16 => |x| q(vsubq_u16(x.a(), x.b()));
    vsubq_u32: V2_32 => |x| q(vsubq_u32(x.a(), x.b()));
    vqaddq_s8: V2_8 => |x| q(vqaddq_s8(x.a(), x.b()));
    vqaddq_s16: V2_16 => |x| q(vqaddq_s16(x.a(), x.b()));
    vqaddq_s32: V2_32 => |x| q(vqaddq_s32(x.a(), x.b()));
    vqaddq_u8: V2_8 => |x| q(vqaddq_u8(x.a(), x.b()));
    vqaddq_u16: V2_16 => |x| q(vqaddq_u16(x.a(), x.b()));
    vqaddq_u32: V2_32 => |x| q(vqaddq_u32(x.a(), x.b()));
    vqsubq_s8: V2_8 => |x| q(vqsubq_s8(x.a(), x.b()));
    vqsubq_s16: V2_16 => |x| q(vqsubq_s16(x.a(), x.b()));
    vqsubq_s32: V2_32 => |x| q(vqsubq_s32(x.a(), x.b()));
    vqsubq_u8: V2_8 => |x| q(vqsubq_u8(x.a(), x.b()));
    vqsubq_u16: V2_16 => |x| q(vqsubq_u16(x.a(), x.b()));
    vqsubq_u32: V2_32 => |x| q(vqsubq_u32(x.a(), x.b()));
    vmulq_s8: V2_8 => |x| q(vmulq_s8(x.a(), x.b()));
    vmulq_s16: V2_16 => |x| q(vmulq_s16(x.a(), x.b()));
    vmulq_s32: V2_32 => |x| q(vmulq_s32(x.a(), x.b()));
    vmulq_u8: V2_8 => |x| q(vmulq_u8(x.a(), x.b()));
    vmulq_u16: V2_16 => |x| q(vmulq_u16(x.a(), x.b()));
    vmulq_u32: V2_32 => |x| q(vmulq_u32(x.a(), x.b()));
    vmulhq_s8: V2_8 => |x| q(vmulhq_s8(x.a(), x.b()));
    vmulhq_s16: V2_16 => |x| q(vmulhq_s16(x.a(), x.b()));
    vmulhq_s32: V2_32 => |x| q(vmulhq_s32(x.a(), x.b()));
    vmulhq_u8: V2_8 => |x| q(vmulhq_u8(x.a(), x.b()));
    vmulhq_u16: V2_16 => |x| q(vmulhq_u16(x.a(), x.b()));
    vmulhq_u32: V2_32 => |x| q(vmulhq_u32(x.a(), x.b()));
    vrmulhq_s8: V2_8 => |x| q(vrmulhq_s8(x.a(), x.b()));
    vrmulhq_s16: V2_16 => |x| q(vrmulhq_s16(x.a(), x.b()));
    vrmulhq_s32: V2_32 => |x| q(vrmulhq_s32(x.a(), x.b()));
    vrmulhq_u8: V2_8 => |x| q(vrmulhq_u8(x.a(), x.b()));
    vrmulhq_u16: V2_16 => |x| q(vrmulhq_u16(x.a(), x.b()));
    vrmulhq_u32: V2_32 => |x| q(vrmulhq_u32(x.a(), x.b()));
    vqdmulhq_s8: V2_8 => |x| q(vqdmulhq_s8(x.a(), x.b()));
    vqdmulhq_s16: V2_16 => |x| q(vqdmulhq_s16(x.a(), x.b()));
    vqdmulhq_s32: V2_32 => |x| q(vqdmulhq_s32(x.a(), x.b()));
    vqrdmulhq_s8: V2_8 => |x| q(vqrdmulhq_s8(x.a(), x.b()));
    vqrdmulhq_s16: V2_16 => |x| q(vqrdmulhq_s16(x.a(), x.b()));
    vqrdmulhq_s32: V2_32 => |x| q(vqrdmulhq_s32(x.a(), x.b()));
    vqdmulhq_n_s8: N1_8 => |x| q(vqdmulhq_n_s8(x.a(), x.s8()));
    vqdmulhq_n_s16: N1_16 => |x| q(vqdmulhq_n_s16(x.a(), x.s16()));
    vqdmulhq_n_s32: N1_32 => |x| q(vqdmulhq_n_s32(x.a(), x.s32()));
    vqrdmulhq_n_s8: N1_8 => |x| q(vqrdmulhq_n_s8(x.a(), x.s8()));
    vqrdmulhq_n_s16: N1_16 => |x| q(vqrdmulhq_n_s16(x.a(), x.s16()));
    vqrdmulhq_n_s32: N1_32 => |x| q(vqrdmulhq_n_s32(x.a(), x.s32()));
    vqdmlahq_n_s8: N2_8 => |x| q(vqdmlahq_n_s8(x.a(), x.b(), x.s8()));
    vqdmlahq_n_s16: N2_16 => |x| q(vqdmlahq_n_s16(x.a(), x.b(), x.s16()));
    vqdmlahq_n_s32: N2_32 => |x| q(vqdmlahq_n_s32(x.a(), x.b(), x.s32()));
    vqrdmlahq_n_s8: N2_8 => |x| q(vqrdmlahq_n_s8(x.a(), x.b(), x.s8()));
    vqrdmlahq_n_s16: N2_16 => |x| q(vqrdmlahq_n_s16(x.a(), x.b(), x.s16()));
    vqrdmlahq_n_s32: N2_32 => |x| q(vqrdmlahq_n_s32(x.a(), x.b(), x.s32()));
    vmlaq_n_s8: N2_8 => |x| q(vmlaq_n_s8(x.a(), x.b(), x.s8()));
    vmlaq_n_s16: N2_16 => |x| q(vmlaq_n_s16(x.a(), x.b(), x.s16()));
    vmlaq_n_s32: N2_32 => |x| q(vmlaq_n_s32(x.a(), x.b(), x.s32()));
    vmlaq_n_u8: N2_8 => |x| q(vmlaq_n_u8(x.a(), x.b(), x.u8()));
    vmlaq_n_u16: N2_16 => |x| q(vmlaq_n_u16(x.a(), x.b(), x.u16()));
    vmlaq_n_u32: N2_32 => |x| q(vmlaq_n_u32(x.a(), x.b(), x.u32()));
    vmlasq_n_s8: N2_8 => |x| q(vmlasq_n_s8(x.a(), x.b(), x.s8()));
    vmlasq_n_s16: N2_16 => |x| q(vmlasq_n_s16(x.a(), x.b(), x.s16()));
    vmlasq_n_s32: N2_32 => |x| q(vmlasq_n_s32(x.a(), x.b(), x.s32()));
    vmlasq_n_u8: N2_8 => |x| q(vmlasq_n_u8(x.a(), x.b(), x.u8()));
    vmlasq_n_u16: N2_16 => |x| q(vmlasq_n_u16(x.a(), x.b(), x.u16()));
    vmlasq_n_u32: N2_32 => |x| q(vmlasq_n_u32(x.a(), x.b(), x.u32()));
    vshlq_n_s8_1: V1_8 => |x| q(vshlq_n_s8(x.a(), 1));
    vshlq_n_s8_5: V1_8 => |x| q(vshlq_n_s8(x.a(), 5));
    vshlq_n_s8_7: V1_8 => |x| q(vshlq_n_s8(x.a(), 7));
    vshlq_n_s16_1: V1_16 => |x| q(vshlq_n_s16(x.a(), 1));
    vshlq_n_s16_9: V1_16 => |x| q(vshlq_n_s16(x.a(), 9));
    vshlq_n_s16_15: V1_16 => |x| q(vshlq_n_s16(x.a(), 15));
    vshlq_n_s32_1: V1_32 => |x| q(vshlq_n_s32(x.a(), 1));
    vshlq_n_s32_17: V1_32 => |x| q(vshlq_n_s32(x.a(), 17));
    vshlq_n_s32_31: V1_32 => |x| q(vshlq_n_s32(x.a(), 31));
    vshlq_n_u8_1: V1_8 => |x| q(vshlq_n_u8(x.a(), 1));
    vshlq_n_u8_5: V1_8 => |x| q(vshlq_n_u8(x.a(), 5));
    vshlq_n_u8_7: V1_8 => |x| q(vshlq_n_u8(x.a(), 7));
    vshlq_n_u16_1: V1_16 => |x| q(vshlq_n_u16(x.a(), 1));
    vshlq_n_u16_9: V1_16 => |x| q(vshlq_n_u16(x.a(), 9));
    vshlq_n_u16_15: V1_16 => |x| q(vshlq_n_u16(x.a(), 15));
    vshlq_n_u32_1: V1_32 => |x| q(vshlq_n_u32(x.a(), 1));
    vshlq_n_u32_17: V1_32 => |x| q(vshlq_n_u32(x.a(), 17));
    vshlq_n_u32_31: V1_32 => |x| q(vshlq_n_u32(x.a(), 31));
    vqshlq_n_s8_1: V1_8 => |x| q(vqshlq_n_s8(x.a(), 1));
    vqshlq_n_s8_5: V1_8 => |x| q(vqshlq_n_s8(x.a(), 5));
    vqshlq_n_s8_7: V1_8 => |x| q(vqshlq_n_s8(x.a(), 7));
    vqshlq_n_s16_1: V1_16 => |x| q(vqshlq_n_s16(x.a(), 1));
    vqshlq_n_s16_9: V1_16 => |x| q(vqshlq_n_s16(x.a(), 9));
    vqshlq_n_s16_15: V1_16 => |x| q(vqshlq_n_s16(x.a(), 15));
    vqshlq_n_s32_1: V1_32 => |x| q(vqshlq_n_s32(x.a(), 1));
    vqshlq_n_s32_17: V1_32 => |x| q(vqshlq_n_s32(x.a(), 17));
    vqshlq_n_s32_31: V1_32 => |x| q(vqshlq_n_s32(x.a(), 31));
    vqshlq_n_u8_1: V1_8 => |x| q(vqshlq_n_u8(x.a(), 1));
    vqshlq_n_u8_5: V1_8 => |x| q(vqshlq_n_u8(x.a(), 5));
    vqshlq_n_u8_7: V1_8 => |x| q(vqshlq_n_u8(x.a(), 7));
    vqshlq_n_u16_1: V1_16 => |x| q(vqshlq_n_u16(x.a(), 1));
    vqshlq_n_u16_9: V1_16 => |x| q(vqshlq_n_u16(x.a(), 9));
    vqshlq_n_u16_15: V1_16 => |x| q(vqshlq_n_u16(x.a(), 15));
    vqshlq_n_u32_1: V1_32 => |x| q(vqshlq_n_u32(x.a(), 1));
    vqshlq_n_u32_17: V1_32 => |x| q(vqshlq_n_u32(x.a(), 17));
    vqshlq_n_u32_31: V1_32 => |x| q(vqshlq_n_u32(x.a(), 31));
    vshrq_n_s8_1: V1_8 => |x| q(vshrq_n_s8(x.a(), 1));
    vshrq_n_s8_3: V1_8 => |x| q(vshrq_n_s8(x.a(), 3));
    vshrq_n_s8_8: V1_8 => |x| q(vshrq_n_s8(x.a(), 8));
    vshrq_n_s16_1: V1_16 => |x| q(vshrq_n_s16(x.a(), 1));
    vshrq_n_s16_7: V1_16 => |x| q(vshrq_n_s16(x.a(), 7));
    vshrq_n_s16_16: V1_16 => |x| q(vshrq_n_s16(x.a(), 16));
    vshrq_n_s32_1: V1_32 => |x| q(vshrq_n_s32(x.a(), 1));
    vshrq_n_s32_15: V1_32 => |x| q(vshrq_n_s32(x.a(), 15));
    vshrq_n_s32_32: V1_32 => |x| q(vshrq_n_s32(x.a(), 32));
    vshrq_n_u8_1: V1_8 => |x| q(vshrq_n_u8(x.a(), 1));
    vshrq_n_u8_3: V1_8 => |x| q(vshrq_n_u8(x.a(), 3));
    vshrq_n_u8_8: V1_8 => |x| q(vshrq_n_u8(x.a(), 8));
    vshrq_n_u16_1: V1_16 => |x| q(vshrq_n_u16(x.a(), 1));
    vshrq_n_u16_7: V1_16 => |x| q(vshrq_n_u16(x.a(), 7));
    vshrq_n_u16_16: V1_16 => |x| q(vshrq_n_u16(x.a(), 16));
    vshrq_n_u32_1: V1_32 => |x| q(vshrq_n_u32(x.a(), 1));
    vshrq_n_u32_15: V1_32 => |x| q(vshrq_n_u32(x.a(), 15));
    vshrq_n_u32_32: V1_32 => |x| q(vshrq_n_u32(x.a(), 32));
    vrshrq_n_s8_1: V1_8 => |x| q(vrshrq_n_s8(x.a(), 1));
    vrshrq_n_s8_3: V1_8 => |x| q(vrshrq_n_s8(x.a(), 3));
    vrshrq_n_s8_8: V1_8 => |x| q(vrshrq_n_s8(x.a(), 8));
    vrshrq_n_s16_1: V1_16 => |x| q(vrshrq_n_s16(x.a(), 1));
    vrshrq_n_s16_7: V1_16 => |x| q(vrshrq_n_s16(x.a(), 7));
    vrshrq_n_s16_16: V1_16 => |x| q(vrshrq_n_s16(x.a(), 16));
    vrshrq_n_s32_1: V1_32 => |x| q(vrshrq_n_s32(x.a(), 1));
    vrshrq_n_s32_15: V1_32 => |x| q(vrshrq_n_s32(x.a(), 15));
    vrshrq_n_s32_32: V1_32 => |x| q(vrshrq_n_s32(x.a(), 32));
    vrshrq_n_u8_1: V1_8 => |x| q(vrshrq_n_u8(x.a(), 1));
    vrshrq_n_u8_3: V1_8 => |x| q(vrshrq_n_u8(x.a(), 3));
    vrshrq_n_u8_8: V1_8 => |x| q(vrshrq_n_u8(x.a(), 8));
    vrshrq_n_u16_1: V1_16 => |x| q(vrshrq_n_u16(x.a(), 1));
    vrshrq_n_u16_7: V1_16 => |x| q(vrshrq_n_u16(x.a(), 7));
    vrshrq_n_u16_16: V1_16 => |x| q(vrshrq_n_u16(x.a(), 16));
    vrshrq_n_u32_1: V1_32 => |x| q(vrshrq_n_u32(x.a(), 1));
    vrshrq_n_u32_15: V1_32 => |x| q(vrshrq_n_u32(x.a(), 15));
    vrshrq_n_u32_32: V1_32 => |x| q(vrshrq_n_u32(x.a(), 32));
    vsliq_n_s8_0: V2_8 => |x| q(vsliq_n_s8(x.a(), x.b(), 0));
    vsliq_n_s8_5: V2_8 => |x| q(vsliq_n_s8(x.a(), x.b(), 5));
    vsliq_n_s8_7: V2_8 => |x| q(vsliq_n_s8(x.a(), x.b(), 7));
    vsliq_n_s16_0: V2_16 => |x| q(vsliq_n_s16(x.a(), x.b(), 0));
    vsliq_n_s16_9: V2_16 => |x| q(vsliq_n_s16(x.a(), x.b(), 9));
    vsliq_n_s16_15: V2_16 => |x| q(vsliq_n_s16(x.a(), x.b(), 15));
    vsliq_n_s32_0: V2_32 => |x| q(vsliq_n_s32(x.a(), x.b(), 0));
    vsliq_n_s32_17: V2_32 => |x| q(vsliq_n_s32(x.a(), x.b(), 17));
    vsliq_n_s32_31: V2_32 => |x| q(vsliq_n_s32(x.a(), x.b(), 31));
    vsliq_n_u8_0: V2_8 => |x| q(vsliq_n_u8(x.a(), x.b(), 0));
    vsliq_n_u8_5: V2_8 => |x| q(vsliq_n_u8(x.a(), x.b(), 5));
    vsliq_n_u8_7: V2_8 => |x| q(vsliq_n_u8(x.a(), x.b(), 7));
    vsliq_n_u16_0: V2_16 => |x| q(vsliq_n_u16(x.a(), x.b(), 0));
    vsliq_n_u16_9: V2_16 => |x| q(vsliq_n_u16(x.a(), x.b(), 9));
    vsliq_n_u16_15: V2_16 => |x| q(vsliq_n_u16(x.a(), x.b(), 15));
    vsliq_n_u32_0: V2_32 => |x| q(vsliq_n_u32(x.a(), x.b(), 0));
    vsliq_n_u32_17: V2_32 => |x| q(vsliq_n_u32(x.a(), x.b(), 17));
    vsliq_n_u32_31: V2_32 => |x| q(vsliq_n_u32(x.a(), x.b(), 31));
    vsriq_n_s8_1: V2_8 => |x| q(vsriq_n_s8(x.a(), x.b(), 1));
    vsriq_n_s8_3: V2_8 => |x| q(vsriq_n_s8(x.a(), x.b(), 3));
    vsriq_n_s8_8: V2_8 => |x| q(vsriq_n_s8(x.a(), x.b(), 8));
    vsriq_n_s16_1: V2_16 => |x| q(vsriq_n_s16(x.a(), x.b(), 1));
    vsriq_n_s16_7: V2_16 => |x| q(vsriq_n_s16(x.a(), x.b(), 7));
    vsriq_n_s16_16: V2_16 => |x| q(vsriq_n_s16(x.a(), x.b(), 16));
    vsriq_n_s32_1: V2_32 => |x| q(vsriq_n_s32(x.a(), x.b(), 1));
    vsriq_n_s32_15: V2_32 => |x| q(vsriq_n_s32(x.a(), x.b(), 15));
    vsriq_n_s32_32: V2_32 => |x| q(vsriq_n_s32(x.a(), x.b(), 32));
    vsriq_n_u8_1: V2_8 => |x| q(vsriq_n_u8(x.a(), x.b(), 1));
    vsriq_n_u8_3: V2_8 => |x| q(vsriq_n_u8(x.a(), x.b(), 3));
    vsriq_n_u8_8: V2_8 => |x| q(vsriq_n_u8(x.a(), x.b(), 8));
    vsriq_n_u16_1: V2_16 => |x| q(vsriq_n_u16(x.a(), x.b(), 1));
    vsriq_n_u16_7: V2_16 => |x| q(vsriq_n_u16(x.a(), x.b(), 7));
    vsriq_n_u16_16: V2_16 => |x| q(vsriq_n_u16(x.a(), x.b(), 16));
    vsriq_n_u32_1: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 1));
    vsriq_n_u32_15: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 15));
    vsriq_n_u32_32: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 32));
    vshlq_s8: SH_8 => |x| q(vshlq_s8(x.a(), x.b()));
    vshlq_s16: SH_16 => |x| q(vshlq_s16(x.a(), x.b()));
    vshlq_s32: SH_32 => |x| q(vshlq_s32(x.a(), x.b()));
    vshlq_u8: SH_8 => |x| q(vshlq_u8(x.a(), x.b()));
    vshlq_u16: SH_16 => |x| q(vshlq_u16(x.a(), x.b()));
    vshlq_u32: SH_32 => |x| q(vshlq_u32(x.a(), x.b()));
    vandq_s8: V2_8 => |x| q(vandq_s8(x.a(), x.b()));
    vandq_s16: V2_16 => |x| q(vandq_s16(x.a(), x.b()));
    vandq_s32: V2_32 => |x| q(vandq_s32(x.a(), x.b()));
    vandq_u8: V2_8 => |x| q(vandq_u8(x.a(), x.b()));
    vandq_u16: V2_16 => |x| q(vandq_u16(x.a(), x.b()));
    vandq_u32: V2_32 => |x| q(vandq_u32(x.a(), x.b()));
    vorrq_s8: V2_8 => |x| q(vorrq_s8(x.a(), x.b()));
    vorrq_s16: V2_16 => |x| q(vorrq_s16(x.a(), x.b()));
    vorrq_s32: V2_32 => |x| q(vorrq_s32(x.a(), x.b()));
    vorrq_u8: V2_8 => |x| q(vorrq_u8(x.a(), x.b()));
    vorrq_u16: V2_16 => |x| q(vorrq_u16(x.a(), x.b()));
    vorrq_u32: V2_32 => |x| q(vorrq_u32(x.a(), x.b()));
    veorq_s8: V2_8 => |x| q(veorq_s8(x.a(), x.b()));
    veorq_s16: V2_16 => |x| q(veorq_s16(x.a(), x.b()));
    veorq_s32: V2_32 => |x| q(veorq_s32(x.a(), x.b()));
    veorq_u8: V2_8 => |x| q(veorq_u8(x.a(), x.b()));
    veorq_u16: V2_16 => |x| q(veorq_u16(x.a(), x.b()));
    veorq_u32: V2_32 => |x| q(veorq_u32(x.a(), x.b()));
    vbicq_s8: V2_8 => |x| q(vbicq_s8(x.a(), x.b()));
    vbicq_s16: V2_16 => |x| q(vbicq_s16(x.a(), x.b()));
    vbicq_s32: V2_32 => |x| q(vbicq_s32(x.a(), x.b()));
    vbicq_u8: V2_8 => |x| q(vbicq_u8(x.a(), x.b()));
    vbicq_u16: V2_16 => |x| q(vbicq_u16(x.a(), x.b()));
    vbicq_u32: V2_32 => |x| q(vbicq_u32(x.a(), x.b()));
    vmvnq_s8: V1_8 => |x| q(vmvnq_s8(x.a()));
    vmvnq_s16: V1_16 => |x| q(vmvnq_s16(x.a()));
    vmvnq_s32: V1_32 => |x| q(vmvnq_s32(x.a()));
    vmvnq_u8: V1_8 => |x| q(vmvnq_u8(x.a()));
    vmvnq_u16: V1_16 => |x| q(vmvnq_u16(x.a()));
    vmvnq_u32: V1_32 => |x| q(vmvnq_u32(x.a()));
    vmovlbq_s8: V1_8 => |x| q(vmovlbq_s8(x.a()));
    vmovlbq_s16: V1_16 => |x| q(vmovlbq_s16(x.a()));
    vmovlbq_u8: V1_8 => |x| q(vmovlbq_u8(x.a()));
    vmovlbq_u16: V1_16 => |x| q(vmovlbq_u16(x.a()));
    vmovltq_s8: V1_8 => |x| q(vmovltq_s8(x.a()));
    vmovltq_s16: V1_16 => |x| q(vmovltq_s16(x.a()));
    vmovltq_u8: V1_8 => |x| q(vmovltq_u8(x.a()));
    vmovltq_u16: V1_16 => |x| q(vmovltq_u16(x.a()));
    vmovnbq_s16: NB_16 => |x| q(vmovnbq_s16(x.a(), x.b()));
    vmovnbq_s32: NB_32 => |x| q(vmovnbq_s32(x.a(), x.b()));
    vmovnbq_u16: NB_16 => |x| q(vmovnbq_u16(x.a(), x.b()));
    vmovnbq_u32: NB_32 => |x| q(vmovnbq_u32(x.a(), x.b()));
    vmovntq_s16: NB_16 => |x| q(vmovntq_s16(x.a(), x.b()));
    vmovntq_s32: NB_32 => |x| q(vmovntq_s32(x.a(), x.b()));
    vmovntq_u16: NB_16 => |x| q(vmovntq_u16(x.a(), x.b()));
    vmovntq_u32: NB_32 => |x| q(vmovntq_u32(x.a(), x.b()));
    vmullbq_int_s8: V2_8 => |x| q(vmullbq_int_s8(x.a(), x.b()));
    vmullbq_int_s16: V2_16 => |x| q(vmullbq_int_s16(x.a(), x.b()));
    vmullbq_int_s32: V2_32 => |x| q(vmullbq_int_s32(x.a(), x.b()));
    vmullbq_int_u8: V2_8 => |x| q(vmullbq_int_u8(x.a(), x.b()));
    vmullbq_int_u16: V2_16 => |x| q(vmullbq_int_u16(x.a(), x.b()));
    vmullbq_int_u32: V2_32 => |x| q(vmullbq_int_u32(x.a(), x.b()));
    vmulltq_int_s8: V2_8 => |x| q(vmulltq_int_s8(x.a(), x.b()));
    vmulltq_int_s16: V2_16 => |x| q(vmulltq_int_s16(x.a(), x.b()));
    vmulltq_int_s32: V2_32 => |x| q(vmulltq_int_s32(x.a(), x.b()));
    vmulltq_int_u8: V2_8 => |x| q(vmulltq_int_u8(x.a(), x.b()));
    vmulltq_int_u16: V2_16 => |x| q(vmulltq_int_u16(x.a(), x.b()));
    vmulltq_int_u32: V2_32 => |x| q(vmulltq_int_u32(x.a(), x.b()));
    vadcq_s32: C_32 => |x| qc(vadcq_s32(x.a(), x.b(), x.carry()));
    vadcq_u32: C_32 => |x| qc(vadcq_u32(x.a(), x.b(), x.carry()));
    vsbcq_s32: C_32 => |x| qc(vsbcq_s32(x.a(), x.b(), x.carry()));
    vsbcq_u32: C_32 => |x| qc(vsbcq_u32(x.a(), x.b(), x.carry()));
    vadciq_s32: V2_32 => |x| qc(vadciq_s32(x.a(), x.b()));
    vadciq_u32: V2_32 => |x| qc(vadciq_u32(x.a(), x.b()));
    vsbciq_s32: V2_32 => |x| qc(vsbciq_s32(x.a(), x.b()));
    vsbciq_u32: V2_32 => |x| qc(vsbciq_u32(x.a(), x.b()));
    vdupq_n_s8: N0_8 => |x| q(vdupq_n_s8(x.s8()));
    vdupq_n_s16: N0_16 => |x| q(vdupq_n_s16(x.s16()));
    vdupq_n_s32: N0_32 => |x| q(vdupq_n_s32(x.s32()));
    vdupq_n_u8: N0_8 => |x| q(vdupq_n_u8(x.u8()));
    vdupq_n_u16: N0_16 => |x| q(vdupq_n_u16(x.u16()));
    vdupq_n_u32: N0_32 => |x| q(vdupq_n_u32(x.u32()));
    vrev32q_s8: V1_8 => |x| q(vrev32q_s8(x.a()));
    vrev32q_s16: V1_16 => |x| q(vrev32q_s16(x.a()));
    vrev32q_u8: V1_8 => |x| q(vrev32q_u8(x.a()));
    vrev32q_u16: V1_16 => |x| q(vrev32q_u16(x.a()));
    vrev64q_s8: V1_8 => |x| q(vrev64q_s8(x.a()));
    vrev64q_s16: V1_16 => |x| q(vrev64q_s16(x.a()));
    vrev64q_s32: V1_32 => |x| q(vrev64q_s32(x.a()));
    vrev64q_u8: V1_8 => |x| q(vrev64q_u8(x.a()));
    vrev64q_u16: V1_16 => |x| q(vrev64q_u16(x.a()));
    vrev64q_u32: V1_32 => |x| q(vrev64q_u32(x.a()));
    vcmpeqq_s8: V2_8 => |x| pred(vcmpeqq_s8(x.a(), x.b()));
    vcmpeqq_s16: V2_16 => |x| pred(vcmpeqq_s16(x.a(), x.b()));
    vcmpeqq_s32: V2_32 => |x| pred(vcmpeqq_s32(x.a(), x.b()));
    vcmpeqq_u8: V2_8 => |x| pred(vcmpeqq_u8(x.a(), x.b()));
    vcmpeqq_u16: V2_16 => |x| pred(vcmpeqq_u16(x.a(), x.b()));
    vcmpeqq_u32: V2_32 => |x| pred(vcmpeqq_u32(x.a(), x.b()));
    vcmpneq_s8: V2_8 => |x| pred(vcmpneq_s8(x.a(), x.b()));
    vcmpneq_s16: V2_16 => |x| pred(vcmpneq_s16(x.a(), x.b()));
    vcmpneq_s32: V2_32 => |x| pred(vcmpneq_s32(x.a(), x.b()));
    vcmpneq_u8: V2_8 => |x| pred(vcmpneq_u8(x.a(), x.b()));
    vcmpneq_u16: V2_16 => |x| pred(vcmpneq_u16(x.a(), x.b()));
    vcmpneq_u32: V2_32 => |x| pred(vcmpneq_u32(x.a(), x.b()));
    vcmpgtq_s8: V2_8 => |x| pred(vcmpgtq_s8(x.a(), x.b()));
    vcmpgtq_s16: V2_16 => |x| pred(vcmpgtq_s16(x.a(), x.b()));
    vcmpgtq_s32: V2_32 => |x| pred(vcmpgtq_s32(x.a(), x.b()));
    vcmpgeq_s8: V2_8 => |x| pred(vcmpgeq_s8(x.a(), x.b()));
    vcmpgeq_s16: V2_16 => |x| pred(vcmpgeq_s16(x.a(), x.b()));
    vcmpgeq_s32: V2_32 => |x| pred(vcmpgeq_s32(x.a(), x.b()));
    vcmpltq_s8: V2_8 => |x| pred(vcmpltq_s8(x.a(), x.b()));
    vcmpltq_s16: V2_16 => |x| pred(vcmpltq_s16(x.a(), x.b()));
    vcmpltq_s32: V2_32 => |x| pred(vcmpltq_s32(x.a(), x.b()));
    vcmpleq_s8: V2_8 => |x| pred(vcmpleq_s8(x.a(), x.b()));
    vcmpleq_s16: V2_16 => |x| pred(vcmpleq_s16(x.a(), x.b()));
    vcmpleq_s32: V2_32 => |x| pred(vcmpleq_s32(x.a(), x.b()));
    vcmphiq_u8: V2_8 => |x| pred(vcmphiq_u8(x.a(), x.b()));
    vcmphiq_u16: V2_16 => |x| pred(vcmphiq_u16(x.a(), x.b()));
    vcmphiq_u32: V2_32 => |x| pred(vcmphiq_u32(x.a(), x.b()));
    vcmpcsq_u8: V2_8 => |x| pred(vcmpcsq_u8(x.a(), x.b()));
    vcmpcsq_u16: V2_16 => |x| pred(vcmpcsq_u16(x.a(), x.b()));
    vcmpcsq_u32: V2_32 => |x| pred(vcmpcsq_u32(x.a(), x.b()));
    vpselq_s8: P2_8 => |x| q(vpselq_s8(x.a(), x.b(), x.pred()));
    vpselq_s16: P2_16 => |x| q(vpselq_s16(x.a(), x.b(), x.pred()));
    vpselq_s32: P2_32 => |x| q(vpselq_s32(x.a(), x.b(), x.pred()));
    vpselq_u8: P2_8 => |x| q(vpselq_u8(x.a(), x.b(), x.pred()));
    vpselq_u16: P2_16 => |x| q(vpselq_u16(x.a(), x.b(), x.pred()));
    vpselq_u32: P2_32 => |x| q(vpselq_u32(x.a(), x.b(), x.pred()));
    vaddq_m_s8: P3_8 => |x| q(vaddq_m_s8(x.c(), x.a(), x.b(), x.pred()));
    vaddq_m_s16: P3_16 => |x| q(vaddq_m_s16(x.c(), x.a(), x.b(), x.pred()));
    vaddq_m_s32: P3_32 => |x| q(vaddq_m_s32(x.c(), x.a(), x.b(), x.pred()));
    vaddq_m_u8: P3_8 => |x| q(vaddq_m_u8(x.c(), x.a(), x.b(), x.pred()));
    vaddq_m_u16: P3_16 => |x| q(vaddq_m_u16(x.c(), x.a(), x.b(), x.pred()));
    vaddq_m_u32: P3_32 => |x| q(vaddq_m_u32(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_s8: P3_8 => |x| q(vsubq_m_s8(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_s16: P3_16 => |x| q(vsubq_m_s16(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_s32: P3_32 => |x| q(vsubq_m_s32(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_u8: P3_8 => |x| q(vsubq_m_u8(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_u16: P3_16 => |x| q(vsubq_m_u16(x.c(), x.a(), x.b(), x.pred()));
    vsubq_m_u32: P3_32 => |x| q(vsubq_m_u32(x.c(), x.a(), x.b(), x.pred()));
    vld1q_s16: M_16 => |x| q(vld1q_s16(&x.mem_i16()[8..]));
    vst1q_s16: M_16 => |x| { let mut m = [0; 8]; vst1q_s16(&mut m, x.a()); [&[POISON; 16][..], &mem_i16(&m)].concat() };
    vld1q_s32: M_32 => |x| q(vld1q_s32(&x.mem_i32()[4..]));
    vld2q_s8: M_8 => |x| qs(&vld2q_s8(&x.mem_i8()));
    vld2q_s16: M_16 => |x| qs(&vld2q_s16(&x.mem_i16()));
    vld2q_s32: M_32 => |x| qs(&vld2q_s32(&x.mem_i32()));
    vld4q_s8: M_8 => |x| qs(&vld4q_s8(&x.mem_i8()));
    vld4q_s16: M_16 => |x| qs(&vld4q_s16(&x.mem_i16()));
    vld4q_s32: M_32 => |x| qs(&vld4q_s32(&x.mem_i32()));
    vst2q_s8: M_8 => |x| { let mut m = [0; 32]; vst2q_s8(&mut m, [x.a(), x.b()]); mem_i8(&m) };
    vst2q_s16: M_16 => |x| { let mut m = [0; 16]; vst2q_s16(&mut m, [x.a(), x.b()]); mem_i16(&m) };
    vst2q_s32: M_32 => |x| { let mut m = [0; 8]; vst2q_s32(&mut m, [x.a(), x.b()]); mem_i32(&m) };
    vst4q_s8: M_8 => |x| { let mut m = [0; 64]; vst4q_s8(&mut m, [x.a(), x.b(), x.c(), x.d()]); mem_i8(&m) };
    vst4q_s16: M_16 => |x| { let mut m = [0; 32]; vst4q_s16(&mut m, [x.a(), x.b(), x.c(), x.d()]); mem_i16(&m) };
    vst4q_s32: M_32 => |x| { let mut m = [0; 16]; vst4q_s32(&mut m, [x.a(), x.b(), x.c(), x.d()]); mem_i32(&m) };
    vldrhq_gather_shifted_offset_s16: G_16 => |x| q(vldrhq_gather_shifted_offset_s16(&x.table_i16(), x.a()));
    vldrwq_gather_shifted_offset_s32: G_32 => |x| q(vldrwq_gather_shifted_offset_s32(&x.table_i32(), x.a()));
    vstrhq_scatter_shifted_offset_s16: SC_16 => |x| mem_i16(&scatter::<i16, 32>(vstrhq_scatter_shifted_offset_s16, x));
    vstrwq_scatter_shifted_offset_s32: SC_32 => |x| mem_i32(&scatter::<i32, 16>(vstrwq_scatter_shifted_offset_s32, x));
    vaddq_n_s8: N1_8 => |x| q(vaddq_n_s8(x.a(), x.s8()));
    vaddq_n_s16: N1_16 => |x| q(vaddq_n_s16(x.a(), x.s16()));
    vaddq_n_s32: N1_32 => |x| q(vaddq_n_s32(x.a(), x.s32()));
    vaddq_n_u8: N1_8 => |x| q(vaddq_n_u8(x.a(), x.u8()));
    vaddq_n_u16: N1_16 => |x| q(vaddq_n_u16(x.a(), x.u16()));
    vaddq_n_u32: N1_32 => |x| q(vaddq_n_u32(x.a(), x.u32()));
    vsubq_n_s8: N1_8 => |x| q(vsubq_n_s8(x.a(), x.s8()));
    vsubq_n_s16: N1_16 => |x| q(vsubq_n_s16(x.a(), x.s16()));
    vsubq_n_s32: N1_32 => |x| q(vsubq_n_s32(x.a(), x.s32()));
    vsubq_n_u8: N1_8 => |x| q(vsubq_n_u8(x.a(), x.u8()));
    vsubq_n_u16: N1_16 => |x| q(vsubq_n_u16(x.a(), x.u16()));
    vsubq_n_u32: N1_32 => |x| q(vsubq_n_u32(x.a(), x.u32()));
    vmulq_n_s8: N1_8 => |x| q(vmulq_n_s8(x.a(), x.s8()));
    vmulq_n_s16: N1_16 => |x| q(vmulq_n_s16(x.a(), x.s16()));
    vmulq_n_s32: N1_32 => |x| q(vmulq_n_s32(x.a(), x.s32()));
    vmulq_n_u8: N1_8 => |x| q(vmulq_n_u8(x.a(), x.u8()));
    vmulq_n_u16: N1_16 => |x| q(vmulq_n_u16(x.a(), x.u16()));
    vmulq_n_u32: N1_32 => |x| q(vmulq_n_u32(x.a(), x.u32()));
    vqdmlashq_n_s8: N2_8 => |x| q(vqdmlashq_n_s8(x.a(), x.b(), x.s8()));
    vqdmlashq_n_s16: N2_16 => |x| q(vqdmlashq_n_s16(x.a(), x.b(), x.s16()));
    vqdmlashq_n_s32: N2_32 => |x| q(vqdmlashq_n_s32(x.a(), x.b(), x.s32()));
    vqrdmlashq_n_s8: N2_8 => |x| q(vqrdmlashq_n_s8(x.a(), x.b(), x.s8()));
    vqrdmlashq_n_s16: N2_16 => |x| q(vqrdmlashq_n_s16(x.a(), x.b(), x.s16()));
    vqrdmlashq_n_s32: N2_32 => |x| q(vqrdmlashq_n_s32(x.a(), x.b(), x.s32()));
    vhaddq_s8: V2_8 => |x| q(vhaddq_s8(x.a(), x.b()));
    vhaddq_s16: V2_16 => |x| q(vhaddq_s16(x.a(), x.b()));
    vhaddq_s32: V2_32 => |x| q(vhaddq_s32(x.a(), x.b()));
    vhaddq_u8: V2_8 => |x| q(vhaddq_u8(x.a(), x.b()));
    vhaddq_u16: V2_16 => |x| q(vhaddq_u16(x.a(), x.b()));
    vhaddq_u32: V2_32 => |x| q(vhaddq_u32(x.a(), x.b()));
    vrhaddq_s8: V2_8 => |x| q(vrhaddq_s8(x.a(), x.b()));
    vrhaddq_s16: V2_16 => |x| q(vrhaddq_s16(x.a(), x.b()));
    vrhaddq_s32: V2_32 => |x| q(vrhaddq_s32(x.a(), x.b()));
    vrhaddq_u8: V2_8 => |x| q(vrhaddq_u8(x.a(), x.b()));
    vrhaddq_u16: V2_16 => |x| q(vrhaddq_u16(x.a(), x.b()));
    vrhaddq_u32: V2_32 => |x| q(vrhaddq_u32(x.a(), x.b()));
    vhsubq_s8: V2_8 => |x| q(vhsubq_s8(x.a(), x.b()));
    vhsubq_s16: V2_16 => |x| q(vhsubq_s16(x.a(), x.b()));
    vhsubq_s32: V2_32 => |x| q(vhsubq_s32(x.a(), x.b()));
    vhsubq_u8: V2_8 => |x| q(vhsubq_u8(x.a(), x.b()));
    vhsubq_u16: V2_16 => |x| q(vhsubq_u16(x.a(), x.b()));
    vhsubq_u32: V2_32 => |x| q(vhsubq_u32(x.a(), x.b()));
    vminq_s8: V2_8 => |x| q(vminq_s8(x.a(), x.b()));
    vminq_s16: V2_16 => |x| q(vminq_s16(x.a(), x.b()));
    vminq_s32: V2_32 => |x| q(vminq_s32(x.a(), x.b()));
    vminq_u8: V2_8 => |x| q(vminq_u8(x.a(), x.b()));
    vminq_u16: V2_16 => |x| q(vminq_u16(x.a(), x.b()));
    vminq_u32: V2_32 => |x| q(vminq_u32(x.a(), x.b()));
    vmaxq_s8: V2_8 => |x| q(vmaxq_s8(x.a(), x.b()));
    vmaxq_s16: V2_16 => |x| q(vmaxq_s16(x.a(), x.b()));
    vmaxq_s32: V2_32 => |x| q(vmaxq_s32(x.a(), x.b()));
    vmaxq_u8: V2_8 => |x| q(vmaxq_u8(x.a(), x.b()));
    vmaxq_u16: V2_16 => |x| q(vmaxq_u16(x.a(), x.b()));
    vmaxq_u32: V2_32 => |x| q(vmaxq_u32(x.a(), x.b()));
    vabsq_s8: V1_8 => |x| q(vabsq_s8(x.a()));
    vabsq_s16: V1_16 => |x| q(vabsq_s16(x.a()));
    vabsq_s32: V1_32 => |x| q(vabsq_s32(x.a()));
    vqabsq_s8: V1_8 => |x| q(vqabsq_s8(x.a()));
    vqabsq_s16: V1_16 => |x| q(vqabsq_s16(x.a()));
    vqabsq_s32: V1_32 => |x| q(vqabsq_s32(x.a()));
    vnegq_s8: V1_8 => |x| q(vnegq_s8(x.a()));
    vnegq_s16: V1_16 => |x| q(vnegq_s16(x.a()));
    vnegq_s32: V1_32 => |x| q(vnegq_s32(x.a()));
    vqnegq_s8: V1_8 => |x| q(vqnegq_s8(x.a()));
    vqnegq_s16: V1_16 => |x| q(vqnegq_s16(x.a()));
    vqnegq_s32: V1_32 => |x| q(vqnegq_s32(x.a()));
    vqdmullbq_s16: V2_16 => |x| q(vqdmullbq_s16(x.a(), x.b()));
    vqdmullbq_s32: V2_32 => |x| q(vqdmullbq_s32(x.a(), x.b()));
    vqdmulltq_s16: V2_16 => |x| q(vqdmulltq_s16(x.a(), x.b()));
    vqdmulltq_s32: V2_32 => |x| q(vqdmulltq_s32(x.a(), x.b()));
    vqmovnbq_s16: NB_16 => |x| q(vqmovnbq_s16(x.a(), x.b()));
    vqmovnbq_s32: NB_32 => |x| q(vqmovnbq_s32(x.a(), x.b()));
    vqmovnbq_u16: NB_16 => |x| q(vqmovnbq_u16(x.a(), x.b()));
    vqmovnbq_u32: NB_32 => |x| q(vqmovnbq_u32(x.a(), x.b()));
    vqmovntq_s16: NB_16 => |x| q(vqmovntq_s16(x.a(), x.b()));
    vqmovntq_s32: NB_32 => |x| q(vqmovntq_s32(x.a(), x.b()));
    vqmovntq_u16: NB_16 => |x| q(vqmovntq_u16(x.a(), x.b()));
    vqmovntq_u32: NB_32 => |x| q(vqmovntq_u32(x.a(), x.b()));
    vaddvq_s8: V1_8 => |x| word(vaddvq_s8(x.a()) as u32);
    vaddvq_s16: V1_16 => |x| word(vaddvq_s16(x.a()) as u32);
    vaddvq_s32: V1_32 => |x| word(vaddvq_s32(x.a()) as u32);
    vaddvq_u8: V1_8 => |x| word(vaddvq_u8(x.a()) as u32);
    vaddvq_u16: V1_16 => |x| word(vaddvq_u16(x.a()) as u32);
    vaddvq_u32: V1_32 => |x| word(vaddvq_u32(x.a()) as u32);
    vmladavq_s8: V2_8 => |x| word(vmladavq_s8(x.a(), x.b()) as u32);
    vmladavq_s16: V2_16 => |x| word(vmladavq_s16(x.a(), x.b()) as u32);
    vmladavq_s32: V2_32 => |x| word(vmladavq_s32(x.a(), x.b()) as u32);
    vmladavq_u8: V2_8 => |x| word(vmladavq_u8(x.a(), x.b()) as u32);
    vmladavq_u16: V2_16 => |x| word(vmladavq_u16(x.a(), x.b()) as u32);
    vmladavq_u32: V2_32 => |x| word(vmladavq_u32(x.a(), x.b()) as u32);
    vctp8q: CTP => |x| pred(vctp8q(x.u32()));
    vctp16q: CTP => |x| pred(vctp16q(x.u32()));
    vctp32q: CTP => |x| pred(vctp32q(x.u32()));
    vmulq_m_s8: P3_8 => |x| q(vmulq_m_s8(x.c(), x.a(), x.b(), x.pred()));
    vmulq_m_s16: P3_16 => |x| q(vmulq_m_s16(x.c(), x.a(), x.b(), x.pred()));
    vmulq_m_s32: P3_32 => |x| q(vmulq_m_s32(x.c(), x.a(), x.b(), x.pred()));
    vmulq_m_u8: P3_8 => |x| q(vmulq_m_u8(x.c(), x.a(), x.b(), x.pred()));
    vmulq_m_u16: P3_16 => |x| q(vmulq_m_u16(x.c(), x.a(), x.b(), x.pred()));
    vmulq_m_u32: P3_32 => |x| q(vmulq_m_u32(x.c(), x.a(), x.b(), x.pred()));
    vqdmulhq_m_s8: P3_8 => |x| q(vqdmulhq_m_s8(x.c(), x.a(), x.b(), x.pred()));
    vqdmulhq_m_s16: P3_16 => |x| q(vqdmulhq_m_s16(x.c(), x.a(), x.b(), x.pred()));
    vqdmulhq_m_s32: P3_32 => |x| q(vqdmulhq_m_s32(x.c(), x.a(), x.b(), x.pred()));
    vqrdmulhq_m_s8: P3_8 => |x| q(vqrdmulhq_m_s8(x.c(), x.a(), x.b(), x.pred()));
    vqrdmulhq_m_s16: P3_16 => |x| q(vqrdmulhq_m_s16(x.c(), x.a(), x.b(), x.pred()));
    vqrdmulhq_m_s32: P3_32 => |x| q(vqrdmulhq_m_s32(x.c(), x.a(), x.b(), x.pred()));
    vshrq_n_s32_31: V1_32 => |x| q(vshrq_n_s32(x.a(), 31));
    vshrq_n_u32_31: V1_32 => |x| q(vshrq_n_u32(x.a(), 31));
    vshlq_n_u32_2: V1_32 => |x| q(vshlq_n_u32(x.a(), 2));
    vshlq_n_u32_3: V1_32 => |x| q(vshlq_n_u32(x.a(), 3));
    vshlq_n_u32_4: V1_32 => |x| q(vshlq_n_u32(x.a(), 4));
    vshlq_n_u32_5: V1_32 => |x| q(vshlq_n_u32(x.a(), 5));
    vshlq_n_u32_6: V1_32 => |x| q(vshlq_n_u32(x.a(), 6));
    vshlq_n_u32_7: V1_32 => |x| q(vshlq_n_u32(x.a(), 7));
    vshlq_n_u32_8: V1_32 => |x| q(vshlq_n_u32(x.a(), 8));
    vshlq_n_u32_9: V1_32 => |x| q(vshlq_n_u32(x.a(), 9));
    vshlq_n_u32_10: V1_32 => |x| q(vshlq_n_u32(x.a(), 10));
    vshlq_n_u32_11: V1_32 => |x| q(vshlq_n_u32(x.a(), 11));
    vshlq_n_u32_12: V1_32 => |x| q(vshlq_n_u32(x.a(), 12));
    vshlq_n_u32_13: V1_32 => |x| q(vshlq_n_u32(x.a(), 13));
    vshlq_n_u32_14: V1_32 => |x| q(vshlq_n_u32(x.a(), 14));
    vshlq_n_u32_15: V1_32 => |x| q(vshlq_n_u32(x.a(), 15));
    vshlq_n_u32_16: V1_32 => |x| q(vshlq_n_u32(x.a(), 16));
    vshlq_n_u32_18: V1_32 => |x| q(vshlq_n_u32(x.a(), 18));
    vshlq_n_u32_19: V1_32 => |x| q(vshlq_n_u32(x.a(), 19));
    vshlq_n_u32_20: V1_32 => |x| q(vshlq_n_u32(x.a(), 20));
    vshlq_n_u32_21: V1_32 => |x| q(vshlq_n_u32(x.a(), 21));
    vshlq_n_u32_22: V1_32 => |x| q(vshlq_n_u32(x.a(), 22));
    vshlq_n_u32_23: V1_32 => |x| q(vshlq_n_u32(x.a(), 23));
    vshlq_n_u32_24: V1_32 => |x| q(vshlq_n_u32(x.a(), 24));
    vshlq_n_u32_25: V1_32 => |x| q(vshlq_n_u32(x.a(), 25));
    vshlq_n_u32_26: V1_32 => |x| q(vshlq_n_u32(x.a(), 26));
    vshlq_n_u32_27: V1_32 => |x| q(vshlq_n_u32(x.a(), 27));
    vshlq_n_u32_28: V1_32 => |x| q(vshlq_n_u32(x.a(), 28));
    vshlq_n_u32_29: V1_32 => |x| q(vshlq_n_u32(x.a(), 29));
    vshlq_n_u32_30: V1_32 => |x| q(vshlq_n_u32(x.a(), 30));
    vsriq_n_u32_2: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 2));
    vsriq_n_u32_3: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 3));
    vsriq_n_u32_4: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 4));
    vsriq_n_u32_5: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 5));
    vsriq_n_u32_6: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 6));
    vsriq_n_u32_7: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 7));
    vsriq_n_u32_8: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 8));
    vsriq_n_u32_9: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 9));
    vsriq_n_u32_10: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 10));
    vsriq_n_u32_11: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 11));
    vsriq_n_u32_12: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 12));
    vsriq_n_u32_13: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 13));
    vsriq_n_u32_14: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 14));
    vsriq_n_u32_16: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 16));
    vsriq_n_u32_17: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 17));
    vsriq_n_u32_18: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 18));
    vsriq_n_u32_19: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 19));
    vsriq_n_u32_20: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 20));
    vsriq_n_u32_21: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 21));
    vsriq_n_u32_22: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 22));
    vsriq_n_u32_23: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 23));
    vsriq_n_u32_24: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 24));
    vsriq_n_u32_25: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 25));
    vsriq_n_u32_26: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 26));
    vsriq_n_u32_27: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 27));
    vsriq_n_u32_28: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 28));
    vsriq_n_u32_29: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 29));
    vsriq_n_u32_30: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 30));
    vsriq_n_u32_31: V2_32 => |x| q(vsriq_n_u32(x.a(), x.b(), 31));
    vshrq_n_u32_2: V1_32 => |x| q(vshrq_n_u32(x.a(), 2));
    vshrq_n_u32_4: V1_32 => |x| q(vshrq_n_u32(x.a(), 4));
    vshrq_n_u32_8: V1_32 => |x| q(vshrq_n_u32(x.a(), 8));
    vsliq_n_u32_16: V2_32 => |x| q(vsliq_n_u32(x.a(), x.b(), 16));
    vst1q_s32: M_32 => |x| { let mut m = [0; 4]; vst1q_s32(&mut m, x.a()); [&[POISON; 16][..], &mem_i32(&m)].concat() };

    }
}

fn edge_values(bits: u32) -> [u32; 5] {
    let ones = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
    [0, 1, ones, 1 << (bits - 1), (1 << (bits - 1)) - 1]
}

const PRED_EDGES: [u16; 6] = [0, 0xFFFF, 0x5555, 0xAAAA, 0x00FF, 0x0F0F];

fn set_lane(rec: &mut [u8; RECORD], k: usize, bits: u32, i: usize, v: u32) {
    let w = bits as usize / 8;
    let at = 16 * k + i * w;
    rec[at..at + w].copy_from_slice(&v.to_le_bytes()[..w]);
}

fn set_word(rec: &mut [u8; RECORD], at: usize, v: u32) {
    rec[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The operand sets of one form: the product of the edge values of every operand (all lanes equal), then
/// mixed-lane edge cases, then `random` random ones (half of them with edge values sprinkled over the lanes).
fn cases(ops: Ops, random: usize, rng: &mut ChaCha8Rng) -> Vec<[u8; RECORD]> {
    let used: Vec<usize> = (0..4).filter(|&k| ops.q[k] != 0).collect();
    // Each edge dimension: how many values, and how to apply value `j` to a record.
    let mut dims: Vec<usize> = used.iter().map(|_| 5).collect();
    if ops.scalar != 0 {
        dims.push(5);
    }
    let extra_dim = match ops.extra {
        Extra::Carry => 2,
        Extra::Pred => PRED_EDGES.len(),
        Extra::Offsets { .. } => 4,
        Extra::None | Extra::Counts | Extra::SmallScalar => 1,
    };
    dims.push(extra_dim);
    let product: usize = dims.iter().product();
    let mut out = Vec::with_capacity(product + MIXED_EDGE_CASES + random);
    for mut n in 0..product {
        let mut rec = [0u8; RECORD];
        rng.fill(&mut rec[..]);
        let mut pick = |len: usize| {
            let j = n % len;
            n /= len;
            j
        };
        for &k in &used {
            let v = edge_values(ops.q[k])[pick(5)];
            for i in 0..128 / ops.q[k] as usize {
                set_lane(&mut rec, k, ops.q[k], i, v);
            }
        }
        if ops.scalar != 0 {
            set_word(&mut rec, 48, edge_values(ops.scalar)[pick(5)]);
        }
        let j = pick(extra_dim);
        fix_extra(ops, &mut rec, Some(j), rng);
        out.push(rec);
    }
    for _ in 0..MIXED_EDGE_CASES {
        let mut rec = [0u8; RECORD];
        rng.fill(&mut rec[..]);
        for &k in &used {
            for i in 0..128 / ops.q[k] as usize {
                set_lane(&mut rec, k, ops.q[k], i, edge_values(ops.q[k])[rng.gen_range(0..5)]);
            }
        }
        if ops.scalar != 0 {
            set_word(&mut rec, 48, edge_values(ops.scalar)[rng.gen_range(0..5)]);
        }
        fix_extra(ops, &mut rec, None, rng);
        out.push(rec);
    }
    for c in 0..random {
        let mut rec = [0u8; RECORD];
        rng.fill(&mut rec[..]);
        if c % 2 == 1 {
            for &k in &used {
                for i in 0..128 / ops.q[k] as usize {
                    if rng.gen_ratio(1, 4) {
                        set_lane(&mut rec, k, ops.q[k], i, edge_values(ops.q[k])[rng.gen_range(0..5)]);
                    }
                }
            }
        }
        fix_extra(ops, &mut rec, None, rng);
        out.push(rec);
    }
    out
}

/// Makes the carry, predicate, shift counts or offsets of a record valid: edge value `edge`, or random.
fn fix_extra(ops: Ops, rec: &mut [u8; RECORD], edge: Option<usize>, rng: &mut ChaCha8Rng) {
    match ops.extra {
        Extra::None => {}
        Extra::SmallScalar => {
            if edge.is_none() {
                set_word(rec, 48, rng.gen_range(0..=20));
            }
        }
        Extra::Carry => set_word(rec, 52, edge.map_or_else(|| rng.gen_range(0..2), |j| j as u32)),
        Extra::Pred => {
            let p = edge.map_or_else(|| rng.r#gen::<u16>(), |j| PRED_EDGES[j]);
            rec[56..58].copy_from_slice(&p.to_le_bytes());
        }
        Extra::Counts => {
            // Three records in four get counts in [-(esize + 2), esize + 2], lane by lane; the rest keep theirs.
            let bits = ops.q[1];
            if edge.is_none() && rng.gen_ratio(3, 4) {
                let e = bits as i32 + 2;
                for i in 0..128 / bits as usize {
                    set_lane(rec, 1, bits, i, rng.gen_range(-e..=e) as u32);
                }
            }
        }
        Extra::Offsets { bits, max } => {
            let lanes = 128 / bits;
            for i in 0..lanes {
                let v = match edge {
                    Some(0) => 0,
                    Some(1) => max - 1,
                    Some(2) => i,
                    Some(_) => lanes - 1 - i,
                    None => rng.gen_range(0..max),
                };
                set_lane(rec, 0, bits, i as usize, v);
            }
        }
    }
}

/// A per-form seed that does not change when forms are added or reordered.
fn form_seed(seed: u64, name: &str) -> u64 {
    name.bytes().fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Output bytes as the vectors they hold (each a 128-bit number, top lane first, like `Q`'s `Debug`), then any
/// remaining carry or predicate word.
fn show(bytes: &[u8]) -> String {
    let mut parts: Vec<String> = bytes.chunks_exact(16).map(|c| format!("{:?}", Q(c.try_into().unwrap()))).collect();
    let rest = &bytes[bytes.len() / 16 * 16..];
    if !rest.is_empty() {
        parts.push(format!("word={:#x}", u32::from_le_bytes(rest.try_into().unwrap())));
    }
    parts.join(" ")
}

/// A disagreement, with everything needed to reproduce it.
fn describe(form: &Form, seed: u64, case: usize, rec: &[u8; RECORD], qemu: &[u8], model: &[u8]) -> String {
    let input = In(*rec);
    let ops = form.ops;
    let mut s = format!("{} ({}), seed {seed:#x}, case {case}: operands", form.name, form.symbol);
    for k in (0..4).filter(|&k| ops.q[k] != 0 || (k == 0 && matches!(ops.extra, Extra::Offsets { .. }))) {
        let _ = write!(s, " q{k}={:?}", input.vec(k));
    }
    if ops.scalar != 0 {
        let _ = write!(s, " scalar={:#x}", input.u32());
    }
    match ops.extra {
        Extra::Carry => {
            let _ = write!(s, " carry={}", input.carry());
        }
        Extra::Pred => {
            let _ = write!(s, " pred={:#06x}", input.pred());
        }
        _ => {}
    }
    let _ = write!(s, "; qemu = {}, model = {}", show(qemu), show(model));
    s
}

#[derive(Default)]
struct Outcome {
    cases: usize,
    /// Cases per form, in table order.
    per_form: Vec<(&'static str, usize)>,
    mismatches: usize,
    /// The first few mismatches, described.
    reports: Vec<String>,
}

impl Outcome {
    fn record(&mut self, message: String) {
        self.mismatches += 1;
        if self.reports.len() < 20 {
            self.reports.push(message);
        }
    }
}

/// One guest call: `RECORDS_PER_CALL` cases (or fewer) of one form.
struct Pending {
    form: usize,
    first_case: usize,
    records: Vec<[u8; RECORD]>,
}

fn flush(backend: &mut dyn Backend, forms: &[Form], seed: u64, pending: &mut Vec<Pending>, outcome: &mut Outcome) {
    let calls: Vec<Call> = pending
        .iter()
        .map(|p| {
            let n = p.records.len();
            let input: Vec<u8> = p.records.iter().flatten().copied().collect();
            Call::new(forms[p.form].symbol, vec![Arg::Out(n * RECORD), Arg::In(input), Arg::U32(n as u32)])
        })
        .collect();
    for (p, result) in pending.drain(..).zip(backend.run_batch(&calls)) {
        let form = &forms[p.form];
        let out = match result {
            Ok(out) => out,
            Err(e) => {
                outcome.record(format!(
                    "{} ({}), cases {}..: guest call failed: {e}",
                    form.name, form.symbol, p.first_case
                ));
                outcome.mismatches += p.records.len() - 1;
                continue;
            }
        };
        for (i, rec) in p.records.iter().enumerate() {
            let want = (form.model)(&In(*rec));
            let got = &out.buffers[0][i * RECORD..i * RECORD + want.len()];
            if got != want.as_slice() {
                outcome.record(describe(form, seed, p.first_case + i, rec, got, &want));
            }
        }
    }
}

/// Runs every form on the backend and in the model; returns what disagreed.
fn validate(backend: &mut dyn Backend, forms: &[Form], seed: u64, random: usize) -> Outcome {
    let mut outcome = Outcome::default();
    let mut pending = Vec::new();
    for (f, form) in forms.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(form_seed(seed, form.name));
        let all = cases(form.ops, random, &mut rng);
        outcome.cases += all.len();
        outcome.per_form.push((form.name, all.len()));
        for (c, chunk) in all.chunks(RECORDS_PER_CALL).enumerate() {
            pending.push(Pending { form: f, first_case: c * RECORDS_PER_CALL, records: chunk.to_vec() });
            if pending.len() == CALLS_PER_BATCH {
                flush(backend, forms, seed, &mut pending, &mut outcome);
            }
        }
    }
    if !pending.is_empty() {
        flush(backend, forms, seed, &mut pending, &mut outcome);
    }
    outcome
}

fn qemu() -> QemuBackend {
    QemuBackend::open(&M55_IMAGE, Limits::default())
        .unwrap_or_else(|e| panic!("the MVE validation needs QEMU (qemu-system-arm with mps3-an547): {e}"))
}

#[test]
fn every_mve_form_matches_qemu_bit_for_bit() {
    let forms = forms();
    let mut names: Vec<&str> = forms.iter().map(|f| f.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), forms.len(), "duplicate form names in the table");

    let start = Instant::now();
    let mut backend = qemu();
    let outcome = validate(&mut backend, &forms, SEED, RANDOM_CASES);
    let elapsed = start.elapsed();
    let fewest = outcome.per_form.iter().map(|&(_, n)| n).min().unwrap();
    eprintln!(
        "{} forms, {} cases (at least {fewest} per form), {} mismatches, {:.1} s",
        forms.len(),
        outcome.cases,
        outcome.mismatches,
        elapsed.as_secs_f64()
    );
    assert!(fewest >= RANDOM_CASES);
    assert!(
        outcome.mismatches == 0,
        "{} of {} cases disagree; first ones:\n{}",
        outcome.mismatches,
        outcome.cases,
        outcome.reports.join("\n")
    );
}

/// The validation must be able to fail: a model of VQDMULH that forgets to saturate is caught, on the one product that
/// overflows (-32768 * -32768), with the form and the operands named.
#[test]
fn a_wrong_model_is_reported() {
    let wrong = Form {
        name: "vqdmulhq_s16",
        symbol: "pqh_mve_vqdmulhq_s16",
        ops: V2_16,
        model: |x| {
            let (a, b) = (x.a().i16(), x.b().i16());
            let r: [i16; 8] = core::array::from_fn(|i| ((2 * a[i] as i64 * b[i] as i64) >> 16) as i16);
            q(Q::from_i16(r))
        },
    };
    let mut backend = qemu();
    let outcome = validate(&mut backend, &[wrong], SEED, 1000);
    assert!(outcome.mismatches > 0, "the unsaturated model was not caught");
    let first = &outcome.reports[0];
    eprintln!("the wrong model is reported as:\n{first}");
    assert!(first.starts_with("vqdmulhq_s16 (pqh_mve_vqdmulhq_s16), seed "), "{first}");
    // The saturating lane: QEMU says 0x7fff, the wrong model 0x8000, and the operands show two 0x8000 lanes.
    assert!(first.contains("q0=") && first.contains("q1=") && first.contains("8000"), "{first}");
    assert!(first.contains("qemu = ") && first.contains("model = "), "{first}");
    // The right model on the same cases agrees.
    let right = forms().into_iter().find(|f| f.name == "vqdmulhq_s16").unwrap();
    assert_eq!(validate(&mut backend, &[right], SEED, 1000).mismatches, 0);
}
