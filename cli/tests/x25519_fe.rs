//! The X25519 kernels (`x25519.fe.*`, `x25519.cswap*`, `x25519.ladder_step`, `x25519.inv2`, `x25519.scalarmult`,
//! `x25519.base*`, `kernels/arm/x25519/`): each kernel passes a short campaign (every edge case, then random cases) on every backend
//! it has, the model against the reference and the object code against the model, on the M55 and M85 images (QEMU)
//! and the M7 image (unicorn); and a multiplication that drops the carry out of one limb in its reduction and a
//! conditional swap that reads the wrong bit (portable and MVE) and a paired inversion that mishandles one zero input
//! (`kernels/arm/selftest/x25519_mutant*.c`) are caught.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign};
use pqhelium_families as registry;
use pqhelium_guest::backend::{BackendKind, Image, Limits};

const SEED: u64 = 0x2551_9F3E;
/// Random cases after the edge cases.
const RANDOM: u64 = 200;

fn limits() -> Limits {
    Limits { timeout: Duration::from_secs(60) }
}

const FIELD: [&str; 7] = [
    "x25519.fe.mul",
    "x25519.fe.sqr",
    "x25519.fe.add",
    "x25519.fe.sub",
    "x25519.fe.mul121666",
    "x25519.fe.inv",
    "x25519.fe.pow22523",
];
const LADDER: [&str; 7] = [
    "x25519.cswap",
    "x25519.cswap.mve",
    "x25519.ladder_step",
    "x25519.inv2",
    "x25519.scalarmult",
    "x25519.base",
    "x25519.base.b8",
];
/// Kernels of some 100,000 guest instructions and more per call: fewer random cases keep the test to seconds.
const SLOW: [&str; 6] =
    ["x25519.fe.inv", "x25519.fe.pow22523", "x25519.inv2", "x25519.scalarmult", "x25519.base", "x25519.base.b8"];

fn field_kernels() -> Vec<&'static registry::Kernel> {
    FIELD.iter().map(|id| registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"))).collect()
}

#[test]
fn every_kernel_passes_on_every_backend_and_image() {
    let kernels = registry::matching("x25519.*");
    let ids: Vec<&str> = kernels.iter().map(|k| k.id).collect();
    assert_eq!(ids, [FIELD.as_slice(), LADDER.as_slice()].concat());
    for kernel in kernels {
        let random = if SLOW.contains(&kernel.id) { RANDOM / 20 } else { RANDOM };
        let cases = kernel.edge_cases + random;
        let targets = [
            (BackendKind::Model, None),
            (BackendKind::Qemu, Some(Image::M55)),
            (BackendKind::Qemu, Some(Image::M85)),
            (BackendKind::Unicorn, Some(Image::M7)),
        ];
        for (backend, image) in targets {
            if kernel.id == "x25519.cswap.mve" && image == Some(Image::M7) {
                assert!(!kernel.runs_on(backend), "MVE code is not in the m7 image");
                continue;
            }
            assert!(kernel.runs_on(backend), "{} has no build for {backend}", kernel.id);
            let campaign = Campaign { image, limits: limits(), ..Campaign::new(kernel, backend, SEED, cases, 2) };
            let result = diff::run(&campaign);
            let failures: Vec<String> = result.failures.iter().map(ToString::to_string).collect();
            assert!(result.passed(), "{} on {}: {:?} {failures:?}", kernel.id, result.target(), result.setup_error);
            assert_eq!(result.cases_run(), cases, "{} on {}", kernel.id, result.target());
            if backend != BackendKind::Model {
                assert_eq!(
                    result.instructions.calls,
                    cases,
                    "{} on {}: every call counted",
                    kernel.id,
                    result.target()
                );
            }
        }
    }
}

/// The edge cases are the values the contract promises to take: every kernel's first cases hold 0, p and 2^256 - 1.
#[test]
fn edge_cases_reach_the_representations_bounds() {
    use pqhelium_guest::backend::Arg;
    let p: Vec<u8> =
        [0xFFFF_FFEDu32, !0, !0, !0, !0, !0, !0, 0x7FFF_FFFF].iter().flat_map(|w| w.to_le_bytes()).collect();
    for kernel in field_kernels() {
        let inputs: Vec<Vec<u8>> = (0..kernel.edge_cases)
            .flat_map(|case| kernel.generate(case, &mut registry::case_rng(SEED, case)))
            .filter_map(|arg| match arg {
                Arg::In(bytes) => Some(bytes),
                _ => None,
            })
            .collect();
        for value in [vec![0u8; 32], p.clone(), vec![0xFF; 32]] {
            assert!(inputs.contains(&value), "{}: no edge case {}", kernel.id, hex::encode(&value));
        }
    }
}

/// The kernel `id` passes its edge cases and 20 random cases on every emulator and image, and the same campaign of
/// the wrong build `mutant` (a symbol of `kernels/arm/selftest/x25519_mutant.c`) reports mismatches and no fault.
fn mutant_is_caught(id: &str, mutant: &'static str) {
    let wrong = registry::variant(id, |k| k.symbol = Some(mutant));
    let right = registry::find(id).expect("registered");
    let cases = right.edge_cases + 20;
    let images = [(BackendKind::Qemu, Image::M55), (BackendKind::Qemu, Image::M85), (BackendKind::Unicorn, Image::M7)];
    for (backend, image) in images.into_iter().filter(|&(backend, _)| right.runs_on(backend)) {
        let run = |kernel| {
            let campaign = Campaign {
                image: Some(image),
                limits: limits(),
                keep_going: true,
                shrink_budget: 0,
                ..Campaign::new(kernel, backend, SEED, cases, 2)
            };
            diff::run(&campaign)
        };
        let caught = run(wrong);
        assert!(caught.mismatches() > 0 && caught.faults() == 0, "{mutant} on {image:?}: {:?}", caught.failures);
        let clean = run(right);
        assert!(clean.passed(), "{image:?}: {:?}", clean.failures);
    }
}

/// A multiplication whose reduction loses the carry out of limb 3 is caught.
#[test]
fn a_carry_dropped_in_one_limb_is_caught() {
    mutant_is_caught("x25519.fe.mul", "pqh_selftest_x25519_fe_mul_carry_dropped");
}

/// A conditional swap that takes its mask from the wrong bit of its argument is caught, portable C and MVE.
#[test]
fn a_cswap_on_the_wrong_bit_is_caught() {
    mutant_is_caught("x25519.cswap", "pqh_selftest_x25519_cswap_wrong_bit");
    mutant_is_caught("x25519.cswap.mve", "pqh_selftest_x25519_cswap_mve_wrong_bit");
}

/// A paired inversion that does not replace a zero second input by 1 (so that the first inverse comes out 0) is
/// caught by the edge cases with one zero input.
#[test]
fn a_paired_inversion_unsafe_for_one_zero_input_is_caught() {
    mutant_is_caught("x25519.inv2", "pqh_selftest_x25519_inv2_zero_unsafe");
}
