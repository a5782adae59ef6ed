//! The FPU division model (`pqhelium_sim::fxp_div`) gives exactly the bits of the reference's bit-by-bit division
//! (`pqhelium_core::fndsa::keygen::fxp::div`) on every edge class the exactness argument relies on and on random
//! operands; the closed form the argument starts from holds for the reference; a division with one correction step
//! fewer is caught. The 10^8-pair run is `cargo run --release -p pqhelium-sim --example fxp_div_campaign`.

use pqhelium_core::fndsa::keygen::fxp::{self, FxpKernels, Reference};
use pqhelium_sim::fxp_div::{self as model, Corrections, edge_pairs, spread_operand};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random pairs checked by the test suite (the example runs 10^8).
const RANDOM_PAIRS: usize = 300_000;

/// The closed form of the bit-by-bit division in 128-bit arithmetic (module documentation of `fxp_div`): a rounded
/// quotient for the normal class, minus one for the overflow class (zero denominators included).
fn closed_form(x: u64, y: u64) -> u64 {
    let (ax, d) = (u128::from((x as i64).unsigned_abs()), u128::from((y as i64).unsigned_abs()));
    let n = ax << 32;
    let round = |num: u128, den: u128| num / den + u128::from(2 * (num % den) >= den);
    let q =
        if n < d << 64 { round(n, d) as u64 } else { (round(n - (d << 64), (1u128 << 63) - d) as u64).wrapping_neg() };
    if ((x ^ y) as i64) < 0 { q.wrapping_neg() } else { q }
}

fn random_pairs(seed: u64, count: usize) -> impl Iterator<Item = (u64, u64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(move |_| {
        let x = spread_operand(rng.next_u64(), rng.next_u64());
        let y = spread_operand(rng.next_u64(), rng.next_u64());
        (x, y)
    })
}

#[test]
fn edge_classes_give_the_reference_bits() {
    let pairs = edge_pairs();
    assert!(pairs.len() > 20_000, "{} edge pairs", pairs.len());
    for &(x, y) in &pairs {
        let want = fxp::div(x, y);
        assert_eq!(model::div(x, y), want, "{x:#018x} / {y:#018x}");
        assert_eq!(closed_form(x, y), want, "closed form, {x:#018x} / {y:#018x}");
    }
}

/// Every class is present with its four sign combinations, and the boundary classes hit what they claim.
#[test]
fn edge_classes_are_what_they_say() {
    let pairs = edge_pairs();
    let has = |x: u64, y: u64| pairs.binary_search(&(x, y)).is_ok();
    let neg = u64::wrapping_neg;
    for (x, y) in [(fxp::ONE, 0), (1 << 63, 1 << 63), (1 << 63, 1), (3 << 32, 3), ((3 << 32) - 1, 3), (1 << 40, 1 << 7)]
    {
        assert!(has(x, y) && has(neg(x), y) && has(x, neg(y)) && has(neg(x), neg(y)), "{x:#x} / {y:#x}");
    }
    // Rounding boundaries: remainders 2r - d = -1 and +1 (odd d) and exact ties (2r = d).
    let mut below = 0;
    let mut above = 0;
    let mut ties = 0;
    for &(x, y) in pairs.iter().filter(|&&(x, y)| (x as i64) >= 0 && (y as i64) > 0) {
        let (n, d) = (u128::from(x) << 32, u128::from(y));
        if n >= d << 64 {
            continue;
        }
        match 2 * (n % d) as i128 - d as i128 {
            -1 => below += 1,
            0 => ties += 1,
            1 => above += 1,
            _ => {}
        }
    }
    assert!(below >= 50 && above >= 50 && ties >= 25, "{below} below, {above} above, {ties} ties");
}

#[test]
fn zero_denominator_over_structured_numerators() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // Every numerator of the form m 2^k +/- small (m < 2^8) with every shift, both signs, and random ones.
    let mut numerators = Vec::new();
    for m in 0u64..256 {
        for k in 0..64 {
            for delta in [0u64, 1, u64::MAX] {
                numerators.push((m << k).wrapping_add(delta));
            }
        }
    }
    numerators.extend((0..20_000).map(|_| spread_operand(rng.next_u64(), rng.next_u64())));
    for x in numerators {
        for x in [x, x.wrapping_neg()] {
            let want = fxp::div(x, 0);
            assert_eq!(want, fxp::div_by_zero(x), "{x:#018x}");
            assert_eq!(model::div(x, 0), want, "{x:#018x} / 0");
            // The argument's form for d = 0: -((ax + 2^30) >> 31) with the sign of x.
            let ax = (x as i64).unsigned_abs();
            let q = ((u128::from(ax) + (1 << 30)) >> 31) as u64;
            assert_eq!(if (x as i64) < 0 { q } else { q.wrapping_neg() }, want, "{x:#018x}");
        }
    }
}

