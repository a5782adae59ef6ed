//! The ML-KEM NTT kernels (`kernels/arm/mlkem_ntt/`): reference <-> sim model <-> object code on QEMU (MVE and scalar
//! kernels, Cortex-M55 image) and unicorn (scalar kernels, Cortex-M7 image), every byte, edge cases first, through
//! the campaign engine; and the check that a wrong model is caught.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, Kernel};
use pqhelium_guest::backend::{BackendKind, Limits};

/// Edge cases plus random cases: at least 1,000 per kernel and backend.
const CASES: u64 = 1_500;

const MVE: [&str; 5] =
    ["mlkem.ntt.fwd", "mlkem.ntt.inv", "mlkem.basemul", "mlkem.order.to_mve", "mlkem.order.from_mve"];
const SCALAR: [&str; 3] = ["mlkem.ntt.fwd.scalar", "mlkem.ntt.inv.scalar", "mlkem.basemul.scalar"];

fn campaign(kernel: &'static Kernel, backend: BackendKind, cases: u64) -> Campaign {
    Campaign {
        limits: Limits { timeout: Duration::from_secs(60) },
        ..Campaign::new(kernel, backend, 0x4D4C4B, cases, 2)
    }
}

fn run_clean(kernel: &str, backend: BackendKind, cases: u64) {
    diff::assert_campaign_passes(kernel, backend, 0x4D4C4B, cases);
}

#[test]
fn mlkem_models_match_reference() {
    for kernel in MVE.iter().chain(&SCALAR) {
        run_clean(kernel, BackendKind::Model, 10_000);
    }
}

#[test]
fn mlkem_mve_kernels_on_qemu_match_model() {
    for kernel in MVE {
        run_clean(kernel, BackendKind::Qemu, CASES);
    }
}

#[test]
fn mlkem_scalar_kernels_on_qemu_match_model() {
    for kernel in SCALAR {
        run_clean(kernel, BackendKind::Qemu, CASES);
    }
}

#[test]
fn mlkem_scalar_kernels_on_unicorn_match_model() {
    for kernel in SCALAR {
        run_clean(kernel, BackendKind::Unicorn, CASES);
    }
}

#[test]
fn mve_kernels_are_not_in_the_m7_image() {
    for kernel in MVE {
        assert!(!registry::find(kernel).unwrap().runs_on(BackendKind::Unicorn), "{kernel}");
    }
}

/// Two wrong models of the forward NTT: one off by 1 in a coefficient (the reference catches it on every backend),
/// and one off by q (still congruent: canon(model) == reference, so only the byte comparison with the object code
/// catches it, which shows the model reproduces the exact non-canonical representatives).
#[test]
fn a_wrong_model_is_caught() {
    let off_by_one = registry::variant("mlkem.ntt.fwd", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("mlkem.ntt.fwd").unwrap().expected(args);
            o.buffers[0][2 * 37] ^= 1;
            o
        })
    });
    for backend in [BackendKind::Model, BackendKind::Qemu] {
        let result = diff::run(&campaign(off_by_one, backend, 200));
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: the wrong model went unnoticed"));
        assert_eq!(first.case, 0);
        let Failure::Mismatch { left, right, .. } = &first.failure else { panic!("{:?}", first.failure) };
        assert_eq!((*left, *right), ("reference", "canon(model)"), "{backend}");
    }

    let off_by_q = registry::variant("mlkem.ntt.fwd", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("mlkem.ntt.fwd").unwrap().expected(args);
            let x = i16::from_le_bytes([o.buffers[0][10], o.buffers[0][11]]);
            let y = if x > 0 { x - 3329 } else { x + 3329 };
            o.buffers[0][10..12].copy_from_slice(&y.to_le_bytes());
            o
        })
    });
    assert!(diff::run(&campaign(off_by_q, BackendKind::Model, 200)).passed(), "congruent outputs pass the reference");
    let result = diff::run(&campaign(off_by_q, BackendKind::Qemu, 200));
    let first = result.failures.first().expect("the congruent but different model went unnoticed on QEMU");
    assert_eq!(first.case, 0);
    let Failure::Mismatch { left, right, difference } = &first.failure else { panic!("{:?}", first.failure) };
    assert_eq!(*left, "model");
    assert_ne!(*right, "canon(model)");
    assert!(
        ["buffer 0, byte 10", "buffer 0, byte 11"].iter().any(|p| difference.place.starts_with(p)),
        "{}",
        difference.place
    );
}
