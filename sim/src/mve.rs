//! A model of the Armv8.1-M M-Profile Vector Extension (MVE, "Helium") integer instructions, one function per Arm C
//! intrinsic (`vqdmulhq_s16(a, b)` models `VQDMULH.S16 Qd, Qn, Qm` as `arm_mve.h` exposes it), so that a kernel model
//! reads like the kernel's C source.
//!
//! Every vector is a [`Q`]: 128 bits, viewable as 16x8, 8x16, 4x32 or 2x64-bit lanes, signed or unsigned, lane 0 in
//! the lowest bytes (little-endian, as in the register file and in memory). Scalars are typed like the intrinsic's
//! scalar argument. State that the instruction keeps outside the vector registers is explicit:
//!
//! - the carry of `VADC`/`VSBC` (FPSCR.C) is an argument and a return value, `0` or `1`, like the intrinsic's
//!   `unsigned *carry`;
//! - predicates are `u16` values (`mve_pred16_t`), one bit per byte of the vector: a comparison sets all the bits of
//!   a lane, and predicated instructions select byte by byte, as the hardware does.
//!
//! Loads and stores work on slices standing for memory; an index outside the slice panics.
//!
//! Every function here is checked against the Cortex-M55 instruction under QEMU by
//! `cli/tests/mve_validation.rs` (see `docs/mve.md`).

use std::fmt;

/// A 128-bit MVE vector register (Q0..Q7). Aligned like a host vector register, so that copies are single moves.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(16))]
pub struct Q(pub [u8; 16]);

impl fmt::Debug for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Highest byte first, as a 128-bit number: lanes of any width read left to right from the top lane.
        write!(f, "Q(0x")?;
        for (i, b) in self.0.iter().rev().enumerate() {
            if i > 0 && i % 4 == 0 {
                write!(f, "_")?;
            }
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

macro_rules! lane_views {
    ($($from:ident, $to:ident, $t:ty, $n:expr;)+) => {
        impl Q {
            $(
                #[doc = concat!("A vector from ", stringify!($n), " lanes of `", stringify!($t), "`, lane 0 first.")]
                #[inline(always)]
                pub fn $from(lanes: [$t; $n]) -> Q {
                    let mut q = [0u8; 16];
                    for (chunk, lane) in q.chunks_exact_mut(16 / $n).zip(lanes) {
                        chunk.copy_from_slice(&lane.to_le_bytes());
                    }
                    Q(q)
                }

                #[doc = concat!("The vector as ", stringify!($n), " lanes of `", stringify!($t), "`, lane 0 first.")]
                #[inline(always)]
                pub fn $to(self) -> [$t; $n] {
                    let mut lanes = [0; $n];
                    for (lane, chunk) in lanes.iter_mut().zip(self.0.chunks_exact(16 / $n)) {
                        *lane = <$t>::from_le_bytes(chunk.try_into().unwrap());
                    }
                    lanes
                }
            )+
        }
    };
}

lane_views! {
    from_u8, u8, u8, 16;
    from_i8, i8, i8, 16;
    from_u16, u16, u16, 8;
    from_i16, i16, i16, 8;
    from_u32, u32, u32, 4;
    from_i32, i32, i32, 4;
    from_u64, u64, u64, 2;
    from_i64, i64, i64, 2;
}

impl Q {
    pub const ZERO: Q = Q([0; 16]);

    pub fn from_bytes(bytes: [u8; 16]) -> Q {
        Q(bytes)
    }

    pub fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// Lane `i` of type `t`, sign- or zero-extended.
    fn lane(self, t: Ty, i: usize) -> i128 {
        let mut raw = [0u8; 8];
        raw[..t.bytes].copy_from_slice(&self.0[i * t.bytes..(i + 1) * t.bytes]);
        let v = u64::from_le_bytes(raw) as i128;
        if t.signed && v >> (t.bits() - 1) & 1 == 1 { v - (1i128 << t.bits()) } else { v }
    }

    /// Sets lane `i` of type `t` to the low bits of `v` (wrapping).
    fn set_lane(&mut self, t: Ty, i: usize, v: i128) {
        let bytes = (v as u128 as u64).to_le_bytes();
        self.0[i * t.bytes..(i + 1) * t.bytes].copy_from_slice(&bytes[..t.bytes]);
    }
}

/// A lane type: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ty {
    bytes: usize,
    signed: bool,
}

const S8: Ty = Ty { bytes: 1, signed: true };
const S16: Ty = Ty { bytes: 2, signed: true };
const S32: Ty = Ty { bytes: 4, signed: true };
const U8: Ty = Ty { bytes: 1, signed: false };
const U16: Ty = Ty { bytes: 2, signed: false };
const U32: Ty = Ty { bytes: 4, signed: false };

impl Ty {
    fn bits(self) -> u32 {
        8 * self.bytes as u32
    }

    fn lanes(self) -> usize {
        16 / self.bytes
    }

    fn min(self) -> i128 {
        if self.signed { -(1i128 << (self.bits() - 1)) } else { 0 }
    }

    fn max(self) -> i128 {
        if self.signed { (1i128 << (self.bits() - 1)) - 1 } else { (1i128 << self.bits()) - 1 }
    }

    /// Saturates to the lane range (the Arm pseudocode's `SignedSatQ` / `UnsignedSatQ`).
    fn sat(self, v: i128) -> i128 {
        v.clamp(self.min(), self.max())
    }

    /// All ones in the lane's width.
    fn ones(self) -> i128 {
        (1i128 << self.bits()) - 1
    }

    /// The type with lanes twice as wide (same signedness).
    fn wide(self) -> Ty {
        Ty { bytes: 2 * self.bytes, signed: self.signed }
    }

    /// The type with lanes half as wide (same signedness).
    fn narrow(self) -> Ty {
        Ty { bytes: self.bytes / 2, signed: self.signed }
    }
}

fn map1(t: Ty, a: Q, f: impl Fn(i128) -> i128) -> Q {
    let mut r = Q::ZERO;
    for i in 0..t.lanes() {
        r.set_lane(t, i, f(a.lane(t, i)));
    }
    r
}

fn map2(t: Ty, a: Q, b: Q, f: impl Fn(i128, i128) -> i128) -> Q {
    let mut r = Q::ZERO;
    for i in 0..t.lanes() {
        r.set_lane(t, i, f(a.lane(t, i), b.lane(t, i)));
    }
    r
}

fn map3(t: Ty, a: Q, b: Q, c: Q, f: impl Fn(i128, i128, i128) -> i128) -> Q {
    let mut r = Q::ZERO;
    for i in 0..t.lanes() {
        r.set_lane(t, i, f(a.lane(t, i), b.lane(t, i), c.lane(t, i)));
    }
    r
}

fn dup(t: Ty, v: i128) -> Q {
    let mut r = Q::ZERO;
    for i in 0..t.lanes() {
        r.set_lane(t, i, v);
    }
    r
}

/// Byte-wise select: byte `i` from `a` where predicate bit `i` is set, else from `b` (`VPSEL`).
fn select(a: Q, b: Q, p: u16) -> Q {
    Q(core::array::from_fn(|i| if p >> i & 1 == 1 { a.0[i] } else { b.0[i] }))
}

// ---- per-lane operations: each is the Arm pseudocode of one instruction on one lane, in i128 (no overflow) ----

fn add(_: Ty, x: i128, y: i128) -> i128 {
    x + y
}
fn sub(_: Ty, x: i128, y: i128) -> i128 {
    x - y
}
fn qadd(t: Ty, x: i128, y: i128) -> i128 {
    t.sat(x + y)
}
fn qsub(t: Ty, x: i128, y: i128) -> i128 {
    t.sat(x - y)
}
fn mul(_: Ty, x: i128, y: i128) -> i128 {
    x * y
}
fn mulh(t: Ty, x: i128, y: i128) -> i128 {
    (x * y) >> t.bits()
}
fn rmulh(t: Ty, x: i128, y: i128) -> i128 {
    (x * y + (1 << (t.bits() - 1))) >> t.bits()
}
fn qdmulh(t: Ty, x: i128, y: i128) -> i128 {
    t.sat((2 * x * y) >> t.bits())
}
fn qrdmulh(t: Ty, x: i128, y: i128) -> i128 {
    t.sat((2 * x * y + (1 << (t.bits() - 1))) >> t.bits())
}
fn and(_: Ty, x: i128, y: i128) -> i128 {
    x & y
}
// The bitwise operations' pseudocode, lane by lane: the intrinsics take the whole 128 bits at once (`bitwise!`),
// checked against these.
#[cfg(test)]
fn orr(_: Ty, x: i128, y: i128) -> i128 {
    x | y
}
#[cfg(test)]
fn eor(_: Ty, x: i128, y: i128) -> i128 {
    x ^ y
}
#[cfg(test)]
fn bic(_: Ty, x: i128, y: i128) -> i128 {
    x & !y
}
/// `VSHL` (vector): the shift count is the signed bottom byte of the count lane; negative shifts right
/// (arithmetic for signed lanes), truncating; shifts of the lane width or more give 0 (or the sign).
fn shl_vec(_: Ty, x: i128, count: i128) -> i128 {
    let s = count as i8 as i32;
    if s >= 0 { x << s.min(127) } else { x >> (-s).min(127) }
}