#[test]
fn random_pairs_give_the_reference_bits() {
    let mut overflowing = 0;
    for (x, y) in random_pairs(1, RANDOM_PAIRS) {
        let want = fxp::div(x, y);
        assert_eq!(model::div(x, y), want, "{x:#018x} / {y:#018x}");
        assert_eq!(closed_form(x, y), want, "closed form, {x:#018x} / {y:#018x}");
        overflowing += usize::from((x as i64).unsigned_abs() >> 32 >= (y as i64).unsigned_abs());
    }
    // Both classes are well represented.
    assert!((RANDOM_PAIRS / 10..RANDOM_PAIRS / 2).contains(&overflowing), "{overflowing} overflowing pairs");
}

/// A division with either correction step left out is wrong, and both the edge classes and random operands show it.
/// Without the low digit's step the error mostly cancels: the digit is one low only when the quotient's fraction is
/// below the estimate bias, and then the uncorrected remainder (at least den) sets the rounding bit, which restores
/// the exact result unless twice the remainder overflows 64 bits (den > 2^62) or the rounding bit was due anyway. The
/// largest-operand and power-of-two classes are where it shows.
#[test]
fn one_correction_step_fewer_is_caught() {
    for fewer in [Corrections { high: false, low: true }, Corrections { high: true, low: false }] {
        let wrong = |&(x, y): &(u64, u64)| model::div_with(x, y, fewer) != fxp::div(x, y);
        let edge = edge_pairs().iter().filter(|p| wrong(p)).count();
        let random = random_pairs(2, RANDOM_PAIRS).filter(wrong).count();
        println!("{fewer:?}: {edge} edge pairs and {random} of {RANDOM_PAIRS} random pairs wrong");
        assert!(edge >= 100 && random >= 50, "{fewer:?}: {edge} edge pairs and {random} random pairs wrong");
    }
}

#[test]
fn squares_match_the_reference() {
    let mut values: Vec<u64> = edge_pairs().iter().map(|&(x, _)| x).collect();
    values.extend(random_pairs(3, 50_000).map(|(x, _)| x));
    for a in values {
        assert_eq!(model::sqr(a), fxp::sqr(a), "{a:#018x}");
    }
}

/// The vector kernels' models against `fxp::Reference`, logn 1..10, on operands as key generation produces them
/// (FFT of small polynomials, whose slots and norms are what the divisions see) and on spread random operands.
#[test]
fn vector_kernels_match_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for logn in 1..=10u32 {
        let n = 1usize << logn;
        for realistic in [true, false] {
            let vector = |rng: &mut ChaCha8Rng| -> Vec<u64> {
                if realistic {
                    let mut f: Vec<u64> = (0..n).map(|_| fxp::from_i32(rng.gen_range(-40..=40))).collect();
                    Reference.fft(logn, &mut f);
                    f
                } else {
                    (0..n).map(|_| spread_operand(rng.next_u64(), rng.next_u64())).collect()
                }
            };
            let (a, b) = (vector(&mut rng), vector(&mut rng));
            let e = rng.gen_range(0..32);

            let (mut want, mut got) = (a.clone(), a.clone());
            Reference.div_selfadj(logn, &mut want, &b);
            model::div_selfadj(logn, &mut got, &b);
            assert_eq!(got, want, "div_selfadj logn {logn}");

            let (mut want, mut got) = (vec![0; n / 2], vec![0; n / 2]);
            Reference.invnorm(logn, &mut want, &a, &b, e);
            model::invnorm(logn, &mut got, &a, &b, e);
            assert_eq!(got, want, "invnorm logn {logn} e {e}");

            let e = rng.gen_range(0..64);
            let (mut want, mut got) = (a.clone(), a.clone());
            Reference.inv_mul2e(logn, &mut want, e);
            model::inv_mul2e(logn, &mut got, e);
            assert_eq!(got, want, "inv_mul2e logn {logn} e {e}");
        }
    }
}
