//! Model of the FN-DSA key generation's 32.32 fixed-point division on the FPU (`kernels/arm/fndsa_keygen/div.c`):
//! one VDIV.F64 reciprocal, two 32-bit quotient digits estimated in binary64, one integer correction step per digit,
//! the rounding bit and the sign, in the C source's order of operations. It is written from the closed form of the
//! bit-by-bit division (below), not from the bit loop, so that model == reference is a check of the algorithm.
//!
//! # What the bit-by-bit division computes
//!
//! `pqhelium_core::fndsa::keygen::fxp::div(x, y)` works on ax = |x| and d = |y| (both at most 2^63) and returns
//! sign(x y) times a 64-bit magnitude q. Let N = ax 2^32.
//!
//! - **Normal** (N < 2^64 d, i.e. ax >> 32 < d): the 64 steps are a restoring division whose window stays below
//!   2d <= 2^64, where the signed test `num - d >= 0` is exact. So q = floor(N/d) + [2r >= d] (r = N mod d): round
//!   half up. q < 2^64 - 1 here, so the rounding never wraps.
//! - **Overflow** (N >= 2^64 d, which forces d <= 2^31, and includes d = 0): the first step leaves a window of at
//!   least d and it never falls below d again; with z = window - 2d the step becomes z <- (2z + bit) mod D with
//!   D = 2^64 - 2d and quotient digit 1 - b. The 64 steps therefore divide 2(N - 2^64 d) by D and the loop keeps the
//!   complemented quotient digits, and the rounding step complements too: q = -(floor(N'/E) + [2r' >= E]) mod 2^64
//!   with E = 2^63 - d, N' = N - 2^64 d, r' = N' mod E. For d = 0, E = 2^63: q = -((ax + 2^30) >> 31).
//!
//! Both are one rounded division round(T 2^32 / den) of a 64-bit T by a divisor in [1, 2^63], then a negation for
//! the overflow class: (T, den) = (ax, d) or (ax - d 2^32, 2^63 - d). The quotient is below 2^64 in both classes.
//!
//! # Why the estimates plus one correction per digit are exact
//!
//! Conversions of 32-bit halves to binary64 are exact, so a 64-bit value converts with one rounding (relative error
//! at most u = 2^-53), and so does the divisor; 1/den adds one rounding, the product one more. An estimate of a
//! quotient Z < 2^32 is therefore within Z ((1+u)^3/(1-u) - 1) < 2^32 * 4.01 u < 2^-19 of Z, and subtracting the
//! bias 2^-8 (one more rounding, at most 2^-21) gives e with Z - 1 < e < Z. Truncated to an integer (`vcvt`, toward
//! zero; e > -1 truncates to 0) that is floor(Z) or floor(Z) - 1, never more and never negative: one conditional
//! subtraction of den from the remainder (which is then below 2 den <= 2^64, so 64-bit arithmetic is exact) makes the
//! digit exact. The high digit is floor(T / den), the low digit floor(r1 2^32 / den) with r1 < den; the last
//! remainder r0 < den <= 2^63 gives the rounding bit [2 r0 >= den] without overflow.

use crate::coverage::{self, Boundary};

/// 2^32 as a binary64.
const TWO32: f64 = 4294967296.0;
/// Subtracted from every digit estimate so that it is never above the exact quotient (its error is below 2^-18).
pub const ESTIMATE_BIAS: f64 = 1.0 / 256.0;

/// Which of the two integer correction steps run (both, in the kernel; a mutant leaves one out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrections {
    /// After the high quotient digit.
    pub high: bool,
    /// After the low quotient digit.
    pub low: bool,
}

impl Corrections {
    /// The kernel's: one step per digit.
    pub const BOTH: Corrections = Corrections { high: true, low: true };
}

/// A u64 below 2^64 to binary64 with one rounding, as the kernel converts it: the two 32-bit halves exactly, then
/// high * 2^32 + low.
#[inline]
pub fn u64_to_f64(v: u64) -> f64 {
    f64::from((v >> 32) as u32) * TWO32 + f64::from(v as u32)
}

