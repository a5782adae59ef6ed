//! Models of the ML-KEM-768 polynomial kernels (`kernels/arm/mlkem_ntt/mlkem_poly*.c`): compression with encoding,
//! 12-bit encoding, add/sub/reduce and the k = 3 products with one reduction.
//!
//! - The portable baselines work in FIPS 203 order; the MVE kernels in the MVE NTT's storage order
//!   ([`crate::mlkem_ntt::mve_coeff`]). Every kernel but the products computes each coefficient (or each encoded bit
//!   field) with the same integer formula in both builds, so one per-coefficient model serves both, applied through
//!   the storage map; the formulas are checked exhaustively against FIPS 203's definitions in `sim/tests`.
//! - The products (`dot_k3`, `matvec_k3`) leave lazy outputs: [`dot_k3_mve`] follows the MVE kernel intrinsic by
//!   intrinsic ([`crate::mve`]), [`dot_k3_scalar`] the baseline, and [`bounds::dot`] proves that no 32-bit sum
//!   overflows and the output bound.

use crate::coverage::{self, observe};
use crate::mlkem_ntt::{self as ntt, GAMMA, GAMMA_TW, N, Poly, Q, barrett32, mulmod, mve_coeff};
use crate::mve::*;

// The family's constants, defined here once; `mlkem_poly.h` repeats them by name, checked by
// `sim/tests/kernel_constants.rs`.

/// ML-KEM-768's module rank.
pub const K: usize = 3;
/// round(2^26 / q): the Barrett reduction of any int16_t.
pub const BARRETT26: i32 = ((1 << 26) + Q as i32 / 2) / Q as i32;
/// (q - 1) / 2: Compress_d(x) = floor(((x << d) + (q-1)/2) / q) for canonical x (q is odd, so no ties).
pub const COMPRESS_HALF: u32 = (Q as u32 - 1) / 2;
/// ceil(2^20 / q): the division by q of compression for d = 1, 4 (16-bit lanes, multiply-high then >> 4).
pub const COMPRESS_M16: u32 = (1 << 20) / Q as u32 + 1;
/// ceil(2^32 / q): the division by q of compression for d = 10 (32-bit lanes, multiply-high).
pub const COMPRESS_M32: u32 = ((1u64 << 32) / Q as u64 + 1) as u32;
/// add: |a| <= ADD_A_MAX, |b| <= ADD_B_MAX, so the sum fits an int16_t (sub likewise).
pub const ADD_A_MAX: i64 = 8191;
pub const ADD_B_MAX: i64 = 24576;
/// dot/matvec: |a| <= DOT_A_MAX (12-bit values), b any int16_t.
pub const DOT_A_MAX: i64 = 4095;
/// dot/matvec output bound, proved by [`bounds::dot`].
pub const DOT_OUT_MAX: i64 = 2034;

/// The compression widths the kernels serve: du, dv and the message's 1.
pub const WIDTHS: [u32; 3] = [10, 4, 1];

// ---- bound coverage ----

/// The reduction's input (`reduce`, and compression before it divides).
pub const STEP_REDUCE: &str = "mlkem.poly.canonical/barrett";
/// Compression, per width: the dividend (x << d) + (q-1)/2 of the multiply-high division, and its remainder mod q,
/// whose ends 0 and q-1 are the values closest to a rounding tie from above and from below.
pub const STEP_COMPRESS_DIV: [&str; 3] =
    ["mlkem.poly.compress.d10/div", "mlkem.poly.compress.d4/div", "mlkem.poly.compress.d1/div"];
pub const STEP_COMPRESS_ROUND: [&str; 3] =
    ["mlkem.poly.compress.d10/round", "mlkem.poly.compress.d4/round", "mlkem.poly.compress.d1/round"];
/// The products: the even and odd 32-bit sums over the K pairs, before the one Barrett reduction.
pub const STEP_DOT_EVEN: [&str; 2] = ["mlkem.poly.dot.scalar/even.barrett", "mlkem.poly.dot.mve/even.barrett"];
pub const STEP_DOT_ODD: [&str; 2] = ["mlkem.poly.dot.scalar/odd.barrett", "mlkem.poly.dot.mve/odd.barrett"];

/// Decompression, per width: (q y + 2^(d-1)) mod 2^d, the bits its rounding shift drops.
pub const STEP_DECOMPRESS_ROUND: [&str; 3] =
    ["mlkem.poly.decompress.d10/round", "mlkem.poly.decompress.d4/round", "mlkem.poly.decompress.d1/round"];