/// `VQDMLAH`: (accumulator << esize + 2 * m1 * m2) >> esize, saturated; `round` adds half an LSB first.
fn qdmlah(t: Ty, acc: i128, m1: i128, m2: i128, round: bool) -> i128 {
    let r = if round { 1 << (t.bits() - 1) } else { 0 };
    t.sat(((acc << t.bits()) + 2 * m1 * m2 + r) >> t.bits())
}

macro_rules! binary {
    ($op:ident: $($name:ident $t:ident),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name(a: Q, b: Q) -> Q {
                map2($t, a, b, |x, y| $op($t, x, y))
            }
        )+
    };
}

macro_rules! all6 {
    ($mac:ident, $op:ident: $s8:ident $s16:ident $s32:ident $u8:ident $u16:ident $u32:ident) => {
        $mac!($op: $s8 S8, $s16 S16, $s32 S32, $u8 U8, $u16 U16, $u32 U32);
    };
}

binary!(add: vaddq_s8 S8, vaddq_u8 U8, vaddq_u16 U16);
binary!(sub: vsubq_s8 S8, vsubq_s32 S32, vsubq_u8 U8, vsubq_u16 U16);
all6!(binary, qadd: vqaddq_s8 vqaddq_s16 vqaddq_s32 vqaddq_u8 vqaddq_u16 vqaddq_u32);
all6!(binary, qsub: vqsubq_s8 vqsubq_s16 vqsubq_s32 vqsubq_u8 vqsubq_u16 vqsubq_u32);
binary!(mul: vmulq_s8 S8, vmulq_s32 S32, vmulq_u8 U8, vmulq_u16 U16);
binary!(mulh: vmulhq_s8 S8, vmulhq_s16 S16, vmulhq_u8 U8, vmulhq_u16 U16);
all6!(binary, rmulh: vrmulhq_s8 vrmulhq_s16 vrmulhq_s32 vrmulhq_u8 vrmulhq_u16 vrmulhq_u32);
binary!(qdmulh: vqdmulhq_s8 S8, vqdmulhq_s32 S32);
binary!(qrdmulh: vqrdmulhq_s8 S8, vqrdmulhq_s32 S32);
binary!(and: vandq_s8 S8, vandq_s32 S32, vandq_u8 U8, vandq_u16 U16);

/// Bitwise operations: the same on every lane type, so on the whole 128 bits at once (`bitwise_forms_match_the_lanes`
/// checks each against the lane-by-lane pseudocode).
macro_rules! bitwise {
    ($bits:ident: $($name:ident),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            #[inline(always)]
            pub fn $name(a: Q, b: Q) -> Q {
                Q($bits(u128::from_le_bytes(a.0), u128::from_le_bytes(b.0)).to_le_bytes())
            }
        )+
    };
}

#[inline(always)]
fn orr_bits(x: u128, y: u128) -> u128 {
    x | y
}
#[inline(always)]
fn eor_bits(x: u128, y: u128) -> u128 {
    x ^ y
}
#[inline(always)]
fn bic_bits(x: u128, y: u128) -> u128 {
    x & !y
}

bitwise!(orr_bits: vorrq_s8, vorrq_s16, vorrq_s32, vorrq_u8, vorrq_u16, vorrq_u32);
bitwise!(eor_bits: veorq_s8, veorq_s16, veorq_s32, veorq_u8, veorq_u16, veorq_u32);
bitwise!(bic_bits: vbicq_s8, vbicq_s16, vbicq_s32, vbicq_u8, vbicq_u16, vbicq_u32);
all6!(binary, shl_vec: vshlq_s8 vshlq_s16 vshlq_s32 vshlq_u8 vshlq_u16 vshlq_u32);

macro_rules! by_scalar {
    ($op:ident: $($name:ident $t:ident $st:ty),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name(a: Q, b: $st) -> Q {
                map2($t, a, dup($t, b as i128), |x, y| $op($t, x, y))
            }
        )+
    };
}

by_scalar!(qdmulh: vqdmulhq_n_s8 S8 i8, vqdmulhq_n_s32 S32 i32);
by_scalar!(qrdmulh: vqrdmulhq_n_s8 S8 i8);

macro_rules! mac_scalar {
    ($($name:ident $t:ident $st:ty => |$acc:ident, $m1:ident, $m2:ident, $tt:ident| $body:expr;)+) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name($acc: Q, $m1: Q, $m2: $st) -> Q {
                let $tt = $t;
                map3($t, $acc, $m1, dup($t, $m2 as i128), |$acc, $m1, $m2| $body)
            }
        )+
    };
}

mac_scalar! {
    vqdmlahq_n_s8 S8 i8 => |add, m1, m2, t| qdmlah(t, add, m1, m2, false);
    vqdmlahq_n_s16 S16 i16 => |add, m1, m2, t| qdmlah(t, add, m1, m2, false);
    vqdmlahq_n_s32 S32 i32 => |add, m1, m2, t| qdmlah(t, add, m1, m2, false);
    vqrdmlahq_n_s8 S8 i8 => |add, m1, m2, t| qdmlah(t, add, m1, m2, true);
    vqrdmlahq_n_s16 S16 i16 => |add, m1, m2, t| qdmlah(t, add, m1, m2, true);
    vqrdmlahq_n_s32 S32 i32 => |add, m1, m2, t| qdmlah(t, add, m1, m2, true);
    vmlaq_n_s8 S8 i8 => |add, m1, m2, _t| add + m1 * m2;
    vmlaq_n_u8 U8 u8 => |add, m1, m2, _t| add + m1 * m2;
    vmlaq_n_u16 U16 u16 => |add, m1, m2, _t| add + m1 * m2;
    vmlaq_n_u32 U32 u32 => |add, m1, m2, _t| add + m1 * m2;
}

macro_rules! mlas {
    ($($name:ident $t:ident $st:ty),+ $(,)?) => {
        $(
            /// `VMLAS`: `m1 * m2 + add`, wrapping, where `m1` is the accumulator register and `add` the scalar.
            pub fn $name(m1: Q, m2: Q, add: $st) -> Q {
                map3($t, m1, m2, dup($t, add as i128), |x, y, z| x * y + z)
            }
        )+
    };
}

mlas!(vmlasq_n_s8 S8 i8, vmlasq_n_s16 S16 i16, vmlasq_n_s32 S32 i32, vmlasq_n_u8 U8 u8, vmlasq_n_u16 U16 u16);
mlas!(vmlasq_n_u32 U32 u32);

// ---- the forms the NTT and base-multiplication kernels run hot ----
//
// Each is the same per-lane pseudocode as the generic forms above, written so that the host runs it fast: on x86-64
// with SSE2 (part of every x86-64, so no run-time detection; `vqrdmulhq_s16` with SSSE3 when the build enables it,
// as `.cargo/config.toml` does), elsewhere on `[i16; 8]` / `[i32; 4]` lanes in i32 /
// i64 arithmetic (every intermediate fits: products of two 16-bit lanes are below 2^30 in magnitude, and the
// doubling of VQDMULH/VQRDMULH is folded into the shift, (2 x y) >> 16 = (x y) >> 15). Both are checked against
// QEMU like every other form, and against plain Rust integer arithmetic in `sim/tests/mve.rs`.

/// SSE2 building blocks: conversions and bounds-checked unaligned loads and stores.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    pub(super) use core::arch::x86_64::*;

    use super::Q;

    #[inline(always)]
    pub(super) fn v(q: Q) -> __m128i {
        // SAFETY: `Q` and `__m128i` are both 16 bytes of plain data, every bit pattern valid for both.
        unsafe { core::mem::transmute::<[u8; 16], __m128i>(q.0) }
    }

    #[inline(always)]
    pub(super) fn q(v: __m128i) -> Q {
        // SAFETY: as in `v`.
        Q(unsafe { core::mem::transmute::<__m128i, [u8; 16]>(v) })
    }

    /// `n` consecutive vectors from `addr[..8 n]` (bounds checked once).
    #[inline(always)]
    pub(super) fn load<const N: usize>(addr: &[i16]) -> [__m128i; N] {
        let addr = &addr[..8 * N];
        // SAFETY: `addr` holds 8 N elements, so each unaligned 16-byte load reads inside it.
        core::array::from_fn(|i| unsafe { _mm_loadu_si128(addr[8 * i..].as_ptr().cast()) })
    }

    /// Stores `n` vectors to `addr[..8 n]` (bounds checked once).
    #[inline(always)]
    pub(super) fn store<const N: usize>(addr: &mut [i16], value: [__m128i; N]) {
        let addr = &mut addr[..8 * N];
        for (i, x) in value.into_iter().enumerate() {
            // SAFETY: `addr` holds 8 N elements, so each unaligned 16-byte store writes inside it.
            unsafe { _mm_storeu_si128(addr[8 * i..].as_mut_ptr().cast(), x) }
        }
    }
}

/// The SSE2 form of an operation: its expression with the intrinsics and `v`/`q` in scope.
#[cfg(target_arch = "x86_64")]
macro_rules! sse2 {
    ($body:expr) => {{
        use sse2::*;
        // SAFETY: SSE2 intrinsics, which every x86-64 has (SSSE3 ones only under `cfg(target_feature = "ssse3")`),
        // on vector values; memory goes through the bounds-checked `load` and `store`.
        unsafe { $body }
    }};
}

/// Lane by lane on two vectors of `i16`, each lane's result computed in i32 and wrapped to 16 bits.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn s16x2(a: Q, b: Q, f: impl Fn(i32, i32) -> i32) -> Q {
    let mut r = a.i16();
    for (x, y) in r.iter_mut().zip(b.i16()) {
        *x = f(i32::from(*x), i32::from(y)) as i16;
    }
    Q::from_i16(r)
}