/// 1 when a < b (the borrow of a - b), from bit operations only.
#[inline]
fn borrow(a: u64, b: u64) -> u64 {
    let diff = a.wrapping_sub(b);
    ((!a & b) | (!(a ^ b) & diff)) >> 63
}

/// One estimated digit: trunc(z - bias) for an estimate z of a quotient below 2^32 (saturating, as VCVT.U32.F64).
/// `step` names the truncation for the bound coverage.
#[inline]
fn digit(estimate: f64, step: &'static str) -> u64 {
    let biased = estimate - ESTIMATE_BIAS;
    coverage::observe_fp(step, Boundary::Integer, biased);
    u64::from(biased as u32)
}

/// Bound-coverage steps: the two digit estimates (bias subtracted) before their truncation.
pub const STEP_HIGH_DIGIT: &str = "fndsa.keygen.div/high_digit.trunc";
pub const STEP_LOW_DIGIT: &str = "fndsa.keygen.div/low_digit.trunc";

/// The steps of every division kernel (the FPU kernels and their baselines share this model): how close each
/// biased estimate comes to an integer, where its truncation changes.
pub fn steps() -> Vec<coverage::Step> {
    vec![coverage::Step::fp(STEP_HIGH_DIGIT, Boundary::Integer), coverage::Step::fp(STEP_LOW_DIGIT, Boundary::Integer)]
}

/// The correction step: (r, q) <- (r - den, q + 1) when r >= den, with masks.
#[inline]
fn correct(r: u64, q: u64, den: u64) -> (u64, u64) {
    let keep = borrow(r, den);
    let take = keep ^ 1;
    (r.wrapping_sub(den & take.wrapping_neg()), q + take)
}

/// round(t 2^32 / den), ties up, for den in [1, 2^63] and a quotient below 2^64.
fn rounded_quotient(t: u64, den: u64, corrections: Corrections) -> u64 {
    let inv = 1.0 / u64_to_f64(den);
    let inv32 = inv * TWO32;

    let mut q1 = digit(u64_to_f64(t) * inv, STEP_HIGH_DIGIT);
    let mut r1 = t.wrapping_sub(q1.wrapping_mul(den));
    if corrections.high {
        (r1, q1) = correct(r1, q1, den);
    }

    let mut q0 = digit(u64_to_f64(r1) * inv32, STEP_LOW_DIGIT);
    let mut r0 = (r1 << 32).wrapping_sub(q0.wrapping_mul(den));
    if corrections.low {
        (r0, q0) = correct(r0, q0, den);
    }

    let round_up = borrow(r0 << 1, den) ^ 1;
    (q1 << 32).wrapping_add(q0).wrapping_add(round_up)
}

/// The division with a choice of correction steps (see [`div`]); `Corrections::BOTH` is the kernel.
pub fn div_with(x: u64, y: u64, corrections: Corrections) -> u64 {
    let sx = ((x as i64) >> 63) as u64;
    let sy = ((y as i64) >> 63) as u64;
    let ax = (x ^ sx).wrapping_sub(sx);
    let ay = (y ^ sy).wrapping_sub(sy);
    // Overflow class (d = 0 included): ax >> 32 >= d.
    let overflow = borrow(ax >> 32, ay) ^ 1;
    let mask = overflow.wrapping_neg();
    let t = ax.wrapping_sub((ay << 32) & mask);
    let den = (ay & !mask) | ((1u64 << 63).wrapping_sub(ay) & mask);
    let q = rounded_quotient(t, den, corrections);
    let s = sx ^ sy ^ mask;
    (q ^ s).wrapping_sub(s)
}

/// x / y in 32.32 with exactly the bits of the reference's bit-by-bit division, for every operand pair.
pub fn div(x: u64, y: u64) -> u64 {
    div_with(x, y, Corrections::BOTH)
}

