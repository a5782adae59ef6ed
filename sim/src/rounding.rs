//! IEEE binary64 rounding coverage: how close an operation's exact result came to the corners of its rounding
//! (roundTiesToEven), measured exactly from the operands and the rounded result, and operands built in closed form
//! that put an operation on those corners.
//!
//! The corners of one rounding:
//! - a tie: the exact result halfway between two doubles (ties to even decides);
//! - a carry: the exact result below a power of two in magnitude and rounded up onto it (the significand carries
//!   into the exponent);
//! - the ends of the normal range: a result at the least normal magnitude 2^-1022, and one overflowing to infinity.
//!
//! The tie distance compares the operation's exact residual with the residual T an exact tie would leave (both
//! doubles, computed without rounding): the gap T - |residual| in units of T's ulp, rounded up (so 0 only at a tie,
//! and 1 or 2 for the nearest exact results either side of one, by the grid of the operation's exact result). The residual is the TwoSum error for a
//! sum, a*b - r by fma for a product, a - q*b by fma for a quotient (a tie leaves half an ulp of q times |b|), and
//! a - s*s by fma for a square root (a square root is never a tie: the target there is a = s*s +- s*ulp(s), the
//! closest a square of a double's neighbour can come, 0 at it). A quotient is never a tie either: its closest
//! approach is 1.

use crate::coverage::{self, ulps_between};

/// An operation whose exact result is rounded to binary64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exact {
    /// a + b (a subtraction passes -b).
    Sum(f64, f64),
    Product(f64, f64),
    Quotient(f64, f64),
    Root(f64),
    /// An integer converted to binary64.
    Integer(i64),
}

/// How close one rounding came to its corners (0: at the corner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Distance {
    /// The gap between the exact residual and a tie's, in ulps of the tie's residual (rounded up).
    pub tie: u64,
    /// 0 when the rounding carried into the next binade; else the ulps from the rounded result to the power of two
    /// above the exact result's binade.
    pub carry: u64,
}

const EXP_MASK: u64 = 0x7FF0_0000_0000_0000;
const INF_BITS: u64 = EXP_MASK;

/// 2^k, for k in the normal range.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The unbiased exponent of a normal double.
fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7FF) as i32 - 1023
}

/// Operands below this magnitude are scaled by [`SCALE`] before a residual is taken, so that it cannot underflow.
const SMALL: f64 = 1.0e-240;
const SCALE: i32 = 256;

/// The distances of rounding `op` to `r`; `None` when `r` is zero, subnormal or not finite (no tie or carry is
/// measured there: the [`Steps::underflow`] and [`Steps::overflow`] steps are).
pub fn distance(op: Exact, r: f64) -> Option<Distance> {
    if !r.is_normal() {
        return None;
    }
    // The residual (scaled by 2^scale against underflow), the sign of exact - r, and the factor f of the tie's
    // residual T = f * half an ulp of the exact result's binade * 2^scale.
    let (residual, above, scale, factor) = match op {
        Exact::Sum(a, b) => {
            // TwoSum: exact, gradual underflow included; rescaled when half an ulp of r is below the subnormals.
            let bp = r - a;
            let err = (a - (r - bp)) + (b - bp);
            let scale = if r.abs() < SMALL { SCALE } else { 0 };
            (err * pow2(scale), err > 0.0, scale, 1.0)
        }
        Exact::Product(a, b) => {
            let scale = if r.abs() < SMALL { SCALE } else { 0 };
            // Scale the smaller operand: its product with 2^256 stays finite when the product is that small.
            let (a, b) = if a.abs() < b.abs() { (a, b) } else { (b, a) };
            let err = (a * pow2(scale)).mul_add(b, -r * pow2(scale));
            (err, err > 0.0, scale, 1.0)
        }
        Exact::Quotient(a, b) => {
            let scale = if a.abs() < SMALL { SCALE } else { 0 };
            let (a, b) = (a * pow2(scale), b * pow2(scale));
            if !b.is_finite() {
                return None;
            }
            // a / b - q = rem / b; a tie leaves rem = h |b|.
            let rem = (-r).mul_add(b, a);
            (rem, rem != 0.0 && (rem > 0.0) == (b > 0.0), 0, b.abs())
        }
        Exact::Root(a) => {
            // a - s^2 for the scaled root s 2^(scale/2); the nearest to a tie is 2 s h (the tie leaves 2 s h +- h^2).
            let scale = if a < SMALL { SCALE } else { 0 };
            let (a, s) = (a * pow2(scale), r * pow2(scale / 2));
            let rem = (-s).mul_add(s, a);
            (rem, rem > 0.0, scale / 2, 2.0 * s)
        }
        Exact::Integer(x) => {
            let err = (i128::from(x) - r as i128) as f64;
            (err, err > 0.0, 0, 1.0)
        }
    };
    // Rounded up in magnitude: the exact result lies toward zero from r, in the binade below when r is its edge.
    let up = residual != 0.0 && (above != (r > 0.0));
    let toward_zero = if up { r.abs().to_bits() - 1 } else { r.abs().to_bits() };
    let edge = (toward_zero & EXP_MASK) + (1 << 52);
    let carry = r.abs().to_bits().abs_diff(edge);
    let binade = ((toward_zero >> 52) as i32) - 1023;
    let tie = factor * pow2(binade - 53 + scale);
    if !tie.is_normal() {
        return None;
    }
    // Exact where it matters: T - |residual| is exact (Sterbenz) when |residual| >= T / 2, and ulp(T) a power of two.
    let ulp_t = pow2(exponent(tie) - 52);
    let tie = ((tie - residual.abs()).abs() / ulp_t).ceil() as u64;
    Some(Distance { tie, carry })
}