/// Lane by lane on one vector of `i16`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn s16x1(a: Q, f: impl Fn(i32) -> i32) -> Q {
    let mut r = a.i16();
    for x in &mut r {
        *x = f(i32::from(*x)) as i16;
    }
    Q::from_i16(r)
}

/// Lane by lane on two vectors of `i16`, each lane's result computed in i32 and saturated to 16 bits.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn s16x2_sat(a: Q, b: Q, f: impl Fn(i32, i32) -> i32) -> Q {
    let mut r = a.i16();
    for (x, y) in r.iter_mut().zip(b.i16()) {
        *x = f(i32::from(*x), i32::from(y)).clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    }
    Q::from_i16(r)
}

/// Lane by lane on two vectors of `i32`, each lane's result computed in i64 and wrapped to 32 bits.
#[inline(always)]
fn s32x2(a: Q, b: Q, f: impl Fn(i64, i64) -> i64) -> Q {
    let mut r = a.i32();
    for (x, y) in r.iter_mut().zip(b.i32()) {
        *x = f(i64::from(*x), i64::from(y)) as i32;
    }
    Q::from_i32(r)
}

/// The Arm intrinsic `vaddq_s16`.
#[inline]
pub fn vaddq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_add_epi16(v(a), v(b))));
    #[cfg(not(target_arch = "x86_64"))]
    s16x2(a, b, |x, y| x + y)
}
/// The Arm intrinsic `vsubq_s16`.
#[inline]
pub fn vsubq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_sub_epi16(v(a), v(b))));
    #[cfg(not(target_arch = "x86_64"))]
    s16x2(a, b, |x, y| x - y)
}
/// The Arm intrinsic `vmulq_s16`.
#[inline]
pub fn vmulq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_mullo_epi16(v(a), v(b))));
    #[cfg(not(target_arch = "x86_64"))]
    s16x2(a, b, |x, y| x * y)
}
/// The Arm intrinsic `vmulq_n_s16`.
#[inline]
pub fn vmulq_n_s16(a: Q, b: i16) -> Q {
    vmulq_s16(a, vdupq_n_s16(b))
}
/// The Arm intrinsic `vmlaq_n_s16`: `add + m1 * m2`, wrapping.
#[inline]
pub fn vmlaq_n_s16(add: Q, m1: Q, m2: i16) -> Q {
    vaddq_s16(add, vmulq_n_s16(m1, m2))
}

/// The Arm intrinsic `vqdmulhq_s16`: (2 x y) >> 16, saturated. With SSE2: bits 15..30 of the 32-bit product x y
/// from the high and low halves of the 16x16-bit multiplication; only x = y = -2^15 overflows, to 0x8000, which the
/// compare-and-flip turns into 0x7FFF.
#[inline]
pub fn vqdmulhq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2::q(saturate_overflow(doubling_high(a, b)));
    #[cfg(not(target_arch = "x86_64"))]
    s16x2_sat(a, b, |x, y| (x * y) >> 15)
}
/// Bits 15..30 of the 32-bit products x y, lane by lane: (2 x y) >> 16 before saturation.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn doubling_high(a: Q, b: Q) -> sse2::__m128i {
    sse2!({
        let (x, y) = (v(a), v(b));
        _mm_or_si128(_mm_slli_epi16::<1>(_mm_mulhi_epi16(x, y)), _mm_srli_epi16::<15>(_mm_mullo_epi16(x, y)))
    })
}
/// The Arm intrinsic `vqdmulhq_n_s16`. With SSE2 and a scalar other than -2^15 nothing can overflow: no
/// saturation step.
#[inline]
pub fn vqdmulhq_n_s16(a: Q, b: i16) -> Q {
    #[cfg(target_arch = "x86_64")]
    if b != i16::MIN {
        return sse2::q(doubling_high(a, vdupq_n_s16(b)));
    }
    vqdmulhq_s16(a, vdupq_n_s16(b))
}
/// `vrshrq_n_s16(vqdmulhq_n_s16(a, b), imm)` in one step, the Barrett quotient round(a b / 2^(15 + imm)) of the
/// kernels' reductions. The two roundings compose: with h = (a b) >> 16 (PMULHW), the pair equals
/// (h + 2^(imm-2)) >> (imm-1) whenever the doubling multiplication cannot saturate (b != -2^15) and imm is in
/// 2..=15 (then h + 2^(imm-2) fits 16 bits); otherwise it is computed as the pair. Exhaustively checked against
/// the pair in `sim/tests/mve.rs`.
#[inline]
pub fn vqdmulhq_n_vrshrq_n_s16(a: Q, b: i16, imm: u32) -> Q {
    #[cfg(target_arch = "x86_64")]
    if b != i16::MIN && (2..=15).contains(&imm) {
        return sse2!({
            let h = _mm_mulhi_epi16(v(a), _mm_set1_epi16(b));
            let rounded = _mm_add_epi16(h, _mm_set1_epi16(1 << (imm - 2)));
            q(_mm_sra_epi16(rounded, _mm_cvtsi32_si128(imm as i32 - 1)))
        });
    }
    vrshrq_n_s16(vqdmulhq_n_s16(a, b), imm)
}
/// The Arm intrinsic `vqrdmulhq_s16`: (2 x y + 2^15) >> 16, saturated. With SSSE3 (the x86-64-v2 level the
/// workspace builds for, `.cargo/config.toml`) that is PMULHRSW, (x y + 2^14) >> 15, whose only overflow (x = y =
/// -2^15, to 0x8000) the compare-and-flip saturates; with SSE2 alone, the 32-bit products from the two halves of
/// the multiplication, rounded, shifted and packed with saturation.
#[inline]
pub fn vqrdmulhq_s16(a: Q, b: Q) -> Q {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    return sse2!(q(saturate_overflow(_mm_mulhrs_epi16(v(a), v(b)))));
    #[cfg(all(target_arch = "x86_64", not(target_feature = "ssse3")))]
    return sse2!({
        let (x, y) = (v(a), v(b));
        let (lo, hi) = (_mm_mullo_epi16(x, y), _mm_mulhi_epi16(x, y));
        let round = _mm_set1_epi32(1 << 14);
        let low_lanes = _mm_srai_epi32::<15>(_mm_add_epi32(_mm_unpacklo_epi16(lo, hi), round));
        let high_lanes = _mm_srai_epi32::<15>(_mm_add_epi32(_mm_unpackhi_epi16(lo, hi), round));
        q(_mm_packs_epi32(low_lanes, high_lanes))
    });
    #[cfg(not(target_arch = "x86_64"))]
    s16x2_sat(a, b, |x, y| (x * y + (1 << 14)) >> 15)
}

/// Lanes that a doubling high multiplication wrapped to 0x8000 (only -2^15 * -2^15 does) saturated to 0x7FFF.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn saturate_overflow(r: sse2::__m128i) -> sse2::__m128i {
    sse2!(_mm_xor_si128(r, _mm_cmpeq_epi16(r, _mm_set1_epi16(i16::MIN))))
}
/// The Arm intrinsic `vqrdmulhq_n_s16`. With SSSE3 and a scalar other than -2^15, PMULHRSW alone (nothing can
/// overflow).
#[inline]
pub fn vqrdmulhq_n_s16(a: Q, b: i16) -> Q {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    if b != i16::MIN {
        return sse2!(q(_mm_mulhrs_epi16(v(a), _mm_set1_epi16(b))));
    }
    vqrdmulhq_s16(a, vdupq_n_s16(b))
}
/// The Arm intrinsic `vhsubq_s16`: (x - y) >> 1. With SSE2 in 16 bits: x = 2a + p, y = 2b + r give
/// (x - y) >> 1 = a - b - (r & !p).
#[inline]
pub fn vhsubq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let (x, y) = (v(a), v(b));
        let borrow = _mm_and_si128(_mm_andnot_si128(x, y), _mm_set1_epi16(1));
        q(_mm_sub_epi16(_mm_sub_epi16(_mm_srai_epi16::<1>(x), _mm_srai_epi16::<1>(y)), borrow))
    });
    #[cfg(not(target_arch = "x86_64"))]
    s16x2(a, b, |x, y| (x - y) >> 1)
}
/// The Arm intrinsic `vrshrq_n_s16`: (x + 2^(imm-1)) >> imm, imm in 1..=16 (checked). With SSE2 in 16 bits:
/// (x >> imm) plus bit imm-1 of x (the rounding carry).
#[inline]
pub fn vrshrq_n_s16(a: Q, imm: u32) -> Q {
    assert!((1..=16).contains(&imm), "vrshrq_n_s16: immediate {imm} out of range");
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let x = v(a);
        let shifted = _mm_sra_epi16(x, _mm_cvtsi32_si128(imm as i32));
        let carry = _mm_and_si128(_mm_sra_epi16(x, _mm_cvtsi32_si128(imm as i32 - 1)), _mm_set1_epi16(1));
        q(_mm_add_epi16(shifted, carry))
    });
    #[cfg(not(target_arch = "x86_64"))]
    s16x1(a, |x| (x + (1 << (imm - 1))) >> imm)
}

