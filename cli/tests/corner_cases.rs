//! The corner cases matter: for the X25519 field arithmetic, the fixed-point keygen FFT, the FP64 sampler and the
//! binary64 soft-float, a deliberately wrong kernel (`kernels/arm/selftest/`) whose result differs from the right
//! one's only when one inner step reaches the end of its interval is caught by `check`'s default depth (cases
//! 0..2000, edge cases first), at a corner case found on the model (`pqhelium_sim::corner_search`, or in closed form
//! by `pqhelium_sim::rounding::corners`), and is NOT caught by 2,000 purely random cases (E..E+2000, E the edge
//! cases). The right kernel passes every edge case. Object code on the Cortex-M7 image (unicorn): the four kernels
//! are portable C.

use std::ops::Range;

use pqhelium_engine::diff;
use pqhelium_families::{self as registry, Kernel, softfloat};
use pqhelium_guest::backend::{Image, Limits};

/// `pqhelium check`'s defaults: seed 1, 2,000 cases per kernel.
const SEED: u64 = 1;
const DEPTH: u64 = 2000;

/// The first case of `cases` on which `kernel`'s object code (or its model) fails, on one emulator.
fn first_failure(kernel: &Kernel, cases: Range<u64>) -> Option<u64> {
    let image = Image::M7;
    let mut backend = image.open(Limits::default()).expect("unicorn starts");
    cases.into_iter().find(|&case| {
        let args = kernel.generate(case, &mut registry::case_rng(SEED, case));
        diff::check_case(kernel, image.backend(), Some(backend.as_mut()), &args).is_some()
    })
}

/// `mutant` (a symbol with `id`'s prototype) fails within the default depth at an edge case, the searched corner
/// cases `corners` (which close the edge cases) catch it on their own, and the 2,000 random cases after the edge
/// cases never do; `id` itself passes every edge case.
fn caught_by_a_corner_only(id: &str, mutant: &'static str, corners: Range<u64>) {
    let right = registry::find(id).expect("registered");
    let wrong = registry::variant(id, |k| k.symbol = Some(mutant));
    let edges = right.edge_cases;
    assert_eq!(corners.end, edges, "{id}: the corner cases close the edge cases");
    let caught = first_failure(wrong, 0..DEPTH);
    assert!(caught.is_some_and(|case| case < edges), "{mutant}: first failure at {caught:?}, {edges} edge cases");
    assert!(first_failure(wrong, corners.clone()).is_some(), "{mutant}: no corner case {corners:?} catches it");
    assert_eq!(first_failure(wrong, edges..edges + DEPTH), None, "{mutant}: caught by random cases");
    assert_eq!(first_failure(right, 0..edges), None, "{id} fails an edge case");
}

/// A multiplication whose reduction leaves out the second fold, needed only when r + 38 c passes 2^256 (the edge
/// pairs near 2^256 reach it too).
#[test]
fn a_fold_left_out_at_the_reductions_extreme_is_caught_by_a_corner_case() {
    let corners = 15 * 15 + 49;
    caught_by_a_corner_only("x25519.fe.mul", "pqh_selftest_x25519_fe_mul_second_fold_dropped", corners..corners + 4);
}

/// An inverse FFT whose halving past the first layer differs only at the operand 2^63 - 1 (where x + 1 wraps).
#[test]
fn a_halving_wrong_only_at_its_wrap_is_caught_by_a_corner_case() {
    caught_by_a_corner_only("fndsa.keygen.ifft.scalar", "pqh_selftest_fndsa_keygen_ifft_half_without_wrap", 80..148);
}

/// A Bernoulli exponent whose truncated quotient differs only within about an ulp of an integer.
#[test]
fn a_quotient_one_ulp_off_before_its_truncation_is_caught_by_a_corner_case() {
    caught_by_a_corner_only("fndsa.fpu.sampler_exponent", "pqh_selftest_fndsa_fpu_sampler_exponent_divided", 380..438);
}

/// A soft-float product whose rounding loses the carry out of the significand: wrong only when the 53 kept bits are
/// all ones and round up (the corner cases' ties and roundings into the next binade). The hand-picked product past
/// the largest double catches it too.
#[test]
fn a_carry_lost_in_the_soft_floats_rounding_is_caught_by_a_corner_case() {
    let corners = softfloat::corner_range(softfloat::op("fndsa.emu.f64.mul"));
    caught_by_a_corner_only("fndsa.emu.f64.mul", "pqh_selftest_fndsa_emu_f64_mul_carry_lost", corners);
}