/// The step names of one kernel's roundings of one operation kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    pub tie: &'static str,
    pub carry: &'static str,
    /// The ulps between a nonzero result's magnitude and 2^-1022 (0: the least normal), where observed.
    pub underflow: Option<&'static str>,
    /// The ulps between a result's magnitude and infinity (0: overflowed), where observed.
    pub overflow: Option<&'static str>,
}

impl Steps {
    /// Tie and carry steps only (results in the normal range).
    pub const fn normal(tie: &'static str, carry: &'static str) -> Steps {
        Steps { tie, carry, underflow: None, overflow: None }
    }
}

/// Observes the rounding of `op` to `r` under `steps` (while recording; see [`coverage::record`]).
#[inline(always)]
pub fn observe(steps: &Steps, op: Exact, r: f64) {
    if coverage::enabled() {
        record(steps, op, r);
    }
}

#[cold]
fn record(steps: &Steps, op: Exact, r: f64) {
    if let Some(d) = distance(op, r) {
        coverage::observe_ulps(steps.tie, d.tie, r);
        coverage::observe_ulps(steps.carry, d.carry, r);
    }
    let m = r.abs();
    if let Some(step) = steps.underflow.filter(|_| r != 0.0 && r.is_finite()) {
        coverage::observe_ulps(step, ulps_between(m, f64::MIN_POSITIVE), r);
    }
    if let Some(step) = steps.overflow.filter(|_| !r.is_nan()) {
        coverage::observe_ulps(step, m.to_bits().abs_diff(INF_BITS), r);
    }
}

/// Observes a + b rounded (and a - b as a + (-b)).
#[inline(always)]
pub fn add(steps: &Steps, a: f64, b: f64) -> f64 {
    let r = a + b;
    observe(steps, Exact::Sum(a, b), r);
    r
}

/// a - b, observed as a + (-b).
#[inline(always)]
pub fn sub(steps: &Steps, a: f64, b: f64) -> f64 {
    let r = a - b;
    observe(steps, Exact::Sum(a, -b), r);
    r
}

/// a * b, observed.
#[inline(always)]
pub fn mul(steps: &Steps, a: f64, b: f64) -> f64 {
    let r = a * b;
    observe(steps, Exact::Product(a, b), r);
    r
}

/// Operands built in closed form that put one rounding on a corner: `off` moves the exact result that many units of
/// the residual's grid off the tie (0: the tie itself), `lsb` picks the parity of the kept bits (ties to even rounds
/// an even one down, an odd one up).
pub mod corners {
    use super::pow2;