/// ByteDecode_12's reduction: the 12-bit value compared with q.
pub const STEP_DECODE12_REDUCE: &str = "mlkem.poly.decode12/minus_q_if_above";

fn width_index(d: u32) -> usize {
    WIDTHS.iter().position(|&w| w == d).expect("a width the kernels serve")
}

// ---- per coefficient (both builds) ----

/// `canonical`: any int16_t -> 0..q-1, Barrett with round(2^26/q) then + q if negative.
pub fn canonical(x: i16) -> i16 {
    observe(STEP_REDUCE, i64::from(x));
    let t = (i32::from(x) * BARRETT26) >> 16;
    let t = (t + 512) >> 10;
    let r = (i32::from(x) - t * i32::from(Q)) as i16;
    r + ((r >> 15) & Q)
}

/// Compress_d of any int16_t, with the kernels' multiply-high division.
pub fn compress(d: u32, x: i16) -> u16 {
    let t = (u32::from(canonical(x) as u16) << d) + COMPRESS_HALF;
    if coverage::enabled() {
        observe(STEP_COMPRESS_DIV[width_index(d)], t.into());
        observe(STEP_COMPRESS_ROUND[width_index(d)], (t % Q as u32).into());
    }
    let c = if d == 10 { ((u64::from(t) * u64::from(COMPRESS_M32)) >> 32) as u32 } else { (t * COMPRESS_M16) >> 20 };
    (c & ((1 << d) - 1)) as u16
}

/// Decompress_d: (q y + 2^(d-1)) >> d.
pub fn decompress(d: u32, y: u16) -> i16 {
    let t = u32::from(y) * Q as u32 + (1 << (d - 1));
    if coverage::enabled() {
        observe(STEP_DECOMPRESS_ROUND[width_index(d)], (t & ((1 << d) - 1)).into());
    }
    (t >> d) as i16
}

/// ByteDecode_12's reduction: 12-bit values at or above q lose q.
pub fn minus_q_if_above(x: u16) -> i16 {
    observe(STEP_DECODE12_REDUCE, x.into());
    if x >= Q as u16 { (x - Q as u16) as i16 } else { x as i16 }
}

/// The storage order of a build: `true` for the MVE order.
fn fips(p: &Poly, mve: bool) -> Poly {
    if !mve {
        return *p;
    }
    let mut out = [0; N];
    for (s, &x) in p.iter().enumerate() {
        out[mve_coeff(s)] = x;
    }
    out
}

fn stored(p: &Poly, mve: bool) -> Poly {
    if mve { stored_mve(p) } else { *p }
}

/// A FIPS-order polynomial in the MVE order.
pub fn stored_mve(p: &Poly) -> Poly {
    std::array::from_fn(|s| p[mve_coeff(s)])
}