/// The Arm intrinsic `vandq_s16`.
#[inline]
pub fn vandq_s16(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_and_si128(v(a), v(b))));
    #[cfg(not(target_arch = "x86_64"))]
    s16x2(a, b, |x, y| x & y)
}
/// The Arm intrinsic `vshrq_n_s16`: x >> imm (arithmetic), imm in 1..=16 (checked).
#[inline]
pub fn vshrq_n_s16(a: Q, imm: u32) -> Q {
    assert!((1..=16).contains(&imm), "vshrq_n_s16: immediate {imm} out of range");
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_sra_epi16(v(a), _mm_cvtsi32_si128(imm as i32))));
    #[cfg(not(target_arch = "x86_64"))]
    s16x1(a, |x| x >> imm)
}

/// The Arm intrinsic `vaddq_s32`.
#[inline]
pub fn vaddq_s32(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_add_epi32(v(a), v(b))));
    #[cfg(not(target_arch = "x86_64"))]
    s32x2(a, b, |x, y| x + y)
}
/// The Arm intrinsic `vmlaq_n_s32`: `add + m1 * m2`, wrapping.
#[inline]
pub fn vmlaq_n_s32(add: Q, m1: Q, m2: i32) -> Q {
    let m2 = i64::from(m2);
    s32x2(add, m1, |x, y| x + y * m2)
}
/// The Arm intrinsic `vqrdmulhq_n_s32`: (2 x y + 2^31) >> 32, saturated (only x = y = -2^31 saturates).
#[inline]
pub fn vqrdmulhq_n_s32(a: Q, b: i32) -> Q {
    let b = i64::from(b);
    let mut r = a.i32();
    for x in &mut r {
        let p = i64::from(*x) * b;
        *x = if p == 1 << 62 { i32::MAX } else { ((2 * p + (1 << 31)) >> 32) as i32 };
    }
    Q::from_i32(r)
}
/// The Arm intrinsics `vmullbq_int_s16` / `vmulltq_int_s16`: the products of the bottom (even) / top (odd) 16-bit
/// lanes as 32-bit lanes. With SSE2: PMADDWD with the other half of each pair zeroed.
#[inline(always)]
fn mull_s16(a: Q, b: Q, top: bool) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let keep = _mm_set1_epi32(if top { 0xFFFF_0000u32 as i32 } else { 0xFFFF });
        q(_mm_madd_epi16(_mm_and_si128(v(a), keep), v(b)))
    });
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (x, y) = (a.i16(), b.i16());
        let k = usize::from(top);
        Q::from_i32(core::array::from_fn(|i| i32::from(x[2 * i + k]) * i32::from(y[2 * i + k])))
    }
}
/// The Arm intrinsic `vmullbq_int_s16`.
#[inline]
pub fn vmullbq_int_s16(a: Q, b: Q) -> Q {
    mull_s16(a, b, false)
}
/// The Arm intrinsic `vmulltq_int_s16`.
#[inline]
pub fn vmulltq_int_s16(a: Q, b: Q) -> Q {
    mull_s16(a, b, true)
}
/// The Arm intrinsic `vmovnbq_s32`: the low halves of `b`'s 32-bit lanes into the bottom (even) 16-bit lanes of `a`.
#[inline]
pub fn vmovnbq_s32(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let low = _mm_set1_epi32(0xFFFF);
        q(_mm_or_si128(_mm_andnot_si128(low, v(a)), _mm_and_si128(low, v(b))))
    });
    #[cfg(not(target_arch = "x86_64"))]
    movn(S32, a, b, false)
}
/// The Arm intrinsic `vmovntq_s32`: the low halves of `b`'s 32-bit lanes into the top (odd) 16-bit lanes of `a`.
#[inline]
pub fn vmovntq_s32(a: Q, b: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_or_si128(_mm_and_si128(_mm_set1_epi32(0xFFFF), v(a)), _mm_slli_epi32::<16>(v(b)))));
    #[cfg(not(target_arch = "x86_64"))]
    movn(S32, a, b, true)
}
/// The Arm intrinsic `vrev32q_s16`: swaps the two 16-bit lanes of every 32-bit container.
#[inline]
pub fn vrev32q_s16(a: Q) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2!(q(_mm_or_si128(_mm_slli_epi32::<16>(v(a)), _mm_srli_epi32::<16>(v(a)))));
    #[cfg(not(target_arch = "x86_64"))]
    rev(S16, 4, a)
}

/// `VLD20`/`VLD21` (`vld2q_s16`): element `j` of vector `k` is `addr[2 j + k]`, from `addr[..16]`. With SSE2: the
/// even elements sign-extended to 32 bits and packed, then the odd ones.
#[inline]
pub fn vld2q_s16(addr: &[i16]) -> [Q; 2] {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let [x, y] = load::<2>(addr);
        let even = |w: __m128i| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(w));
        let odd = |w: __m128i| _mm_srai_epi32::<16>(w);
        [q(_mm_packs_epi32(even(x), even(y))), q(_mm_packs_epi32(odd(x), odd(y)))]
    });
    #[cfg(not(target_arch = "x86_64"))]
    deinterleave_s16::<2>(addr)
}
/// `VST20`/`VST21` (`vst2q_s16`): the inverse of [`vld2q_s16`].
#[inline]
pub fn vst2q_s16(addr: &mut [i16], value: [Q; 2]) {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let [a, b] = [v(value[0]), v(value[1])];
        store::<2>(addr, [_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)])
    });
    #[cfg(not(target_arch = "x86_64"))]
    interleave_s16::<2>(addr, value)
}
/// `VLD40`..`VLD43` (`vld4q_s16`): element `j` of vector `k` is `addr[4 j + k]`, from `addr[..32]`. With SSE2: a
/// 4x8 transpose in three rounds of unpacks (16-bit, 16-bit, 64-bit).
#[inline]
pub fn vld4q_s16(addr: &[i16]) -> [Q; 4] {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let [a, b, c, d] = load::<4>(addr);
        // a = e0..e7, b = e8..e15: (e0 e8 e1 e9 ...), then (e0 e4 e8 e12 e1 e5 e9 e13), (e2 e6 e10 e14 e3 ...).
        let (ab_lo, ab_hi) = (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b));
        let (cd_lo, cd_hi) = (_mm_unpacklo_epi16(c, d), _mm_unpackhi_epi16(c, d));
        let (k01_ab, k23_ab) = (_mm_unpacklo_epi16(ab_lo, ab_hi), _mm_unpackhi_epi16(ab_lo, ab_hi));
        let (k01_cd, k23_cd) = (_mm_unpacklo_epi16(cd_lo, cd_hi), _mm_unpackhi_epi16(cd_lo, cd_hi));
        [
            q(_mm_unpacklo_epi64(k01_ab, k01_cd)),
            q(_mm_unpackhi_epi64(k01_ab, k01_cd)),
            q(_mm_unpacklo_epi64(k23_ab, k23_cd)),
            q(_mm_unpackhi_epi64(k23_ab, k23_cd)),
        ]
    });
    #[cfg(not(target_arch = "x86_64"))]
    deinterleave_s16::<4>(addr)
}
/// `VST40`..`VST43` (`vst4q_s16`): the inverse of [`vld4q_s16`]. With SSE2: pairs of vectors interleaved by 16 bits,
/// then the pairs by 32 bits.
#[inline]
pub fn vst4q_s16(addr: &mut [i16], value: [Q; 4]) {
    #[cfg(target_arch = "x86_64")]
    return sse2!({
        let [a, b, c, d] = [v(value[0]), v(value[1]), v(value[2]), v(value[3])];
        let (ab_lo, ab_hi) = (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b));
        let (cd_lo, cd_hi) = (_mm_unpacklo_epi16(c, d), _mm_unpackhi_epi16(c, d));
        store::<4>(
            addr,
            [
                _mm_unpacklo_epi32(ab_lo, cd_lo),
                _mm_unpackhi_epi32(ab_lo, cd_lo),
                _mm_unpacklo_epi32(ab_hi, cd_hi),
                _mm_unpackhi_epi32(ab_hi, cd_hi),
            ],
        )
    });
    #[cfg(not(target_arch = "x86_64"))]
    interleave_s16::<4>(addr, value)
}

/// Eight gathers `vldrhq_gather_shifted_offset_s16(&addr[k..], [0, 8, .., 56])`, k = 0..7, at once: lane `i` of
/// vector `k` is `addr[8 i + k]`, the 8x8 transpose of `addr[..64]` (how kernels transpose blocks of 64
/// coefficients; a model runs the eight gathers as one transpose).
#[inline]
pub fn vldrhq_gather_transpose8_s16(addr: &[i16]) -> [Q; 8] {
    #[cfg(target_arch = "x86_64")]
    return transpose8(sse2::load::<8>(addr)).map(sse2::q);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let addr = &addr[..64];
        core::array::from_fn(|k| Q::from_i16(core::array::from_fn(|i| addr[8 * i + k])))
    }
}
/// Eight scatters `vstrhq_scatter_shifted_offset_s16(&mut addr[k..], [0, 8, .., 56], value[k])`, k = 0..7, at
/// once: the inverse of [`vldrhq_gather_transpose8_s16`] (the 64 addresses are distinct, so order does not matter).
#[inline]
pub fn vstrhq_scatter_transpose8_s16(addr: &mut [i16], value: [Q; 8]) {
    #[cfg(target_arch = "x86_64")]
    return sse2::store::<8>(addr, transpose8(value.map(sse2::v)));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let addr = &mut addr[..64];
        for (k, vector) in value.into_iter().enumerate() {
            for (i, x) in vector.i16().into_iter().enumerate() {
                addr[8 * i + k] = x;
            }
        }
    }
}

