//! Property tests with proptest's own shrinking, beside the campaign engine: for every NTT kernel and every backend
//! it runs on, 1,000 inputs of int16 coefficients in [-8192, 8192] (inside every NTT contract's precondition) must
//! give canon(model) == reference and object code == model. A failure shrinks to a minimal coefficient vector.

use std::cell::RefCell;

use pqhelium_engine::diff;
use pqhelium_families::{self as registry, Kernel, case_rng};
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Limits};
use proptest::collection::vec;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

const CASES: u32 = 1_000;
const BOUND: i16 = 8192;

fn ntt_kernels() -> Vec<&'static Kernel> {
    let ntt_family = ["fndsa.ntt", "mlkem.ntt.", "mlkem.basemul", "mlkem.order."];
    registry::all().filter(|k| ntt_family.iter().any(|prefix| k.id.starts_with(prefix))).collect()
}

/// The kernel's arguments with every input buffer replaced by `buffers`, in order.
fn with_inputs(template: &[Arg], buffers: &[Vec<i16>]) -> Vec<Arg> {
    let mut next = buffers.iter();
    let mut fill = || next.next().expect("one vector per input buffer").iter().flat_map(|c| c.to_le_bytes()).collect();
    template
        .iter()
        .map(|arg| match arg {
            Arg::In(_) => Arg::In(fill()),
            Arg::InOut(_) => Arg::InOut(fill()),
            other => other.clone(),
        })
        .collect()
}

fn check(kernel: &'static Kernel, kind: BackendKind) {
    let template = kernel.generate(0, &mut case_rng(0, 0));
    let lengths: Vec<usize> = template
        .iter()
        .filter_map(|a| match a {
            Arg::In(b) | Arg::InOut(b) => Some(b.len() / 2),
            _ => None,
        })
        .collect();
    let strategy: Vec<_> = lengths.iter().map(|&n| vec(-BOUND..=BOUND, n)).collect();
    let backend: Option<RefCell<Box<dyn Backend>>> =
        (kind != BackendKind::Model).then(|| RefCell::new(kind.open(Limits::default()).expect("backend starts")));
    let config = Config { cases: CASES, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |buffers| {
        let args = with_inputs(&template, &buffers);
        let mut guard = backend.as_ref().map(RefCell::borrow_mut);
        match diff::check_case(kernel, kind, guard.as_deref_mut().map(|b| b.as_mut()), &args) {
            None => Ok(()),
            Some(failure) => Err(TestCaseError::fail(format!("{failure:?}"))),
        }
    });
    if let Err(e) = result {
        panic!("{} on {kind}: {e}", kernel.id);
    }
}

#[test]
fn every_ntt_kernel_on_every_backend() {
    let kernels = ntt_kernels();
    assert!(kernels.len() >= 20, "the NTT contracts are registered");
    for kernel in kernels {
        for kind in BackendKind::ALL.into_iter().filter(|&b| kernel.runs_on(b)) {
            check(kernel, kind);
        }
    }
}

#[test]
fn a_wrong_model_is_shrunk_by_proptest() {
    // Wrong only when coefficient 3 is odd: proptest must find it and shrink every other coefficient to zero.
    let broken = registry::variant("mlkem.ntt.fwd", |k| {
        k.model = Some(|args| {
            let mut o = registry::find("mlkem.ntt.fwd").unwrap().expected(args);
            let Arg::InOut(input) = &args[0] else { unreachable!() };
            if input[6] & 1 == 1 {
                o.buffers[0][0] ^= 1;
            }
            o
        })
    });
    let template = broken.generate(0, &mut case_rng(0, 0));
    let mut runner = TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() });
    let result = runner.run(&vec(-BOUND..=BOUND, 256), |coefficients| {
        let args = with_inputs(&template, &[coefficients]);
        match diff::check_case(broken, BackendKind::Model, None, &args) {
            None => Ok(()),
            Some(_) => Err(TestCaseError::fail("mismatch")),
        }
    });
    let Err(proptest::test_runner::TestError::Fail(_, minimal)) = result else { panic!("not caught: {result:?}") };
    let nonzero: Vec<usize> = (0..256).filter(|&i| minimal[i] != 0).collect();
    assert_eq!(nonzero, vec![3]);
    assert_eq!(minimal[3] & 1, 1);
}
