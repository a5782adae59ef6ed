//! The 4-way Keccak differential: core reference <-> sim model (interleaved layout) <-> unicorn object code
//! <-> QEMU object code, every byte, edge states first (zero, ones, the 1600 single bits), then random states.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, Kernel};
use pqhelium_guest::backend::{BackendKind, Limits};

/// Edge cases plus at least 10,000 random states.
const CASES: u64 = 1602 + 10_000;

fn campaign(kernel: &'static Kernel, backend: BackendKind, cases: u64) -> Campaign {
    Campaign { limits: Limits { timeout: Duration::from_secs(60) }, ..Campaign::new(kernel, backend, 0x5EED, cases, 2) }
}

fn run_clean(kernel: &str, backend: BackendKind, cases: u64) {
    diff::assert_campaign_passes(kernel, backend, 0x5EED, cases);
}

#[test]
fn keccak_f1600_model_matches_reference() {
    run_clean("keccak.f1600", BackendKind::Model, CASES);
}

#[test]
fn keccak_f1600_unicorn_matches_model() {
    run_clean("keccak.f1600", BackendKind::Unicorn, CASES);
}

#[test]
fn keccak_f1600_qemu_matches_model() {
    run_clean("keccak.f1600", BackendKind::Qemu, CASES);
}

#[test]
fn keccak_conversions_on_every_backend() {
    for kernel in ["keccak.interleave", "keccak.deinterleave"] {
        for backend in BackendKind::ALL {
            run_clean(kernel, backend, CASES);
        }
    }
}

/// The engine must be able to fail: a model with one flipped output bit is caught on the first case, and the report
/// names the case, the byte and both values.
#[test]
fn a_wrong_model_is_caught_with_case_and_byte() {
    let broken = registry::variant("keccak.f1600", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("keccak.f1600").unwrap().expected(args);
            o.buffers[0][17] ^= 0x04;
            o
        })
    });
    for backend in BackendKind::ALL {
        let result = diff::run(&campaign(broken, backend, 500));
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: the broken model went unnoticed"));
        assert_eq!(first.case, 0);
        assert!(!result.passed());
        let Failure::Mismatch { left, right, difference } = &first.failure else { panic!("{:?}", first.failure) };
        // The model side is checked first: reference vs canon(model) catches it on every backend.
        assert_eq!((*left, *right), ("reference", "canon(model)"), "{backend}");
        assert!(difference.place.starts_with("buffer 0, byte "), "{}", difference.place);
        assert_ne!(difference.expected, difference.actual);
    }
}

/// Object code that disagrees with a correct model is caught, with the byte and both values.
#[test]
fn wrong_object_code_is_caught_with_case_and_byte() {
    // The deinterleave contract pointed at the interleave code: valid code, wrong function.
    let wrong = registry::variant("keccak.deinterleave", |k| k.symbol = Some("keccak_interleave"));
    for backend in [BackendKind::Unicorn, BackendKind::Qemu] {
        let result = diff::run(&campaign(wrong, backend, 200));
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: wrong code went unnoticed"));
        let Failure::Mismatch { left, right, difference } = &first.failure else { panic!("{:?}", first.failure) };
        assert_eq!((*left, *right), ("model", backend.name()));
        assert!(difference.place.starts_with("buffer 0, byte "));
        assert!(first.to_string().contains(&format!("case {}", first.case)));
    }
}