/// The square of a 32.32 value, floor(a^2 / 2^32) mod 2^64, in the kernel's 32-bit pieces: with a = h 2^32 + l
/// (h signed), a^2 / 2^32 = h^2 2^32 + 2 h l + l^2 / 2^32.
#[inline]
pub fn sqr(a: u64) -> u64 {
    let h = (a >> 32) as i32;
    let l = u64::from(a as u32);
    let hh = u64::from((h as u32).wrapping_mul(h as u32)) << 32;
    let hl = (i64::from(h) * l as i64) as u64;
    hh.wrapping_add(hl << 1).wrapping_add((l * l) >> 32)
}

/// `fndsa.keygen.div_selfadj`: a\[i\] <- a\[i\] / b\[i\] and a[i + n/2] <- a[i + n/2] / b\[i\] for i < n/2.
pub fn div_selfadj(logn: u32, a: &mut [u64], b: &[u64]) {
    let hn = 1usize << (logn - 1);
    for i in 0..hn {
        a[i] = div(a[i], b[i]);
        a[i + hn] = div(a[i + hn], b[i]);
    }
}

/// `fndsa.keygen.invnorm`: d\[i\] <- 2^e / (|a_i|^2 + |b_i|^2) for i < n/2, e <= 31.
pub fn invnorm(logn: u32, d: &mut [u64], a: &[u64], b: &[u64], e: u32) {
    let hn = 1usize << (logn - 1);
    let numerator = 1u64 << (32 + e);
    for i in 0..hn {
        let norm = sqr(a[i]).wrapping_add(sqr(a[i + hn])).wrapping_add(sqr(b[i])).wrapping_add(sqr(b[i + hn]));
        d[i] = div(numerator, norm);
    }
}

/// `fndsa.keygen.inv_mul2e`: a_i <- 2^e / a_i slot by slot, (re 2^e, -im 2^e) / (re^2 + im^2), e <= 63.
pub fn inv_mul2e(logn: u32, a: &mut [u64], e: u32) {
    let hn = 1usize << (logn - 1);
    for i in 0..hn {
        let (re, im) = (a[i], a[i + hn]);
        let norm = sqr(re).wrapping_add(sqr(im));
        a[i] = div(re << e, norm);
        a[i + hn] = div(im.wrapping_neg() << e, norm);
    }
}