    const FRAC: u64 = (1 << 52) - 1;

    /// 2^e (1 + m 2^-52).
    pub fn with_fraction(m: u64, e: i32) -> f64 {
        f64::from_bits((((e + 1023) as u64) << 52) | (m & FRAC))
    }

    /// (a, b): a = 2^e (1 + frac 2^-52), b = half an ulp of a moved `off` ulps of b: a + b is a tie when `off` is 0,
    /// its kept bits' parity that of `frac`. With `frac` all ones the tie rounds up into the next binade.
    pub fn sum_tie(frac: u64, e: i32, off: i64) -> (f64, f64) {
        let b = f64::from_bits((pow2(e - 53).to_bits() as i64 + off) as u64);
        (with_fraction(frac, e), b)
    }

    /// A significand a in [1, 2) such that a * b's exact product ends, below its 53 kept bits, in 1 followed by zeros
    /// (a tie) moved by `off` units of the product's last bit, the kept bits' parity `lsb`: a's significand solved
    /// modulo 2^53 against b's, its free upper bits drawn from `seed`. None when no such a exists for this b (an odd
    /// b's significand fixes a's, and with it the parity) or `off` is not a multiple of b's significand's power of two.
    pub fn product_tie(b: f64, seed: u64, lsb: u64, off: i64) -> Option<f64> {
        let mb = (b.abs().to_bits() & FRAC) | (1 << 52);
        let tz = mb.trailing_zeros();
        let inv = inverse_mod_2_64(mb >> tz);
        for k in 0..64u64 {
            let draw = seed.wrapping_add(k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            // The product is in [2^104, 2^106): 53 or 52 bits fall below the kept ones.
            for below in [53u32, 52] {
                let target = (1u128 << (below - 1)).wrapping_add(off as u128) & ((1u128 << below) - 1);
                if target.trailing_zeros() < tz && target != 0 {
                    continue;
                }
                // ma * (mb >> tz) = target >> tz modulo 2^(below - tz); the bits above are free.
                let width = below - tz;
                let low = ((target >> tz) as u64).wrapping_mul(inv) & ((1u64 << width) - 1);
                let ma = ((draw >> 11) & !((1u64 << width) - 1)) | low | (1 << 52);
                if ma >> 53 != 0 || ma & ((1u64 << width) - 1) != low {
                    continue;
                }
                let p = u128::from(ma) * u128::from(mb);
                let kept_from = if p >> 105 == 1 { 53 } else { 52 };
                if kept_from == below && (p >> below) as u64 & 1 == lsb && p & ((1u128 << below) - 1) == target {
                    return Some(with_fraction(ma, 0));
                }
            }
        }
        None
    }

    /// A significand a in [1, 2) whose exact product with b's significand lies below 2 and rounds up onto it (a carry
    /// into the next binade): a neighbour of 2 / b's significand. None when no double lies in the half-ulp window
    /// below (about two b's in three have one).
    pub fn product_carry(b: f64) -> Option<f64> {
        let mb = with_fraction(b.abs().to_bits(), 0);
        let guess = 2.0 / mb;
        (-4i64..=4)
            .map(|k| f64::from_bits((guess.to_bits() as i64 + k) as u64))
            .find(|&a| (1.0..2.0).contains(&a) && a * mb == 2.0 && a.mul_add(mb, -2.0) < 0.0)
    }

    /// (a, b) with a / b as close to a tie as a quotient comes: a / b = M / 2^54 + s / (2^54 B) for an odd 54-bit M
    /// (a midpoint in [1/2, 1)) and the divisor's significand B, s = +-1: M = -s / B modulo 2^54, A = (M B + s) / 2^54.
    /// B is drawn from `seed`; None when this B gives no 53-bit A.
    pub fn quotient_near_tie(seed: u64, s: i64) -> Option<(f64, f64)> {
        let mb = (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) | (1 << 52) | 1;
        let m = ((s.wrapping_neg() as u64).wrapping_mul(inverse_mod_2_64(mb))) & ((1 << 54) - 1);
        if m >> 53 != 1 {
            return None;
        }
        let n = (u128::from(m) * u128::from(mb)).wrapping_add(s as u128);
        let ma = (n >> 54) as u64;
        (ma >> 52 == 1 && n & ((1 << 54) - 1) == 0).then(|| (with_fraction(ma, 0), with_fraction(mb, 0)))
    }

    /// The inverse of an odd x modulo 2^64 (Newton's iteration doubles the correct bits).
    fn inverse_mod_2_64(x: u64) -> u64 {
        let mut y = x;
        for _ in 0..6 {
            y = y.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(y)));
        }
        y
    }
}

