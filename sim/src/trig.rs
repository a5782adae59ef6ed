//! cos and sin of the FFT angles pi j / 1024 from first principles, for the twiddle tables of the FN-DSA FFT
//! kernels: pi by Machin's formula and the Taylor series of cos and sin, in fixed point with [`FRAC`] fractional
//! bits (an error of a few 2^-120 at most), then rounded once to the format a table stores: 32.32 fixed point
//! ([`round_q32`]) or binary64 ([`round_f64`]). Each rounding checks that the value is far enough from a rounding
//! boundary for that error not to matter, so the rounding is the correct one.

use std::sync::OnceLock;

/// Fractional bits of the fixed-point values (|x| < 2^3, so x 2^FRAC fits an i128).
pub const FRAC: u32 = 124;
const ONE: i128 = 1 << FRAC;
/// A bound on the error of a computed value, in units of 2^-FRAC (the argument: a few hundred truncations of at
/// most one unit each, times at most 16 for pi's multiple).
const ERROR: u128 = 1 << 16;

/// a b 2^-FRAC, truncated toward zero (|a b| 2^-FRAC < 2^127).
fn mul(a: i128, b: i128) -> i128 {
    let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
    let (x1, x0, y1, y0) = (x >> 64, x as u64 as u128, y >> 64, y as u64 as u128);
    let (p00, p01, p10, p11) = (x0 * y0, x0 * y1, x1 * y0, x1 * y1);
    let mid = (p00 >> 64) + (p01 as u64 as u128) + (p10 as u64 as u128);
    let low = (p00 as u64 as u128) | (mid << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    let r = ((high << (128 - FRAC)) | (low >> FRAC)) as i128;
    if (a < 0) != (b < 0) { -r } else { r }
}

/// atan(1/x) = sum_k (-1)^k / ((2k + 1) x^(2k + 1)).
fn atan_inv(x: i128) -> i128 {
    let (mut power, mut sum, mut k) = (ONE / x, 0, 0);
    while power != 0 {
        let term = power / (2 * k + 1);
        sum += if k % 2 == 0 { term } else { -term };
        power /= x * x;
        k += 1;
    }
    sum
}

/// pi = 16 atan(1/5) - 4 atan(1/239) (Machin).
fn pi() -> i128 {
    16 * atan_inv(5) - 4 * atan_inv(239)
}

/// (cos a, sin a) by their Taylor series, for 0 <= a <= pi/4.
fn cos_sin(a: i128) -> (i128, i128) {
    let a2 = mul(a, a);
    let series = |first: i128, n0: i128| {
        let (mut term, mut sum, mut n) = (first, first, n0);
        while term != 0 {
            term = -mul(term, a2) / ((n + 1) * (n + 2));
            sum += term;
            n += 2;
        }
        sum
    };
    (series(ONE, 0), series(a, 1))
}

/// (cos, sin) of pi j / 1024 for every j in 0..2048, in fixed point: the first octant by the series, the rest by
/// the exact symmetries cos(pi/2 - a) = sin a and the quarter turns.
pub fn cos_sin_pi_1024(j: usize) -> (i128, i128) {
    static OCTANT: OnceLock<Vec<(i128, i128)>> = OnceLock::new();
    let octant = OCTANT.get_or_init(|| {
        let pi = pi();
        (0..=256).map(|r| cos_sin(pi / 1024 * r)).collect()
    });
    let (quarter, r) = (j % 2048 / 512, j % 512);
    let (c, s) = if r <= 256 {
        octant[r]
    } else {
        let (c, s) = octant[512 - r];
        (s, c)
    };
    match quarter {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// The dropped part `rest` of a rounding whose half-way point is `half` is farther from it than the error.
fn assert_clear_of_tie(rest: u128, half: u128) {
    assert!(rest.abs_diff(half) > ERROR, "a value too close to a rounding tie for the working precision");
}

/// x (fixed point) in 32.32, rounded to nearest, as the bits of a two's complement i64.
pub fn round_q32(x: i128) -> u64 {
    let shift = FRAC - 32;
    assert_clear_of_tie(x.rem_euclid(1 << shift) as u128, 1 << (shift - 1));
    ((x + (1 << (shift - 1))) >> shift) as i64 as u64
}

/// x (fixed point, |x| <= 1) as the nearest binary64 (a normal number or zero).
pub fn round_f64(x: i128) -> f64 {
    let m = x.unsigned_abs();
    if m == 0 {
        return 0.0;
    }
    let top = 127 - m.leading_zeros();
    let shift = top - 52;
    assert_clear_of_tie(m & ((1 << shift) - 1), 1 << (shift - 1));
    let mut mantissa = (m + (1 << (shift - 1))) >> shift;
    let mut exponent = i64::from(top) - i64::from(FRAC);
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        exponent += 1;
    }
    let bits = ((exponent + 1023) as u64) << 52 | (mantissa as u64 & ((1 << 52) - 1));
    let v = f64::from_bits(bits);
    if x < 0 { -v } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_has_its_known_digits() {
        // pi = 0x3.243F6A8885A308D313198A2E03707344A4093822299F31D008... (its hexadecimal expansion).
        assert!((pi() - 0x3243_F6A8_885A_308D_3131_98A2_E037_0734).unsigned_abs() < ERROR);
    }

    #[test]
    fn the_series_meet_the_exact_angles() {
        assert_eq!(cos_sin_pi_1024(0), (ONE, 0));
        assert_eq!(cos_sin_pi_1024(512), (0, ONE));
        assert_eq!(cos_sin_pi_1024(1024), (-ONE, 0));
        // cos and sin of pi/4, by their two series, agree within the error (and round to the same double).
        let (c, s) = cos_sin_pi_1024(256);
        assert!(c.abs_diff(s) < ERROR && round_f64(c) == std::f64::consts::FRAC_1_SQRT_2, "{c} {s}");
        // cos^2 + sin^2 = 1 within the error, on every angle.
        for j in 0..2048 {
            let (c, s) = cos_sin_pi_1024(j);
            assert!((mul(c, c) + mul(s, s) - ONE).unsigned_abs() < ERROR, "angle {j}");
        }
    }

    #[test]
    fn rounding_to_binary64_agrees_with_the_platform_on_exact_values() {
        for x in [ONE, ONE / 2, -ONE / 4, 3 * ONE / 8, ONE - (ONE >> 60)] {
            let expected = x as f64 / ONE as f64;
            assert_eq!(round_f64(x), expected, "{x}");
        }
    }
}