/// 8x8 transpose of 16-bit lanes: unpacks by 16, 32 and 64 bits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose8(rows: [sse2::__m128i; 8]) -> [sse2::__m128i; 8] {
    sse2!({
        let [r0, r1, r2, r3, r4, r5, r6, r7] = rows;
        let (a0, a1) = (_mm_unpacklo_epi16(r0, r1), _mm_unpackhi_epi16(r0, r1));
        let (a2, a3) = (_mm_unpacklo_epi16(r2, r3), _mm_unpackhi_epi16(r2, r3));
        let (a4, a5) = (_mm_unpacklo_epi16(r4, r5), _mm_unpackhi_epi16(r4, r5));
        let (a6, a7) = (_mm_unpacklo_epi16(r6, r7), _mm_unpackhi_epi16(r6, r7));
        // b0 = columns 0 and 1 of rows 0..3, b1 columns 2 and 3, ...; b4..b7 the same of rows 4..7.
        let (b0, b1) = (_mm_unpacklo_epi32(a0, a2), _mm_unpackhi_epi32(a0, a2));
        let (b2, b3) = (_mm_unpacklo_epi32(a1, a3), _mm_unpackhi_epi32(a1, a3));
        let (b4, b5) = (_mm_unpacklo_epi32(a4, a6), _mm_unpackhi_epi32(a4, a6));
        let (b6, b7) = (_mm_unpacklo_epi32(a5, a7), _mm_unpackhi_epi32(a5, a7));
        [
            _mm_unpacklo_epi64(b0, b4),
            _mm_unpackhi_epi64(b0, b4),
            _mm_unpacklo_epi64(b1, b5),
            _mm_unpackhi_epi64(b1, b5),
            _mm_unpacklo_epi64(b2, b6),
            _mm_unpackhi_epi64(b2, b6),
            _mm_unpacklo_epi64(b3, b7),
            _mm_unpackhi_epi64(b3, b7),
        ]
    })
}

/// Element `j` of vector `k` is `addr[N j + k]`.
#[cfg(not(target_arch = "x86_64"))]
fn deinterleave_s16<const N: usize>(addr: &[i16]) -> [Q; N] {
    let addr = &addr[..8 * N];
    core::array::from_fn(|k| Q::from_i16(core::array::from_fn(|j| addr[N * j + k])))
}

#[cfg(not(target_arch = "x86_64"))]
fn interleave_s16<const N: usize>(addr: &mut [i16], value: [Q; N]) {
    let addr = &mut addr[..8 * N];
    for (k, vector) in value.into_iter().enumerate() {
        for (j, x) in vector.i16().into_iter().enumerate() {
            addr[N * j + k] = x;
        }
    }
}

// ---- shifts by immediate: `imm` must be in the intrinsic's range (checked) ----

/// Shifts by an immediate, lane by lane: `$op(type, lane, imm)`, with `imm` in `$lo..=esize - $below` (checked, as
/// the compiler checks the intrinsic's constant).
macro_rules! shift_imm {
    ($op:ident, $lo:literal..=esize - $below:literal: $($name:ident $t:ident),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name(a: Q, imm: u32) -> Q {
                assert!(
                    ($lo..=$t.bits() - $below).contains(&imm),
                    concat!(stringify!($name), ": immediate {} out of range"),
                    imm
                );
                map1($t, a, |x| $op($t, x, imm))
            }
        )+
    };
}

fn shl_imm(_: Ty, x: i128, n: u32) -> i128 {
    x << n
}
fn shr_imm(_: Ty, x: i128, n: u32) -> i128 {
    x >> n
}
fn rshr_imm(_: Ty, x: i128, n: u32) -> i128 {
    (x + (1 << (n - 1))) >> n
}
fn qshl_imm(t: Ty, x: i128, n: u32) -> i128 {
    t.sat(x << n)
}

shift_imm!(shl_imm, 0..=esize - 1: vshlq_n_s8 S8, vshlq_n_s16 S16, vshlq_n_s32 S32);
shift_imm!(shl_imm, 0..=esize - 1: vshlq_n_u8 U8, vshlq_n_u16 U16);

/// The Arm intrinsic `vshlq_n_u32`, on 32-bit lanes directly (the Keccak rotations' first half;
/// `u32_shift_forms_match_the_lanes` checks it against the lane-by-lane pseudocode).
#[inline(always)]
pub fn vshlq_n_u32(a: Q, imm: u32) -> Q {
    imm_in("vshlq_n_u32", imm, 0..=31);
    Q::from_u32(a.u32().map(|x| x << imm))
}
shift_imm!(shr_imm, 1..=esize - 0: vshrq_n_s8 S8);
shift_imm!(shr_imm, 1..=esize - 0: vshrq_n_u8 U8, vshrq_n_u16 U16);
shift_imm!(rshr_imm, 1..=esize - 0: vrshrq_n_s8 S8, vrshrq_n_s32 S32);
shift_imm!(rshr_imm, 1..=esize - 0: vrshrq_n_u8 U8, vrshrq_n_u16 U16, vrshrq_n_u32 U32);
shift_imm!(qshl_imm, 0..=esize - 1: vqshlq_n_s8 S8, vqshlq_n_s16 S16, vqshlq_n_s32 S32);
shift_imm!(qshl_imm, 0..=esize - 1: vqshlq_n_u8 U8, vqshlq_n_u16 U16, vqshlq_n_u32 U32);

macro_rules! insert_imm {
    ($($name:ident $t:ident $left:literal),+ $(,)?) => {
        $(
            /// Shift-and-insert: the bits of the shifted `b` replace those of `a`; the other bits of `a` stay.
            pub fn $name(a: Q, b: Q, imm: u32) -> Q {
                let t = $t;
                let (lo, hi) = if $left { (0, t.bits() - 1) } else { (1, t.bits()) };
                assert!((lo..=hi).contains(&imm), concat!(stringify!($name), ": immediate {} out of range"), imm);
                map2(t, a, b, |x, y| {
                    let (x, y) = (x & t.ones(), y & t.ones());
                    let (shifted, mask) =
                        if $left { (y << imm, (t.ones() << imm) & t.ones()) } else { (y >> imm, t.ones() >> imm) };
                    (shifted & mask) | (x & !mask)
                })
            }
        )+
    };
}

insert_imm!(vsliq_n_s8 S8 true, vsliq_n_s16 S16 true, vsliq_n_s32 S32 true);
insert_imm!(vsliq_n_u8 U8 true, vsliq_n_u16 U16 true);
insert_imm!(vsriq_n_s8 S8 false, vsriq_n_s16 S16 false, vsriq_n_s32 S32 false);
insert_imm!(vsriq_n_u8 U8 false, vsriq_n_u16 U16 false);

/// The Arm intrinsic `vsriq_n_u32`, on 32-bit lanes directly (the Keccak rotations' second half): the top `imm` bits
/// of each lane of `a` stay, the rest are `b >> imm` (`u32_shift_forms_match_the_lanes` checks it against the
/// shift-and-insert pseudocode).
#[inline(always)]
pub fn vsriq_n_u32(a: Q, b: Q, imm: u32) -> Q {
    imm_in("vsriq_n_u32", imm, 1..=32);
    let mask = (u64::from(u32::MAX) >> imm) as u32;
    u32x2(a, b, |x, y| ((u64::from(y) >> imm) as u32 & mask) | (x & !mask))
}

// ---- bitwise NOT, duplication, reversal ----

macro_rules! unary {
    ($($name:ident => |$x:ident| $body:expr;)+) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name($x: Q) -> Q {
                $body
            }
        )+
    };
}

fn mvn(a: Q) -> Q {
    Q(a.0.map(|b| !b))
}

/// Reverses the order of `t` lanes within each `group`-byte container.
fn rev(t: Ty, group: usize, a: Q) -> Q {
    let per = group / t.bytes;
    let mut r = Q::ZERO;
    for i in 0..t.lanes() {
        let j = i / per * per + (per - 1 - i % per);
        r.set_lane(t, i, a.lane(t, j));
    }
    r
}

unary! {
    vmvnq_s8 => |a| mvn(a);
    vmvnq_s16 => |a| mvn(a);
    vmvnq_s32 => |a| mvn(a);
    vmvnq_u8 => |a| mvn(a);
    vmvnq_u16 => |a| mvn(a);
    vmvnq_u32 => |a| mvn(a);
    vrev32q_s8 => |a| rev(S8, 4, a);
    vrev32q_u8 => |a| rev(U8, 4, a);
    vrev32q_u16 => |a| rev(U16, 4, a);
    vrev64q_s8 => |a| rev(S8, 8, a);
    vrev64q_s16 => |a| rev(S16, 8, a);
    vrev64q_s32 => |a| rev(S32, 8, a);
    vrev64q_u8 => |a| rev(U8, 8, a);
    vrev64q_u16 => |a| rev(U16, 8, a);
    vrev64q_u32 => |a| rev(U32, 8, a);
}

macro_rules! dup_n {
    ($($name:ident $t:ident $st:ty),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name(a: $st) -> Q {
                dup($t, a as i128)
            }
        )+
    };
}

dup_n!(vdupq_n_s8 S8 i8, vdupq_n_s32 S32 i32, vdupq_n_u8 U8 u8, vdupq_n_u16 U16 u16);

/// The Arm intrinsic `vdupq_n_s16`.
#[inline]
pub fn vdupq_n_s16(a: i16) -> Q {
    Q::from_i16([a; 8])
}

