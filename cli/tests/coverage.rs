//! Bound coverage: the corner cases reach the steps' extremes, and they matter. Per family (and for the FN-DSA
//! pointwise products), a mutant whose result differs from the kernel's only when one step reaches its extreme is
//! caught by the default `check` depth (2,000 cases) at a corner case, and not by 2,000 purely random cases (those
//! after the edge and corner cases).

mod common;

use std::sync::LazyLock;

use pqhelium_engine::coverage::{first_failure, measure};
use pqhelium_families::{self as registry, Kernel, Outcome};
use pqhelium_guest::backend::Arg;
use pqhelium_sim::{corner_search, coverage, fxp_fft, x25519_fe};

/// `check`'s default number of cases per kernel.
const CHECK_CASES: u64 = 2000;

/// The true model's outcome, changed (its first output byte's low bit flipped: another residue mod q) when `step`
/// reached `threshold` or beyond in magnitude while the model ran: a kernel wrong only at that extreme.
fn wrong_at_extreme(id: &str, step: &str, threshold: i64, args: &[Arg]) -> Outcome {
    let kernel = registry::find(id).unwrap();
    let (mut outcome, seen) = coverage::record(|| kernel.expected(args));
    if seen.get(step).is_some_and(|s| s.max >= threshold || s.min <= -threshold) {
        outcome.buffers[0][0] ^= 1;
    }
    outcome
}

/// The true model's outcome, changed when `step` reached `end` or below while the model ran: a kernel wrong only at
/// the low end of a step whose values are not symmetric about zero.
fn wrong_at_low_end(id: &str, step: &str, end: i64, args: &[Arg]) -> Outcome {
    let kernel = registry::find(id).unwrap();
    let (mut outcome, seen) = coverage::record(|| kernel.expected(args));
    if seen.get(step).is_some_and(|s| s.min <= end) {
        outcome.buffers[0][0] ^= 1;
    }
    outcome
}

/// The reference's outcome, changed when binary64 step `step` reached its boundary exactly (0 ulps) while the
/// reference ran: a kernel wrong only at that rounding corner.
fn wrong_at_fp_corner(id: &str, step: &str, args: &[Arg]) -> Outcome {
    let kernel = registry::find(id).unwrap();
    let (mut outcome, seen) = coverage::record(|| kernel.expected(args));
    if seen.get(step).is_some_and(|s| s.closest == 0) {
        outcome.buffers[0][0] ^= 1;
    }
    outcome
}

/// The mutant is caught within `check`'s cases, first at a corner case (after the hand-picked edge cases), and
/// 2,000 random cases miss it.
fn corner_cases_matter(mutant: &'static Kernel, hand_picked: u64) {
    let corners = hand_picked..mutant.edge_cases;
    assert!(!corners.is_empty(), "{}: no corner cases", mutant.id);
    let caught = first_failure(mutant, 1, 0..CHECK_CASES);
    assert!(
        caught.is_some_and(|c| corners.contains(&c)),
        "{}: first caught at {caught:?}, corners {corners:?}",
        mutant.id
    );
    let random = mutant.edge_cases..mutant.edge_cases + CHECK_CASES;
    assert_eq!(first_failure(mutant, 1, random), None, "{}: random cases reach the extreme too", mutant.id);
}

/// Every declared step runs, and every step the corner cases are meant for is at its bound (or its reachable end)
/// within `check`'s cases; returns the steps short of it.
fn short_steps(id: &str) -> Vec<String> {
    let kernel = registry::find(id).unwrap();
    let c = measure(kernel, 1, 0..kernel.edge_cases).unwrap();
    for s in &c.steps {
        assert!(s.count > 0, "{id}: {} never ran", s.step);
    }
    c.steps.iter().filter(|s| !s.at_bound).map(|s| s.step.clone()).collect()
}

#[test]
fn mlkem_ntt_corner_cases_reach_a_mutant_random_cases_miss() {
    // The forward NTT's last layer: its butterfly outputs past what random inputs reach.
    let mutant = registry::variant("mlkem.ntt.fwd", |k| {
        k.model = Some(|args| wrong_at_extreme("mlkem.ntt.fwd", "mlkem.ntt.fwd.mve/layer7.sum", MLKEM_FWD_T, args))
    });
    corner_cases_matter(mutant, 8);
}