/// What no operands reach on a quotient's and a square root's rounding .
pub const QUOTIENT_TIE_NOTE: &str = "a quotient of doubles is never a tie (its odd 54-bit midpoint times the \
                                            divisor's odd part has more than 53 bits): 1 is the closest";
pub const QUOTIENT_CARRY_NOTE: &str = "a quotient never rounds up onto a power of two (a and b on one grid: \
                                              1 - a/b is at least an ulp): 1 is the closest";
pub const ROOT_TIE_NOTE: &str =
    "measured against a = s^2 +- s ulp(s), the closest a square root comes to a tie (never one)";
pub const ROOT_CARRY_NOTE: &str = "a square root never rounds up onto a power of two: 1 is the closest";

#[cfg(test)]
mod tests {
    use super::*;

    fn d(op: Exact) -> Distance {
        let r = match op {
            Exact::Sum(a, b) => a + b,
            Exact::Product(a, b) => a * b,
            Exact::Quotient(a, b) => a / b,
            Exact::Root(a) => a.sqrt(),
            Exact::Integer(x) => x as f64,
        };
        distance(op, r).unwrap()
    }

    #[test]
    fn ties_and_carries_of_sums() {
        let ulp1 = f64::from_bits(1f64.to_bits() + 1);
        let h = pow2(-53);
        assert_eq!(d(Exact::Sum(1.0, h)).tie, 0);
        assert_eq!(d(Exact::Sum(ulp1, h)).tie, 0);
        assert_eq!(d(Exact::Sum(1.0, f64::from_bits(h.to_bits() + 1))).tie, 1);
        assert_eq!(d(Exact::Sum(1.0, f64::from_bits(h.to_bits() - 1))).tie, 1);
        assert!(d(Exact::Sum(1.0, 1.0)).tie > 1 << 40);
        // 2 - 2^-52 + 2^-53: a tie, rounded up to 2 (odd kept bits): a carry.
        let below_two = f64::from_bits(2f64.to_bits() - 1);
        assert_eq!(d(Exact::Sum(below_two, h)), Distance { tie: 0, carry: 0 });
        // exactly 2: no rounding, 2^52 ulps from the next edge
        assert_eq!(d(Exact::Sum(below_two, pow2(-52))).carry, 1 << 52);
        // just below the tie: stays below 2, one ulp from the edge
        assert_eq!(d(Exact::Sum(below_two, f64::from_bits(h.to_bits() - 1))).carry, 1);
        // subtraction rounding up in magnitude toward -2
        assert_eq!(d(Exact::Sum(-below_two, -h)).carry, 0);
        // tiny results: the residual rescaled
        let tiny = pow2(-1000);
        assert_eq!(d(Exact::Sum(tiny, tiny * h)).tie, 0);
    }