// ---- widening and narrowing ----

/// Widens the bottom (even, `top == false`) or top (odd) lanes of `a`.
fn movl(t: Ty, a: Q, top: bool) -> Q {
    let w = t.wide();
    let mut r = Q::ZERO;
    for i in 0..w.lanes() {
        r.set_lane(w, i, a.lane(t, 2 * i + top as usize));
    }
    r
}

/// Narrows the `t` lanes of `b` into the bottom (even) or top (odd) narrow lanes of `a`; the other lanes of `a` stay.
fn movn(t: Ty, a: Q, b: Q, top: bool) -> Q {
    let n = t.narrow();
    let mut r = a;
    for i in 0..t.lanes() {
        r.set_lane(n, 2 * i + top as usize, b.lane(t, i));
    }
    r
}

/// Widening multiply of the bottom (even) or top (odd) lanes.
fn mull(t: Ty, a: Q, b: Q, top: bool) -> Q {
    let w = t.wide();
    let mut r = Q::ZERO;
    for i in 0..w.lanes() {
        let k = 2 * i + top as usize;
        r.set_lane(w, i, a.lane(t, k) * b.lane(t, k));
    }
    r
}

unary! {
    vmovlbq_s8 => |a| movl(S8, a, false);
    vmovlbq_s16 => |a| movl(S16, a, false);
    vmovlbq_u8 => |a| movl(U8, a, false);
    vmovlbq_u16 => |a| movl(U16, a, false);
    vmovltq_s8 => |a| movl(S8, a, true);
    vmovltq_s16 => |a| movl(S16, a, true);
    vmovltq_u8 => |a| movl(U8, a, true);
    vmovltq_u16 => |a| movl(U16, a, true);
}

macro_rules! pairwise {
    ($($name:ident => |$a:ident, $b:ident| $body:expr;)+) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name($a: Q, $b: Q) -> Q {
                $body
            }
        )+
    };
}

pairwise! {
    vmovnbq_s16 => |a, b| movn(S16, a, b, false);
    vmovnbq_u16 => |a, b| movn(U16, a, b, false);
    vmovnbq_u32 => |a, b| movn(U32, a, b, false);
    vmovntq_s16 => |a, b| movn(S16, a, b, true);
    vmovntq_u16 => |a, b| movn(U16, a, b, true);
    vmovntq_u32 => |a, b| movn(U32, a, b, true);
    vmullbq_int_s8 => |a, b| mull(S8, a, b, false);
    vmullbq_int_s32 => |a, b| mull(S32, a, b, false);
    vmullbq_int_u8 => |a, b| mull(U8, a, b, false);
    vmullbq_int_u16 => |a, b| mull(U16, a, b, false);
    vmullbq_int_u32 => |a, b| mull(U32, a, b, false);
    vmulltq_int_s8 => |a, b| mull(S8, a, b, true);
    vmulltq_int_s32 => |a, b| mull(S32, a, b, true);
    vmulltq_int_u8 => |a, b| mull(U8, a, b, true);
    vmulltq_int_u16 => |a, b| mull(U16, a, b, true);
    vmulltq_int_u32 => |a, b| mull(U32, a, b, true);
}

// ---- the 32-bit forms the fixed-point FFT runs hot ----
//
// The same per-lane pseudocode as the generic forms, on `[u32; 4]` lanes in 64-bit arithmetic (every intermediate
// fits: sums of two lanes plus one below 2^33, products of two lanes below 2^64 in magnitude), so that the host runs
// the keygen FFT model fast. Checked against QEMU like every other form.

/// Lane by lane on two vectors of `u32`.
#[inline(always)]
fn u32x2(a: Q, b: Q, f: impl Fn(u32, u32) -> u32) -> Q {
    let (a, b) = (a.u32(), b.u32());
    Q::from_u32(core::array::from_fn(|i| f(a[i], b[i])))
}

/// Checks a shift immediate against the intrinsic's range, as the compiler does.
#[inline(always)]
fn imm_in(name: &str, imm: u32, range: core::ops::RangeInclusive<u32>) {
    assert!(range.contains(&imm), "{name}: immediate {imm} out of range");
}

/// The Arm intrinsic `vaddq_u32`.
#[inline]
pub fn vaddq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, u32::wrapping_add)
}

/// The Arm intrinsic `vsubq_u32`.
#[inline]
pub fn vsubq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, u32::wrapping_sub)
}

/// The Arm intrinsic `vmulq_u32`.
#[inline]
pub fn vmulq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, u32::wrapping_mul)
}

/// The Arm intrinsic `vandq_u32`.
#[inline]
pub fn vandq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| x & y)
}

/// The Arm intrinsic `vmulhq_u32`: the high word of the unsigned 64-bit product.
#[inline]
pub fn vmulhq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| ((u64::from(x) * u64::from(y)) >> 32) as u32)
}

/// The Arm intrinsic `vmulhq_s32`: the high word of the signed 64-bit product (floor).
#[inline]
pub fn vmulhq_s32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32)
}

/// The Arm intrinsic `vhaddq_u32`: floor((x + y) / 2) on 33 bits.
#[inline]
pub fn vhaddq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| ((u64::from(x) + u64::from(y)) >> 1) as u32)
}

/// The Arm intrinsic `vrhaddq_u32`: floor((x + y + 1) / 2) on 33 bits.
#[inline]
pub fn vrhaddq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| ((u64::from(x) + u64::from(y) + 1) >> 1) as u32)
}

/// The Arm intrinsic `vhsubq_u32`: floor((x - y) / 2) of the exact (33-bit signed) difference, wrapped.
#[inline]
pub fn vhsubq_u32(a: Q, b: Q) -> Q {
    u32x2(a, b, |x, y| ((i64::from(x) - i64::from(y)) >> 1) as u32)
}

/// The Arm intrinsic `vshrq_n_u32` (logical; a shift by 32 gives 0).
#[inline]
pub fn vshrq_n_u32(a: Q, imm: u32) -> Q {
    imm_in("vshrq_n_u32", imm, 1..=32);
    Q::from_u32(a.u32().map(|x| (u64::from(x) >> imm) as u32))
}

/// The Arm intrinsic `vshrq_n_s32` (arithmetic; a shift by 32 gives the sign).
#[inline]
pub fn vshrq_n_s32(a: Q, imm: u32) -> Q {
    imm_in("vshrq_n_s32", imm, 1..=32);
    Q::from_i32(a.i32().map(|x| (i64::from(x) >> imm) as i32))
}

/// The Arm intrinsic `vsliq_n_u32`: `b << imm` with the low `imm` bits of `a`.
#[inline]
pub fn vsliq_n_u32(a: Q, b: Q, imm: u32) -> Q {
    imm_in("vsliq_n_u32", imm, 0..=31);
    let keep = (1u32 << imm) - 1;
    u32x2(a, b, |x, y| (y << imm) | (x & keep))
}

/// The Arm intrinsic `vdupq_n_u32`.
#[inline]
pub fn vdupq_n_u32(a: u32) -> Q {
    Q::from_u32([a; 4])
}

// ---- carry chains: the four 32-bit lanes form one 128-bit addition, carry in at lane 0, out of lane 3 ----

fn adc(a: Q, b: Q, carry: u32, invert_b: bool) -> (Q, u32) {
    assert!(carry <= 1, "carry must be 0 or 1");
    let mut c = carry as u64;
    let (a, b) = (a.u32(), b.u32());
    let r = core::array::from_fn(|i| {
        let y = if invert_b { !b[i] } else { b[i] };
        let s = a[i] as u64 + y as u64 + c;
        c = s >> 32;
        s as u32
    });
    (Q::from_u32(r), c as u32)
}

/// `VADC`: `a + b + carry` over 128 bits; returns the sum and the carry out (FPSCR.C).
pub fn vadcq_s32(a: Q, b: Q, carry: u32) -> (Q, u32) {
    adc(a, b, carry, false)
}
pub fn vadcq_u32(a: Q, b: Q, carry: u32) -> (Q, u32) {
    adc(a, b, carry, false)
}
/// `VADCI`: `a + b` with carry in 0.
pub fn vadciq_s32(a: Q, b: Q) -> (Q, u32) {
    adc(a, b, 0, false)
}
pub fn vadciq_u32(a: Q, b: Q) -> (Q, u32) {
    adc(a, b, 0, false)
}
/// `VSBC`: `a + !b + carry` (the carry is "no borrow").
pub fn vsbcq_s32(a: Q, b: Q, carry: u32) -> (Q, u32) {
    adc(a, b, carry, true)
}
pub fn vsbcq_u32(a: Q, b: Q, carry: u32) -> (Q, u32) {
    adc(a, b, carry, true)
}
/// `VSBCI`: `a - b`, carry in 1.
pub fn vsbciq_s32(a: Q, b: Q) -> (Q, u32) {
    adc(a, b, 1, true)
}
pub fn vsbciq_u32(a: Q, b: Q) -> (Q, u32) {
    adc(a, b, 1, true)
}

// ---- predication ----

/// Compares lane by lane; a true lane sets all its bytes' predicate bits.
fn cmp(t: Ty, a: Q, b: Q, f: impl Fn(i128, i128) -> bool) -> u16 {
    let mut p = 0u16;
    for i in 0..t.lanes() {
        if f(a.lane(t, i), b.lane(t, i)) {
            p |= (((1u32 << t.bytes) - 1) << (i * t.bytes)) as u16;
        }
    }
    p
}

