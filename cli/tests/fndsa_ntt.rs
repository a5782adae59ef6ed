//! The FN-DSA NTT kernels (q = 12289, n = 512 and 1024; forward, inverse, pointwise; MVE and portable C): on every
//! backend that has them, canon(model) == reference and object code == model, byte for byte, edge cases first, then
//! random inputs inside each contract's precondition. The bounds proof is `sim/tests/fndsa_ntt_bounds.rs`.

use std::time::Duration;

use pqhelium_engine::diff::{self, Campaign, Failure};
use pqhelium_families::{self as registry, Kernel};
use pqhelium_guest::backend::{BackendKind, Limits};

/// Cases per kernel and backend (the first 10 are the edge cases).
const CASES: u64 = 1000;

fn campaign(kernel: &'static Kernel, backend: BackendKind, cases: u64) -> Campaign {
    Campaign { limits: Limits { timeout: Duration::from_secs(60) }, ..Campaign::new(kernel, backend, 0xF5DA, cases, 2) }
}

fn run_clean(id: &str) {
    let kernel = registry::find(id).unwrap_or_else(|| panic!("{id} is not registered"));
    let backends: Vec<BackendKind> = BackendKind::ALL.into_iter().filter(|&b| kernel.runs_on(b)).collect();
    let expected = if id.ends_with(".scalar") { 3 } else { 2 };
    assert_eq!(backends.len(), expected, "{id}: backends {backends:?}");
    for backend in backends {
        diff::assert_campaign_passes(id, backend, 0xF5DA, CASES);
    }
}

#[test]
fn ntt512_fwd() {
    run_clean("fndsa.ntt512.fwd");
    run_clean("fndsa.ntt512.fwd.scalar");
}

#[test]
fn ntt512_inv() {
    run_clean("fndsa.ntt512.inv");
    run_clean("fndsa.ntt512.inv.scalar");
}

#[test]
fn ntt512_pointwise() {
    run_clean("fndsa.ntt512.pointwise");
    run_clean("fndsa.ntt512.pointwise.scalar");
}

#[test]
fn ntt1024_fwd() {
    run_clean("fndsa.ntt1024.fwd");
    run_clean("fndsa.ntt1024.fwd.scalar");
}

#[test]
fn ntt1024_inv() {
    run_clean("fndsa.ntt1024.inv");
    run_clean("fndsa.ntt1024.inv.scalar");
}

#[test]
fn ntt1024_pointwise() {
    run_clean("fndsa.ntt1024.pointwise");
    run_clean("fndsa.ntt1024.pointwise.scalar");
}

/// Twelve C kernels (MVE and scalar: forward, inverse, pointwise at n = 512 and 1024) and the forward NTTs SLOTHY
/// scheduled for each core.
#[test]
fn all_twelve_kernels_and_four_schedules_are_registered() {
    let ids: Vec<&str> = registry::matching("fndsa.ntt*").iter().map(|k| k.id).collect();
    let (scheduled, c): (Vec<&str>, Vec<&str>) = ids.iter().partition(|id| id.contains(".slothy_"));
    assert_eq!(c.len(), 12, "{c:?}");
    assert_eq!(scheduled.len(), 4, "{scheduled:?}");
}

/// The MVE kernels compose: inv(pointwise(fwd(a), fwd(b))) is the negacyclic product a*b mod (X^n + 1, q), checked
/// against the schoolbook product, on the models (the models equal the object code by the tests above).
#[test]
fn models_compose_to_the_negacyclic_product() {
    use pqhelium_sim::fndsa_ntt as m;
    for logn in [9u32, 10] {
        let n = 1usize << logn;
        let a: Vec<i16> = (0..n).map(|i| ((i * 7919 + 13) % 24577) as i16 - 12288).collect();
        let b: Vec<i16> = (0..n).map(|i| ((i * i * 31 + 5) % 2001) as i16 - 1000).collect();
        let (mut fa, mut fb) = (a.clone(), b.clone());
        m::ntt_fwd(logn, &mut fa);
        m::ntt_fwd(logn, &mut fb);
        let mut c = m::pointwise(&fa, &fb);
        m::ntt_inv(logn, &mut c);
        let mut expected = vec![0i64; n];
        for i in 0..n {
            for j in 0..n {
                let p = i64::from(a[i]) * i64::from(b[j]);
                if i + j < n { expected[i + j] += p } else { expected[i + j - n] -= p }
            }
        }
        let got: Vec<i64> = c.iter().map(|&x| i64::from(x).rem_euclid(12289)).collect();
        let expected: Vec<i64> = expected.iter().map(|x| x.rem_euclid(12289)).collect();
        assert_eq!(got, expected, "n = {n}");
    }
}

/// The engine catches a wrong model: one flipped coefficient of the MVE forward model is reported on the first case,
/// as reference vs canon(model), on every backend.
#[test]
fn a_wrong_model_is_caught() {
    let broken = registry::variant("fndsa.ntt512.fwd", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("fndsa.ntt512.fwd").unwrap().expected(args);
            o.buffers[0][2 * 37] ^= 0x01;
            o
        })
    });
    for backend in [BackendKind::Model, BackendKind::Qemu] {
        let result = diff::run(&campaign(broken, backend, 200));
        let first = result.failures.first().unwrap_or_else(|| panic!("{backend}: the broken model went unnoticed"));
        assert_eq!(first.case, 0);
        assert!(!result.passed());
        let Failure::Mismatch { left, right, difference } = &first.failure else { panic!("{:?}", first.failure) };
        assert_eq!((*left, *right), ("reference", "canon(model)"), "{backend}");
        assert!(difference.place.starts_with("buffer 0, byte "), "{}", difference.place);
    }
}