/// Values per group of the kernels' packing: the fewest d-bit values that fill whole bytes (4 for d = 10, 2 for
/// 12 and 4, 8 for 1), stored in d bytes / (8 / values).
fn group(d: u32) -> usize {
    (8 / gcd(d, 8)) as usize
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The kernels' packing of 256 d-bit values: group by group, byte b of a group ORs the parts of the values whose bit
/// fields [d j, d j + d) meet the byte's bits [8 b, 8 b + 8), each shifted into place, as the C writes
/// `o[1] = (c0 >> 8) | (c1 << 2)`.
fn pack(d: u32, values: impl Iterator<Item = u16>) -> Vec<u8> {
    let values: Vec<u32> = values.map(u32::from).collect();
    let g = group(d);
    let bytes = g * d as usize / 8;
    values
        .chunks(g)
        .flat_map(|c| {
            (0..bytes).map(move |b| {
                let lo = 8 * b as i32;
                c.iter().enumerate().fold(0u32, |byte, (j, &v)| {
                    let at = d as i32 * j as i32;
                    if at >= lo + 8 || at + d as i32 <= lo {
                        byte
                    } else if at >= lo {
                        byte | v << (at - lo)
                    } else {
                        byte | v >> (lo - at)
                    }
                }) as u8
            })
        })
        .collect()
}

/// The kernels' unpacking: value j of a group ORs the bytes its bit field meets, shifted into place, masked to d
/// bits.
fn unpack(d: u32, bytes: &[u8]) -> [u16; N] {
    let g = group(d);
    let per_group = g * d as usize / 8;
    std::array::from_fn(|i| {
        let (c, j) = (&bytes[i / g * per_group..][..per_group], (i % g) as i32);
        let at = d as i32 * j;
        let v = c.iter().enumerate().fold(0u32, |v, (b, &byte)| {
            let lo = 8 * b as i32;
            if lo >= at + d as i32 || lo + 8 <= at {
                v
            } else if lo >= at {
                v | u32::from(byte) << (lo - at)
            } else {
                v | u32::from(byte) >> (at - lo)
            }
        });
        (v & ((1 << d) - 1)) as u16
    })
}

/// `mlkem_compress_d{10,4,1}_{scalar,mve}`: the 32 d bytes of ByteEncode_d(Compress_d(p)), p in the build's order.
pub fn compress_poly(d: u32, p: &Poly, mve: bool) -> Vec<u8> {
    pack(d, fips(p, mve).iter().map(|&x| compress(d, x)))
}

/// `mlkem_decompress_d{10,4,1}_{scalar,mve}`: Decompress_d(ByteDecode_d(bytes)) in the build's order.
pub fn decompress_poly(d: u32, bytes: &[u8], mve: bool) -> Poly {
    stored(&unpack(d, bytes).map(|y| decompress(d, y)), mve)
}

/// `mlkem_encode12_{scalar,mve}`: ByteEncode_12 of (canonical) p in the build's order.
pub fn encode12(p: &Poly, mve: bool) -> Vec<u8> {
    pack(12, fips(p, mve).iter().map(|&x| x as u16 & 0xFFF))
}

/// `mlkem_decode12_{scalar,mve}`: ByteDecode_12 with its reduction, in the build's order.
pub fn decode12(bytes: &[u8], mve: bool) -> Poly {
    stored(&unpack(12, bytes).map(minus_q_if_above), mve)
}

/// `mlkem_poly_add_*`, `mlkem_poly_sub_*`, `mlkem_poly_reduce_*`: coefficient-wise, any order.
pub fn add(a: &Poly, b: &Poly) -> Poly {
    std::array::from_fn(|i| a[i].wrapping_add(b[i]))
}

pub fn sub(a: &Poly, b: &Poly) -> Poly {
    std::array::from_fn(|i| a[i].wrapping_sub(b[i]))
}

pub fn reduce(p: &Poly) -> Poly {
    p.map(canonical)
}

// ---- the products ----

/// `mlkem_dot_k3_scalar`: FIPS order; the six products of each pair accumulated in 32 bits over j, one reduction.
pub fn dot_k3_scalar(a: &[Poly], b: &[Poly]) -> Poly {
    let mut out = [0; N];
    for i in 0..N / 2 {
        let (mut even, mut odd) = (0i32, 0i32);
        for (x, y) in a.iter().zip(b).take(K) {
            let (a0, a1) = (i32::from(x[2 * i]), i32::from(x[2 * i + 1]));
            let (b0, b1) = (i32::from(y[2 * i]), i32::from(y[2 * i + 1]));
            let bg = i32::from(mulmod(b1 as i16, GAMMA[i], GAMMA_TW[i]));
            even = even.wrapping_add((a0 * b0).wrapping_add(a1 * bg));
            odd = odd.wrapping_add((a0 * b1).wrapping_add(a1 * b0));
        }
        observe(STEP_DOT_EVEN[0], even.into());
        observe(STEP_DOT_ODD[0], odd.into());
        out[2 * i] = barrett32(even);
        out[2 * i + 1] = barrett32(odd);
    }
    out
}

#[inline(always)]
fn mulmod_v(a: Q, row: &[i16; 16]) -> Q {
    vmlaq_n_s16(vmulq_s16(a, vld1q_s16(&row[..8])), vqrdmulhq_s16(a, vld1q_s16(&row[8..])), -Q)
}

/// `mlkem_dot_k3_mve`: MVE order, intrinsic by intrinsic: per 32-block and stride-4 lane set k (vld4q's vector k,
/// loaded as a gather), the 32-bit sums of the three pairs, one Barrett reduction, a scatter back.
pub fn dot_k3_mve(a: &[Poly], b: &[Poly]) -> Poly {
    let rows = ntt::basemul_gamma_rows();
    let mut out = [0; N];
    // vmulq_n_u16(vidupq_n_u16(0, 1), 4) in the kernel.
    let stride4 = vld1q_s16(&[0, 4, 8, 12, 16, 20, 24, 28]);
    for blk in 0..8 {
        for k in 0..4 {
            let g = &rows[4 * blk + k];
            let lanes = vaddq_n_u16(stride4, (32 * blk + k) as u16);
            let (mut even, mut odd) = (vdupq_n_s32(0), vdupq_n_s32(0));
            for (x, y) in a.iter().zip(b).take(K) {
                let x = vldrhq_gather_shifted_offset_s16(x, lanes);
                let y = vldrhq_gather_shifted_offset_s16(y, lanes);
                let bg = mulmod_v(y, g);
                let bs = vrev32q_s16(y);
                even = vaddq_s32(even, vaddq_s32(vmullbq_int_s16(x, y), vmulltq_int_s16(x, bg)));
                odd = vaddq_s32(odd, vaddq_s32(vmullbq_int_s16(x, bs), vmulltq_int_s16(x, bs)));
            }
            coverage::observe_s32(STEP_DOT_EVEN[1], even);
            coverage::observe_s32(STEP_DOT_ODD[1], odd);
            let re = vmlaq_n_s32(even, vqrdmulhq_n_s32(even, ntt::BARRETT32), -i32::from(Q));
            let ro = vmlaq_n_s32(odd, vqrdmulhq_n_s32(odd, ntt::BARRETT32), -i32::from(Q));
            vstrhq_scatter_shifted_offset_s16(&mut out, lanes, vmovntq_s32(vmovnbq_s32(re, re), ro));
        }
    }
    out
}

/// `mlkem_matvec_k3_*`: out_i = dot_k3(row i of a, s), `a` row-major (K x K polynomials).
pub fn matvec_k3(a: &[Poly], s: &[Poly], mve: bool) -> Vec<Poly> {
    a.chunks_exact(K).map(|row| if mve { dot_k3_mve(row, s) } else { dot_k3_scalar(row, s) }).collect()
}

/// Worst-case magnitudes of the products (both builds perform the same operations on each pair).
pub mod bounds {
    use super::{GAMMA, K};
    use crate::mlkem_ntt::bounds::{I16_MAX, barrett32_bound, mulmod_bound};

    fn fits(what: &str, b: i64, limit: i64) -> Result<i64, String> {
        if b <= limit { Ok(b) } else { Err(format!("{what}: bound {b} exceeds {limit}")) }
    }

    /// The output bound of dot_k3 for |a| <= a_max, |b| <= b_max: every partial 32-bit sum over the K pairs fits,
    /// and the one reduction's output.
    pub fn dot(a_max: i64, b_max: i64) -> Result<i64, String> {
        dot_sums(a_max, b_max).map(|(out, _)| out)
    }

    /// The output bound and the bounds of the even and odd sums (`STEP_DOT_EVEN`, `STEP_DOT_ODD`).
    pub fn dot_sums(a_max: i64, b_max: i64) -> Result<(i64, [i64; 2]), String> {
        let mut out = 0;
        let mut sums = [0; 2];
        for &gamma in &GAMMA {
            let bg = fits("b1 gamma", mulmod_bound(b_max, gamma), I16_MAX)?;
            let even = fits("even sum", K as i64 * (a_max * b_max + a_max * bg), i64::from(i32::MAX))?;
            let odd = fits("odd sum", K as i64 * 2 * a_max * b_max, i64::from(i32::MAX))?;
            sums = [sums[0].max(even), sums[1].max(odd)];
            out = out.max(barrett32_bound(even)).max(barrett32_bound(odd));
        }
        Ok((out, sums))
    }
}

/// The steps of the kernels with their proven intervals, and the corner cases of the products.
pub mod steps {
    use std::sync::LazyLock;

    use super::{
        COMPRESS_HALF, DOT_A_MAX, GAMMA, GAMMA_TW, K, N, Poly, Q, STEP_COMPRESS_DIV, STEP_COMPRESS_ROUND,
        STEP_DECODE12_REDUCE, STEP_DECOMPRESS_ROUND, STEP_DOT_EVEN, STEP_DOT_ODD, STEP_REDUCE, WIDTHS, bounds, mulmod,
        width_index,
    };
    use crate::coverage::Step;

    /// Any int16_t: the products' b and the reduction's input.
    const B_MAX: i64 = 32768;

    /// `reduce`: its Barrett input, any int16_t.
    pub fn reduce() -> Vec<Step> {
        vec![Step::range(STEP_REDUCE, -B_MAX, B_MAX - 1)]
    }

    /// Compression with width d: the reduction, the division's dividend, and its remainder mod q.
    pub fn compress(d: u32) -> Vec<Step> {
        let w = WIDTHS.iter().position(|&x| x == d).expect("a width the kernels serve");
        let half = i64::from(COMPRESS_HALF);
        vec![
            Step::range(STEP_REDUCE, -B_MAX, B_MAX - 1),
            Step::range(STEP_COMPRESS_DIV[w], half, ((i64::from(Q) - 1) << d) + half),
            Step::range(STEP_COMPRESS_ROUND[w], 0, i64::from(Q) - 1),
        ]
    }

    /// Decompression with width d: the bits the rounding shift drops, (q y + 2^(d-1)) mod 2^d, every value of
    /// [0, 2^d - 1] (q is odd, so y -> q y is a bijection mod 2^d).
    pub fn decompress(d: u32) -> Vec<Step> {
        vec![Step::range(STEP_DECOMPRESS_ROUND[width_index(d)], 0, (1 << d) - 1)]
    }

    /// ByteDecode_12: every 12-bit value is an input of its reduction.
    pub fn decode12() -> Vec<Step> {
        vec![Step::range(STEP_DECODE12_REDUCE, 0, 4095)]
    }

    /// The b1 (any int16_t) with the largest |mulmod(b1, gamma_i)|, and that product's sign.
    fn best_b1(i: usize) -> (i16, i16) {
        let bg = |b: i16| mulmod(b, GAMMA[i], GAMMA_TW[i]);
        let b1 = (i16::MIN..=i16::MAX).max_by_key(|&b| (bg(b).unsigned_abs(), b)).unwrap();
        (b1, bg(b1).signum())
    }

    static BEST_B1: LazyLock<Vec<(i16, i16)>> = LazyLock::new(|| (0..N / 2).map(best_b1).collect());

    /// `dot_k3` and `matvec_k3` (`mve` for the MVE build): the even and odd sums.
    pub fn dot(mve: bool) -> Vec<Step> {
        let (_, [even, odd]) = bounds::dot_sums(DOT_A_MAX, B_MAX).expect("the products' bounds hold");
        let bg = BEST_B1.iter().enumerate().map(|(i, &(b1, _))| i64::from(mulmod(b1, GAMMA[i], GAMMA_TW[i])).abs());
        let bg = bg.max().unwrap();
        let reached = K as i64 * (DOT_A_MAX * B_MAX + DOT_A_MAX * bg);
        let even_step = Step::magnitude(STEP_DOT_EVEN[usize::from(mve)], even);
        let even_step = if reached < even {
            even_step.reachable(
                -reached,
                reached,
                format!(
                    "{K} (a0 b0 + a1 (b1 gamma mod+-)): |b1 gamma mod+-| reaches {bg} (exhaustive over b1 and gamma)"
                ),
            )
        } else {
            even_step
        };
        vec![even_step, Step::magnitude(STEP_DOT_ODD[usize::from(mve)], odd)]
    }

    /// Corner cases of the products (FIPS order; a then b, each K polynomials): the even sums at their high and low
    /// ends (b0 = -32768 and a0 = -+4095, b1 the one whose product with gamma is largest, a1 of that sign), then the
    /// odd sums (every b = -32768, every a = -+4095).
    pub static DOT_CORNERS: LazyLock<Vec<[Poly; 2]>> = LazyLock::new(|| {
        let a_max = DOT_A_MAX as i16;
        let best = &*BEST_B1;
        let b: Poly = std::array::from_fn(|c| if c % 2 == 0 { i16::MIN } else { best[c / 2].0 });
        let even = |sign: i16| -> Poly {
            std::array::from_fn(|c| if c % 2 == 0 { -sign * a_max } else { sign * best[c / 2].1 * a_max })
        };
        vec![[even(1), b], [even(-1), b], [[-a_max; N], [i16::MIN; N]], [[a_max; N], [i16::MIN; N]]]
    });

    /// How many: known without computing them.
    pub const DOT_CORNER_CASES: usize = 4;
}