macro_rules! compare {
    ($op:tt: $($name:ident $t:ident),+ $(,)?) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name(a: Q, b: Q) -> u16 {
                cmp($t, a, b, |x, y| x $op y)
            }
        )+
    };
}

compare!(==: vcmpeqq_s8 S8, vcmpeqq_s16 S16, vcmpeqq_s32 S32, vcmpeqq_u8 U8, vcmpeqq_u16 U16, vcmpeqq_u32 U32);
compare!(!=: vcmpneq_s8 S8, vcmpneq_s16 S16, vcmpneq_s32 S32, vcmpneq_u8 U8, vcmpneq_u16 U16, vcmpneq_u32 U32);
compare!(>: vcmpgtq_s8 S8, vcmpgtq_s16 S16, vcmpgtq_s32 S32, vcmphiq_u8 U8, vcmphiq_u16 U16, vcmphiq_u32 U32);
compare!(>=: vcmpgeq_s8 S8, vcmpgeq_s16 S16, vcmpgeq_s32 S32, vcmpcsq_u8 U8, vcmpcsq_u16 U16, vcmpcsq_u32 U32);
compare!(<: vcmpltq_s8 S8, vcmpltq_s16 S16, vcmpltq_s32 S32);
compare!(<=: vcmpleq_s8 S8, vcmpleq_s16 S16, vcmpleq_s32 S32);

macro_rules! psel {
    ($($name:ident),+) => {
        $(
            /// `VPSEL`: byte `i` from `a` where bit `i` of `p` is set, else from `b`.
            pub fn $name(a: Q, b: Q, p: u16) -> Q {
                select(a, b, p)
            }
        )+
    };
}

psel!(vpselq_s8, vpselq_s16, vpselq_s32, vpselq_u8, vpselq_u16, vpselq_u32);

macro_rules! predicated {
    ($($name:ident = $op:ident),+ $(,)?) => {
        $(
            /// Predicated (`_m`) form: `op(a, b)` in the bytes whose predicate bit is set, `inactive` elsewhere.
            pub fn $name(inactive: Q, a: Q, b: Q, p: u16) -> Q {
                select($op(a, b), inactive, p)
            }
        )+
    };
}

predicated!(vaddq_m_s8 = vaddq_s8, vaddq_m_s16 = vaddq_s16, vaddq_m_s32 = vaddq_s32);
predicated!(vaddq_m_u8 = vaddq_u8, vaddq_m_u16 = vaddq_u16, vaddq_m_u32 = vaddq_u32);
predicated!(vsubq_m_s8 = vsubq_s8, vsubq_m_s16 = vsubq_s16, vsubq_m_s32 = vsubq_s32);
predicated!(vsubq_m_u8 = vsubq_u8, vsubq_m_u16 = vsubq_u16, vsubq_m_u32 = vsubq_u32);

// ---- interleaving loads and stores, on memory slices ----

macro_rules! interleave {
    ($($ld:ident $st:ident $e:ty, $n:literal, $from:ident, $to:ident;)+) => {
        $(
            #[doc = concat!("De-interleaves ", stringify!($n), " vectors from `addr` (at least ", stringify!($n),
                            "x16 bytes): element `j` of vector `k` is `addr[", stringify!($n), " * j + k]`.")]
            #[inline]
            pub fn $ld(addr: &[$e]) -> [Q; $n] {
                let mut lanes = [[0; 16 / size_of::<$e>()]; $n];
                for (j, element) in addr[..16 / size_of::<$e>() * $n].chunks_exact($n).enumerate() {
                    for (vector, &x) in lanes.iter_mut().zip(element) {
                        vector[j] = x;
                    }
                }
                let mut out = [Q::ZERO; $n];
                for (q, vector) in out.iter_mut().zip(lanes) {
                    *q = Q::$from(vector);
                }
                out
            }

            #[doc = concat!("Interleaves ", stringify!($n), " vectors into `addr`: the inverse of the load.")]
            #[inline]
            pub fn $st(addr: &mut [$e], value: [Q; $n]) {
                let mut lanes = [[0; 16 / size_of::<$e>()]; $n];
                for (vector, q) in lanes.iter_mut().zip(value) {
                    *vector = q.$to();
                }
                for (j, element) in addr[..16 / size_of::<$e>() * $n].chunks_exact_mut($n).enumerate() {
                    for (x, vector) in element.iter_mut().zip(&lanes) {
                        *x = vector[j];
                    }
                }
            }
        )+
    };
}

interleave! {
    vld2q_s8 vst2q_s8 i8, 2, from_i8, i8;
    vld2q_s32 vst2q_s32 i32, 2, from_i32, i32;
    vld4q_s8 vst4q_s8 i8, 4, from_i8, i8;
    vld4q_s32 vst4q_s32 i32, 4, from_i32, i32;
}

/// `VLDRH.16 Qd, [Rn]` (`vld1q_s16`): lane `i` is `addr[i]`.
#[inline(always)]
pub fn vld1q_s16(addr: &[i16]) -> Q {
    #[cfg(target_arch = "x86_64")]
    return sse2::q(sse2::load::<1>(addr)[0]);
    #[cfg(not(target_arch = "x86_64"))]
    Q::from_i16(addr[..8].try_into().unwrap())
}

/// `VSTRH.16 Qd, [Rn]` (`vst1q_s16`): `addr[i]` is lane `i`.
#[inline(always)]
pub fn vst1q_s16(addr: &mut [i16], value: Q) {
    #[cfg(target_arch = "x86_64")]
    return sse2::store::<1>(addr, [sse2::v(value)]);
    #[cfg(not(target_arch = "x86_64"))]
    addr[..8].copy_from_slice(&value.i16());
}

/// `VLDRW.32 Qd, [Rn]` (`vld1q_s32`; `vld1q_u32` is the same instruction): lane `i` is `addr[i]`.
pub fn vld1q_s32(addr: &[i32]) -> Q {
    Q::from_i32(addr[..4].try_into().unwrap())
}

// ---- gather and scatter with shifted (element-indexed) offsets ----

/// `VLDRH.S16 Qd, [Rn, Qm, UXTW #1]`: lane `i` is `base[offset.u16()[i]]`.
#[inline]
pub fn vldrhq_gather_shifted_offset_s16(base: &[i16], offset: Q) -> Q {
    let mut lanes = [0; 8];
    for (lane, o) in lanes.iter_mut().zip(offset.u16()) {
        *lane = base[usize::from(o)];
    }
    Q::from_i16(lanes)
}

/// `VLDRW.U32 Qd, [Rn, Qm, UXTW #2]`: lane `i` is `base[offset.u32()[i]]`.
pub fn vldrwq_gather_shifted_offset_s32(base: &[i32], offset: Q) -> Q {
    Q::from_i32(offset.u32().map(|o| base[o as usize]))
}

/// `VSTRH.16 Qd, [Rn, Qm, UXTW #1]`: lanes stored in order 0..7, so for equal offsets the highest lane wins.
#[inline]
pub fn vstrhq_scatter_shifted_offset_s16(base: &mut [i16], offset: Q, value: Q) {
    for (o, v) in offset.u16().into_iter().zip(value.i16()) {
        base[o as usize] = v;
    }
}

/// `VSTRW.32 Qd, [Rn, Qm, UXTW #2]`: lanes stored in order 0..3, so for equal offsets the highest lane wins.
pub fn vstrwq_scatter_shifted_offset_s32(base: &mut [i32], offset: Q, value: Q) {
    for (o, v) in offset.u32().into_iter().zip(value.i32()) {
        base[o as usize] = v;
    }
}

// ---- by-scalar arithmetic ----

fn abs(_: Ty, x: i128) -> i128 {
    x.abs()
}
fn qabs(t: Ty, x: i128) -> i128 {
    t.sat(x.abs())
}
fn neg(_: Ty, x: i128) -> i128 {
    -x
}
fn qneg(t: Ty, x: i128) -> i128 {
    t.sat(-x)
}
fn hadd(_: Ty, x: i128, y: i128) -> i128 {
    (x + y) >> 1
}
fn rhadd(_: Ty, x: i128, y: i128) -> i128 {
    (x + y + 1) >> 1
}
fn hsub(_: Ty, x: i128, y: i128) -> i128 {
    (x - y) >> 1
}
fn min(_: Ty, x: i128, y: i128) -> i128 {
    x.min(y)
}
fn max(_: Ty, x: i128, y: i128) -> i128 {
    x.max(y)
}

by_scalar!(add: vaddq_n_s8 S8 i8, vaddq_n_s16 S16 i16, vaddq_n_s32 S32 i32);
by_scalar!(add: vaddq_n_u8 U8 u8, vaddq_n_u16 U16 u16, vaddq_n_u32 U32 u32);
by_scalar!(sub: vsubq_n_s8 S8 i8, vsubq_n_s16 S16 i16, vsubq_n_s32 S32 i32);
by_scalar!(sub: vsubq_n_u8 U8 u8, vsubq_n_u16 U16 u16, vsubq_n_u32 U32 u32);
by_scalar!(mul: vmulq_n_s8 S8 i8, vmulq_n_s32 S32 i32);
by_scalar!(mul: vmulq_n_u8 U8 u8, vmulq_n_u16 U16 u16, vmulq_n_u32 U32 u32);