    #[test]
    fn ties_of_products_quotients_roots_and_conversions() {
        let x = 1.0 + pow2(-26);
        let y = 1.0 + pow2(-27);
        assert_eq!(d(Exact::Product(x, y)).tie, 0);
        assert_eq!(d(Exact::Product(-x * pow2(-500), y * pow2(-430))).tie, 0);
        // 3 * fl(1/3) = 1 - 2^-54 exactly: a tie (rounded to 1)
        assert_eq!(d(Exact::Product(3.0, 1.0 / 3.0)).tie, 0);
        assert!(d(Exact::Product(5.0, 1.0 / 3.0)).tie > 1 << 40);
        // 2^53 + 1: a tie; 2^53 + 3: a tie rounded up
        assert_eq!(d(Exact::Integer((1 << 53) + 1)).tie, 0);
        assert_eq!(d(Exact::Integer((1 << 53) + 2)).tie, 1 << 52);
        assert_eq!(d(Exact::Integer(i64::MAX)).carry, 0);
        // a = 1 + 2^-52 = s (s + ulp s) for s = 1: the closest a root comes to a tie
        assert_eq!(d(Exact::Root(f64::from_bits(1f64.to_bits() + 1))).tie, 0);
        assert!(d(Exact::Root(2.0)).tie > 0);
        assert!(d(Exact::Quotient(1.0, 3.0)).tie > 0);
        assert_eq!(d(Exact::Quotient(6.0, 3.0)).carry, 1 << 52);
    }

    #[test]
    fn closed_form_corners_land_on_them() {
        for (frac, lsb) in [(0u64, 0), (1, 1), (0x8_0000_0000_0002, 0), (0xF_FFFF_FFFF_FFFD, 1)] {
            for e in [-960, -3, 0, 7, 1000] {
                let (a, b) = corners::sum_tie(frac, e, 0);
                assert_eq!(d(Exact::Sum(a, b)).tie, 0, "{frac:#x} 2^{e}");
                assert_eq!(a + b == a, lsb == 0, "ties to even");
                for off in [-1, 1] {
                    let (a, b) = corners::sum_tie(frac, e, off);
                    assert_eq!(d(Exact::Sum(a, b)).tie, 1);
                }
            }
        }
        // all ones: the tie rounds up into the next binade
        let (a, b) = corners::sum_tie((1 << 52) - 1, 5, 0);
        assert_eq!(d(Exact::Sum(a, b)), Distance { tie: 0, carry: 0 });
        for b in [std::f64::consts::PI, std::f64::consts::FRAC_1_SQRT_2, 1.5, 1.0 / 3.0, 1.25] {
            for lsb in [0, 1] {
                let Some(a) = corners::product_tie(b, 7, lsb, 0) else { continue };
                assert_eq!(d(Exact::Product(a, b)).tie, 0, "{a} {b}");
                assert_eq!((a * b).to_bits() & 1, 0, "ties to even");
                for off in [-1, 1] {
                    if let Some(a) = corners::product_tie(b, 7, lsb, off) {
                        // one unit of the product's grid: 1 ulp of T, or 2 when the product has 105 bits
                        assert!((1..=2).contains(&d(Exact::Product(a, b)).tie), "{a} {b} {off}");
                    }
                }
            }
        }
        // an odd significand fixes the solution; both parities come from both products' binades or other seeds
        let found = |b: f64, lsb| (0..8).any(|seed| corners::product_tie(b, seed, lsb, 0).is_some());
        let odd = [std::f64::consts::PI, std::f64::consts::FRAC_1_SQRT_2, 1.0 / 3.0, 0.1, 0.9238795325112867];
        assert!(odd.iter().filter(|&&b| found(b, 0) || found(b, 1)).count() >= 3);
        // 2 / sqrt(2) rounded: its product with sqrt(1/2) rounds up onto 1
        let half_root = std::f64::consts::FRAC_1_SQRT_2;
        let a = corners::product_carry(half_root).expect("a carry against sqrt(1/2)");
        assert_eq!(d(Exact::Product(a, half_root)).carry, 0);
        assert_eq!(d(Exact::Product(-a * pow2(40), half_root)).carry, 0);
        assert_eq!(corners::product_carry(1.0), None);
        let quotients: Vec<(f64, f64)> =
            (0..16).flat_map(|seed| [1, -1].map(|s| corners::quotient_near_tie(seed, s))).flatten().collect();
        assert!(quotients.len() >= 4);
        for (a, b) in quotients {
            assert_eq!(d(Exact::Quotient(a, b)).tie, 1, "{a} / {b}");
        }
        assert!(found(1.5, 0) && found(1.5, 1) && found(1.25, 0) && found(1.25, 1));
    }
}