#[test]
fn mlkem_poly_corner_cases_reach_a_mutant_random_cases_miss() {
    let mutant = registry::variant("mlkem.dot.k3.mve", |k| {
        k.model =
            Some(|args| wrong_at_extreme("mlkem.dot.k3.mve", "mlkem.poly.dot.mve/even.barrett", MLKEM_DOT_T, args))
    });
    corner_cases_matter(mutant, 8);
}

#[test]
fn fndsa_ntt_corner_cases_reach_a_mutant_random_cases_miss() {
    let mutant = registry::variant("fndsa.ntt512.fwd", |k| {
        k.model = Some(|args| wrong_at_extreme("fndsa.ntt512.fwd", "fndsa.ntt512.fwd/layer7.sum", FNDSA_FWD_T, args))
    });
    corner_cases_matter(mutant, 10);
}

#[test]
fn fndsa_pointwise_corner_cases_reach_a_mutant_random_cases_miss() {
    let mutant = registry::variant("fndsa.ntt512.pointwise", |k| {
        k.model = Some(|args| {
            wrong_at_extreme("fndsa.ntt512.pointwise", "fndsa.ntt512.pointwise/montgomery", FNDSA_PW_T, args)
        })
    });
    corner_cases_matter(mutant, 10);
}

#[test]
fn fpu_corner_cases_reach_a_mutant_random_cases_miss() {
    // A complex product wrong only when one of its real products rounds up onto a power of two (random cases come
    // no closer than billions of ulps).
    let mutant = registry::variant("fndsa.fpu.mul", |k| {
        k.model = Some(|args| wrong_at_fp_corner("fndsa.fpu.mul", "fndsa.fpu.mul/mul.carry", args))
    });
    corner_cases_matter(mutant, FPU_EDGE_PATTERNS);
}

/// The element-wise FP64 kernels' hand-picked edge cases, before their rounding corner case.
const FPU_EDGE_PATTERNS: u64 = 40;

#[test]
fn keygen_fft_corner_cases_reach_a_mutant_random_cases_miss() {
    // A product whose floor is wrong only when it drops the largest fraction, 2^32 - 1, in one layer.
    let mutant = registry::variant("fndsa.keygen.fft.scalar", |k| {
        k.model = Some(|args| {
            wrong_at_extreme("fndsa.keygen.fft.scalar", fxp_fft::STEP_PRODUCT_FLOOR[3], fxp_fft::FRACTION_MAX, args)
        })
    });
    corner_cases_matter(mutant, KEYGEN_FFT_EDGE_PATTERNS);
}

#[test]
fn x25519_sqr_corner_cases_reach_a_mutant_random_cases_miss() {
    // A squaring whose second fold is wrong only at the smallest value the search finds, 11. (The largest carry,
    // 38, is no such corner: random elements of all-ones limbs above a random low limb reach it.)
    let mutant = registry::variant("x25519.fe.sqr", |k| {
        k.model = Some(|args| wrong_at_low_end("x25519.fe.sqr", x25519_fe::SQR_REDUCE.second_fold, *SQR_FOLD_LOW, args))
    });
    corner_cases_matter(mutant, X25519_EDGE_VALUES);
}

/// The smallest second-fold value of the squaring the search finds (11).
static SQR_FOLD_LOW: LazyLock<i64> = LazyLock::new(|| corner_search::x25519_sqr_fold_ends().0);

/// The X25519 field kernels' hand-picked edge values (one operand).
const X25519_EDGE_VALUES: u64 = 15;

/// The keygen forward FFT's hand-picked edge cases: 8 patterns at each degree 1..=10.
const KEYGEN_FFT_EDGE_PATTERNS: u64 = 80;