macro_rules! qdmlash {
    ($($name:ident $t:ident $st:ty, $round:literal);+ $(;)?) => {
        $(
            /// `VQDMLASH`/`VQRDMLASH`: `(2 * m1 * m2 + (add << esize)) >> esize`, saturated, where `m1` is the
            /// accumulator register and `add` the scalar; the rounding form adds half an LSB first.
            pub fn $name(m1: Q, m2: Q, add: $st) -> Q {
                map2($t, m1, m2, |x, y| qdmlah($t, add as i128, x, y, $round))
            }
        )+
    };
}

qdmlash! {
    vqdmlashq_n_s8 S8 i8, false;
    vqdmlashq_n_s16 S16 i16, false;
    vqdmlashq_n_s32 S32 i32, false;
    vqrdmlashq_n_s8 S8 i8, true;
    vqrdmlashq_n_s16 S16 i16, true;
    vqrdmlashq_n_s32 S32 i32, true;
}

// ---- halving, min/max, absolute value and negation ----

binary!(hadd: vhaddq_s8 S8, vhaddq_s16 S16, vhaddq_s32 S32, vhaddq_u8 U8, vhaddq_u16 U16);
binary!(rhadd: vrhaddq_s8 S8, vrhaddq_s16 S16, vrhaddq_s32 S32, vrhaddq_u8 U8, vrhaddq_u16 U16);
binary!(hsub: vhsubq_s8 S8, vhsubq_s32 S32, vhsubq_u8 U8, vhsubq_u16 U16);
all6!(binary, min: vminq_s8 vminq_s16 vminq_s32 vminq_u8 vminq_u16 vminq_u32);
all6!(binary, max: vmaxq_s8 vmaxq_s16 vmaxq_s32 vmaxq_u8 vmaxq_u16 vmaxq_u32);

unary! {
    vabsq_s8 => |a| map1(S8, a, |x| abs(S8, x));
    vabsq_s16 => |a| map1(S16, a, |x| abs(S16, x));
    vabsq_s32 => |a| map1(S32, a, |x| abs(S32, x));
    vqabsq_s8 => |a| map1(S8, a, |x| qabs(S8, x));
    vqabsq_s16 => |a| map1(S16, a, |x| qabs(S16, x));
    vqabsq_s32 => |a| map1(S32, a, |x| qabs(S32, x));
    vnegq_s8 => |a| map1(S8, a, |x| neg(S8, x));
    vnegq_s16 => |a| map1(S16, a, |x| neg(S16, x));
    vnegq_s32 => |a| map1(S32, a, |x| neg(S32, x));
    vqnegq_s8 => |a| map1(S8, a, |x| qneg(S8, x));
    vqnegq_s16 => |a| map1(S16, a, |x| qneg(S16, x));
    vqnegq_s32 => |a| map1(S32, a, |x| qneg(S32, x));
}

// ---- saturating widening and narrowing ----

/// Saturating doubling widening multiply of the bottom (even) or top (odd) lanes (`VQDMULLB`/`VQDMULLT`).
fn qdmull(t: Ty, a: Q, b: Q, top: bool) -> Q {
    let w = t.wide();
    let mut r = Q::ZERO;
    for i in 0..w.lanes() {
        let k = 2 * i + top as usize;
        r.set_lane(w, i, w.sat(2 * a.lane(t, k) * b.lane(t, k)));
    }
    r
}

/// Saturating narrow of the `t` lanes of `b` into the bottom or top narrow lanes of `a` (`VQMOVNB`/`VQMOVNT`).
fn qmovn(t: Ty, a: Q, b: Q, top: bool) -> Q {
    let n = t.narrow();
    let mut r = a;
    for i in 0..t.lanes() {
        r.set_lane(n, 2 * i + top as usize, n.sat(b.lane(t, i)));
    }
    r
}

pairwise! {
    vqdmullbq_s16 => |a, b| qdmull(S16, a, b, false);
    vqdmullbq_s32 => |a, b| qdmull(S32, a, b, false);
    vqdmulltq_s16 => |a, b| qdmull(S16, a, b, true);
    vqdmulltq_s32 => |a, b| qdmull(S32, a, b, true);
    vqmovnbq_s16 => |a, b| qmovn(S16, a, b, false);
    vqmovnbq_s32 => |a, b| qmovn(S32, a, b, false);
    vqmovnbq_u16 => |a, b| qmovn(U16, a, b, false);
    vqmovnbq_u32 => |a, b| qmovn(U32, a, b, false);
    vqmovntq_s16 => |a, b| qmovn(S16, a, b, true);
    vqmovntq_s32 => |a, b| qmovn(S32, a, b, true);
    vqmovntq_u16 => |a, b| qmovn(U16, a, b, true);
    vqmovntq_u32 => |a, b| qmovn(U32, a, b, true);
}

// ---- reductions across lanes (32-bit results, wrapping) ----

macro_rules! reduce {
    ($($name:ident $t:ident -> $rt:ty => |$a:ident $(, $b:ident)?| $lane:expr;)+) => {
        $(
            #[doc = concat!("The Arm intrinsic `", stringify!($name), "`.")]
            pub fn $name($a: Q $(, $b: Q)?) -> $rt {
                (0..$t.lanes()).fold(0i128, |acc, i| {
                    let $a = $a.lane($t, i);
                    $(let $b = $b.lane($t, i);)?
                    acc + $lane
                }) as $rt
            }
        )+
    };
}

reduce! {
    vaddvq_s8 S8 -> i32 => |a| a;
    vaddvq_s16 S16 -> i32 => |a| a;
    vaddvq_s32 S32 -> i32 => |a| a;
    vaddvq_u8 U8 -> u32 => |a| a;
    vaddvq_u16 U16 -> u32 => |a| a;
    vaddvq_u32 U32 -> u32 => |a| a;
    vmladavq_s8 S8 -> i32 => |a, b| a * b;
    vmladavq_s16 S16 -> i32 => |a, b| a * b;
    vmladavq_s32 S32 -> i32 => |a, b| a * b;
    vmladavq_u8 U8 -> u32 => |a, b| a * b;
    vmladavq_u16 U16 -> u32 => |a, b| a * b;
    vmladavq_u32 U32 -> u32 => |a, b| a * b;
}

// ---- tail predicates and more predicated forms ----

macro_rules! ctp {
    ($($name:ident $t:ident),+) => {
        $(
            /// `VCTP`: a predicate with the first `min(n, lanes)` lanes true (loop tails).
            pub fn $name(n: u32) -> u16 {
                let bytes = (n as usize).min($t.lanes()) * $t.bytes;
                ((1u32 << bytes) - 1) as u16
            }
        )+
    };
}

ctp!(vctp8q U8, vctp16q U16, vctp32q U32);

predicated!(vmulq_m_s8 = vmulq_s8, vmulq_m_s16 = vmulq_s16, vmulq_m_s32 = vmulq_s32);
predicated!(vmulq_m_u8 = vmulq_u8, vmulq_m_u16 = vmulq_u16, vmulq_m_u32 = vmulq_u32);
predicated!(vqdmulhq_m_s8 = vqdmulhq_s8, vqdmulhq_m_s16 = vqdmulhq_s16, vqdmulhq_m_s32 = vqdmulhq_s32);
predicated!(vqrdmulhq_m_s8 = vqrdmulhq_s8, vqrdmulhq_m_s16 = vqrdmulhq_s16, vqrdmulhq_m_s32 = vqrdmulhq_s32);

// ---- the forms of the MVE Keccak kernels (rotations are VSHL #k then VSRI #(32 - k), for every k) ----

/// `VSTRW.32 Qd, [Rn]` (`vst1q_s32`; `vst1q_u32` is the same instruction): `addr[i]` is lane `i`.
pub fn vst1q_s32(addr: &mut [i32], value: Q) {
    addr[..4].copy_from_slice(&value.i32());
}

#[cfg(test)]
mod fast_form_tests {
    use super::*;

    /// Vectors whose lanes cover signs, edges and mixed bits.
    fn samples() -> Vec<Q> {
        let mut x = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835u128;
        let mut out = vec![Q::ZERO, Q([0xFF; 16]), Q::from_u32([0x8000_0000, 0x7FFF_FFFF, 1, 0xFFFF_FFFE])];
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(Q(x.to_le_bytes()));
        }
        out
    }

    #[test]
    fn bitwise_forms_match_the_lanes() {
        for &a in &samples() {
            for &b in samples().iter().take(20) {
                for t in [S8, S16, S32, U8, U16, U32] {
                    assert_eq!(veorq_u32(a, b), map2(t, a, b, |x, y| eor(t, x, y)));
                    assert_eq!(vbicq_s16(a, b), map2(t, a, b, |x, y| bic(t, x, y)));
                    assert_eq!(vorrq_u8(a, b), map2(t, a, b, |x, y| orr(t, x, y)));
                }
            }
        }
    }

    #[test]
    fn u32_shift_forms_match_the_lanes() {
        let t = U32;
        for &a in &samples() {
            for &b in samples().iter().take(20) {
                for imm in 0..=31 {
                    assert_eq!(vshlq_n_u32(a, imm), map1(t, a, |x| shl_imm(t, x, imm)));
                }
                for imm in 1..=32 {
                    let lanes = map2(t, a, b, |x, y| {
                        let (x, y) = (x & t.ones(), y & t.ones());
                        let mask = t.ones() >> imm;
                        ((y >> imm) & mask) | (x & !mask)
                    });
                    assert_eq!(vsriq_n_u32(a, b, imm), lanes);
                }
            }
        }
    }
}