/// The operand classes the exactness argument relies on, as (x, y) pairs, each magnitude pair under the four sign
/// combinations: zero denominators over structured numerators; |y| = 1 ulp; every pair of powers of two (2^63 as
/// i64::MIN); the largest operands; the normal/overflow boundary ax = 2^32 d - 1, 2^32 d, 2^32 d + 1; quotients next
/// to a rounding boundary (2r - d = -1, +1 for odd d; exact ties 2r = d for d = 2^33 m, and their neighbours);
/// quotients that are exact integers or next to a change of the high digit (where a digit estimate is one low).
pub fn edge_pairs() -> Vec<(u64, u64)> {
    let numerators = structured_magnitudes();
    let mut magnitudes: Vec<(u64, u64)> = Vec::new();
    magnitudes.extend(numerators.iter().map(|&x| (x, 0)));
    magnitudes.extend(numerators.iter().map(|&x| (x, 1)));
    for i in 0..64 {
        magnitudes.extend((0..64).map(|j| (1u64 << i, 1u64 << j)));
    }
    let largest = [1 << 63, (1 << 63) - 1, (1 << 63) - 2, (1 << 62) + 1, 1 << 62, (1 << 62) - 1, 0xFFFF_FFFF_0000_0000];
    for &x in &largest {
        magnitudes.extend(largest.iter().map(|&y| (x, y)));
    }
    for d in divisors().into_iter().filter(|&d| d <= 1 << 31) {
        magnitudes
            .extend([(d << 32) - 1, d << 32, (d << 32) + 1].into_iter().filter(|&x| x <= 1 << 63).map(|x| (x, d)));
    }
    for d in divisors().into_iter().filter(|&d| d & 1 == 1 && d > 1) {
        // x 2^32 = q d + r with 2r = d - 1 and d + 1: x = r 2^-32 mod d, plus multiples of d for larger quotients.
        let inv = inverse_of_two32(d);
        for r in [d / 2, d / 2 + 1] {
            let x0 = ((u128::from(r) * u128::from(inv)) % u128::from(d)) as u64;
            for k in [0u64, 1, 2, 0xFFFF, 1 << 20, 0xFFFF_FFFF] {
                if let Some(x) = k.checked_mul(d).and_then(|kd| kd.checked_add(x0)).filter(|&x| x <= 1 << 63) {
                    magnitudes.push((x, d));
                }
            }
        }
    }
    for m in [1u64, 3, 5, 0x3FFF_FFFF, 0x1234_5679] {
        // d = 2^33 m: x = m (2Q + 1) is an exact tie, x +/- 1 its neighbours.
        for q in [0u64, 1, 2, 1000, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            let x = m * (2 * q + 1);
            magnitudes.extend([x - 1, x, x + 1].into_iter().filter(|&x| x <= 1 << 63).map(|x| (x, m << 33)));
        }
    }
    for d in divisors() {
        // Exact quotients (x 2^32 a multiple of d when d = 2^32 m) and high-digit changes (x = j d - 1, j d, j d + 1).
        for j in [1u64, 2, 3, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            if let Some(jd) = j.checked_mul(d).filter(|&jd| jd < 1 << 63) {
                magnitudes.extend([(jd - 1, d), (jd, d), (jd + 1, d)]);
            }
        }
    }
    let mut pairs = Vec::with_capacity(4 * magnitudes.len());
    for (x, y) in magnitudes {
        for (sx, sy) in [(false, false), (true, false), (false, true), (true, true)] {
            let signed = |v: u64, negative: bool| if negative { v.wrapping_neg() } else { v };
            pairs.push((signed(x, sx), signed(y, sy)));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Numerator magnitudes with structure: 0, 2^k and 2^k +/- 1, the halves of a 2^31 step (where the zero-denominator
/// result rounds: bit 30), the top of the range.
fn structured_magnitudes() -> Vec<u64> {
    let mut v = vec![0u64];
    for k in 0..64 {
        let p = 1u64 << k;
        v.extend([p, p.wrapping_sub(1), p.wrapping_add(1)].into_iter().filter(|&x| x <= 1 << 63));
    }
    for m in [1u64, 2, 3, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF] {
        let step = m << 31;
        v.extend([step + (1 << 30) - 1, step + (1 << 30), step + (1 << 30) + 1]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Divisor magnitudes of every size: small odd and even values, 2^k +/- 1, values with long runs of ones, the top.
fn divisors() -> Vec<u64> {
    let mut v = vec![1u64, 2, 3, 5, 7, 12289, 0xFFFF, 0x1_0001, 0x1234_5679, 0x7FFF_FFFF, 0x8000_0001, 0xFFFF_FFFF];
    for k in [20u32, 31, 32, 33, 40, 52, 53, 54, 62] {
        v.extend([(1u64 << k) - 1, (1u64 << k) + 1]);
    }
    v.extend([0x5555_5555_5555_5555, 0x7FFF_FFFF_FFFF_FFFF, 0x4000_0000_0000_0001, 0x0123_4567_89AB_CDEF]);
    v
}

/// 2^-32 mod d for odd d > 1: x = r 2^-32 mod d is the smallest x with x 2^32 = r (mod d).
pub fn inverse_of_two32(d: u64) -> u64 {
    let d = u128::from(d);
    // 2^-1 mod d = (d + 1) / 2; raise it to the 32nd power.
    let half = d.div_ceil(2);
    (0..32).fold(1u128, |acc, _| acc * half % d) as u64
}

/// A random operand with its magnitude spread over every scale, from two random words: `random` shifted right by
/// 0..=63 bits (`control` mod 64), negated when bit 6 of `control` is set. Uniform words alone would almost never
/// give small divisors, the overflow class or large quotients.
pub fn spread_operand(random: u64, control: u64) -> u64 {
    let v = random >> (control % 64);
    if control >> 6 & 1 == 1 { v.wrapping_neg() } else { v }
}