/// Thresholds above the extremes the hand-picked edge cases and 2,000 random cases reach, below those the corner
/// cases reach (`pqhelium coverage --kernel K` and `--random`, seed 1: docs/coverage.md). The ML-KEM NTT's layer 7
/// outputs: random 18,494, corners the solver's exact ends (23,451); the products' even sums: random 343,948,614,
/// corners 442,861,965; FN-DSA-512's layer 7 outputs: edge cases 18,455, random 19,584, corners the solver's exact ends
/// (-21,798 and 21,798); FN-DSA-512's pointwise Montgomery results: edge cases 21,496, random 22,374, corners the
/// exact ends 22,524.
const MLKEM_FWD_T: i64 = 20_000;
const MLKEM_DOT_T: i64 = 440_000_000;
const FNDSA_FWD_T: i64 = 20_000;
const FNDSA_PW_T: i64 = 22_450;

#[test]
fn the_corner_cases_reach_every_step_they_are_for() {
    let exact = ["mlkem.ntt.fwd", "mlkem.ntt.fwd.scalar", "mlkem.ntt.inv", "mlkem.ntt.inv.scalar", "mlkem.basemul"];
    let exact = exact.into_iter().chain(["mlkem.basemul.scalar", "fndsa.ntt512.pointwise", "fndsa.ntt1024.pointwise"]);
    let exact = exact.chain(["fndsa.ntt512.pointwise.scalar", "fndsa.ntt1024.pointwise.scalar"]);
    let exact = exact.chain(["fndsa.ntt512.fwd", "fndsa.ntt1024.fwd", "fndsa.ntt512.inv", "fndsa.ntt1024.inv"]);
    let keygen = ["fndsa.keygen.fft", "fndsa.keygen.fft.scalar", "fndsa.keygen.ifft", "fndsa.keygen.ifft.scalar"];
    let x25519 = ["x25519.fe.mul", "x25519.fe.sqr", "x25519.fe.add", "x25519.fe.sub", "x25519.fe.mul121666"];
    let polynomial = ["mlkem.dot.k3.mve", "mlkem.matvec.k3.scalar", "mlkem.poly.reduce.scalar"];
    for id in exact.chain(polynomial).chain(keygen).chain(x25519) {
        assert_eq!(short_steps(id), Vec::<String>::new(), "{id}");
    }
    // Conversions whose steps take few values (decompression's dropped bits, 12-bit values, the reduction by 1 of
    // an int16_t): `check`'s cases reach every end without corner cases.
    let conversions = ["mlkem.order.from_mve", "mlkem.decompress.du10.mve", "mlkem.decompress.dv4.scalar"];
    for id in conversions.into_iter().chain(["mlkem.decompress.d1.mve", "mlkem.poly.decode12.mve"]) {
        let c = measure(registry::find(id).unwrap(), 1, 0..CHECK_CASES).unwrap();
        assert!(!c.steps.is_empty() && c.steps.iter().all(|s| s.at_bound), "{id}: {:?}", c.steps);
    }
    // Compression's rounding: the edge cases hold every boundary, so the remainder mod q reaches 0 and q - 1 (the
    // values closest to a tie); the reduction and the dividend reach their ends in the random cases.
    let compress =
        [("mlkem.compress.du10.mve", "d10"), ("mlkem.compress.dv4.scalar", "d4"), ("mlkem.compress.d1.mve", "d1")];
    for (id, width) in compress {
        let short = short_steps(id);
        assert!(!short.contains(&format!("mlkem.poly.compress.{width}/round")), "{id}: {short:?}");
    }
}

/// `docs/coverage.md` is what `pqhelium coverage --cases 2000 --seed 1 --docs` writes with the code as it stands: a
/// change of kernels, cases or steps that leaves the page stale fails here.
#[test]
fn the_coverage_page_is_current() {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("coverage.md");
    let (code, _, stderr) =
        common::pqhelium(&["coverage", "--cases", "2000", "--seed", "1", "--docs", written.to_str().unwrap()]);
    assert_eq!(code, 0, "pqhelium coverage: {stderr}");
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/coverage.md");
    assert!(
        std::fs::read(&written).unwrap() == std::fs::read(page).unwrap(),
        "docs/coverage.md is stale: regenerate it with `pqhelium coverage --cases 2000 --seed 1 --docs docs/coverage.md`"
    );
}
